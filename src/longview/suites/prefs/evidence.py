"""Did the agent's input at a probe hold evidence of the *other* context's preference?

Carry-over (App. F; docs/prefs.md) counts a selection of the other context's target only when the
agent could have taken it from there: when something the user said in the other context's sessions
of this attribute, pointing to that context's current target, reached the agent's input at the
probe (system prompt with the memory block, every message and tool result of the probe session,
and what a reference agent recalls internally). Sentences are matched verbatim after case and
whitespace folding, so a memory that paraphrases the user escapes the rule (carry-over is then a
lower bound; stores of raw messages and notes that quote the user are exact).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from longview.suites.prefs.user import APPROVE, Said

REACTIONS = ("mismatch", "consequence", "new_rule")
_SENT = re.compile(r"(?<=[.!?])\s+")
# Sentences every rule statement or approval shares: they say nothing about which preference.
_GENERIC = re.compile(r"^(that's how i'd like it from now on\b|yes, go ahead with it\.?$)")


def fold(text: str) -> str:
    return " ".join(text.lower().split())


def sentences(text: str) -> list[str]:
    out = []
    for s in _SENT.split(text.strip()):
        f = fold(s)
        if len(f.split()) >= 3 and not _GENERIC.match(f) and f != fold(APPROVE):
            out.append(f)
    return out


def evidence_sentences(said: Iterable[Said], scene_of: dict, context: str, attribute: str,
                       wanted: str, exclude_wanted: str) -> set[str]:
    """Sentences the user said reacting in (context, attribute) sessions while wanting ``wanted``,
    minus any also said while wanting ``exclude_wanted`` (a line that fits both says neither)."""
    pro: set[str] = set()
    con: set[str] = set()
    for s in said:
        sc = scene_of.get(s.sid)
        if sc is None or s.trigger not in REACTIONS or sc.attribute != attribute or s.wanted is None:
            continue
        if sc.context == context and s.wanted == wanted:
            pro.update(sentences(s.text))
        elif s.wanted == exclude_wanted:
            con.update(sentences(s.text))
    return pro - con


def held(evidence: set[str], agent_input: str) -> bool:
    text = fold(agent_input)
    return any(e in text for e in evidence)
