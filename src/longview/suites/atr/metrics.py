"""Per-persona ATR metrics (ATRBench, §3.2 and App. D.1) from one complete cell's record.

Everything here is a function of the cell record and the episode, so a finished run can be
re-scored without re-running it. Definitions (one persona = one episode):

- tsacc: passed test sessions / all test sessions of the episode.
- rule_ask: Router-positive asks per learning session (may exceed 1).
- acq_prec: distinct rules the Classifier confirmed as acquired / all asks (Table 3's AcqPrec: the
  release's tables count each acquired rule once, so asking the same rule twice lowers it).
- ask_hit_rate: asks the Classifier mapped to a rule / all asks (the per-ask hit rate, which the
  release reports as ``ls_rule_ask_hit_rate``; a repeated hit counts every time).
- forced_ask_compliance: learning sessions with at least one Router-positive ask / learning
  sessions (the release's ``forced_rule_ask_compliance``; meaningful for ``always_ask``).
- rule_cov: distinct Classifier-hit rules / rules in the episode's pool.
- applied_rate: test pass rate over rules that are learnable (``metadata.selected_rules``) and were
  Classifier-hit during learning: covered_hit_pass / (covered_hit_pass + covered_hit_fail).

Learning-side metrics are None for cells that ran no learning (oracle variants), acq_prec also
when there were no asks, and applied_rate when no learnable rule was hit.

Cohort-level marks (Table 3's †) and the cohort summary (Table 4) live in :mod:`.paper`.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, Field

from longview.kernel.errors import LongviewError
from longview.suites.atr.dataset import Episode
from longview.suites.atr.matcher import match_action
from longview.suites.atr.records import CellRecord, TestRecord

METRICS: tuple[str, ...] = ("tsacc", "rule_ask", "rule_cov", "acq_prec", "applied_rate")
# Diagnostics scored per persona alongside METRICS (the scorecard may show them; see .paper).
EXTRA_METRICS: tuple[str, ...] = ("ask_hit_rate", "forced_ask_compliance")


class ScoringError(LongviewError):
    """A cell record cannot be scored against its episode (missing, extra or mismatched records)."""


class TestVerdict(BaseModel):
    """The matcher's verdict on one test session, kept for breakdowns and traces."""

    __test__ = False

    session_id: str = Field(description="Test session id.")
    rule_id: str = Field(description="The bound rule.")
    domain: str = Field(description="Tool domain of the session.")
    check_type: str = Field(description="Action surface of the bound rule.")
    passed: bool = Field(description="Whether the first relevant decision satisfied the rule.")
    reason: str = Field(description="The matcher's one-line reason.")


class PersonaMetrics(BaseModel):
    """One complete cell's metrics and the counts they are ratios of."""

    agent: str = Field(description="Agent name.")
    variant: str = Field(description="Variant name.")
    persona_id: str = Field(description="Persona (episode) id.")
    tsacc: float = Field(description="Passed / all test sessions.")
    rule_ask: float | None = Field(description="Router-positive asks per learning session.")
    rule_cov: float | None = Field(description="Distinct Classifier-hit rules / rule pool size.")
    acq_prec: float | None = Field(description="Distinct Classifier-acquired rules / all asks.")
    ask_hit_rate: float | None = Field(default=None, description="Classifier-hit asks / all asks.")
    forced_ask_compliance: float | None = Field(
        default=None, description="Learning sessions with at least one ask / learning sessions."
    )
    applied_rate: float | None = Field(description="Test pass rate over learnable, hit rules.")
    n_learning: int = Field(description="Learning sessions run.")
    n_asks: int = Field(description="Router-positive asks.")
    n_hit_asks: int = Field(description="Asks the Classifier mapped to a rule.")
    n_sessions_with_ask: int = Field(default=0, description="Learning sessions with at least one ask.")
    hit_rules: list[str] = Field(description="Distinct Classifier-hit rule ids, sorted.")
    covered_hit_pass: int = Field(description="Passed tests of learnable, hit rules.")
    covered_hit_fail: int = Field(description="Failed tests of learnable, hit rules.")
    verdicts: list[TestVerdict] = Field(description="One per test session, in episode order.")


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def _check_learning(cell: CellRecord, ep: Episode, where: str) -> None:
    """A learning sequence is either absent (no-learning variant) or complete, never partial."""
    ids = [r.session_id for r in cell.learning]
    if not ids:
        return
    if len(set(ids)) != len(ids):
        raise ScoringError(f"{where}: duplicate learning records")
    expected = {s.session_id for s in ep.learning_sessions}
    if set(ids) != expected:
        missing, extra = sorted(expected - set(ids)), sorted(set(ids) - expected)
        raise ScoringError(f"{where}: learning records do not match the episode (missing {missing}, unknown {extra})")


def _verdicts(
    cell: CellRecord, ep: Episode, safe_fields: Callable[[str], set[str]], where: str
) -> list[TestVerdict]:
    records: dict[str, TestRecord] = {}
    for tr in cell.tests:
        if tr.session_id in records:
            raise ScoringError(f"{where}: duplicate test record {tr.session_id}")
        records[tr.session_id] = tr
    unknown = sorted(set(records) - {s.session_id for s in ep.test_sessions})
    if unknown:
        raise ScoringError(f"{where}: test records for sessions not in the episode: {unknown}")
    out = []
    for ts in ep.test_sessions:
        rec = records.get(ts.session_id)
        if rec is None:
            # A missing session is neither a pass nor a fail: the cell is incomplete.
            raise ScoringError(f"{where}: no record for test session {ts.session_id}")
        if rec.rule_id != ts.rule_id:
            raise ScoringError(f"{where}: test record {ts.session_id} bound to {rec.rule_id}, episode says {ts.rule_id}")
        rule = ep.rule(ts.rule_id)
        m = match_action(ts.required_action, rule.check_type, rec.batches, safe_fields)
        out.append(
            TestVerdict(
                session_id=ts.session_id,
                rule_id=ts.rule_id,
                domain=ts.domain,
                check_type=rule.check_type.value,
                passed=m.passed,
                reason=m.reason,
            )
        )
    return out


def score_cell(cell: CellRecord, episode: Episode, safe_fields: Callable[[str], set[str]]) -> PersonaMetrics:
    """Score one complete cell; raise :class:`ScoringError` for aborted or inconsistent records."""
    where = f"cell {cell.agent} x {cell.variant} x {cell.persona_id}"
    if cell.status != "complete":
        raise ScoringError(f"{where}: aborted cells are never scored ({cell.abort_reason})")
    if cell.persona_id != episode.persona_id:
        raise ScoringError(f"{where}: scored against episode of persona {episode.persona_id}")
    _check_learning(cell, episode, where)
    verdicts = _verdicts(cell, episode, safe_fields, where)

    pool = {r.rule_id for r in episode.rules}
    asks = [a for rec in cell.learning for a in rec.asks]
    hits = [a.rule_id for a in asks if a.rule_id is not None]
    hit_rules = set(hits)
    if hit_rules - pool:
        raise ScoringError(f"{where}: Classifier hits on rules not in the pool: {sorted(hit_rules - pool)}")
    covered = hit_rules & set(episode.metadata.selected_rules)
    applied = [v.passed for v in verdicts if v.rule_id in covered]
    learned = bool(cell.learning)

    return PersonaMetrics(
        agent=cell.agent,
        variant=cell.variant,
        persona_id=cell.persona_id,
        tsacc=sum(v.passed for v in verdicts) / len(verdicts),
        rule_ask=_ratio(len(asks), len(cell.learning)),
        rule_cov=len(hit_rules) / len(pool) if learned else None,
        acq_prec=_ratio(len(hit_rules), len(asks)),
        ask_hit_rate=_ratio(len(hits), len(asks)),
        forced_ask_compliance=_ratio(sum(bool(rec.asks) for rec in cell.learning), len(cell.learning)),
        applied_rate=_ratio(sum(applied), len(applied)),
        n_learning=len(cell.learning),
        n_asks=len(asks),
        n_hit_asks=len(hits),
        n_sessions_with_ask=sum(bool(rec.asks) for rec in cell.learning),
        hit_rules=sorted(hit_rules),
        covered_hit_pass=sum(applied),
        covered_hit_fail=len(applied) - sum(applied),
        verdicts=verdicts,
    )
