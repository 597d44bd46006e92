"""PROC and COMP (π-Bench App. C) from session records.

* Session PROC = (completed + elicited) / hidden intents, pooled with the session's *direct*
  prerequisites' intents (a dependent session is judged together with what led to it).
* Session COMP = weighted share of its criteria met in any turn; criteria nobody judged (None) are
  left out of both numerator and denominator; no judged criterion -> COMP undefined (None).
* Persona PROC / COMP = mean over the sessions that have criteria, each weighted by the size of its
  dependency closure (itself plus all transitive prerequisites); sessions with an undefined value
  are skipped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from longview.suites.intents.records import CellRecord, SessionRecord

STATUSES = ("completed", "elicited", "provided", "open")


def session_proc(rec: SessionRecord, by_id: Mapping[str, SessionRecord]) -> float | None:
    pool = list(rec.intents.values())
    for d in rec.depends_on:
        if d in by_id:
            pool += list(by_id[d].intents.values())
    if not pool:
        return None
    return sum(o.status in ("completed", "elicited") for o in pool) / len(pool)


def session_comp(rec: SessionRecord) -> float | None:
    judged = [c for c in rec.criteria.values() if c.met is not None]
    total = sum(c.weight for c in judged)
    if not judged or total <= 0:
        return None
    return sum(c.weight for c in judged if c.met) / total


def closure_size(sid: str, by_id: Mapping[str, SessionRecord]) -> int:
    seen: set[str] = set()
    stack = [sid]
    while stack:
        s = stack.pop()
        if s in seen or s not in by_id:
            continue
        seen.add(s)
        stack.extend(by_id[s].depends_on)
    return len(seen)


def _weighted(pairs: list[tuple[float | None, int]]) -> float | None:
    defined = [(v, w) for v, w in pairs if v is not None]
    total = sum(w for _, w in defined)
    return sum(v * w for v, w in defined) / total if total else None


def persona_metrics(cell: CellRecord) -> dict[str, float | None]:
    """PROC, COMP and intent-status shares of one cell (one persona, one trial)."""
    by_id = {r.session_id: r for r in cell.sessions}
    scored = [r for r in cell.sessions if r.criteria]
    proc = _weighted([(session_proc(r, by_id), closure_size(r.session_id, by_id)) for r in scored])
    comp = _weighted([(session_comp(r), closure_size(r.session_id, by_id)) for r in scored])
    counts = status_counts(cell)
    n = sum(counts.values())
    out: dict[str, float | None] = {"proc": proc, "comp": comp}
    for s in STATUSES:
        out[s] = counts[s] / n if n else None
    return out


def status_counts(cell: CellRecord) -> Counter:
    c: Counter = Counter({s: 0 for s in STATUSES})
    for r in cell.sessions:
        for o in r.intents.values():
            c[o.status] += 1
    return c
