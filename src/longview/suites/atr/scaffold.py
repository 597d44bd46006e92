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


class Router(Protocol):
    name: str

    async def route(self, output: str, reason: str) -> RouteVerdict: ...


class Classifier(Protocol):
    name: str

    async def classify(self, span: str, rules: list[StandingRule]) -> str | None:
        """Return the matched rule id, or None when no rule covers and answers the question."""


# --- embedded Router -------------------------------------------------------------------------

# Phrases that make a question about the user's future/default behaviour rather than this task.
_FUTURE = re.compile(
    r"\b(in (the )?future|future|going forward|from now on|by default|default|in general|generally|"
    r"usually|always|next time|standing|whenever|every time|each time|as a rule|later sessions?|"
    r"from here on)\b",
    re.IGNORECASE,
)
# Recall of something already known is not an ask (App. B.2).
_RECALL = re.compile(r"\b(as you (said|mentioned|told me)|you (said|mentioned|told me) (earlier|before))\b", re.I)
_SENTENCE = re.compile(r"[^.!?\n]*\?")


class KeywordRouter:
    """Positive when a question sentence carries a future/default marker; span = that sentence."""

    name = "embedded:keyword-router@1"

    async def route(self, output: str, reason: str) -> RouteVerdict:
        # `reason` is auxiliary intent only; the visible text alone decides (App. C.1 review rule).
        for m in _SENTENCE.finditer(output):
            sent = m.group(0).strip()
            if _FUTURE.search(sent) and not _RECALL.search(sent):
                return RouteVerdict(is_rule_question=True, span=sent)
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


def words(text: str) -> set[str]:
    """Lower-cased content words with a light plural/verb-form fold."""
    out = set()
    for w in re.findall(r"[a-z]+", text.lower().replace("_", " ")):
        if w in _STOP or len(w) < 3:
            continue
        for suf in ("ings", "ing", "ies", "es", "s", "ed"):
            if w.endswith(suf) and len(w) - len(suf) >= 4:
                w = w[: -len(suf)] + ("y" if suf == "ies" else "")
                break
        out.add(w)
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

    name = "embedded:topic-classifier@1"

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
