"""The `intents` suite's report hooks: its profile line (how `longview profile` reads it) and each
session's outcome with the verdicts and reasons behind it."""

from collections import Counter
from typing import Any, Literal

from longview.harness.suite import ProfileSpec, SessionOutcome
from longview.suites.intents.metrics import session_comp
from longview.suites.intents.records import CellRecord

PROFILE = ProfileSpec(
    label="hidden intents",
    metric="proc",
    variant="default",
    quick_units=3,
    reading="share of the user's unstated needs the agent met or drew out without being told "
            "(floor: does only what is said; ceiling: knows every intent)",
    also=["comp"],
)


def session_outcomes(result: str, dataset: Any) -> dict[str, SessionOutcome]:
    """Each session with criteria: pass when every judged criterion is met, fail otherwise, None
    when nothing was judged; the reason lists each criterion not met with its verdict's reason, how
    many were not judged, and the intents' terminal statuses (labels: task type, category, difficulty)."""
    cell = CellRecord.model_validate_json(result)
    out: dict[str, SessionOutcome] = {}
    for s in cell.sessions:
        statuses = Counter(o.status if o.judged else "not judged" for o in s.intents.values())
        intents = ", ".join(f"{k} {v}" for k, v in sorted(statuses.items()))
        if not s.criteria:
            out[s.session_id] = SessionOutcome(labels=dict(s.tags), reason=f"prerequisite; intents: {intents}")
            continue
        comp = session_comp(s)
        unmet = [f"{cid} NO ({c.reason or c.by})" for cid, c in s.criteria.items() if c.met is False]
        unjudged = sum(c.met is None for c in s.criteria.values())
        parts = [f"COMP {'–' if comp is None else f'{comp:.2f}'}"] + unmet[:6] + (
            [f"+{len(unmet) - 6} more NO"] if len(unmet) > 6 else [])
        if unjudged:
            parts.append(f"{unjudged} not judged")
        if s.judge_missing:
            parts.append(f"{s.judge_missing} verdict(s) missing (counted NO)")
        parts.append(f"intents: {intents}")
        outcome: Literal["pass", "fail"] | None = None if comp is None else ("pass" if comp >= 1.0 else "fail")
        out[s.session_id] = SessionOutcome(outcome=outcome, labels=dict(s.tags), reason="; ".join(parts))
    return out
