"""The Router → Classifier scaffold (ATRBench, App. B.2) and its embedded deterministic defaults.

The Router decides whether a user-facing message asks a standing-rule question (about future or
default behaviour) and extracts the question span verbatim; the Classifier maps a span to one rule
of the persona's pool or to none. Both are swappable: the embedded implementations below need no
model, and LLM implementations plug in through the same two protocols.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Protocol

from pydantic import BaseModel, Field

from longview.suites.atr.dataset import StandingRule
from longview.suites.atr.slots import asks_about, cue_free, slot
from longview.text import RULE_TALK, STOP, content_words


class RouteVerdict(BaseModel):
    """The Router's decision on one user-facing message."""

    is_rule_question: bool = Field(description="True iff the message asks a standing-rule question.")
    span: str | None = Field(default=None, description="Verbatim question span on positives.")
    verbatim: bool = Field(
        default=True, description="False when the span is not found in the message (kept, and recorded)."
    )


class Router(Protocol):
    name: str

    async def route(self, output: str, reason: str) -> RouteVerdict: ...


class Classifier(Protocol):
    name: str

    async def classify(self, span: str, rules: list[StandingRule]) -> str | None:
        """Return the matched rule id, or None when no rule covers and answers the question."""


# --- embedded Router -------------------------------------------------------------------------

# Phrases that make a sentence about the user's future/default behaviour rather than this task:
# time markers, habits, automation (a standing rule that something happens without asking), a
# habitual preference ("do you have a preferred ...") and a class of cases ("trips like this").
_FUTURE = re.compile(
    r"\b(in (the )?future|future|going forward|moving forward|from now on|from here on|by default|default|"
    r"in general|generally|usually|usual|normally|typically|always|next time|standing|whenever|every time|"
    r"each time|as a rule|rule of thumb|go-to|stick with|later sessions?|"
    r"automatically|periodically|regularly|routinely|"
    r"(do|if) you have (a|any) (preferred|general|standard|usual|favou?rite)|(a|any) (general|standing) preference|"
    r"\w{3,}s like (this|these))\b",
    re.IGNORECASE,
)
# Markers strong enough to outweigh a mention of the current task ("for this trip, and in future...")
# or of what the user said before ("since you mentioned X, for future files, ...").
_STRONG_FUTURE = re.compile(r"\b(in (the )?future|future|going forward|moving forward|from now on|from here on|"
                            r"next time|as a rule)\b", re.I)
# Recall of something already known is not an ask (App. B.2).
_RECALL = re.compile(
    r"\b(as you (said|mentioned|told me)|you (said|mentioned|told me)|last time you|you('ve| have) told me|"
    r"since you (usually|generally|always|normally)|based on your)\b",
    re.I,
)
# The sentence is about the task at hand.
_CURRENT = re.compile(r"\b(this (order|trip|thread|stay|search|one|booking|call|time|flight|reservation|appointment|"
                      r"meeting|event|email|message|draft|file|document|item)|for (today|tonight|tomorrow))\b", re.I)
# Invitations that ask without a question mark ("let me know if you usually...").
_INVITE = re.compile(r"\b(let me know|tell me|say the word|i'd love to know|i wonder|is it safe to assume)\b", re.I)
# Quoted text is content the agent proposes to send or names, not a question to the user: quotes are
# paired left to right; those of 10+ characters, and block quotes, are blanked before sentences are
# read (in place, so a span is cut from the message itself, quotes and all).
_QUOTE = re.compile(r"\"[^\"\n]*\"|\u201c[^\u201d\n]*\u201d|(?<![A-Za-z])'[^'\n]{15,}'(?![A-Za-z])|(^|\s)>[^?]*\?")
_ABBREV = re.compile(r"\b(e\.g|i\.e|etc|Ms|Mr|Mrs|Dr|vs)\.")
# A sentence runs to its end mark and any closing bracket, quote or bold mark right after it.
_CLOSING = ")]\"'\u201d\u2019*"
_SENTENCE = re.compile(rf"[^.!?\n]+(?:[.!?]+[{re.escape(_CLOSING)}]*)?")
_BLANK = "\x01"  # stands for a masked character; never sentence punctuation


def _masked(text: str) -> str:
    """``text`` with long quotes blanked and abbreviation dots protected, character for character."""
    out = list(text)
    for m in _QUOTE.finditer(text):
        if m.group(0).startswith(("\"", "\u201c")) and len(m.group(0)) < 12:
            continue  # a short quote names a thing ("Pending"), its words stay readable
        out[m.start():m.end()] = _BLANK * (m.end() - m.start())
        if m.group(0)[-2:-1] in (".", "!", "?"):  # a quote that ends a sentence still ends it
            out[m.end() - 2:m.end()] = m.group(0)[-2:]
    for m in _ABBREV.finditer(text):  # every dot of "e.g."
        for i in range(m.start(), m.end()):
            out[i] = _BLANK if text[i] == "." else out[i]
    return "".join(out)


def _sentences(text: str) -> list[tuple[str, str]]:
    """(sentence as read, sentence verbatim from ``text``) for each sentence, long quotes blanked in
    the first."""
    masked = _masked(text)
    out = []
    for m in _SENTENCE.finditer(masked):
        read = m.group(0).replace(_BLANK, " ")
        if read.strip():
            lead = len(m.group(0)) - len(m.group(0).lstrip())
            out.append((read.strip(), text[m.start() + lead:m.end()].rstrip()))
    return out


class KeywordRouter:
    """Positive when a question (or an explicit invitation to answer) carries a future/default
    marker and is neither a recall nor about the current task (unless a strong future marker says
    it is about later too), quoted text aside; span = that sentence verbatim."""

    name = "embedded:keyword-router@3"

    async def route(self, output: str, reason: str) -> RouteVerdict:
        # `reason` is auxiliary intent only; the visible text alone decides (App. C.1 review rule).
        span = _question_span(output)
        return RouteVerdict(is_rule_question=span is not None, span=span)


@lru_cache(maxsize=4096)  # reference agents say the same words in every cell of a persona
def _question_span(output: str) -> str | None:
    for sent, verbatim in _sentences(output):
        asks = sent.rstrip(_CLOSING).endswith("?") or bool(_INVITE.search(sent))
        if not asks or not _FUTURE.search(sent):
            continue
        if (_RECALL.search(sent) or _CURRENT.search(sent)) and not _STRONG_FUTURE.search(sent):
            continue
        return verbatim
    return None


# --- embedded Classifier ---------------------------------------------------------------------

_STOPS = STOP | RULE_TALK


@lru_cache(maxsize=65536)
def words(text: str) -> frozenset[str]:
    """Content words of ``text`` (the shared normaliser), minus the words every rule talk uses.
    Cached: every question is matched against the same few hundred rule texts."""
    return frozenset(content_words(text or "", _STOPS))


# Fields next to a rule's decision that a question may ask about and the rule does not answer
# (the release's reviewers: tracking defaults, content style, search/sort strategy, timing, price
# and place details are not sufficient for a hit). Each group is one field in its several words; a
# question naming a field that its rule never mentions (in any of the field's words) is a miss.
FIELDS: tuple[frozenset[str], ...] = tuple(words(g) for g in (
    "track tracking", "notify notification alert", "sort", "filter", "tone style wording", "sign signoff",
    "format", "subject title", "name", "priority label", "deadline", "minute hour duration", "location",
    "calendar", "shipping", "speed", "rating rated", "closest distance", "time", "weekend", "evening",
    "price cost cheap cheaper cheapest budget affordable expensive lowest", "archive", "search",
    "summary summarize highlight", "duplicate",
))
# A question that asks to carry a behaviour already in place over to another case ("... too?",
# "... as well", "that same review process", "similar to your rule for ...") asks about a case the
# rule does not settle: whether a rule extends is the user's new decision, not the rule's.
_EXTENSION = re.compile(
    r"\b(that|this) same\b|\bsimilar to\b|\bapply (that|this|it|the same)\b|\bas well\b(?! as)"
    r"|\btoo\b(?=\s*(?:[?.!,;)]|$))",
    re.I,
)
# An open ask that names an object and nothing else ("how would you like me to handle restaurant
# reservations?", "when you buy coffee, is there anything I should look for?") proposes no option and
# names no field: whatever the user prefers for that object answers it, so the one rule whose object
# it names most fully is the hit. A question that lists options is not open.
_OPEN_ASK = re.compile(r"\bhow (would|do|should) you (like|want)\b|\bhow you'?d like me to\b|\bis there anything\b", re.I)
_OPTIONS = re.compile(r"\b(or|such as|e\.g|i\.e|for example|for instance)\b", re.I)
# Opposite spheres a rule's scope can be drawn in (whom or what it is for). A question scoped to one
# sphere, about a rule scoped only to the opposite one, asks about people the rule does not cover.
SPHERES: tuple[tuple[frozenset[str], frozenset[str]], ...] = (
    (words("personal family friend casual social informal private"),
     words("work professional business formal client customer job office")),
    (words("internal team colleague coworker staff"), words("outside external client customer public")),
)
# Tool-name words that say nothing about which object a rule is about.
_GENERIC_TOOL = words("get user confirmation set create book update place search list")
# Undoing an object is the opposite action to making it: a question about cancelling an order is
# not about which product to order.
_UNDO = words("cancel delete remove")
# A leading trigger clause ("For grocery orders, ..." / "When I dine out, ...") names the situation;
# what follows is the behaviour the rule prefers.
_TRIGGER = re.compile(r"^\s*(for|when|if|on|at|with|whenever|in)\b[^,]*,\s*", re.I)


def _behaviour(text: str) -> str:
    return _TRIGGER.sub("", text or "", count=1)


def rule_words(rule: StandingRule) -> frozenset[str]:
    """Everything the rule says: its statement (canonical answer), description and topic."""
    return words(rule.canonical_answer) | words(rule.rule_text) | words(rule.topic or "")


def object_words(rule: StandingRule) -> frozenset[str]:
    """Words naming the object the rule's tool acts on (the confirmed tool for confirm rules)."""
    tool = rule.action_step.tool
    if tool == "get_user_confirmation":
        tool = rule.action_step.param or ""
    return words(tool) - _GENERIC_TOOL


# A rule's word sets, derived once per rule object (every question of an episode is matched
# against the same pool): id -> (the rule, what it says, its preferred behaviour, its object). The
# rule is kept, so its id cannot be reused while cached.
_Profile = tuple[StandingRule, frozenset[str], frozenset[str], frozenset[str]]
_PROFILES: dict[int, _Profile] = {}


def _profile(r: StandingRule) -> _Profile:
    p = _PROFILES.get(id(r))
    if p is None or p[0] is not r:
        if len(_PROFILES) >= 65536:
            _PROFILES.clear()
        behaviour = words(_behaviour(r.canonical_answer)) | words(_behaviour(r.rule_text))
        p = _PROFILES[id(r)] = (r, rule_words(r), behaviour, object_words(r))
    return p


class DecisionClassifier:
    """Hit only when the question's decision is the one the rule's statement settles; a miss
    otherwise (a wrong hit puts an answer the user never gave into the context, a miss costs one
    question, so it prefers a miss to a guess).

    A question that asks to extend a behaviour already in place to another case ("... too?", "as
    well", "that same process", "similar to your rule for ...") is a miss whatever the pool. Otherwise
    a rule is a candidate when the question (1) names the object its tool acts on, (2) shares at
    least three words with what the rule says, at least two of them words of the rule's preferred
    behaviour (its statement after any leading trigger clause) that no other rule in the pool uses,
    (3) asks about no adjacent field the rule never mentions (tracking, tone, timing, price, search,
    summary, duplicates, place...) and (4) is not scoped to the sphere opposite the rule's (personal
    vs work, internal vs external people). Among candidates the one with the largest pool-weighted
    overlap wins; a tie is a miss. With no candidate, a question that asks the decision slot of a rule
    (:mod:`slots`: every word of the rule's object and its decision — approval first, the enum
    parameter or two of its values, which one to pick — in any words) hits that rule, when all such
    rules are on one tool (v5: the reworded asks of an agent that asks the right question were
    misses). Failing that, an open ask that lists no options ("how would you like me to handle X?")
    hits the one rule whose object (tool, else topic) it names most fully. Deterministic, so it can
    be calibrated like a model.
    """

    name = "embedded:decision-classifier@5"

    async def classify(self, span: str, rules: list[StandingRule]) -> str | None:
        return self.decide(span, rules)

    @staticmethod
    def decide(span: str, rules: list[StandingRule]) -> str | None:
        if _EXTENSION.search(span):
            return None
        q = words(span)
        profiles = [_profile(r) for r in rules]
        said = {r.rule_id: has for r, has, _, _ in profiles}
        df: dict[str, int] = {}
        for ws in said.values():
            for w in ws:
                df[w] = df.get(w, 0) + 1
        scored: list[tuple[float, str]] = []
        for r, _, prefers, objects in profiles:
            has = said[r.rule_id]
            shared = q & has
            behaviour = q & prefers
            # the object itself, not only the action ("cancel" a flight is not "cancel" a subscription)
            if objects and (not q & ((objects - _UNDO) or objects) or _opposite_action(q, r)):
                continue
            if len(shared) < 3 or sum(df[w] == 1 for w in behaviour) < 2:
                continue
            if other_field(q, has) or other_sphere(q, has):
                continue
            scored.append((sum(1 / df[w] for w in shared), r.rule_id))
        if not scored:
            scored = _slot_candidates(span, q, profiles)
        if not scored and _OPEN_ASK.search(span) and not _OPTIONS.search(span):
            scored = [(len(q & ((objects - _UNDO) or words(r.topic or ""))), r.rule_id)
                      for r, _, _, objects in profiles
                      if not other_sphere(q, said[r.rule_id]) and not (objects and _opposite_action(q, r))]
            scored = [t for t in scored if t[0] > 0]
        return _best(scored)


def _slot_candidates(span: str, q: frozenset[str], profiles: list[_Profile]) -> list[tuple[float, str]]:
    """Rules whose decision slot the question asks about (see :mod:`slots`): it names every word of
    the rule's object and the decision itself, no adjacent field the rule leaves open (the slot's own
    words aside) and not the opposite sphere. The object named most fully wins (a question about
    cancelling a hotel booking names more of that slot than of booking a hotel); a question about
    undoing (cancel, delete) is not about a tool that makes, and one naming the objects of several
    tools is answered by none of their rules alone (a miss)."""
    out: list[tuple[float, str, str]] = []
    rest = words(cue_free(span))  # "what sort of" asks a selection, not about sorting
    named_tools: set[frozenset[str]] = set()  # tools of the pool whose object the question names
    for r, has, _, _ in profiles:
        s = slot(r)
        if s is None:
            continue
        tool = words(s.tool.replace("_", " "))
        obj = tool - _GENERIC_TOOL
        if not obj or not obj <= q:
            continue
        named_tools.add(tool)
        if _opposite_action(q, r):
            continue
        asked, named = asks_about(s, span, q, words)
        if not asked or other_field(rest - tool - named, has) or other_sphere(q, has):
            continue
        out.append((len(tool & q) + len(named), r.rule_id, s.tool))
    # One question about several tools' objects is not answered by any one rule (a tool whose object
    # is part of the asked one's, "book hotel" in "cancel hotel booking", is the same object).
    tools = {t for _, _, t in out}
    if len(tools) != 1:
        return []
    about = words(tools.pop().replace("_", " "))
    return [] if any(not t <= about for t in named_tools) else [(score, rid) for score, rid, _ in out]


def _opposite_action(q: frozenset[str], r: StandingRule) -> bool:
    """The question undoes (cancel, delete) what the rule's tool makes, or the other way round."""
    tool = r.action_step.param if r.action_step.tool == "get_user_confirmation" else r.action_step.tool
    return bool(q & _UNDO) != bool(words((tool or "").replace("_", " ")) & _UNDO)


def _best(scored: list[tuple[float, str]]) -> str | None:
    """The top-scoring rule id; none, or a tie at the top, is a miss."""
    scored = sorted(scored, key=lambda t: -t[0])
    if not scored or (len(scored) > 1 and scored[0][0] - scored[1][0] < 1e-9):
        return None
    return scored[0][1]


def other_field(q: frozenset[str], said: frozenset[str]) -> bool:
    """The question names a field next to the decision that the rule never mentions."""
    return any(q & f and not said & f for f in FIELDS)


def other_sphere(q: frozenset[str], said: frozenset[str]) -> bool:
    """The question is scoped to one sphere and the rule only to the opposite one."""
    return any(
        (q & a and not q & b and said & b and not said & a) or (q & b and not q & a and said & a and not said & b)
        for a, b in SPHERES
    )


# The embedded default under its historical import name.
TopicClassifier = DecisionClassifier
