"""The Router → Classifier scaffold (paper 000, App. B.2) and its embedded deterministic defaults.

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

# Phrases that make a sentence about the user's future/default behaviour rather than this task.
_FUTURE = re.compile(
    r"\b(in (the )?future|future|going forward|from now on|from here on|by default|default|in general|"
    r"generally|usually|usual|normally|typically|always|next time|standing|whenever|every time|each time|"
    r"as a rule|rule of thumb|go-to|stick with|later sessions?)\b",
    re.IGNORECASE,
)
# Markers strong enough to outweigh a mention of the current task ("for this trip, and in future...").
_STRONG_FUTURE = re.compile(r"\b(in (the )?future|future|going forward|from now on|from here on|next time|as a rule)\b", re.I)
# Recall of something already known is not an ask (App. B.2).
_RECALL = re.compile(
    r"\b(as you (said|mentioned|told me)|you (said|mentioned|told me)|last time you|you('ve| have) told me|"
    r"since you (usually|generally|always|normally)|based on your)\b",
    re.I,
)
# The sentence is about the task at hand.
_CURRENT = re.compile(r"\b(this (order|trip|thread|stay|search|one|booking|call|time)|for (today|tonight|tomorrow))\b", re.I)
# Invitations that ask without a question mark ("let me know if you usually...").
_INVITE = re.compile(r"\b(let me know|tell me|say the word|i'd love to know|i wonder|is it safe to assume)\b", re.I)
# Quoted drafts and block quotes are content the agent proposes to send, not questions to the user.
_QUOTED = re.compile(r"\"[^\"]{10,}\"|\u201c[^\u201d]{10,}\u201d|(?<![A-Za-z])'[^']{15,}'(?![A-Za-z])|(^|\s)>[^?]*\?")
_ABBREV = re.compile(r"\b(e\.g|i\.e|etc|Ms|Mr|Mrs|Dr|vs)\.")
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")


def _sentences(text: str) -> list[str]:
    # Protect abbreviation dots so "e.g." does not end a sentence; restore them in the span.
    masked = _ABBREV.sub(lambda m: m.group(0).replace(".", "\0"), text)
    return [m.group(0).replace("\0", ".").strip() for m in _SENTENCE.finditer(masked) if m.group(0).strip()]


class KeywordRouter:
    """Positive when a question (or an explicit invitation to answer) carries a future/default
    marker and is neither a recall, a quoted draft, nor about the current task; span = that
    sentence verbatim."""

    name = "embedded:keyword-router@2"

    async def route(self, output: str, reason: str) -> RouteVerdict:
        # `reason` is auxiliary intent only; the visible text alone decides (App. C.1 review rule).
        visible = _QUOTED.sub(" ", output)
        for sent in _sentences(visible):
            asks = sent.endswith("?") or bool(_INVITE.search(sent))
            if not asks or not _FUTURE.search(sent) or _RECALL.search(sent):
                continue
            if _CURRENT.search(sent) and not _STRONG_FUTURE.search(sent):
                continue
            span = sent.strip("* ")
            return RouteVerdict(is_rule_question=True, span=span if span in output else sent)
        return RouteVerdict(is_rule_question=False)


# --- embedded Classifier ---------------------------------------------------------------------

_STOPS = STOP | RULE_TALK


@lru_cache(maxsize=65536)
def words(text: str) -> frozenset[str]:
    """Content words of ``text`` (the shared normaliser), minus the words every rule talk uses.
    Cached: every question is matched against the same few hundred rule texts."""
    return frozenset(content_words(text or "", _STOPS))


# Fields next to a rule's decision that a question may ask about and the rule does not answer
# (the release's reviewers: tracking defaults, content style, search/sort strategy, timing and
# place details are not sufficient for a hit). A question naming one that its rule never mentions
# is a miss.
ADJACENT = words(
    "track tracking notify notification alert sort filter tone style sign signoff format wording subject "
    "title name priority label deadline minute hour duration location calendar shipping speed budget "
    "rating closest distance time weekend evening"
)
# Tool-name words that say nothing about which object a rule is about.
_GENERIC_TOOL = words("get user confirmation set create book update place search list")
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


class DecisionClassifier:
    """Hit only when the question's decision is the one the rule's statement settles; a miss
    otherwise (a wrong hit puts an answer the user never gave into the context, a miss costs one
    question, so it prefers a miss to a guess).

    A rule is a candidate when the question (1) names the object its tool acts on, (2) shares at
    least three words with what the rule says, at least two of them words of the rule's preferred
    behaviour (its statement after any leading trigger clause) that no other rule in the pool uses,
    and (3) asks about no adjacent field the rule never mentions (tracking, tone, timing, sorting,
    place...). Among candidates the one with the largest pool-weighted overlap wins; a tie is a miss.
    Deterministic, so it can be calibrated like a model.
    """

    name = "embedded:decision-classifier@3"

    async def classify(self, span: str, rules: list[StandingRule]) -> str | None:
        return self.decide(span, rules)

    @staticmethod
    def decide(span: str, rules: list[StandingRule]) -> str | None:
        q = words(span)
        said = {r.rule_id: rule_words(r) for r in rules}
        df: dict[str, int] = {}
        for ws in said.values():
            for w in ws:
                df[w] = df.get(w, 0) + 1
        scored: list[tuple[float, str]] = []
        for r in rules:
            shared = q & said[r.rule_id]
            behaviour = q & (words(_behaviour(r.canonical_answer)) | words(_behaviour(r.rule_text)))
            objects = object_words(r)
            if objects and not q & objects:
                continue
            if len(shared) < 3 or sum(df[w] == 1 for w in behaviour) < 2 or (q & ADJACENT) - said[r.rule_id]:
                continue
            scored.append((sum(1 / df[w] for w in shared), r.rule_id))
        scored.sort(key=lambda t: -t[0])
        if not scored or (len(scored) > 1 and scored[0][0] - scored[1][0] < 1e-9):
            return None
        return scored[0][1]


# The embedded default under its historical import name.
TopicClassifier = DecisionClassifier
