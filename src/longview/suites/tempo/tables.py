"""The tempo breakdown table: TA parts, TC components, costs of attention and judge health per row."""

from __future__ import annotations

from typing import Any

from rich.table import Table


def _f(x: Any) -> str:
    return "–" if x is None else f"{x:.2f}"


def breakdown_table(sc: Any) -> Table:
    t = Table(title="tempo breakdown · TA parts, continuation quality, TC components, trust checkpoints (– = not judged / undefined)")
    cols = ("Agent", "Variant", "now", "later", "CQ", "evidence", "outputs", "constraints", "semantics", "completion",
            "trust d2/d4/d7", "ill-timed", "uncredited", "judge failures", "TR-J r (2 judges)")
    for col in cols:
        t.add_column(col, justify="left" if col in ("Agent", "Variant") else "right")
    for r in sc.rows:
        x = r.extra
        comps, judged, agr = x.get("tc_components", {}), x.get("tc_judged", {}), x.get("judge_agreement")
        cps = x.get("trust_checkpoints", {})
        fails = sum((x.get("judge_failures") or {}).values())
        t.add_row(r.agent, r.variant, _f(x.get("ta_now")), _f(x.get("ta_later")), _f(x.get("continuation_quality")),
                  _f(comps.get("evidence")), _f(comps.get("outputs")), _f(comps.get("constraints")),
                  _f(judged.get("semantics")), _f(judged.get("completion")),
                  "/".join(_f(cps.get(k)) for k in ("day2", "day4", "day7")),
                  _f(x.get("ill_timed")), _f(x.get("uncredited_acts")), str(fails),
                  _f((agr.get("tr_j") or {}).get("pearson")) if agr else "–")
    return t
