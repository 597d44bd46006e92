"""Agreement between two model judges, as App. E.5 reports it (Tables 4-5): over the runs both
judged, Pearson and Spearman correlations, paired MAE and the mean difference Δ (second judge
minus first) for the continuous scores (TC, TR-J); positive rates, Δ, raw agreement and Cohen's
kappa for the binary TA decisions (now, later, TA). None with fewer than two judges."""

from __future__ import annotations

from typing import Any

from longview.judges.base import agreement


def pearson(xs: list[float], ys: list[float]) -> float | None:
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    vx, vy = sum((x - mx) ** 2 for x in xs), sum((y - my) ** 2 for y in ys)
    if not vx or not vy:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / (vx * vy) ** 0.5


def ranks(xs: list[float]) -> list[float]:
    """Average ranks (ties share the mean rank)."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    out = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def continuous(a: list[float], b: list[float]) -> dict[str, Any]:
    n = len(a)
    if not n:
        return {"n": 0}
    return {"n": n, "pearson": pearson(a, b), "spearman": pearson(ranks(a), ranks(b)),
            "mae": sum(abs(x - y) for x, y in zip(a, b, strict=True)) / n,
            "mean_first": sum(a) / n, "mean_second": sum(b) / n, "delta": (sum(b) - sum(a)) / n}


def binary(a: list[bool], b: list[bool]) -> dict[str, Any]:
    n = len(a)
    if not n:
        return {"n": 0}
    k = agreement({str(i): x for i, x in enumerate(a)}, {str(i): y for i, y in enumerate(b)})
    ra, rb = sum(a) / n, sum(b) / n
    return {"n": n, "rate_first": ra, "rate_second": rb, "delta": rb - ra, "agreement": k["agreement"], "kappa": k["kappa"]}


def judge_agreement(cells: list[Any]) -> dict[str, Any] | None:
    """Agreement of the first two model judges over every run both judged (per-run values)."""
    runs = [r.judge for c in cells for r in c.runs if r.judge and len(r.judge.get("judges", [])) >= 2]
    if not runs:
        return None
    first, second = runs[0]["judges"][:2]
    out: dict[str, Any] = {"judges": [first, second]}
    for key in ("tc", "tr_j"):
        pairs = [(r["per_judge"][first].get(key), r["per_judge"][second].get(key)) for r in runs]
        ok = [(x, y) for x, y in pairs if x is not None and y is not None]
        out[key] = continuous([x for x, _ in ok], [y for _, y in ok])
    for key in ("ta_now", "ta_later", "ta"):
        pairs = [(r["per_judge"][first].get(key), r["per_judge"][second].get(key)) for r in runs]
        ok = [(bool(x), bool(y)) for x, y in pairs if x is not None and y is not None]
        out[key] = binary([x for x, _ in ok], [y for _, y in ok])
    return out
