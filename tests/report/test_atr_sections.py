"""The atr report sections, pinned: Table 3's shape (one line per model, the reference group as
one line with ref:passive and ref:oracle as its bounds) and Table 4's summary over model lines."""

from __future__ import annotations

from longview.suites.atr.report_hooks import report_sections


def row(agent, variant, tsacc, ask=None, cov=None, prec=None, app=None, group=None, gap=None, gap_rec=None):
    return {"agent": agent, "variant": variant,
            "metrics": {"tsacc": tsacc, "rule_ask": ask, "rule_cov": cov, "acq_prec": prec, "applied_rate": app},
            "extra": {"group": group or ("reference" if agent.startswith("ref:") else agent), "gap": gap,
                      "gap_rec": gap_rec}}


CARD = {"suite": "atr", "rows": [
    row("ref:passive", "default", 0.0, 0.0, 0.0, gap=1.0, gap_rec=0.0),
    row("ref:asker", "atr", 0.34, 1.0, 0.32, 0.31, 1.0, gap=1.0, gap_rec=0.34),
    row("ref:oracle", "oracle_target", 1.0, gap=1.0),
    row("m/a", "default", 0.2, 0.0, 0.0, gap=0.7, gap_rec=0.0),
    row("m/a", "atr", 0.3, 0.6, 0.1, 0.2, 0.75, gap=0.7, gap_rec=0.1 / 0.7),
    row("m/a", "always_ask", 0.25, 1.0, 0.12, 0.1, 0.5, gap=0.7, gap_rec=0.05 / 0.7),
    row("m/a", "oracle_target", 0.9, gap=0.7),
    row("m/b", "default", 0.1, gap=0.8, gap_rec=0.0),
    row("m/b", "atr", 0.1, 0.1, 0.0, None, None, gap=0.8, gap_rec=0.0),
    row("m/b", "oracle_target", 0.9, gap=0.8),
]}


def test_table3_has_the_papers_columns_and_lines():
    t3, _ = report_sections(CARD)
    assert t3.columns[:5] == ["Model", "TSAcc Def.", "TSAcc ATR", "TSAcc Alw.", "TSAcc Orc."]
    assert t3.columns[-3:] == ["Gap", "GapRec ATR", "GapRec Alw."]
    lines = {r[0]: dict(zip(t3.columns, r, strict=True)) for r in t3.rows}
    assert list(lines) == ["reference", "m/a", "m/b"]
    ref = lines["reference"]
    assert (ref["TSAcc Def."], ref["TSAcc ATR"], ref["TSAcc Alw."], ref["TSAcc Orc."]) == (0.0, 34.0, None, 100.0)
    a = lines["m/a"]
    assert (a["TSAcc Def."], a["TSAcc ATR"], a["TSAcc Alw."], a["TSAcc Orc."], a["Gap"]) == (20.0, 30.0, 25.0, 90.0, 70.0)
    assert (a["Ask ATR"], a["Ask Alw."], a["Cov ATR"], a["AcqPrec Alw."], a["App ATR"]) == (0.6, 1.0, 10.0, 10.0, 75.0)
    assert (a["GapRec ATR"], a["GapRec Alw."]) == (14.3, 7.1)
    assert lines["m/b"]["TSAcc Alw."] is None and lines["m/b"]["App ATR"] is None


def test_table4_summarises_the_learning_variants_over_model_lines():
    _, t4 = report_sections(CARD)
    assert t4.columns == ["Variant", "Ask", "Cov", "App", "GapRec", "Active"]
    atr, alw = t4.rows
    # atr: m/a (ask 0.6, cov 0.1, app 0.75, gaprec 1/7) and m/b (ask 0.1, cov 0, app undefined, gaprec 0)
    assert atr == ["ATR", 0.35, 5.0, 75.0, 7.1, "1/2"]
    assert alw == ["Always", 1.0, 12.0, 50.0, 7.1, "1/1"]
    assert "2 model line(s)" in t4.note


def test_no_atr_variant_no_sections():
    assert report_sections({"suite": "atr", "rows": [row("x/y", "other", 0.5)]}) == []
