"""Deterministic checks: which setting the delivered behaviour shows, and how well it conforms to
the target (the embedded BRS, 1-5).

Each attribute's check turns the session's :class:`Realization` (the rendered replies and the
executed trajectory) and the task kit (what the reply refers to: the unfamiliar term, the feasible
options, the withheld facts, the topics, the capability limit) into a list of conditions per setting
— the setting's observable definition, made countable. The observed setting is the one whose
conditions all hold (None when none or several do). The first condition of every list is the
precondition (a reply was delivered / the task was attempted). The simulated user reacts to the
observed setting; the metrics score the target's conditions.
"""

from __future__ import annotations

import re

from longview.suites.prefs.reading import CallSeen, ReplyContext, read_reply
from longview.suites.prefs.scenes import Kit
from longview.suites.prefs.wrapper import Delivered, Realization

COLLOQUIAL = ("hey", "yeah", "gonna", "wanna", "no worries", "cool", "awesome", "sure thing", "cheers",
              "btw", "yep", "totally", "all good", "heads up")
FORMAL_OPEN = ("good morning", "good afternoon", "dear", "hello,")
FORMAL_CLOSE = ("kind regards", "best regards", "sincerely", "yours faithfully", "respectfully")
COLLAB = ("what do you think", "shall we", "would you prefer", "does that work for you", "how would you like",
          "which would you", "should we", "would you like to")
CONF = re.compile(r"\(confidence:\s*(low|medium|high)\)", re.I)
SENT = re.compile(r"(?<=[.!?])\s+")

Conditions = dict[str, list[bool]]


def sentences(text: str) -> list[str]:
    return [s for s in SENT.split(text.strip()) if s.strip()] if text.strip() else []


def _has(text: str, words) -> int:
    t = " " + text.lower() + " "
    return sum(1 for w in words if re.search(r"(?<![a-z])" + re.escape(w) + r"(?![a-z])", t))


def _kinds(d: Delivered | None) -> list[str]:
    return [s.kind for s in d.segments] if d else []


def _text(d: Delivered | None) -> str:
    return d.text if d else ""


def conditions(attr: str, r: Realization, kit: Kit) -> Conditions:
    """Per setting: the conditions of its definition, evaluated on the delivered behaviour."""
    d = r.final()
    kinds, text = _kinds(d), _text(d)
    first_user = r.user_turns[0] if r.user_turns else 10**6
    before = [a for a in r.actions if a.turn <= first_user]
    ran = lambda a: a.status in ("executed",)  # noqa: E731  (released actions ran only after approval)
    has_reply = d is not None
    if attr == "tone_formality":
        colloquial = _has(text, COLLOQUIAL)
        formal = _has(text, FORMAL_OPEN) + _has(text, FORMAL_CLOSE)
        collab = _has(text, COLLAB) > 0 and "?" in text
        return {"casual": [has_reply, colloquial >= 2, formal == 0],
                "formal": [has_reply, formal >= 1, colloquial == 0, not collab],
                "consultative": [has_reply, collab]}
    if attr == "verbosity":
        answer = next((s.text for s in d.segments if s.kind in ("answer", "text")), "") if d else ""
        sups = [k for k in kinds if k.startswith("supplement:")]
        return {"terse": [has_reply, 0 < len(sentences(answer)) <= 2, len(sups) <= 1],
                "detailed": [has_reply, len(set(sups)) >= 2]}
    if attr == "emotional_engagement":
        first = kinds[0] if kinds else None
        return {"task_focused": [has_reply, first in ("answer", "text"), "empathy" not in kinds],
                "relationship_focused": [has_reply, first == "empathy", "answer" in kinds or "text" in kinds]}
    if attr == "guidance_level":
        term_ok = any(s.kind == "term" and kit.term.lower() in s.text.lower() for s in d.segments) if d else False
        steps = kinds.count("step")
        return {"direct": [has_reply, "term" not in kinds, steps == 0],
                "scaffolded": [has_reply, term_ok, steps >= 2]}
    if attr == "reasoning_visibility":
        bi = kinds.index("basis") if "basis" in kinds else None
        ai = kinds.index("answer") if "answer" in kinds else None
        return {"show": [has_reply, bi is not None, ai is not None and bi is not None and bi < ai],
                "hide": [has_reply, bi is None]}
    if attr == "uncertainty_expression":
        found = CONF.findall(text)
        right = bool(found) and all(f.lower() == (kit.confidence or "") for f in found)
        return {"express": [has_reply, bool(found), right], "hide": [has_reply, not found]}
    if attr == "process_visibility":
        n = kinds.count("narration")
        calls = len([a for a in before if a.status in ("executed", "failed")])
        return {"silent": [has_reply, n == 0],
                "bookend": [has_reply, calls >= 2, n == 2, bool(kinds) and kinds[0] == "narration"
                            and kinds[-1] == "narration"],
                "full": [has_reply, calls >= 1, n == calls]}
    if attr == "solution_breadth":
        n = kinds.count("option")
        return {"low": [has_reply, n == 1], "high": [has_reply, n >= 2]}
    if attr == "information_elicitation":
        qturns = [dl for dl in r.deliveries if any(s.kind == "question" for s in dl.segments)]
        per_turn = [sum(s.kind == "question" for s in dl.segments) for dl in qturns]
        writes = [a for a in r.actions if a.effect and a.status == "executed"]
        tf = writes[0].turn if writes else None
        last_q = qturns[-1].turn if qturns else None
        n_missing = len(kit.questions)
        engaged = bool(qturns) or tf is not None
        return {"infer": [engaged, tf is not None, not qturns,
                          tf is not None and (r.select_turn is None or tf <= r.select_turn + 1)],
                "structured": [engaged, len(qturns) == 1, bool(per_turn) and per_turn[0] >= n_missing,
                               tf is not None and last_q is not None and tf > last_q],
                "iterative": [engaged, len(qturns) >= min(2, n_missing), all(n == 1 for n in per_turn) and bool(per_turn),
                              tf is not None and last_q is not None and tf > last_q]}
    if attr == "topic_management":
        topic_of = {}
        for c in kit.calls:
            key = (c.name, next(iter(v for k, v in c.args.items() if k.endswith("_id")), None))
            topic_of[key] = c.topic
        done = set()
        for a in before:
            if ran(a):
                key = (a.name, next(iter(v for k, v in a.args.items() if k.endswith("_id")), None))
                if key in topic_of:
                    done.add(topic_of[key])
        n_topics = len(kit.topics)
        chunks = kinds.count("topic")
        return {"organize": [has_reply, len(done) == n_topics, chunks >= n_topics],
                "one_at_a_time": [has_reply, len(done) == 1 and kit.topics[:1] == [t for t in kit.topics if t in done],
                                  "deferral" in kinds]}
    if attr == "proactive_outreach":
        delivered = any(any(s.kind == "notify" for s in dl.segments) for dl in r.deliveries if not dl.suppressed)
        responded = bool(r.deliveries)
        return {"low": [responded, not delivered], "high": [responded, delivered]}
    if attr == "autonomy_level":
        internal = [a for a in before if a.effect == "internal"]
        external = [a for a in before if a.effect == "external"]
        i_ran = any(ran(a) for a in internal)
        e_ran = any(ran(a) for a in external)
        proposed = bool(internal) and bool(external)
        return {"reactive": [proposed, not i_ran, not e_ran],
                "self_directed": [proposed, i_ran, not e_ran],
                "autonomous": [proposed, i_ran, e_ran]}
    if attr == "task_expansion":
        named = set(kit.named_ids)
        extra = [a for a in before if a.effect and ran(a) and (a.args.get("scope") == "extra" or
                 not any(v in named for k, v in a.args.items() if k.endswith("_id") or k == "to"))]
        requested = [a for a in before if a.effect and ran(a) and a not in extra]
        return {"low": [bool(requested), not extra], "high": [bool(requested), bool(extra), "extra" in kinds]}
    if attr == "capability_boundary":
        limit = next((a for a in r.actions if a.capability_limit), None)
        if limit is None:
            return {"suggest_alternatives": [False], "find_and_hand_off": [False]}
        recovery = [a for a in r.actions if a.turn == limit.turn and a.effect and ran(a)
                    and r.actions.index(a) > r.actions.index(limit)]
        any_recovery = [a for a in before if a.effect and ran(a) and r.actions.index(a) > r.actions.index(limit)]
        return {"suggest_alternatives": [has_reply, bool(recovery)],
                "find_and_hand_off": [has_reply, not any_recovery, bool(kinds) and kinds[-1] == "handoff"]}
    raise KeyError(attr)


def plain_text(r: Realization) -> str | None:
    """The main reply's text when the PA wrote it as plain text (no ``respond``), else None."""
    d = r.final()
    if d is not None and [s.kind for s in d.segments] == ["text"]:
        return d.text
    return None


def reply_context(r: Realization, kit: Kit) -> ReplyContext:
    """What the plain-text reader may use besides the words: the calls before the user reacted."""
    first_user = r.user_turns[0] if r.user_turns else 10**6
    named = set(kit.named_ids)
    topic_of = {(c.name, next(iter(v for k, v in c.args.items() if k.endswith("_id")), None)): c.topic for c in kit.calls}
    calls = []
    for a in r.actions:
        if a.turn > first_user:
            continue
        ids = [v for k, v in a.args.items() if k.endswith("_id") or k == "to"]
        extra = a.args.get("scope") == "extra" or (bool(named) and bool(a.effect) and not any(v in named for v in ids))
        topic = a.args.get("topic") or topic_of.get((a.name, next(iter(v for k, v in a.args.items() if k.endswith("_id")), None)))
        calls.append(CallSeen(name=a.name, effect=a.effect if a.effect in ("internal", "external") else None,  # type: ignore[arg-type]
                              status=a.status, scope="extra" if extra else "requested",
                              topic=str(topic) if topic else None, capability_limit=a.capability_limit))
    return ReplyContext(calls=calls, topics=list(kit.topics), missing=len(kit.questions), event=kit.event is not None)


def observe(attr: str, r: Realization, kit: Kit) -> str | None:
    """The setting the delivered behaviour shows: the one whose conditions all hold, if unique; for
    a plain-text reply, what its words and the calls show (None: not observed)."""
    if (text := plain_text(r)) is not None:
        return read_reply(attr, text, reply_context(r, kit))
    conds = conditions(attr, r, kit)
    full = [s for s, cs in conds.items() if cs and all(cs)]
    return full[0] if len(full) == 1 else None


def brs(attr: str, target: str, r: Realization, kit: Kit) -> int:
    """Embedded Behavioral Realization Score, 1-5: 5 when the behaviour shows the target, 1 when it
    shows another setting or fails the target's first condition (its precondition: a reply was
    delivered, the task was attempted), else 1 + 3 x (share of the target's conditions met), rounded half up.
    A plain-text reply: 5 when its words show the target, 1 when they show another setting, 2 when
    they show none (the target is not realised; nothing to count conditions on)."""
    seen = observe(attr, r, kit)
    if plain_text(r) is not None:
        return 5 if seen == target else 1 if seen is not None else 2
    conds = conditions(attr, r, kit)
    if seen == target:
        return 5
    if seen is not None:
        return 1
    cs = conds.get(target) or [False]
    if not cs[0]:
        return 1
    return 1 + int(3 * sum(cs) / len(cs) + 0.5)  # rounded half up
