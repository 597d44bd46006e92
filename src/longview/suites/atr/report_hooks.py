"""Report hooks of the `atr` suite: its profile line, the paper's Table 3 and Table 4 shapes (from
the scorecard JSON alone), and each session's outcome (the suite's own matcher), declared by
``ATRSuite``."""

from __future__ import annotations

from typing import Any

from longview.domains.personal import safe_fields
from longview.harness.suite import ProfileSpec, Section, SessionOutcome
from longview.suites.atr.metrics import score_cell
from longview.suites.atr.records import CellRecord

PROFILE = ProfileSpec(
    label="ask-to-remember",
    metric="tsacc",
    variant="default",
    quick_units=3,
    reading="share of later tasks done the user's standing way, with no hint to ask for it "
            "(floor: never asks; ceiling: is told the rule)",
)

DEF, ATR, ALW, ORC = "default", "atr", "always_ask", "oracle_target"
LEARNING = (ATR, ALW)
BOUND_AGENT = {DEF: "ref:passive", ORC: "ref:oracle"}
SHORT = {DEF: "Def.", ATR: "ATR", ALW: "Alw.", ORC: "Orc."}


def _x(row: dict[str, Any] | None, key: str) -> Any:
    """One of atr's own row fields (group, gap, gap_rec), kept in the row's ``extra``."""
    return None if row is None else (row.get("extra") or {}).get(key)


def _group(row: dict[str, Any]) -> str:
    return _x(row, "group") or ("reference" if row["agent"].startswith("ref:") else row["agent"])


def _pick(rows: list[dict[str, Any]], variant: str) -> dict[str, Any] | None:
    cands = [r for r in rows if r["variant"] == variant]
    if len(cands) > 1:
        cands = [r for r in cands if r["agent"] == BOUND_AGENT.get(variant)]
    return cands[0] if len(cands) == 1 else None


def lines(scorecard: dict[str, Any]) -> list[tuple[str, bool, dict[str, dict[str, Any] | None]]]:
    """(label, is_reference, variant -> row): one line per model; the reference group is one line
    per learning agent, with the passive and oracle agents as its bounds (as the paper's Table 3)."""
    rows = scorecard.get("rows", [])
    out = []
    for group in dict.fromkeys(_group(r) for r in rows):
        members = [r for r in rows if _group(r) == group]
        bounds = {DEF: _pick(members, DEF), ORC: _pick(members, ORC)}
        learners = list(dict.fromkeys(r["agent"] for r in members if r["variant"] in LEARNING))
        for agent in learners or [None]:
            line: dict[str, dict[str, Any] | None] = dict(bounds)
            for v in LEARNING:
                line[v] = next((r for r in members if r["agent"] == agent and r["variant"] == v), None)
            label = agent if agent and len(learners) > 1 else group
            out.append((label, group == "reference", line))
    return out


def _m(row: dict[str, Any] | None, key: str) -> float | None:
    return None if row is None else (row.get("metrics") or {}).get(key)


def _pct(x: float | None) -> float | None:
    return None if x is None else round(100 * x, 1)


def _r2(x: float | None) -> float | None:
    return None if x is None else round(x, 2)


def table3(scorecard: dict[str, Any]) -> Section:
    cols = ["Model"] + [f"TSAcc {SHORT[v]}" for v in (DEF, ATR, ALW, ORC)]
    for head in ("Ask", "Cov", "AcqPrec", "App"):
        cols += [f"{head} {SHORT[v]}" for v in LEARNING]
    cols += ["Gap"] + [f"GapRec {SHORT[v]}" for v in LEARNING]
    rows = []
    for label, _, line in lines(scorecard):
        cells: list[Any] = [label] + [_pct(_m(line[v], "tsacc")) for v in (DEF, ATR, ALW, ORC)]
        cells += [_r2(_m(line[v], "rule_ask")) for v in LEARNING]
        for key in ("rule_cov", "acq_prec", "applied_rate"):
            cells += [_pct(_m(line[v], key)) for v in LEARNING]
        gap = next((_x(r, "gap") for r in line.values() if _x(r, "gap") is not None), None)
        cells += [_pct(gap)] + [_pct(_x(line[v], "gap_rec")) for v in LEARNING]
        rows.append(cells)
    return Section(title="Table 3 · main scorecard (paper shape)",
                   note="Persona-macro. TSAcc, Cov, AcqPrec, App, Gap and GapRec in %; Ask is RuleAsk per learning "
                        "session. Gap = Orc. − Def. TSAcc in points; GapRec = (variant − Def.) / Gap. "
                        "The reference line pairs ref:passive (Def.) and ref:oracle (Orc.) with each learning agent.",
                   columns=cols, rows=rows)


def table4(scorecard: dict[str, Any]) -> Section:
    all_lines = lines(scorecard)
    models = [line for _, ref, line in all_lines if not ref]
    over = models or [line for _, _, line in all_lines]
    who = f"{len(over)} model line(s)" if models else f"{len(over)} reference line(s) (no model in these runs)"
    rows = []
    for v in LEARNING:
        present = [line for line in over if line[v] is not None]

        def mean(key: str, rec: bool = False, lines_: list = present, v: str = v) -> float | None:
            xs = [(_x(ln[v], "gap_rec") if rec else _m(ln[v], key)) for ln in lines_]
            vals = [x for x in xs if x is not None]
            return sum(vals) / len(vals) if vals else None

        active = sum(1 for ln in present if (_m(ln[v], "rule_ask") or 0) >= 0.5)
        rows.append(["ATR" if v == ATR else "Always", _r2(mean("rule_ask")), _pct(mean("rule_cov")),
                     _pct(mean("applied_rate")), _pct(mean("", rec=True)), f"{active}/{len(present)}"])
    return Section(title="Table 4 · learning variants summarised over models",
                   note=f"Mean over {who}, persona-macro. Ask = RuleAsk per learning session; Cov, App and GapRec "
                        "in %. Active counts lines with Ask ≥ 0.5.",
                   columns=["Variant", "Ask", "Cov", "App", "GapRec", "Active"], rows=rows)


def report_sections(scorecard: dict[str, Any]) -> list[Section]:
    if not any(r.get("variant") in (DEF, ATR, ALW, ORC) for r in scorecard.get("rows", [])):
        return []
    return [table3(scorecard), table4(scorecard)]


def session_outcomes(result: str, dataset: Any) -> dict[str, SessionOutcome]:
    """Each test session's matcher verdict (labels: domain, check type); learning sessions are
    not scored alone (labels: domain, phase)."""
    cell = CellRecord.model_validate_json(result)
    out = {s.session_id: SessionOutcome(labels={"domain": s.domain, "asks": str(len(s.asks))}) for s in cell.learning}
    if cell.status != "complete":
        return out
    metrics = score_cell(cell, dataset.episode(cell.persona_id), safe_fields)
    for v in metrics.verdicts:
        out[v.session_id] = SessionOutcome(outcome="pass" if v.passed else "fail", reason=v.reason,
                                           labels={"domain": v.domain, "check_type": v.check_type})
    return out
