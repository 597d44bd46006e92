"""The Router → Classifier scaffold (paper 000, App. B.2) and its embedded deterministic defaults.

The Router decides whether a user-facing message asks a standing-rule question (about future or
default behaviour) and extracts the question span verbatim; the Classifier maps a span to one rule
of the persona's pool or to none. Both are swappable: the embedded implementations below need no
model, and LLM implementations plug in through the same two protocols.
"""

from __future__ import annotations

import re
from typing import Protocol

from pydantic import BaseModel, Field

from longview.suites.atr.dataset import StandingRule


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

_STOP = set(
    """a an the and or of for to in on at by with about from your you my me i we our is are be do does
    did any there that this these those what which how when where should would could can will it its
    as if into than then so such prefer preference preferences standing rule rules default defaults
    future usually always generally general next time going forward now way tasks task things thing
    want like have has please ok okay just also more most kind type choice choose option options
    whenever every each something anything handle handling set up""".split()
)


def _stem(w: str) -> str:
    """A light, consistent fold so singular/plural and -ing/-ed forms meet."""
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("sses", "xes", "ches", "shes", "zes")):
        return w[:-2]
    if w.endswith("s") and not w.endswith(("ss", "us", "is")) and len(w) > 3:
        w = w[:-1]
    for suf in ("ing", "ed"):
        if w.endswith(suf) and len(w) - len(suf) >= 4:
            return w[: -len(suf)]
    return w


def words(text: str) -> set[str]:
    """Lower-cased content words with a light plural/verb-form fold."""
    out = set()
    for w in re.findall(r"[a-z]+", text.lower().replace("_", " ")):
        if w in _STOP or len(w) < 3:
            continue
        out.add(_stem(w))
    return out


def topic_words(rule: StandingRule) -> set[str]:
    """Words naming the rule's decision surface: its topic, else its tool binding."""
    if rule.topic:
        return words(rule.topic)
    names = [rule.action_step.tool] + ([rule.action_step.param] if rule.action_step.param else [])
    return words(" ".join(names)) - {"get", "user", "confirmation", "id", "ids"}


class TopicClassifier:
    """Hit when the question names a rule's topic; ties broken by overlap with the rule text.

    A rule is a candidate only if at least half of its topic words (and at least one) occur in the
    question span; among candidates the one with the largest topic+text overlap wins, earlier rule
    first on ties. Deterministic, so its precision/recall can be calibrated like an LLM's.
    """

    name = "embedded:topic-classifier@2"

    async def classify(self, span: str, rules: list[StandingRule]) -> str | None:
        q = words(span)
        best: tuple[float, int] | None = None
        best_id = None
        for i, r in enumerate(rules):
            tw = topic_words(r)
            hit = len(tw & q)
            if not tw or hit == 0 or hit * 2 < len(tw):
                continue
            score = (hit / len(tw) * 10 + len(words(r.rule_text) & q), -i)
            if best is None or score > best:
                best, best_id = score, r.rule_id
        return best_id
