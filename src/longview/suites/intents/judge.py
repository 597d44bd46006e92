"""The two judges of the two-stage user and the rubric judge, each embedded (deterministic) or a
model (the ``judge`` role).

* Satisfaction: which open intents has the agent already *done*? Embedded: the intent's own
  deterministic checks all pass (built-in data), or — imported tasks — a rule-script key that
  tests it is met by the session's tool calls (:mod:`longview.suites.intents.rule_evidence`). An
  intent with neither is *not judged* offline: what the agent says is never evidence of work.
  Model: the reply, the calls since the user last spoke (arguments and results) and the artifacts.
* Targeted question: which remaining intents does the reply ask about specifically? Embedded: one
  question sentence (ending in '?') covers most content words of the intent's question *and* is
  mostly about it (a question listing everything is about nothing in particular).
* Rubric: checklist items without a deterministic check. Embedded: the item's proxy check, or
  *not judged* (None). Model: the session's transcript, its tool calls with arguments and results,
  and the workspace and app state at the session's end (with what the session changed).

A model verdict that leaves an item out, or answers it in a form that cannot be read, counts that
item NO — as π-Bench's evaluator does — and the item is counted in ``missing`` (``judge_missing``
in the session record), never silently dropped. The intent judges retry a whole answer that is
not a verdict once; the rubric judge asks up to 5 times while an answer is unreadable or leaves
items out, keeping what it already read (π-Bench's evaluator). After that every item no answer gave
counts NO and is counted missing. With ``rubric_turns=each`` the rubric is graded per reply and an
item is met when any grading says so (:func:`merge_turns`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from longview.judges.base import LLMJudge, brief, parse_json
from longview.suites.intents.evidence import COLLECTIONS, Evidence, records, run_check
from longview.suites.intents.rule_evidence import RuleEvidence
from longview.suites.intents.schema import ChecklistItem, HiddenIntent
from longview.text import content_words, overlap

QUESTION_MIN = 0.6  # share of an intent's question words one question sentence must cover
QUESTION_FOCUS = 0.3  # share of that sentence's content words that must belong to the intent's question

SATISFACTION_PROMPT = """You judge a simulated user's hidden requirements against an assistant's latest work.
Input JSON: the user's profile, a list of open requirements (id, content), the assistant's latest reply,
the tool calls it made since the user last spoke, and the current artifacts (app records, files).
A requirement is met only if the reply, the calls or the artifacts already fulfil it concretely; a
question or a promise does not meet it. Answer with JSON only:
{"decisions": [{"id": "<id>", "yes": true|false, "reason": "<one short sentence>"}, ...]} with one entry per requirement."""

TARGETED_PROMPT = """You judge whether an assistant's latest reply asks the user specifically about hidden requirements.
Input JSON: the open requirements (id, content) and the reply. Answer yes for a requirement only when
the reply contains a question aimed at that specific missing detail; generic questions such as
"anything else?" do not count. Answer with JSON only:
{"decisions": [{"id": "<id>", "yes": true|false, "reason": "<one short sentence>"}, ...]} with one entry per requirement."""

RUBRIC_PROMPT = """You grade whether a finished assistant session meets each criterion.
Input JSON: the user's profile, the user's hidden requirements for this session, the criteria (id, text),
the conversation, every tool call of the session with its arguments and result, and the state at the
session's end: the app records, what the session added, changed or removed, and the workspace files
the session wrote or the task names. Credit a criterion only with concrete evidence there; when the
evidence is missing or ambiguous, answer no. Answer with JSON only:
{"decisions": [{"id": "<id>", "yes": true|false, "reason": "<one short sentence>"}, ...]} with one entry per criterion."""


def prompt_hashes() -> dict[str, str]:
    return {name: hashlib.sha256(text.encode()).hexdigest() for name, text in
            (("satisfaction", SATISFACTION_PROMPT), ("targeted", TARGETED_PROMPT), ("rubric", RUBRIC_PROMPT))}


class Decision(BaseModel):
    id: str = Field(description="Item id.")
    yes: bool = Field(description="Verdict.")
    reason: str = Field(default="", description="Why, in one sentence.")


class Decisions(BaseModel):
    decisions: list[Decision] = Field(description="One verdict per item.")


Labels = dict[str, bool | None]


# A sentence ends at . ! ? or ; followed by space and a capital, digit or quote (so "8:00 p.m. today"
# and "e.g. this" stay whole), or at a line break.
_BOUNDARY = re.compile(r"(?<=[.!?;])\s+(?=[A-Z0-9\"'(])|\n+")


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, stripped, in order."""
    return [x.strip() for x in _BOUNDARY.split(text or "") if x.strip()]


def question_sentences(reply: str) -> list[str]:
    """Sentences of ``reply`` that end with a question mark."""
    return [q for q in sentences(reply) if q.endswith("?") and q.strip(" ?")]


def embedded_satisfied(intent: HiddenIntent, ev: Evidence) -> bool | None:
    """Its deterministic checks all pass; None when it has none (rule evidence or a model decides)."""
    if intent.satisfied_by:
        return all(run_check(c, ev) for c in intent.satisfied_by)
    return None


def embedded_targeted(intent: HiddenIntent, reply: str) -> bool:
    """The reply's questions that are mostly about this intent (each: at least QUESTION_FOCUS of its
    content words are the intent's) together cover QUESTION_MIN of the intent's question words;
    several focused questions may share a long intent, one question listing everything elicits nothing."""
    want = content_words(intent.question or intent.content)
    if not want:
        return False
    covered: set[str] = set()
    for q in question_sentences(reply):
        have = content_words(q)
        if have and len(have & want) / len(have) >= QUESTION_FOCUS:
            covered |= have & want
    return overlap(covered, want) >= QUESTION_MIN


def reply_focused(intents: list[HiddenIntent], reply: str) -> bool:
    """Whether the reply's questions, taken together, are mostly about the session's intents (at
    least QUESTION_FOCUS of their content words are some intent's question words). A reply asking
    about everything it read, one short question per word, is not: without this its hundreds of
    one-word questions each looked focused and together covered intents by brute force (a probe
    knowing no intent elicited 0.52 of them on the built-in data, PROC 0.55)."""
    asked: set[str] = set()
    for q in question_sentences(reply):
        asked |= content_words(q)
    if not asked:
        return False
    want: set[str] = set()
    for i in intents:
        want |= content_words(i.question or i.content)
    return len(asked & want) / len(asked) >= QUESTION_FOCUS


@dataclass
class Verdicts:
    """One judge stage's answer for a set of items."""

    labels: Labels  # item id -> verdict (None: not judged)
    embedded: Labels = field(default_factory=dict)  # the embedded label where a model also judged
    reasons: dict[str, str] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)  # left out or unreadable: counted NO


def read_decisions(text: str | None, ids: list[str]) -> Verdicts:
    """A model answer as verdicts for ``ids``. An entry that is not ``{"id", "yes": bool}`` (or
    "yes"/"no"), or an id left out, counts NO and is listed in ``missing``; an answer that holds no
    ``decisions`` list at all is a ValueError (retried by the caller)."""
    try:
        raw = parse_json(text)
    except ValueError as err:
        raise ValueError(f"not JSON ({err}) in {brief(text)}") from None
    entries = raw.get("decisions") if isinstance(raw, dict) else None
    if not isinstance(entries, list):
        raise ValueError(f"no 'decisions' list in {brief(text)}")
    got: dict[str, bool] = {}
    reasons: dict[str, str] = {}
    for e in entries:
        if not isinstance(e, dict) or str(e.get("id")) not in ids or str(e.get("id")) in got:
            continue
        v = e.get("yes")
        if isinstance(v, str) and v.strip().lower() in ("yes", "no", "true", "false"):
            v = v.strip().lower() in ("yes", "true")
        if isinstance(v, bool):
            got[str(e["id"])] = v
            if isinstance(e.get("reason"), str):
                reasons[str(e["id"])] = e["reason"][:500]
    missing = [i for i in ids if i not in got]
    for i in missing:
        reasons[i] = "judge left it out or answered unreadably: counted NO"
    return Verdicts(labels={i: got.get(i, False) for i in ids}, reasons=reasons, missing=missing)


RUBRIC_ATTEMPTS = 5  # π-Bench's checklist evaluator asks up to 5 times (its DEFAULT_PARSE_RETRIES)


async def ask_decisions(model: LLMJudge, payload: dict[str, Any], ids: list[str], attempts: int = 2,
                        until_complete: bool = False) -> Verdicts:
    """Ask ``model`` up to ``attempts`` times while its answer holds no verdict at all or, with
    ``until_complete``, while items are still left out (verdicts already read are kept, as the
    release's evaluator keeps them); what no answer gave counts NO and is counted as missing."""
    faults: list[str] = []
    got: Verdicts | None = None
    for trial in range(attempts):
        text = await model.raw(payload, trial)
        try:
            v = read_decisions(text, ids)
        except ValueError as e:
            faults.append(str(e))
            continue
        if got is None:
            got = v
        else:
            for i in [i for i in got.missing if i not in v.missing]:
                got.labels[i], got.reasons[i] = v.labels[i], v.reasons.get(i, "")
                got.missing.remove(i)
        if not until_complete or not got.missing:
            return got
    if got is not None:
        return got
    why = f"no readable verdict in {attempts} answers: counted NO (" + " | ".join(faults)[:300] + ")"
    return Verdicts(labels={i: False for i in ids}, reasons={i: why for i in ids}, missing=list(ids))


def _cut(value: Any, limit: int) -> Any:
    """``value`` as is when its JSON is under ``limit`` characters, else its JSON text cut there."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return value if len(text) <= limit else text[:limit] + " …(cut)"


def _artifacts(ev: Evidence, limit: int = 6000, start: dict[str, list[dict[str, Any]]] | None = None) -> dict[str, Any]:
    """App records now (the moment ``ev`` was taken), what changed since ``start`` (the session's
    opening state), and the workspace files the agent wrote in scope plus the task's files_read."""
    now = {c: records(ev.state, c) for c in COLLECTIONS}
    out: dict[str, Any] = {"apps": {k: _cut(v, limit) for k, v in now.items() if v}}
    if start is not None:
        changes: dict[str, Any] = {}
        for c in COLLECTIONS:
            before = [json.dumps(r, sort_keys=True, default=str) for r in start.get(c, [])]
            after = [json.dumps(r, sort_keys=True, default=str) for r in now[c]]
            added = [json.loads(r) for r in after if r not in before]
            removed = [json.loads(r) for r in before if r not in after]
            if added or removed:
                changes[c] = {"added_or_changed": _cut(added, limit), "removed_or_changed": _cut(removed, limit)}
        out["changed_this_session"] = changes
        out["workspace_paths"] = sorted(ev.files)[:300]  # every file there at the session's end
    shown = sorted(ev.written | {p for p in ev.context_files if p in ev.files})
    out["files"] = {p: ev.files[p][:limit] for p in shown if p in ev.files}
    return out


def _calls(ev: Evidence, limit: int = 2000) -> list[dict[str, Any]]:
    return [{"name": c.name, "arguments": _cut(c.arguments, limit), "ok": c.ok, "result": _cut(c.output, limit)}
            for c in ev.calls]


class IntentJudges:
    """Satisfaction and targeted-question stages; embedded unless model judges are given.

    When both run, the embedded label (where there is one) is kept next to the model's for the
    agreement report; the model's label decides."""

    def __init__(self, satisfaction: LLMJudge | None = None, targeted: LLMJudge | None = None) -> None:
        self.satisfaction_model, self.targeted_model = satisfaction, targeted
        self.name = satisfaction.name if satisfaction else "embedded:checks+rules"

    def can_judge(self, intent: HiddenIntent, rule: RuleEvidence | None) -> bool:
        """Whether this intent's completion can be judged at all (else it is 'not judged')."""
        return (self.satisfaction_model is not None or bool(intent.satisfied_by)
                or (rule is not None and rule.testable(intent.id)))

    def embedded(self, intents: list[HiddenIntent], ev: Evidence, rule: RuleEvidence | None,
                 all_calls: list[Any] | None = None) -> Labels:
        labels: Labels = {i.id: embedded_satisfied(i, ev) for i in intents}
        rest = [i.id for i in intents if labels[i.id] is None]
        if rule is not None and rest:
            labels.update(rule.completed(rest, list(all_calls if all_calls is not None else ev.calls)))
        return labels

    async def satisfied(self, intents: list[HiddenIntent], reply: str, ev: Evidence, profile: str,
                        rule: RuleEvidence | None = None, all_calls: list[Any] | None = None) -> Verdicts:
        embedded = self.embedded(intents, ev, rule, all_calls)
        if self.satisfaction_model is None:
            return Verdicts(labels=embedded)
        payload = {"profile": profile, "requirements": [{"id": i.id, "content": i.content} for i in intents],
                   "reply": reply, "tool_calls": _calls(ev), "artifacts": _artifacts(ev)}
        v = await ask_decisions(self.satisfaction_model, payload, [i.id for i in intents])
        v.embedded = {k: e for k, e in embedded.items() if e is not None}
        return v

    async def targeted(self, intents: list[HiddenIntent], reply: str) -> Verdicts:
        focused = reply_focused(intents, reply)
        embedded: Labels = {i.id: focused and embedded_targeted(i, reply) for i in intents}
        if self.targeted_model is None:
            return Verdicts(labels=embedded)
        payload = {"requirements": [{"id": i.id, "content": i.content} for i in intents], "reply": reply}
        v = await ask_decisions(self.targeted_model, payload, [i.id for i in intents])
        v.embedded = embedded
        return v


def merge_turns(turns: list[Verdicts]) -> Verdicts:
    """Per-turn gradings as one: an item is met when any turn's grading says yes (π-Bench's merge).
    An item no turn met and some turn left out or garbled is ``missing`` (NO, and counted)."""
    ids = list(dict.fromkeys(k for v in turns for k in v.labels))
    out = Verdicts(labels={})
    for i in ids:
        yes = next((n for n, v in enumerate(turns, 1) if v.labels.get(i)), None)
        out.labels[i] = yes is not None
        if yes is not None:
            out.reasons[i] = f"turn {yes}: {turns[yes - 1].reasons.get(i, '')}".rstrip(": ")
        else:
            out.reasons[i] = turns[-1].reasons.get(i, "")
            if any(i in v.missing for v in turns):
                out.missing.append(i)
    return out


def rubric_payload(items: list[ChecklistItem], ev: Evidence, transcript: list[dict[str, Any]], profile: str,
                   intents: list[HiddenIntent] | None = None,
                   start: dict[str, list[dict[str, Any]]] | None = None) -> dict[str, Any]:
    """What a rubric judge model reads about ``ev`` — the whole session at its end (its calls, its
    state). Built for every judged session, model or not, and kept so a run can be judged again."""
    return {"profile": profile, "hidden_requirements": [i.content for i in intents or []],
            "criteria": [{"id": it.id, "text": it.text} for it in items],
            "conversation": transcript, "tool_calls": _calls(ev),
            "state_at_session_end": _artifacts(ev, start=start)}


class RubricJudge:
    """Checklist items without a deterministic check. ``per_turn``: grade the session as it stood
    after each reply and count an item met when any of those gradings says so (π-Bench's
    evaluator); otherwise one grading of the whole session at its end."""

    def __init__(self, model: LLMJudge | None = None, per_turn: bool = False) -> None:
        self.model, self.per_turn = model, per_turn
        self.name = (model.name + ("@each-turn" if per_turn else "")) if model else "embedded:proxy"

    async def grade(self, end: dict[str, Any], turns: list[dict[str, Any]]) -> Verdicts:
        """The model's verdicts on a session: on ``end`` alone, or per turn merged — the end graded
        too where it differs from the last turn (the session went on after its last reply; a session
        the assistant never replied in has only its end)."""
        if not self.per_turn:
            return await self.ask(end)
        graded = turns if turns and turns[-1] == end else [*turns, end]
        return merge_turns(list(await asyncio.gather(*(self.ask(t) for t in graded))))

    def embedded(self, items: list[ChecklistItem], ev: Evidence) -> Verdicts:
        """Each item's proxy check over ``ev``, or not judged (None) when it has none."""
        return Verdicts(labels={it.id: (run_check(it.proxy, ev) if it.proxy else None) for it in items})

    async def ask(self, payload: dict[str, Any]) -> Verdicts:
        """The model's verdicts on the criteria of a :func:`rubric_payload`."""
        if self.model is None:
            raise ValueError("RubricJudge.ask needs a judge model")
        ids = [str(c["id"]) for c in payload.get("criteria", [])]
        if not ids:
            return Verdicts(labels={})
        return await ask_decisions(self.model, payload, ids, attempts=RUBRIC_ATTEMPTS, until_complete=True)

    async def judge(self, items: list[ChecklistItem], ev: Evidence, transcript: list[dict[str, Any]],
                    profile: str, intents: list[HiddenIntent] | None = None,
                    start: dict[str, list[dict[str, Any]]] | None = None) -> Verdicts:
        """Verdicts over ``ev``: the model's when there is one, else the embedded proxies'."""
        if not items:
            return Verdicts(labels={})
        if self.model is None:
            return self.embedded(items, ev)
        return await self.ask(rubric_payload(items, ev, transcript, profile, intents, start))
