"""The action matcher of ATRBench, App. D.2: does a test session's first relevant decision satisfy
the bound rule?

Tool calls are grouped by assistant turn (a *batch*). The first batch containing the required tool
decides; later batches are ignored. tool_identity: any call to the tool in that batch passes.
*longview, not the release:* for tool_identity the decision is the first batch that calls the
required tool or one of its same-goal alternatives (``policy.TOOL_FAMILIES``), and it passes only if
it calls the required tool and no alternative: otherwise an agent calling every offered tool (in one
batch or one per turn) passed every tool_identity rule.
param_id / param_enum / confirm: every call to the tool in that batch must match the
``compare_args`` (so same-turn shotgun calls with right and wrong values fail). Lists compare as
sets (of their string forms), scalars exactly. confirm rules require ``get_user_confirmation`` and,
like every rule, are decided by the first batch that contains it: an earlier batch that called the
target tool without a confirmation does not fail the rule (the release's matcher). ``target_params``
is compared only on the target tool's safe-typed fields (``*_id``, ``*_ids``, enum, boolean): each
gold field must be present with an equal value; a ``target_params`` given as a JSON string (some
providers stringify nested objects) is parsed first.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from longview.kernel.agent import ToolCall
from longview.suites.atr.dataset import CheckType, RequiredAction


class MatchResult(BaseModel):
    """The matcher's verdict with the reason a reader of the trace can check."""

    passed: bool = Field(description="Whether the required behaviour was satisfied.")
    reason: str = Field(description="Why, in one line.")
    batch: int | None = Field(default=None, description="Index of the deciding batch, if any.")


def _same(gold: Any, got: Any) -> bool:
    if isinstance(gold, list):
        return isinstance(got, list) and {_key(v) for v in gold} == {_key(v) for v in got}
    return gold == got


def _key(x: Any) -> str:
    return json.dumps(x, sort_keys=True) if isinstance(x, (dict, list)) else str(x)


def as_object(value: Any) -> Any:
    """A JSON-object string as the object it encodes; anything else unchanged."""
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        return parsed if isinstance(parsed, dict) else value
    return value


def _call_matches(
    action: RequiredAction, check: CheckType, call: ToolCall, safe_fields: Callable[[str], set[str]]
) -> str | None:
    """None when the call matches, else what differs."""
    for arg in action.compare_args or []:
        gold, got = action.arguments.get(arg), call.arguments.get(arg)
        if check is CheckType.CONFIRM and arg == "target_params" and action.arguments.get("target_tool"):
            gold, got = as_object(gold), as_object(got)
            if not (isinstance(gold, dict) and isinstance(got, dict)):
                if gold != got:
                    return f"target_params={got!r}, expected {gold!r}"
                continue
            fields = safe_fields(str(action.arguments["target_tool"])) & set(gold)
            for f in sorted(fields):
                if f not in got or got[f] != gold[f]:
                    return f"target_params.{f}={got.get(f)!r}, expected {gold[f]!r}"
            continue
        if not _same(gold, got):
            return f"{arg}={got!r}, expected {gold!r}"
    return None


def _alternatives(tool: str) -> set[str]:
    """The same-goal alternatives of ``tool`` (its family without it)."""
    from longview.suites.atr.policy import TOOL_FAMILIES

    return {t for fam in TOOL_FAMILIES if tool in fam for t in fam} - {tool}


def match_action(
    action: RequiredAction,
    check: CheckType,
    batches: list[list[ToolCall]],
    safe_fields: Callable[[str], set[str]],
) -> MatchResult:
    """Apply App. D.2 to the agent's batches of domain tool calls."""
    alternatives = _alternatives(action.tool) if check is CheckType.TOOL_IDENTITY else set()
    for i, batch in enumerate(batches):
        calls = [c for c in batch if c.name == action.tool]
        others = sorted({c.name for c in batch if c.name in alternatives})
        if check is CheckType.TOOL_IDENTITY and others:
            why = f"also called {', '.join(others)}" if calls else f"called {', '.join(others)} instead"
            return MatchResult(passed=False, reason=f"{action.tool}: {why}", batch=i)
        if not calls:
            continue
        if check is CheckType.TOOL_IDENTITY:
            return MatchResult(passed=True, reason=f"{action.tool} called", batch=i)
        for c in calls:
            diff = _call_matches(action, check, c, safe_fields)
            if diff:
                return MatchResult(passed=False, reason=f"{action.tool}: {diff}", batch=i)
        return MatchResult(passed=True, reason=f"{action.tool} matched {action.compare_args}", batch=i)
    return MatchResult(passed=False, reason=f"{action.tool} never called")
