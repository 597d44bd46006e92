"""Paired comparison of two runs: per metric, the difference B − A over the units (personas, users,
scenarios) present and defined in both, with a paired bootstrap 95% interval (units resampled
with replacement, the mean of the per-unit differences recomputed)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from longview.kernel.stats import cluster_bootstrap_ci, macro_mean, seed_from
from longview.report.data import RunData, per_unit


class PairedDiff(BaseModel):
    """One metric of one pair of rows."""

    metric: str = Field(description="Metric name.")
    a: str = Field(description="Row of run A: agent · variant.")
    b: str = Field(description="Row of run B: agent · variant.")
    n: int = Field(description="Units defined in both rows.")
    mean_a: float | None = Field(description="A's mean over the paired units.")
    mean_b: float | None = Field(description="B's mean over the paired units.")
    diff: float | None = Field(description="Mean of B − A over the paired units.")
    ci95: tuple[float, float] | None = Field(description="Paired bootstrap interval; None with fewer than 2 units.")


class Comparison(BaseModel):
    suite: str
    a: str = Field(description="Label of run A.")
    b: str = Field(description="Label of run B.")
    same_dataset: bool = Field(description="Both runs evaluated the same dataset (sha256).")
    diffs: list[PairedDiff]
    unpaired: list[str] = Field(default_factory=list, description="Rows of either run with no partner.")


def _key(row: dict[str, Any]) -> str:
    return f"{row['agent']} · {row['variant']}"


def pair_rows(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> tuple[list[tuple[dict, dict]], list[str]]:
    """Rows with the same agent and variant; then, among the rest, rows of the same variant when
    each run has exactly one (two models compared variant by variant)."""
    pairs = []
    left_b = {(r["agent"], r["variant"]): r for r in b}
    rest_a = []
    for r in a:
        other = left_b.pop((r["agent"], r["variant"]), None)
        (pairs.append((r, other)) if other is not None else rest_a.append(r))
    rest_b = list(left_b.values())
    unpaired = []
    for r in rest_a:
        same = [o for o in rest_b if o["variant"] == r["variant"]]
        if len(same) == 1 and sum(1 for x in rest_a if x["variant"] == r["variant"]) == 1:
            pairs.append((r, same[0]))
            rest_b.remove(same[0])
        else:
            unpaired.append(f"A: {_key(r)}")
    unpaired += [f"B: {_key(r)}" for r in rest_b]
    return pairs, unpaired


def paired_diff(metric: str, ra: dict[str, Any], rb: dict[str, Any], seed: int) -> PairedDiff:
    ua, ub = per_unit(ra), per_unit(rb)
    both = {}
    for unit in sorted(set(ua) & set(ub)):
        x, y = (ua[unit] or {}).get(metric), (ub[unit] or {}).get(metric)
        if x is not None and y is not None:
            both[unit] = (x, y)
    diffs = {u: y - x for u, (x, y) in both.items()}
    return PairedDiff(
        metric=metric, a=_key(ra), b=_key(rb), n=len(both),
        mean_a=macro_mean({u: x for u, (x, _) in both.items()}),
        mean_b=macro_mean({u: y for u, (_, y) in both.items()}),
        diff=macro_mean(diffs),
        ci95=cluster_bootstrap_ci(diffs, seed=seed_from(seed, "compare", _key(ra), _key(rb), metric)),
    )


def compare(a: RunData, b: RunData, seed: int = 0) -> Comparison:
    pairs, unpaired = pair_rows(a.rows(), b.rows())
    names = list(a.scorecard.get("metrics") or {}) or list(dict.fromkeys(k for r in a.rows() for k in r["metrics"]))
    diffs = [paired_diff(m, ra, rb, seed) for ra, rb in pairs for m in names
             if m in ra.get("metrics", {}) and m in rb.get("metrics", {})]
    return Comparison(suite=a.suite_name, a=a.label, b=b.label,
                      same_dataset=a.scorecard.get("dataset", {}).get("sha256") == b.scorecard.get("dataset", {}).get("sha256"),
                      diffs=diffs, unpaired=unpaired)


def comparison_table(c: Comparison):
    from rich.table import Table

    def f(x: float | None, sign: bool = False) -> str:
        return "–" if x is None else (f"{x:+.3f}" if sign else f"{x:.3f}")

    t = Table(title=f"{c.suite}: B ({c.b}) − A ({c.a}), paired over units in both runs, bootstrap 95% CI")
    for col in ("A row", "B row", "metric", "units", "A", "B", "B − A", "95% CI"):
        t.add_column(col, justify="left" if col in ("A row", "B row", "metric") else "right")
    for d in c.diffs:
        ci = "–" if d.ci95 is None else f"[{d.ci95[0]:+.3f}, {d.ci95[1]:+.3f}]"
        t.add_row(d.a, d.b, d.metric, str(d.n), f(d.mean_a), f(d.mean_b), f(d.diff, True), ci)
    return t
