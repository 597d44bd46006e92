"""The tempo breakdown table: TA parts, TC components and judge agreement per row."""

from __future__ import annotations

from typing import Any

from rich.table import Table


def _f(x: Any) -> str:
    return "–" if x is None else f"{x:.2f}"


def breakdown_table(sc: Any) -> Table:
    t = Table(title="tempo breakdown · TA parts, continuation quality, TC components (– = not judged / undefined)")
    for col in ("Agent", "Variant", "now", "later", "CQ", "evidence", "outputs", "constraints", "semantics", "completion", "TR-J agreement (MAE)"):
        t.add_column(col, justify="left" if col in ("Agent", "Variant") else "right")
    for r in sc.rows:
        x = r.extra
        comps, judged, agr = x.get("tc_components", {}), x.get("tc_judged", {}), x.get("judge_agreement")
        t.add_row(r.agent, r.variant, _f(x.get("ta_now")), _f(x.get("ta_later")), _f(x.get("continuation_quality")),
                  _f(comps.get("evidence")), _f(comps.get("outputs")), _f(comps.get("constraints")),
                  _f(judged.get("semantics")), _f(judged.get("completion")), _f(agr.get("mae")) if agr else "–")
    return t
