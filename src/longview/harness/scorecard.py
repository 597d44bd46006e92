"""One scorecard shape for every suite, and the helper that builds its rows.

Every suite's ``score`` returns a :class:`Scorecard`: rows of (agent, variant) with unit-macro
metrics, cluster-bootstrap 95% intervals over units (personas, users, scenarios), counts of
scored, aborted and missing units, and which metrics were computed deterministically or judged
(and by which component). ``show``, ``--json`` and reports consume only this shape; a suite may
add fields to rows (``extra``) and to the scorecard (``extra``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from longview.harness.runstore import DatasetInfo
from longview.kernel.stats import cluster_bootstrap_ci, macro_mean, seed_from


class MetricInfo(BaseModel):
    """How one metric is obtained."""

    description: str = Field(description="What the metric counts, in one line.")
    kind: Literal["deterministic", "judged"] = Field(description="Computed from records, or a judge's verdict.")
    by: str = Field(default="", description="The judging component (e.g. llm:openai/gpt-5.4, embedded:rules).")
    higher_is_better: bool = Field(default=True, description="Direction of the metric.")
    roles: list[str] = Field(
        default_factory=list, exclude=True,
        description="Suite roles whose components judge it, when `by` is left empty: the harness fills `by` "
                    "from the run's components (e.g. router + classifier). Not written to the JSON.",
    )


class Coverage(BaseModel):
    """How much of a metric's material was judged (printed next to its value): an item nobody could
    judge is left out of the metric, and this says how many were left out and where."""

    judged: int = Field(description="Items judged (criteria, intents...), summed over the row's complete cells.")
    total: int = Field(description="Items there were.")
    units_covered: int = Field(description="Sessions (tasks) where the metric is defined, summed over cells.")
    units_total: int = Field(description="Sessions (tasks) it would average over if every item were judged.")
    unit: str = Field(default="sessions", description="What units_covered counts.")

    def text(self) -> str:
        """'120/150 judged, 9/11 sessions'."""
        return f"{self.judged}/{self.total} judged, {self.units_covered}/{self.units_total} {self.unit}"


class Row(BaseModel):
    """One (agent, variant) of a scorecard."""

    agent: str = Field(description="Agent name: ref:..., provider/model, or an agent of your own (a harness run "
                       "with --model is 'COMMAND @ MODEL').")
    model: str | None = Field(
        default=None,
        description="The model under test behind the row, from the run's configuration: the agent itself when the "
                    "agent is a model (--model), the model a harness (cmd:, mcp:) was paired with; None for a "
                    "reference agent or an agent that brings its own model. Filled by the harness, not the suite.")
    variant: str = Field(description="Variant or condition.")
    metrics: dict[str, float | None] = Field(description="Unit-macro means; None when undefined for every unit.")
    ci95: dict[str, tuple[float, float] | None] = Field(
        description="Cluster-bootstrap 95% interval per metric; None with fewer than 2 defined units."
    )
    n: int = Field(description="Units with at least one complete (scored) cell.")
    n_aborted: int = Field(default=0, description="Aborted cells, excluded from every mean.")
    n_missing: int = Field(default=0, description="Dataset units with no cell in this row.")
    abort_reasons: dict[str, str] = Field(default_factory=dict, description="Unit (#trial) -> why its cell aborted.")
    trials: int = Field(default=1, description="Most complete trials of any unit.")
    per_unit: dict[str, dict[str, float | None]] = Field(default_factory=dict, description="Unit -> its metrics.")
    clusters: dict[str, dict[str, float | None]] = Field(
        default_factory=dict,
        description="Bootstrap clusters finer than units (a suite's probes, pairs...): cluster id -> the metrics "
                    "defined on it. When present, metrics and ci95 are over these and compare pairs them.")
    n_boot: int = Field(default=2000, description="Bootstrap draws behind ci95 (compare draws as many).")
    extra: dict[str, Any] = Field(default_factory=dict, description="Suite-specific additions (breakdowns...).")
    harness: dict[str, str] | None = Field(
        default=None, description="An external agent's row: what it is — kind (python, entry_point, object, command, "
        "mcp, mcp+stdio), name and version (as its process reported them, or its package's), model (with --model). "
        "Left out of the JSON for reference agents and models.")
    coverage: dict[str, Coverage] = Field(default_factory=dict, description="Metric -> how much of it was judged "
                                          "(only metrics where some item can go unjudged).")


class Scorecard(BaseModel):
    """A suite's result, in the shape every consumer reads."""

    suite: str = Field(description="Suite name.")
    dataset: DatasetInfo = Field(description="What was evaluated.")
    metrics: dict[str, MetricInfo] = Field(default_factory=dict, description="Metric name -> how it is obtained.")
    rows: list[Row] = Field(description="One per (agent, variant), reference agents first.")
    extra: dict[str, Any] = Field(default_factory=dict, description="Suite-specific additions.")

    def row(self, agent: str, variant: str) -> Row | None:
        return next((r for r in self.rows if r.agent == agent and r.variant == variant), None)

    def to_json_dict(self) -> dict[str, Any]:
        data = self.model_dump(mode="json")
        for row in data.get("rows", []):
            if isinstance(row, dict) and row.get("harness") is None:
                row.pop("harness", None)  # only external agents' rows have one
        return data


UnitMetrics = Mapping[str, float | None]


def build_row(
    agent: str,
    variant: str,
    names: list[str],
    scored: Mapping[str, Sequence[UnitMetrics]],
    *,
    aborted: Mapping[str, str] | None = None,
    units_in_dataset: int,
    seed: int,
    trials: int = 1,
) -> Row:
    """A row from per-unit metrics (one mapping per complete trial of each unit).

    Trials of one unit are averaged first (undefined values skipped), then units are
    macro-averaged; the interval resamples units. A missing judgment must be ``None`` (undefined),
    never 0 or 1, so it drops out of the mean instead of counting as a fail or a pass.
    """
    per_unit = {
        u: {k: macro_mean({str(i): m.get(k) for i, m in enumerate(ms)}) for k in names}
        for u, ms in sorted(scored.items())
        if ms
    }
    values = {k: {u: m[k] for u, m in per_unit.items()} for k in names}
    aborted = dict(aborted or {})
    seen = set(scored) | {a.split("#", 1)[0] for a in aborted}
    return Row(
        agent=agent,
        variant=variant,
        metrics={k: macro_mean(values[k]) for k in names},
        ci95={k: cluster_bootstrap_ci(values[k], seed=seed_from(seed, agent, variant, k)) for k in names},
        n=len(per_unit),
        n_aborted=len(aborted),
        n_missing=max(0, units_in_dataset - len(seen)),
        abort_reasons=aborted,
        trials=trials,
        per_unit=per_unit,
    )


def row_order(agent: str, variant: str, variants: list[str]) -> tuple[bool, str, int, str, str]:
    """Reference agents first, then models by name; variants in the suite's declared order."""
    rank = variants.index(variant) if variant in variants else len(variants)
    return (not agent.startswith("ref:"), agent if not agent.startswith("ref:") else "", rank, variant, agent)


# Row fields of the common shape; anything else a scorecard JSON row holds predates it.
ROW_FIELDS = frozenset(Row.model_fields)


def row_model(agent: str, config: Mapping[str, Any]) -> str | None:
    """The model under test behind the row of ``agent``, read from a run's config (the manifest's):
    a harness paired with a model records it in its identity; a model agent is its own model."""
    external = config.get("external_agents")
    if isinstance(external, Mapping) and agent in external:
        identity = external[agent]
        model = identity.get("model") if isinstance(identity, Mapping) else None
        return model if isinstance(model, str) else None
    models = config.get("models")
    agents = models.get("agents") if isinstance(models, Mapping) else None
    return agent if isinstance(agents, list) and agent in agents else None


def harness_label(h: Mapping[str, str] | None) -> str | None:
    """A row's ``harness`` as one line, 'name version (kind)'; None for rows without one."""
    if not h:
        return None
    ident = " ".join(x for x in (h.get("name"), h.get("version")) if x) or "unnamed"
    return f"{ident} ({h['kind']})" if h.get("kind") else ident


def with_models(sc: Scorecard, config: Mapping[str, Any]) -> Scorecard:
    """``sc`` with every row's ``model`` filled from the run's config."""
    return sc.model_copy(update={"rows": [r.model_copy(update={"model": row_model(r.agent, config)}) for r in sc.rows]})


def fill_models_json(data: dict[str, Any], config: Mapping[str, Any]) -> dict[str, Any]:
    """A scorecard JSON written before rows carried ``model`` (the upgrade path for old run
    folders): each row gets it from the run's config. Rows that carry it are left as they are."""
    rows = data.get("rows")
    if not isinstance(rows, list) or all(not isinstance(r, dict) or "model" in r for r in rows):
        return data
    new_rows = []
    for r in rows:
        if isinstance(r, dict) and "model" not in r and isinstance(r.get("agent"), str):
            r = {"agent": r["agent"], "model": row_model(r["agent"], config), **r}
        new_rows.append(r)
    return {**data, "rows": new_rows}


def upgrade_json(data: dict[str, Any]) -> dict[str, Any]:
    """A scorecard JSON written before every suite used the common shape (atr's rows carried
    ``n_personas``, ``per_persona`` and their own fields beside the common ones), in the common
    shape: those fields move into the row's ``extra``. A current scorecard is returned as it is."""
    rows = data.get("rows")
    if not isinstance(rows, list) or all(not isinstance(r, dict) or set(r) <= ROW_FIELDS for r in rows):
        return data
    out = dict(data)
    dataset = out.get("dataset")
    if isinstance(dataset, dict) and "units" not in dataset and "personas" in dataset:
        out["dataset"] = {("units" if k == "personas" else k): v for k, v in dataset.items()}
    new_rows = []
    for r in rows:
        if not isinstance(r, dict):
            new_rows.append(r)
            continue
        row = {k: v for k, v in r.items() if k in ROW_FIELDS}
        if "n" not in row and "n_personas" in r:
            row["n"] = r["n_personas"]
        if "per_unit" not in row and "per_persona" in r:
            row["per_unit"] = r["per_persona"]
        extra = dict(row.get("extra") or {})
        extra.update({k: v for k, v in r.items() if k not in ROW_FIELDS and k not in ("n_personas", "per_persona")})
        row["extra"] = extra
        new_rows.append(row)
    out["rows"] = new_rows
    return out


def paired_difference(
    a: Mapping[str, Mapping[str, float | None]],
    b: Mapping[str, Mapping[str, float | None]],
    metric: str,
    *,
    seed: int,
    n_boot: int = 2000,
) -> tuple[int, float | None, float | None, float | None, tuple[float, float] | None]:
    """B − A over the keys (units or clusters) where both define ``metric``: (n, mean A, mean B,
    mean difference, paired bootstrap 95% interval of the difference)."""
    both = {}
    for k in sorted(set(a) & set(b)):
        x, y = (a[k] or {}).get(metric), (b[k] or {}).get(metric)
        if x is not None and y is not None:
            both[k] = (x, y)
    diffs: dict[str, float | None] = {k: y - x for k, (x, y) in both.items()}
    return (len(both), macro_mean({k: x for k, (x, _) in both.items()}), macro_mean({k: y for k, (_, y) in both.items()}),
            macro_mean(diffs), cluster_bootstrap_ci(diffs, seed=seed, n_boot=n_boot))


def as_planned(sc: Scorecard, units: list[str]) -> Scorecard:
    """``sc`` counted against the units the run planned (``--units N``, ``--unit ID``): the dataset
    line gives their number and a row's ``n_missing`` counts only planned units with no cell."""
    if not units:
        return sc
    planned = set(units)
    rows = []
    for r in sc.rows:
        seen = set(r.per_unit) | {a.split("#", 1)[0] for a in r.abort_reasons}
        rows.append(r.model_copy(update={"n_missing": len(planned - seen)}))
    return sc.model_copy(update={"rows": rows, "dataset": sc.dataset.model_copy(update={"units": len(units)})})
