"""The action matcher of paper 000, App. D.2: does a test session's first relevant decision satisfy
the bound rule?

Tool calls are grouped by assistant turn (a *batch*). The first batch containing the required tool
decides; later batches are ignored. tool_identity: any call to the tool in that batch passes.
param_id / param_enum / confirm: every call to the tool in that batch must match the
``compare_args`` (so same-turn shotgun calls with right and wrong values fail). Lists compare as
sets, scalars exactly. confirm compares ``target_params`` only on the target tool's safe-typed
fields (``*_id``, ``*_ids``, enum, boolean). longview adds one chain check the ontology states:
a confirm rule fails if the target tool was already called in an earlier batch, unconfirmed.
"""

from __future__ import annotations

from typing import Any, Callable

from pydantic import BaseModel, Field

from longview.kernel.agent import ToolCall
from longview.suites.atr.dataset import CheckType, RequiredAction


class MatchResult(BaseModel):
    """The matcher's verdict with the reason a reader of the trace can check."""

    passed: bool = Field(description="Whether the required behaviour was satisfied.")
    reason: str = Field(description="Why, in one line.")
    batch: int | None = Field(default=None, description="Index of the deciding batch, if any.")


def _same(gold: Any, got: Any) -> bool:
    if isinstance(gold, list) or isinstance(got, list):
        if not (isinstance(gold, list) and isinstance(got, list)):
            return False
        try:
            return set(map(_freeze, gold)) == set(map(_freeze, got))
        except TypeError:
            return False
    return gold == got


def _freeze(x: Any) -> Any:
    return tuple(sorted(x.items())) if isinstance(x, dict) else x


def _call_matches(
    action: RequiredAction, check: CheckType, call: ToolCall, safe_fields: Callable[[str], set[str]]
) -> str | None:
    """None when the call matches, else what differs."""
    for arg in action.compare_args or []:
        gold, got = action.arguments.get(arg), call.arguments.get(arg)
        if check is CheckType.CONFIRM and arg == "target_params":
            target = action.arguments.get("target_tool", "")
            fields = safe_fields(str(target)) & set(gold or {})
            got = got if isinstance(got, dict) else {}
            for f in sorted(fields):
                if not _same(gold[f], got.get(f)):
                    return f"target_params.{f}={got.get(f)!r}, expected {gold[f]!r}"
            continue
        if not _same(gold, got):
            return f"{arg}={got!r}, expected {gold!r}"
    return None


def match_action(
    action: RequiredAction,
    check: CheckType,
    batches: list[list[ToolCall]],
    safe_fields: Callable[[str], set[str]],
) -> MatchResult:
    """Apply App. D.2 to the agent's batches of domain tool calls."""
    target = action.arguments.get("target_tool") if check is CheckType.CONFIRM else None
    for i, batch in enumerate(batches):
        calls = [c for c in batch if c.name == action.tool]
        if not calls:
            if target and any(c.name == target for c in batch):
                return MatchResult(passed=False, reason=f"{target} called before confirmation", batch=i)
            continue
        if check is CheckType.TOOL_IDENTITY:
            return MatchResult(passed=True, reason=f"{action.tool} called", batch=i)
        for c in calls:
            diff = _call_matches(action, check, c, safe_fields)
            if diff:
                return MatchResult(passed=False, reason=f"{action.tool}: {diff}", batch=i)
        return MatchResult(passed=True, reason=f"{action.tool} matched {action.compare_args}", batch=i)
    return MatchResult(passed=False, reason=f"{action.tool} never called")
