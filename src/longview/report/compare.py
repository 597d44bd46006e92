"""Paired comparison of two runs: per metric, the difference B − A over the units (personas, users,
scenarios) present and defined in both — or over the rows' bootstrap clusters when the suite keeps
finer ones (``Row.clusters``: prefs' probes, pairs, changed cells) — with a paired bootstrap 95%
interval (units or clusters resampled with replacement, the mean of the differences recomputed)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from longview.agents.external.reported import label
from longview.harness.scorecard import paired_difference
from longview.kernel.stats import seed_from
from longview.report.data import RunData, per_unit


class PairedDiff(BaseModel):
    """One metric of one pair of rows."""

    metric: str = Field(description="Metric name.")
    a: str = Field(description="Row of run A: agent · variant.")
    b: str = Field(description="Row of run B: agent · variant.")
    n: int = Field(description="Units (or the rows' bootstrap clusters, when both keep them) defined in both rows.")
    mean_a: float | None = Field(description="A's mean over the paired units.")
    mean_b: float | None = Field(description="B's mean over the paired units.")
    diff: float | None = Field(description="Mean of B − A over the paired units.")
    ci95: tuple[float, float] | None = Field(description="Paired bootstrap interval; None with fewer than 2 units.")
    model_a: str | None = Field(default=None, description="The model under test behind A's row (its `model`).")
    model_b: str | None = Field(default=None, description="The model under test behind B's row (its `model`).")


class Comparison(BaseModel):
    suite: str
    a: str = Field(description="Label of run A.")
    b: str = Field(description="Label of run B.")
    same_dataset: bool = Field(description="Both runs evaluated the same dataset (sha256).")
    diffs: list[PairedDiff]
    unpaired: list[str] = Field(default_factory=list, description="Rows of either run with no partner.")
    over: str = Field(default="units", description="What was paired and resampled: units, or the suite's clusters.")


def _key(row: dict[str, Any]) -> str:
    h = row.get("harness")  # an external agent's row names its harness (and version, when it said)
    who = f" [{label(h)}]" if isinstance(h, dict) and h.get("version") else ""
    return f"{row['agent']}{who} · {row['variant']}"


def pair_rows(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> tuple[list[tuple[dict, dict]], list[str]]:
    """Rows with the same agent and variant; then, among the rest, rows that differ in one
    dimension only: the same variant when each run has exactly one such row (two models compared
    variant by variant), else the same agent when each run has exactly one such row (two variants,
    e.g. memory systems, compared for one agent)."""
    pairs = []
    left_b = {(r["agent"], r["variant"]): r for r in b}
    rest_a = []
    for r in a:
        other = left_b.pop((r["agent"], r["variant"]), None)
        (pairs.append((r, other)) if other is not None else rest_a.append(r))
    rest_b = list(left_b.values())
    for dim in ("variant", "agent"):
        left = []
        for r in rest_a:
            same = [o for o in rest_b if o[dim] == r[dim]]
            if len(same) == 1 and sum(1 for x in rest_a if x[dim] == r[dim]) == 1:
                pairs.append((r, same[0]))
                rest_b.remove(same[0])
            else:
                left.append(r)
        rest_a = left
    return pairs, [f"A: {_key(r)}" for r in rest_a] + [f"B: {_key(r)}" for r in rest_b]


def _clusters(row: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """What a row's bootstrap resamples: its clusters when the suite keeps finer ones, else units."""
    return row.get("clusters") or per_unit(row)


def paired_diff(metric: str, ra: dict[str, Any], rb: dict[str, Any], seed: int) -> PairedDiff:
    n, mean_a, mean_b, diff, ci = paired_difference(
        _clusters(ra), _clusters(rb), metric, seed=seed_from(seed, "compare", _key(ra), _key(rb), metric),
        n_boot=max(int(ra.get("n_boot") or 2000), int(rb.get("n_boot") or 2000)))
    return PairedDiff(metric=metric, a=_key(ra), b=_key(rb), n=n, mean_a=mean_a, mean_b=mean_b, diff=diff, ci95=ci,
                      model_a=ra.get("model"), model_b=rb.get("model"))


def compare(a: RunData, b: RunData, seed: int = 0) -> Comparison:
    pairs, unpaired = pair_rows(a.rows(), b.rows())
    names = list(a.scorecard.get("metrics") or {}) or list(dict.fromkeys(k for r in a.rows() for k in r["metrics"]))
    diffs = [paired_diff(m, ra, rb, seed) for ra, rb in pairs for m in names
             if m in ra.get("metrics", {}) and m in rb.get("metrics", {})]
    return Comparison(suite=a.suite_name, a=a.label, b=b.label,
                      same_dataset=a.scorecard.get("dataset", {}).get("sha256") == b.scorecard.get("dataset", {}).get("sha256"),
                      diffs=diffs, unpaired=unpaired,
                      over="clusters" if any(ra.get("clusters") and rb.get("clusters") for ra, rb in pairs) else "units")


def comparison_table(c: Comparison):
    from rich.table import Table

    def f(x: float | None, sign: bool = False) -> str:
        return "–" if x is None else (f"{x:+.3f}" if sign else f"{x:.3f}")

    def own(model: str | None, key: str) -> bool:  # a model that is not the row's agent name itself
        return model is not None and not key.startswith(f"{model} · ")

    # A model column only when some row's model is not its agent name (a harness paired with a model).
    models = any(own(d.model_a, d.a) or own(d.model_b, d.b) for d in c.diffs)
    t = Table(title=f"{c.suite}: B ({c.b}) − A ({c.a}), paired over {c.over} in both runs, bootstrap 95% CI")
    for col in ("row (A → B)", *(["model (A → B)"] if models else []), "metric", c.over, "A", "B", "B − A", "95% CI"):
        t.add_column(col, justify="left" if col in ("row (A → B)", "model (A → B)", "metric") else "right")
    for d in c.diffs:
        ci = "–" if d.ci95 is None else f"[{d.ci95[0]:+.3f}, {d.ci95[1]:+.3f}]"
        row = d.a if d.a == d.b else f"{d.a} → {d.b}"  # one name when the rows pair by the same name
        ma, mb = d.model_a or "–", d.model_b or "–"
        model = [ma if ma == mb else f"{ma} → {mb}"] if models else []
        t.add_row(row, *model, d.metric, str(d.n), f(d.mean_a), f(d.mean_b), f(d.diff, True), ci)
    return t
