"""PROC and COMP (π-Bench App. C) from session records, with what each could judge.

* Session PROC = (completed + elicited) / hidden intents, pooled with the session's *direct*
  prerequisites' intents (a dependent session is judged together with what led to it). Only
  intents whose completion could be judged count (``IntentOutcome.judged``); none -> undefined.
* Session COMP = weighted share of its criteria met in any turn; criteria nobody judged (None) are
  left out of both numerator and denominator; no judged criterion -> COMP undefined (None).
* Persona PROC / COMP = mean over the sessions that have criteria, each weighted by the size of its
  dependency closure (itself plus all transitive prerequisites); sessions with an undefined value
  are skipped — which sessions each metric covers is counted (:class:`Coverage`).
* Status shares (completed / elicited / provided / open) are over the judged intents of every session.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from longview.suites.intents.records import CellRecord, IntentOutcome, SessionRecord

STATUSES = ("completed", "elicited", "provided", "open")


@dataclass
class Coverage:
    """How much of a metric's material was judged: items (intents or criteria) and sessions."""

    judged: int = 0
    total: int = 0
    sessions: list[str] = field(default_factory=list)  # sessions where the metric is defined
    of_sessions: int = 0  # sessions the metric averages over when everything is judged

    def add(self, other: Coverage, prefix: str = "") -> None:
        self.judged += other.judged
        self.total += other.total
        self.sessions += [prefix + s for s in other.sessions]
        self.of_sessions += other.of_sessions


def _pool(rec: SessionRecord, by_id: Mapping[str, SessionRecord]) -> list[IntentOutcome]:
    pool = list(rec.intents.values())
    for d in rec.depends_on:
        if d in by_id:
            pool += list(by_id[d].intents.values())
    return pool


def session_proc(rec: SessionRecord, by_id: Mapping[str, SessionRecord]) -> float | None:
    pool = [o for o in _pool(rec, by_id) if o.judged]
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


def _weighted(pairs: Iterable[tuple[float | None, int]]) -> float | None:
    defined = [(v, w) for v, w in pairs if v is not None]
    total = sum(w for _, w in defined)
    return sum(v * w for v, w in defined) / total if total else None


def scored_sessions(cell: CellRecord) -> list[SessionRecord]:
    """The sessions PROC and COMP average over: those with criteria (π-Bench: prerequisites have none)."""
    return [r for r in cell.sessions if r.criteria]


def persona_metrics(cell: CellRecord, only: set[str] | None = None) -> dict[str, float | None]:
    """PROC, COMP and intent-status shares of one cell (one persona, one trial); ``only`` limits
    PROC and COMP to those session ids (a breakdown)."""
    by_id = {r.session_id: r for r in cell.sessions}
    scored = [r for r in scored_sessions(cell) if only is None or r.session_id in only]
    proc = _weighted((session_proc(r, by_id), closure_size(r.session_id, by_id)) for r in scored)
    comp = _weighted((session_comp(r), closure_size(r.session_id, by_id)) for r in scored)
    counts = status_counts(cell)
    n = sum(counts.values())
    out: dict[str, float | None] = {"proc": proc, "comp": comp}
    for s in STATUSES:
        out[s] = counts[s] / n if n else None
    return out


def status_counts(cell: CellRecord) -> Counter:
    """Terminal statuses of the judged intents of every session."""
    c: Counter = Counter({s: 0 for s in STATUSES})
    for r in cell.sessions:
        for o in r.intents.values():
            if o.judged:
                c[o.status] += 1
    return c


def coverage(cell: CellRecord) -> dict[str, Coverage]:
    """Per metric: items judged / total and the sessions where it is defined."""
    by_id = {r.session_id: r for r in cell.sessions}
    scored = scored_sessions(cell)
    proc, comp, status = Coverage(of_sessions=len(scored)), Coverage(of_sessions=len(scored)), Coverage()
    for r in scored:
        pool = _pool(r, by_id)
        proc.judged += sum(o.judged for o in pool)
        proc.total += len(pool)
        if session_proc(r, by_id) is not None:
            proc.sessions.append(r.session_id)
        comp.judged += sum(c.met is not None for c in r.criteria.values())
        comp.total += len(r.criteria)
        if session_comp(r) is not None:
            comp.sessions.append(r.session_id)
    for r in cell.sessions:
        status.judged += sum(o.judged for o in r.intents.values())
        status.total += len(r.intents)
        status.of_sessions += 1
        if any(o.judged for o in r.intents.values()):
            status.sessions.append(r.session_id)
    return {"proc": proc, "comp": comp, **{s: status for s in STATUSES}}
