"""The ATR scorecard: one row per (agent, variant), persona-macro metrics with cluster-bootstrap CIs,
the default-to-oracle Gap and each variant's share of it recovered (GapRec).

:class:`Scorecard` is atr's typed view (its tables and golden tests read it); the suite hands the
harness the same numbers in the one common shape (:func:`to_common`: ``n``, ``per_unit``, and atr's
own fields — group, gap, gap_rec, tsacc_pass_k, breakdown, diagnostics, marks — in ``extra``), and
:func:`from_common` reads them back without loss.

Persona is the replication unit: metrics are computed per complete cell, then macro-averaged over
personas (undefined values skipped). Aborted cells are counted and never scored. Breakdowns by
domain and action surface pool test sessions instead (TS-micro), as the paper's capability table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, Field

from longview.harness import scorecard as common
from longview.harness.runstore import DatasetInfo
from longview.kernel.stats import cluster_bootstrap_ci, macro_mean, pass_hat_k, seed_from
from longview.suites.atr.dataset import Episode
from longview.suites.atr.metrics import EXTRA_METRICS, METRICS, PersonaMetrics, ScoringError, TestVerdict, score_cell
from longview.suites.atr.paper import AcquisitionMarks, acquisition_marks
from longview.suites.atr.records import CellRecord

DEFAULT_VARIANT = "default"
ORACLE_VARIANT = "oracle_target"
VARIANTS: tuple[str, ...] = (DEFAULT_VARIANT, "atr", "always_ask", ORACLE_VARIANT)
REF_PREFIX = "ref:"
REFERENCE_GROUP = "reference"
# The reference group holds several scripted agents; when more than one ran a bound variant, the
# paper's bounds are the passive agent (default) and the oracle agent (oracle_target).
_BOUND_AGENT = {DEFAULT_VARIANT: "ref:passive", ORACLE_VARIANT: "ref:oracle"}


def default_group_of(agent: str) -> str:
    """Rows sharing a group share a Gap: one model's variants, or all reference agents."""
    return REFERENCE_GROUP if agent.startswith(REF_PREFIX) else agent


class Metrics(BaseModel):
    """The five ATR metrics; fractions in [0, 1] except rule_ask (asks per learning session)."""

    tsacc: float | None = Field(description="Test-session accuracy.")
    rule_ask: float | None = Field(description="Router-positive asks per learning session.")
    rule_cov: float | None = Field(description="Share of the rule pool Classifier-hit in learning.")
    acq_prec: float | None = Field(description="Share of asks the Classifier mapped to a rule.")
    applied_rate: float | None = Field(description="Test pass rate over learnable, acquired rules.")

    @classmethod
    def of(cls, m: PersonaMetrics) -> Metrics:
        return cls(**{k: getattr(m, k) for k in METRICS})


class CI95(BaseModel):
    """Persona cluster-bootstrap 95% percentile intervals; None with fewer than 2 defined personas."""

    tsacc: tuple[float, float] | None = Field(description="[lo, hi] of TSAcc.")
    rule_ask: tuple[float, float] | None = Field(description="[lo, hi] of RuleAsk.")
    rule_cov: tuple[float, float] | None = Field(description="[lo, hi] of RuleCov.")
    acq_prec: tuple[float, float] | None = Field(description="[lo, hi] of AcqPrec.")
    applied_rate: tuple[float, float] | None = Field(description="[lo, hi] of AppliedRate.")


class Breakdown(BaseModel):
    """TS-micro TSAcc per bucket (test sessions pooled over complete cells) and bucket sizes."""

    by_domain: dict[str, float] = Field(description="TSAcc per tool domain.")
    by_check_type: dict[str, float] = Field(description="TSAcc per action surface.")
    n_by_domain: dict[str, int] = Field(description="Test sessions per tool domain.")
    n_by_check_type: dict[str, int] = Field(description="Test sessions per action surface.")


class Row(BaseModel):
    """One (agent, variant) of the scorecard."""

    agent: str = Field(description="Agent name.")
    model: str | None = Field(default=None, description="The model under test behind the row (the common row's "
                              "`model`, filled by the harness); None for a reference agent.")
    harness: dict[str, str] | None = Field(default=None, description="An external agent's row: what it is (the "
                                           "common row's `harness`, filled by the harness); None otherwise.")
    variant: str = Field(description="Variant name.")
    group: str = Field(description="Gap group: the model, or 'reference' for scripted agents.")
    metrics: Metrics = Field(description="Persona-macro metrics.")
    ci95: CI95 = Field(description="Cluster-bootstrap intervals of the metrics.")
    gap: float | None = Field(default=None, description="Group's oracle_target minus default TSAcc.")
    gap_rec: float | None = Field(
        default=None, description="(TSAcc - default TSAcc) / gap for non-oracle rows; None if gap is 0/None."
    )
    n_personas: int = Field(description="Personas with at least one complete (scored) cell.")
    n_aborted: int = Field(description="Aborted cells, excluded from every mean.")
    n_missing: int = Field(description="Dataset personas with no cell at all.")
    abort_reasons: dict[str, str] = Field(description="Persona id (with #trial when repeated) -> why its cell aborted.")
    trials: int = Field(default=1, description="Trials per persona (most complete trials of any persona).")
    tsacc_pass_k: dict[str, float] | None = Field(
        default=None,
        description="k -> persona-macro pass^k of test sessions (chance k trials all pass), over personas "
        "whose trials all completed; only when trials > 1.",
    )
    breakdown: Breakdown = Field(description="TS-micro TSAcc by domain and by action surface.")
    diagnostics: dict[str, float | None] = Field(
        default_factory=dict,
        description="Persona-macro ask_hit_rate (hit asks / asks, repeats counted) and forced_ask_compliance "
        "(learning sessions with an ask / learning sessions; meaningful for always_ask).",
    )
    marks: AcquisitionMarks | None = Field(
        default=None, description="Table 3's † marks: acquisition rates resting on negligible acquisition."
    )
    per_persona: dict[str, Metrics] = Field(description="Persona id -> that cell's metrics.")


class Scorecard(BaseModel):
    """The ATR suite's result: what a run is judged by."""

    suite: Literal["atr"] = Field(default="atr", description="Always 'atr'.")
    dataset: DatasetInfo = Field(description="What was evaluated.")
    rows: list[Row] = Field(description="One per (agent, variant), reference agents first.")

    def row(self, agent: str, variant: str) -> Row | None:
        return next((r for r in self.rows if r.agent == agent and r.variant == variant), None)

    def to_json_dict(self) -> dict:
        data = self.model_dump(mode="json")
        for row in data["rows"]:
            if row.get("harness") is None:
                row.pop("harness", None)  # only external agents' rows have one, as in the common shape
        return data


def _pick(rows: list[Row], variant: str) -> Row | None:
    cands = [r for r in rows if r.variant == variant]
    if len(cands) > 1:
        # Several agents of one group ran this bound variant: only the paper's bound agent decides;
        # without it the bound is ambiguous and the group's Gap stays undefined.
        cands = [r for r in cands if r.agent == _BOUND_AGENT[variant]]
    return cands[0] if len(cands) == 1 else None


def bound_rows(rows: list[Row], group: str) -> tuple[Row | None, Row | None]:
    """The group's (default, oracle_target) rows, which define its Gap."""
    members = [r for r in rows if r.group == group]
    return _pick(members, DEFAULT_VARIANT), _pick(members, ORACLE_VARIANT)


def _set_gaps(rows: list[Row]) -> None:
    for group in dict.fromkeys(r.group for r in rows):
        d, o = bound_rows(rows, group)
        base = d.metrics.tsacc if d else None
        top = o.metrics.tsacc if o else None
        gap = top - base if base is not None and top is not None else None
        for r in rows:
            if r.group != group:
                continue
            r.gap = gap
            if r.variant != ORACLE_VARIANT and gap and r.metrics.tsacc is not None:
                r.gap_rec = (r.metrics.tsacc - base) / gap  # type: ignore[operator]


def _buckets(verdicts: list[TestVerdict], key: str) -> tuple[dict[str, float], dict[str, int]]:
    n: dict[str, int] = {}
    passed: dict[str, int] = {}
    for v in verdicts:
        b = getattr(v, key)
        n[b] = n.get(b, 0) + 1
        passed[b] = passed.get(b, 0) + v.passed
    return {b: passed[b] / n[b] for b in sorted(n)}, dict(sorted(n.items()))


def _breakdown(scored: list[PersonaMetrics]) -> Breakdown:
    verdicts = [v for m in scored for v in m.verdicts]
    by_domain, n_domain = _buckets(verdicts, "domain")
    by_check, n_check = _buckets(verdicts, "check_type")
    return Breakdown(by_domain=by_domain, by_check_type=by_check, n_by_domain=n_domain, n_by_check_type=n_check)


def _mean_metrics(ms: list[PersonaMetrics]) -> Metrics:
    """One persona's metrics averaged over its complete trials (undefined values skipped)."""
    return Metrics(**{k: macro_mean({str(i): getattr(m, k) for i, m in enumerate(ms)}) for k in METRICS})


def _pass_k(scored: dict[str, list[PersonaMetrics]], trials: int) -> dict[str, float] | None:
    full = {p: ms for p, ms in scored.items() if len(ms) == trials}
    if trials < 2 or not full:
        return None
    out: dict[str, float] = {}
    for k in range(1, trials + 1):
        per_persona = {}
        for p, ms in full.items():
            by_session: dict[str, list[bool]] = {}
            for m in ms:
                for v in m.verdicts:
                    by_session.setdefault(v.session_id, []).append(v.passed)
            per_persona[p] = pass_hat_k(list(by_session.values()), k)
        out[str(k)] = macro_mean(per_persona)  # type: ignore[assignment]  # None only if no persona has a test session
    return out


def _row(
    agent: str,
    variant: str,
    cells: dict[str, list[CellRecord]],
    episodes: dict[str, Episode],
    safe_fields: Callable[[str], set[str]],
    seed: int,
    group: str,
) -> Row:
    scored: dict[str, list[PersonaMetrics]] = {}
    aborted: dict[str, str] = {}
    trials = max(len(cs) for cs in cells.values())
    for p, cs in sorted(cells.items()):
        for c in sorted(cs, key=lambda c: c.trial):
            if c.status == "complete":
                scored.setdefault(p, []).append(score_cell(c, episodes[p], safe_fields))
            else:
                aborted[p if trials == 1 else f"{p}#{c.trial}"] = c.abort_reason or "unknown"
    per_persona = {p: _mean_metrics(ms) for p, ms in scored.items()}
    values = {k: {p: getattr(m, k) for p, m in per_persona.items()} for k in METRICS}
    return Row(
        agent=agent,
        variant=variant,
        group=group,
        metrics=Metrics(**{k: macro_mean(values[k]) for k in METRICS}),
        ci95=CI95(
            **{k: cluster_bootstrap_ci(values[k], seed=seed_from(seed, agent, variant, k)) for k in METRICS}
        ),
        n_personas=len(scored),
        n_aborted=len(aborted),
        n_missing=len(episodes) - len(cells),
        abort_reasons=aborted,
        trials=trials,
        tsacc_pass_k=_pass_k(scored, trials),
        breakdown=_breakdown([m for ms in scored.values() for m in ms]),
        diagnostics={k: macro_mean({p: macro_mean({str(i): getattr(m, k) for i, m in enumerate(ms)})
                                    for p, ms in scored.items()}) for k in EXTRA_METRICS},
        marks=acquisition_marks(m for ms in scored.values() for m in ms) if scored else None,
        per_persona=per_persona,
    )


def _order(agent: str, variant: str, group: str) -> tuple:
    """Reference agents first, then groups by name; within a group, variants in canonical order."""
    rank = VARIANTS.index(variant) if variant in VARIANTS else len(VARIANTS)
    return (not agent.startswith(REF_PREFIX), group, rank, variant, agent)


def build_scorecard(
    cells: list[CellRecord],
    episodes: dict[str, Episode],
    dataset_name: str,
    dataset_sha256: str,
    safe_fields: Callable[[str], set[str]],
    seed: int = 0,
    group_of: Callable[[str], str] | None = None,
) -> Scorecard:
    """Score every cell and assemble the scorecard; ``episodes`` is keyed by persona id."""
    group_of = group_of or default_group_of
    slots: dict[tuple[str, str], dict[str, list[CellRecord]]] = {}
    for c in cells:
        if c.persona_id not in episodes:
            raise ScoringError(f"cell {c.agent} x {c.variant}: persona {c.persona_id} is not in the dataset")
        slot = slots.setdefault((c.agent, c.variant), {})
        if any(o.trial == c.trial for o in slot.get(c.persona_id, [])):
            raise ScoringError(f"two cells for {c.agent} x {c.variant} x {c.persona_id}")
        slot.setdefault(c.persona_id, []).append(c)
    rows = [
        _row(agent, variant, slot, episodes, safe_fields, seed, group_of(agent))
        for (agent, variant), slot in sorted(slots.items(), key=lambda kv: _order(kv[0][0], kv[0][1], group_of(kv[0][0])))
    ]
    _set_gaps(rows)
    return Scorecard(
        dataset=DatasetInfo(name=dataset_name, sha256=dataset_sha256, units=len(episodes)),
        rows=rows,
    )


# How each metric is obtained; judged ones name the roles whose components judge them (the harness
# writes the components that played them into the scorecard JSON).
METRIC_INFO = {
    "tsacc": common.MetricInfo(description="test sessions whose tool calls match the rule-aware action (App. D.2)",
                               kind="deterministic"),
    "rule_ask": common.MetricInfo(description="Router-positive asks per learning session", kind="judged",
                                  roles=["router"]),
    "rule_cov": common.MetricInfo(description="share of the rule pool the Classifier hit in learning", kind="judged",
                                  roles=["router", "classifier"]),
    "acq_prec": common.MetricInfo(description="share of asks the Classifier mapped to a rule", kind="judged",
                                  roles=["router", "classifier"]),
    "applied_rate": common.MetricInfo(description="test pass rate over acquired, learnable rules", kind="judged",
                                      roles=["router", "classifier"]),
}
_COMMON = frozenset(common.Row.model_fields)


def to_common(sc: Scorecard) -> common.Scorecard:
    """The same scorecard in the shape every suite shares."""
    rows = []
    for r in sc.rows:
        d = r.model_dump()
        rows.append(common.Row(
            **{k: v for k, v in d.items() if k in _COMMON}, n=r.n_personas, per_unit=d["per_persona"],
            extra={k: v for k, v in d.items() if k not in _COMMON and k not in ("n_personas", "per_persona")}))
    return common.Scorecard(suite="atr", dataset=sc.dataset, metrics=dict(METRIC_INFO), rows=rows)


def from_common(sc: common.Scorecard) -> Scorecard:
    """atr's typed view of a common-shape atr scorecard (the inverse of :func:`to_common`)."""
    rows = [Row.model_validate({**r.model_dump(exclude={"n", "per_unit", "extra", "coverage"}), **r.extra,
                                "n_personas": r.n, "per_persona": r.per_unit}) for r in sc.rows]
    return Scorecard(dataset=sc.dataset, rows=rows)
