"""The decision slot a standing rule pins, read from where it lands in the public tool ontology.

The embedded Classifier's word-overlap route needs the question to share the rule's own words, so
an agent asking the right question in other words ("should I run it past you first?" for a rule
saying "check with me before...") missed. This route asks instead whether the question is about the
rule's *slot*: it names the object the rule's tool acts on (every word of it, so "book a hotel" is
not "cancel a hotel booking") and the decision the rule settles on that tool, in the ontology's
terms: approval first (confirm rules), the enum parameter or one of its values (param_enum), which
object to pick (param_id), which of a tool's alternatives to use (tool_identity). A rule whose slot
the question asks about answers it whatever its wording (ATRBench's Classifier: the wording need
not match, one listed option being the rule's behaviour is a fit). Only the rule's binding (tool,
parameter) is read, never its answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from longview.suites.atr.dataset import StandingRule

# The question offers that the user sees the action before it happens (the decision every confirm
# rule settles): a phrase of assent ("your go-ahead", "run it past you"), or the user as the one
# who approves, reviews or confirms, together with a word placing that before the action.
APPROVAL = re.compile(
    r"\b(approv\w*|sign(ing)?[- ]off|go[- ]ahead|say-so|green light|final (word|say|okay|ok)|"
    r"(check|checking|run|running|clear|clearing|confirm|confirming)( \w+)? (in )?(with|past|by) you|"
    r"ask(ing)? you (first|before)|(wait|hold off) (for|until) your?)\b|\b(your|an?) (ok|okay)\b",
    re.I,
)
_ASSENT = re.compile(r"\byou(\'ve|\'d| have| would| to| can)?( \w+)? (review|confirm|check|see|look at|look over|"
                     r"decide|say|ok|okay)\w*\b", re.I)
_PRIOR = re.compile(r"\b(first|before|beforehand|until|prior)\b", re.I)
# The question asks which one to pick (the decision of param_id and tool_identity rules): an
# interrogative of kind, a verb of choosing, or an item marked as the user's favoured one ("prefer"
# is not one: every standing-rule question says it, whatever it asks).
SELECTION = re.compile(
    r"\b(which|what) (kind|sort|type|style)s? of\b|\bwhich (one|ones)\b|\b(pick|choose|select|opt for)\b|"
    r"\b(I|we) (go for|go with)\b|\blean (to|towards?)\b|\b(a|any) (kind|sort|type|style)s? of\b|"
    r"\b(particular|specific|favou?rite|go-to)\b|\bstick (to|with)\b",
    re.I,
)


def approval(span: str) -> bool:
    """The question offers the user a look before the action."""
    return bool(APPROVAL.search(span) or (_ASSENT.search(span) and _PRIOR.search(span)))


Kind = Literal["confirm", "param_id", "param_enum", "tool_identity"]
WordsFn = Callable[[str], frozenset[str]]  # the Classifier's content-word normaliser
_WEAK = frozenset({"new"})  # "new_plan": "new" names no decision


@dataclass(frozen=True)
class Slot:
    """What a rule's binding says it decides."""

    kind: Kind
    tool: str  # the tool the decision is made on (the confirmed tool for confirm rules)
    param: str | None
    options: tuple[str, ...]  # the enum's values (param_enum), else empty


@lru_cache(maxsize=1024)
def _enum_options(tool: str, param: str) -> tuple[str, ...]:
    from longview.domains.personal import tool_spec

    try:
        params = tool_spec(tool).parameters
    except KeyError:
        return ()
    for p in params:
        if p.name == param and p.type.startswith("enum["):
            return tuple(p.type[5:-1].split("|"))
    return ()


def cue_free(span: str) -> str:
    """The question without its approval and selection phrases (their words name no field)."""
    return SELECTION.sub(" ", _ASSENT.sub(" ", APPROVAL.sub(" ", span)))


def slot(rule: StandingRule) -> Slot | None:
    """The rule's slot from its binding; None when the binding names no tool (e.g. calibration rows
    that carry only the rule's words)."""
    tool, param = rule.action_step.tool, rule.action_step.param
    if tool == "get_user_confirmation":
        return Slot("confirm", param, None, ()) if param else None
    if not tool:
        return None
    if not param:
        return Slot("tool_identity", tool, None, ())
    if param.endswith(("_id", "_ids")):
        return Slot("param_id", tool, param, ())
    return Slot("param_enum", tool, param, _enum_options(tool, param))


def slot_words(s: Slot, words: WordsFn) -> tuple[frozenset[str], tuple[frozenset[str], ...]]:
    """Words naming the slot's parameter, and each enum value's words (the tool's own words, which
    name the object and not the decision, left out)."""
    tool = words(s.tool.replace("_", " "))
    param = words((s.param or "").replace("_", " ")) - tool - _WEAK
    options = tuple(o for o in (words(v.replace("_", " ")) - tool for v in s.options) if o)
    return param, options


def asks_about(s: Slot, span: str, q: frozenset[str], words: WordsFn) -> tuple[bool, frozenset[str]]:
    """Whether the question asks the slot's decision, and the words it named it with (they are the
    slot's own, so they are not an adjacent field the rule leaves open)."""
    if s.kind == "confirm":
        return approval(span), frozenset()
    param, options = slot_words(s, words)
    if s.kind == "param_enum":
        # The parameter by name, or a choice among two of its values: one value alone is often
        # another word ("notes" in "documenting trips ... notes and itineraries").
        listed = [o for o in options if o <= q]
        named = (q & param).union(*listed)
        return bool(q & param) or len(listed) >= 2, named
    # Which object (or which tool) to pick: a question that only mentions the parameter's noun
    # ("an appointment with a service provider") may be asking another decision on it.
    return bool(SELECTION.search(span)), q & param
