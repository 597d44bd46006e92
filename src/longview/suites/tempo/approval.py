"""The simulated user's approval state machine (App. D.2): deterministic, decided before any
wording. Input: the proposed actions, simulated time, persona, earlier decisions, current trust.

Per proposed action, first rule that fires:
1. not in the scenario's catalog                       -> unrecognised (no permission)
2. part of a joint group whose other members are absent -> incomplete (no permission)
3. the user decided this action before                  -> the same decision again
3b. it was already carried out                          -> decline (redundant)
3c. it is the wrong move of a NOOP task now known       -> decline (already resolved)
4. the persona's stated answer for the task is decline  -> decline
5. every task needing it is past its window             -> decline (too late)
6. trust below the action's min_trust                   -> decline (trust fell)
7. otherwise                                            -> approve
Timing (who decides when) is the environment's: asleep -> pending until wake, busy -> deferred
until the busy block ends, awake -> now.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from longview.suites.tempo.schema import Scenario
from longview.suites.tempo.world import ActionItem, TempoWorld, match_action


def recognise(scenario: Scenario, proposed: list[dict[str, Any]]) -> list[ActionItem]:
    """Turn the agent's proposed-action list into items matched against the catalog."""
    items = []
    for p in proposed:
        tool = str(p.get("tool") or p.get("name") or "") if isinstance(p, dict) else ""
        args = p.get("args") or p.get("arguments") or {} if isinstance(p, dict) else {}
        args = args if isinstance(args, dict) else {}
        spec = match_action(scenario.actions, tool, args) if tool else None
        items.append(ActionItem(tool=tool, args=args, action=spec.id if spec else None))
    return items


def decide(scenario: Scenario, persona: str, items: list[ActionItem], at: datetime, world: TempoWorld) -> list[ActionItem]:
    """Fill in each item's decision (returns new items)."""
    present = {i.action for i in items if i.action}
    out = []
    for item in items:
        it = item.model_copy()
        it.decision, it.reason = _rule(scenario, persona, it.action, present, at, world)
        out.append(it)
    return out


def _rule(scenario: Scenario, persona: str, action: str | None, present: set[str], at: datetime, world: TempoWorld) -> tuple[str, str]:
    if action is None:
        return "unrecognised", "not an action the user recognises; no permission"
    spec = scenario.action(action)
    if spec.joint:
        missing = [a.id for a in scenario.actions if a.joint == spec.joint and a.id not in present]
        if missing:
            return "incomplete", f"must be approved together with {', '.join(missing)}; no permission"
    earlier = world.decisions(action, at)
    if earlier:
        return earlier[-1], "same answer as before"
    if world.executed(action, at):
        return "decline", "already done: nothing more is needed"
    if any(t.action == action and t.id in world.active and all(d == "noop" for d in t.depth.values())
           for t in scenario.tasks):
        return "decline", "already taken care of"
    tasks = [t for t in scenario.tasks if t.action == action]
    if any(t.response.get(persona) == "decline" for t in tasks):
        return "decline", "the user does not want this"
    live = [t for t in tasks if at <= t.due]
    if tasks and not live:
        return "decline", "too late: the need has passed"
    if world.trust.value < spec.min_trust:
        return "decline", f"trust too low ({world.trust.value:.2f} < {spec.min_trust})"
    return "approve", "approved"


def reply_text(items: list[ActionItem]) -> str:
    """The embedded wording of a decision: what was approved, declined, and what got no permission."""
    parts = []
    for verb, label in (("approve", "Approved"), ("decline", "Declined"), ("unrecognised", "Not recognised (no permission)"),
                        ("incomplete", "Incomplete request (no permission)")):
        names = [_describe(i) for i in items if i.decision == verb]
        if names:
            parts.append(f"{label}: {'; '.join(names)}")
    return "\n".join(parts) or "No actions to decide."


def _describe(i: ActionItem) -> str:
    args = ", ".join(f"{k}={v}" for k, v in sorted(i.args.items()))
    return f"{i.tool}({args})"
