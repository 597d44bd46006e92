"""One text normaliser for every embedded (deterministic) component: tokens, stop words, a light
stemmer. Routers, classifiers, judges and retrievers share it, so "drafts"/"drafting"/"draft"
meet the same way everywhere."""

from __future__ import annotations

import re
from functools import lru_cache

STOP = frozenset(
    """a an the and or but if then than so of to in on at by for with from into over about as is are was
    were be been being do does did done have has had having it its this that these those there here i me my
    mine we our you your yours he she they them their his her what which who whom when where why how not no
    yes can could should would will shall may might must am up down out off again further once very too
    any all both few some such only own same other just also more most
    want like please ok okay kind type choice choose option options whenever every each something anything
    handle handling set""".split()
)
# Words every standing-rule question or statement uses, whatever it is about ("in the future, do
# you usually prefer ... by default?"): they say *that* something is a standing preference, never
# *which* decision it is, so matchers drop them along with STOP.
RULE_TALK = frozenset(
    """prefer preferred preference preferences standing rule rules default defaults future usually
    always generally general normally typically next time times going forward now way task tasks thing
    things would like want wants rather instead just also often each every whenever automatically
    sure okay fine usual moment ahead""".split()
)
_WORD = re.compile(r"[a-z0-9]+")


@lru_cache(maxsize=65536)
def stem(w: str) -> str:
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


def tokens(text: str) -> list[str]:
    """Lower-cased alphanumeric tokens in order (underscores split words: send_message -> send message)."""
    return _WORD.findall(text.lower().replace("_", " "))


def content_words(text: str, stop: frozenset[str] = STOP, min_len: int = 3) -> set[str]:
    """Stemmed content words: tokens minus stop words and very short tokens."""
    return {stem(w) for w in tokens(text) if w not in stop and len(w) >= min_len and not w.isdigit()}


def overlap(a: set[str], b: set[str]) -> float:
    """Share of ``b`` found in ``a`` (0 when ``b`` is empty)."""
    return len(a & b) / len(b) if b else 0.0
