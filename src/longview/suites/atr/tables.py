"""Rich tables of an ATR scorecard: the full scorecard, the paper's Table 3 shape, and breakdowns.

All rates are printed as fractions with two decimals; RuleAsk (asks per learning session) also
uses two decimals. "–" marks an undefined value.
"""

from __future__ import annotations

from rich.table import Table

from longview.harness.terminal.tables import agent_cell
from longview.suites.atr.dataset import DOMAINS, CheckType
from longview.suites.atr.paper import ACTIVE_ASK, ModelRow, cohort_summary, marked
from longview.suites.atr.scorecard import (
    DEFAULT_VARIANT,
    ORACLE_VARIANT,
    Row,
    Scorecard,
    bound_rows,
)

NA = "–"
_LEARNING = ("atr", "always_ask")
# The scorecard table names metrics as the JSON, the report and `longview explain` do (the paper's
# names, TSAcc..., head the paper-shaped tables below).
_COLUMNS = (("tsacc", "tsacc"), ("rule_ask", "rule_ask"), ("rule_cov", "rule_cov"), ("acq_prec", "acq_prec"),
            ("applied_rate", "applied_rate"))


def fmt(x: float | None) -> str:
    return NA if x is None else f"{x:.2f}"


def fmt_ci(x: float | None, ci: tuple[float, float] | None) -> str:
    """'0.97 [0.94, 0.99]', the bare value without an interval, '–' when undefined."""
    if x is None:
        return NA
    return fmt(x) if ci is None else f"{x:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]"


def scorecard_table(sc: Scorecard) -> Table:
    """Every (agent, variant) row with its metrics, intervals, Gap and GapRec."""
    t = Table(title=f"ATR scorecard · {sc.dataset.name} ({sc.dataset.units} personas, persona-macro)")
    models = any(r.model not in (None, r.agent) for r in sc.rows)  # a harness paired with a model
    t.add_column("Agent")
    if models:
        t.add_column("Model")
    t.add_column("Variant")
    t.add_column("N", justify="right")
    for name, _ in _COLUMNS:
        t.add_column(name, justify="right")
    t.add_column("gap", justify="right")
    t.add_column("gap_rec", justify="right")
    repeated = any(r.tsacc_pass_k for r in sc.rows)
    if repeated:
        t.add_column("tsacc_pass_k, k=1..", justify="right")
    for r in sc.rows:
        n = str(r.n_personas) + (f" (+{r.n_aborted} aborted)" if r.n_aborted else "")
        vals = [fmt_ci(getattr(r.metrics, k), getattr(r.ci95, k)) for _, k in _COLUMNS]
        extra = [" / ".join(fmt(v) for v in (r.tsacc_pass_k or {}).values()) or NA] if repeated else []
        model = [r.model or NA] if models else []
        t.add_row(agent_cell(r.agent, r.harness), *model, r.variant, n, *vals, fmt(r.gap), fmt(r.gap_rec), *extra)
    return t


def _lines(sc: Scorecard) -> list[tuple[str, dict[str, Row | None]]]:
    """One line per gap group; a group where several agents ran a learning variant gets one per agent."""
    out: list[tuple[str, dict[str, Row | None]]] = []
    for group in dict.fromkeys(r.group for r in sc.rows):
        d, o = bound_rows(sc.rows, group)
        learners = list(dict.fromkeys(r.agent for r in sc.rows if r.group == group and r.variant in _LEARNING))
        agents: list[str | None] = [*learners] or [None]
        for agent in agents:
            line: dict[str, Row | None] = {DEFAULT_VARIANT: d, ORACLE_VARIANT: o}
            for v in _LEARNING:
                line[v] = sc.row(agent, v) if agent else None
            out.append((agent if agent is not None and len(learners) > 1 else group, line))
    return out


def paper_table(sc: Scorecard) -> Table:
    """Table 3's shape: TSAcc for the four variants, learning diagnostics for atr/always_ask, Gap;
    † marks a rate resting on negligible acquisition (fewer than 5 acquired rules)."""
    t = Table(title="ATR main scorecard (persona-macro, fractions; † = negligible acquisition)")
    t.add_column("Model")
    heads: list[tuple[str, str, tuple[str, ...]]] = [("TSAcc", "tsacc", (DEFAULT_VARIANT, "atr", "always_ask", ORACLE_VARIANT))]
    heads += [(h, k, _LEARNING) for h, k in (("Ask", "rule_ask"), ("Cov", "rule_cov"), ("AcqPrec", "acq_prec"),
                                              ("App", "applied_rate"))]
    short = {DEFAULT_VARIANT: "Def.", "atr": "ATR", "always_ask": "Alw.", ORACLE_VARIANT: "Orc."}
    for head, _, variants in heads:
        for v in variants:
            t.add_column(f"{head} {short[v]}", justify="right")
    t.add_column("Gap", justify="right")
    for v in _LEARNING:
        t.add_column(f"GapRec {short[v]}", justify="right")
    for label, line in _lines(sc):
        cells = [_paper_cell(line[v], k) for _, k, vs in heads for v in vs]
        gap = next((r.gap for r in line.values() if r is not None), None)
        recs = [fmt(r.gap_rec if (r := line[v]) else None) for v in _LEARNING]
        t.add_row(label, *cells, fmt(gap), *recs)
    return t


def _paper_cell(row: Row | None, key: str) -> str:
    """A Table-3 value, with † when an acquisition rate rests on negligible acquisition."""
    if row is None:
        return NA
    text = fmt(getattr(row.metrics, key))
    dagger = bool(row.marks and key in ("acq_prec", "applied_rate") and getattr(row.marks, key))
    return marked(text, dagger)


def summary_table(sc: Scorecard) -> Table | None:
    """Table 4's shape: per learning variant, means over models and how many are Active."""
    model_rows = [r for r in sc.rows if not r.agent.startswith("ref:") and r.variant in _LEARNING]
    if not model_rows:
        return None
    t = Table(title=f"ATR learning summary over models (Table 4 shape; Active = RuleAsk ≥ {ACTIVE_ASK})")
    for col in ("Variant", "Models", "RuleAsk", "RuleCov", "AppliedRate", "GapRec", "Active"):
        t.add_column(col, justify="left" if col == "Variant" else "right")
    for v in _LEARNING:
        rows = [ModelRow(model=r.agent, rule_ask=r.metrics.rule_ask, rule_cov=r.metrics.rule_cov,
                         applied_rate=r.metrics.applied_rate, gap_rec=r.gap_rec) for r in model_rows if r.variant == v]
        if rows:
            s = cohort_summary(v, rows)
            t.add_row(v, str(s.n_models), fmt(s.rule_ask), fmt(s.rule_cov), fmt(s.applied_rate), fmt(s.gap_rec),
                      f"{s.active} of {s.n_models}")
    return t


def breakdown_table(sc: Scorecard) -> Table:
    """TS-micro TSAcc per tool domain and per action surface, with session counts."""
    seen_d = {d for r in sc.rows for d in r.breakdown.by_domain}
    seen_c = {c for r in sc.rows for c in r.breakdown.by_check_type}
    domains = [d for d in DOMAINS if d in seen_d] + sorted(seen_d - set(DOMAINS))
    checks = [c.value for c in CheckType if c.value in seen_c] + sorted(seen_c - {c.value for c in CheckType})
    t = Table(title="ATR TSAcc breakdown (TS-micro: sessions pooled over personas; n in parentheses)")
    t.add_column("Agent")
    t.add_column("Variant")
    for name in domains + checks:
        t.add_column(name, justify="right")
    for r in sc.rows:
        b = r.breakdown
        vals = [_bucket(b.by_domain.get(d), b.n_by_domain.get(d, 0)) for d in domains]
        vals += [_bucket(b.by_check_type.get(c), b.n_by_check_type.get(c, 0)) for c in checks]
        t.add_row(r.agent, r.variant, *vals)
    return t


def _bucket(x: float | None, n: int) -> str:
    return NA if x is None else f"{x:.2f} ({n})"
