"""Scorecard assembly, Gap grouping, CI seeding, JSON shape and report tables, on the ATRBench fixtures."""

import json
from pathlib import Path

import pytest
import yaml
from rich.console import Console

from longview.kernel.agent import ToolCall
from longview.kernel.stats import cluster_bootstrap_ci, seed_from
from longview.suites.atr.dataset import Episode, load_episode
from longview.suites.atr.metrics import METRICS, ScoringError
from longview.suites.atr.records import CellRecord, LearningRecord, TestRecord
from longview.suites.atr.scorecard import build_scorecard
from longview.suites.atr.tables import breakdown_table, paper_table, scorecard_table

FIXTURES = Path(__file__).parents[2] / "fixtures" / "atrbench"
_ONTOLOGY = yaml.safe_load((FIXTURES / "ontology" / "tools.yaml").read_text(encoding="utf-8"))
_TOOLS = {t["name"]: t for dom in _ONTOLOGY["domains"].values() for t in dom["tools"]}
_TOOLS.update({t["name"]: t for t in _ONTOLOGY["base_tools"]["tools"]})


def safe_fields(tool: str) -> set[str]:
    """Safe-typed parameters per the ontology: ids, enums, booleans."""
    params = _TOOLS.get(tool, {}).get("parameters", [])
    return {p["name"] for p in params
            if p["name"].endswith(("_id", "_ids")) or p["type"].startswith("enum[") or p["type"] == "boolean"}


EPISODES: dict[str, Episode] = {
    ep.persona_id: ep
    for ep in (load_episode(p, set(_TOOLS)) for p in sorted((FIXTURES / "data").rglob("*.json")))
}
P1, P2 = sorted(EPISODES)
N_TESTS = {p: len(ep.test_sessions) for p, ep in EPISODES.items()}


def cell(agent: str, variant: str, persona: str, n_pass: int, learning: bool = True) -> CellRecord:
    """The first ``n_pass`` test sessions make the gold call; the rest make no relevant call."""
    ep = EPISODES[persona]
    tests = []
    for i, ts in enumerate(ep.test_sessions):
        ra = ts.required_action
        batch = [ToolCall(id="c1", name=ra.tool, arguments=ra.arguments)] if i < n_pass else []
        tests.append(TestRecord(session_id=ts.session_id, rule_id=ts.rule_id, termination="finish_session",
                                batches=[batch] if batch else []))
    runs = [LearningRecord(session_id=s.session_id, domain=s.domain, termination="task_complete", turns=3)
            for s in ep.learning_sessions] if learning else []
    return CellRecord(agent=agent, variant=variant, persona_id=persona, status="complete", learning=runs, tests=tests)


def both(agent: str, variant: str, n1: int, n2: int, learning: bool = True) -> list[CellRecord]:
    return [cell(agent, variant, P1, n1, learning), cell(agent, variant, P2, n2, learning)]


def build(cells, **kw):
    return build_scorecard(cells, EPISODES, "fixture", "ab" * 32, safe_fields, **kw)


def test_gold_calls_pass_every_real_test_session():
    sc = build(both("ref:oracle", "oracle_target", 99, 99, learning=False) + both("ref:passive", "default", 0, 0))
    assert sc.row("ref:oracle", "oracle_target").metrics.tsacc == 1.0
    passive = sc.row("ref:passive", "default")
    assert passive.metrics.tsacc == 0.0
    assert passive.metrics.rule_ask == 0.0 and passive.metrics.acq_prec is None
    assert sum(passive.breakdown.n_by_domain.values()) == N_TESTS[P1] + N_TESTS[P2]
    assert set(passive.breakdown.by_check_type) <= {"tool_identity", "param_id", "param_enum", "confirm"}


def test_json_shape():
    sc = build(both("m", "atr", 3, 5) + both("m", "default", 1, 2))
    d = json.loads(json.dumps(sc.to_json_dict()))
    assert set(d) == {"suite", "dataset", "rows"}
    assert d["suite"] == "atr"
    assert d["dataset"] == {"name": "fixture", "sha256": "ab" * 32, "units": 2}
    for row in d["rows"]:
        assert {"agent", "variant", "metrics", "ci95"} <= set(row)
        assert list(row["metrics"]) == list(METRICS) and list(row["ci95"]) == list(METRICS)
        for ci in row["ci95"].values():
            assert ci is None or (isinstance(ci, list) and len(ci) == 2 and ci[0] <= ci[1])


def test_gap_is_computed_within_each_model_group():
    cells = (both("a", "default", 1, 1) + both("a", "atr", 4, 4) + both("a", "oracle_target", 9, 9, False)
             + both("b", "default", 2, 2) + both("b", "always_ask", 2, 2))
    sc = build(cells)
    n = N_TESTS[P1]
    assert N_TESTS[P2] == n  # both fixture personas have the same test count, so macro = per persona
    a_gap = (9 - 1) / n
    for v in ("default", "atr", "oracle_target"):
        assert sc.row("a", v).gap == pytest.approx(a_gap)
    assert sc.row("a", "atr").gap_rec == pytest.approx((4 - 1) / (9 - 1))
    assert sc.row("a", "default").gap_rec == 0.0
    assert sc.row("a", "oracle_target").gap_rec is None
    # b ran no oracle: no gap, no recovery.
    assert sc.row("b", "always_ask").gap is None and sc.row("b", "always_ask").gap_rec is None


def test_zero_gap_leaves_recovery_undefined():
    sc = build(both("a", "default", 3, 3) + both("a", "atr", 5, 5) + both("a", "oracle_target", 3, 3, False))
    assert sc.row("a", "atr").gap == 0.0
    assert sc.row("a", "atr").gap_rec is None


def test_custom_grouping():
    cells = both("a", "default", 0, 0) + both("a-tuned", "atr", 2, 2) + both("a", "oracle_target", 4, 4, False)
    sc = build(cells, group_of=lambda agent: agent.split("-")[0])
    assert sc.row("a-tuned", "atr").group == "a"
    assert sc.row("a-tuned", "atr").gap_rec == pytest.approx(0.5)
    assert build(cells).row("a-tuned", "atr").gap is None  # default grouping: its own group


def test_reference_group_bounds_are_passive_and_oracle():
    cells = (both("ref:passive", "default", 1, 1) + both("ref:asker", "atr", 3, 3)
             + both("ref:asker", "default", 2, 2) + both("ref:oracle", "oracle_target", 9, 9, False))
    sc = build(cells)
    asker = sc.row("ref:asker", "atr")
    assert asker.group == "reference"
    assert asker.gap == pytest.approx(8 / N_TESTS[P1])
    assert asker.gap_rec == pytest.approx(2 / 8)
    assert sc.row("ref:asker", "default").gap_rec == pytest.approx(1 / 8)
    # Rows: reference agents first, variants in canonical order within the group.
    assert [(r.agent, r.variant) for r in sc.rows] == [
        ("ref:asker", "default"), ("ref:passive", "default"), ("ref:asker", "atr"), ("ref:oracle", "oracle_target")]


def test_ambiguous_reference_bound_gives_no_gap():
    cells = (both("ref:passive", "default", 1, 1) + both("ref:passive", "oracle_target", 9, 9, False)
             + both("ref:asker", "oracle_target", 8, 8, False))
    assert build(cells).row("ref:passive", "default").gap is None


def test_ci_seeded_per_agent_variant_metric():
    cells = both("m", "atr", 2, 7)
    sc = build(cells, seed=5)
    row = sc.row("m", "atr")
    values = {p: m.tsacc for p, m in row.per_persona.items()}
    assert row.ci95.tsacc == cluster_bootstrap_ci(values, seed=seed_from(5, "m", "atr", "tsacc"))
    assert build(cells, seed=5) == sc
    lo, hi = row.ci95.tsacc
    assert lo <= row.metrics.tsacc <= hi


def test_unknown_persona_and_duplicate_cells_are_rejected():
    with pytest.raises(ScoringError, match="not in the dataset"):
        build([cell("m", "atr", P1, 1).model_copy(update={"persona_id": "nobody"})])
    with pytest.raises(ScoringError, match="two cells"):
        build([cell("m", "atr", P1, 1), cell("m", "atr", P1, 2)])


def test_missing_persona_is_counted():
    row = build([cell("m", "atr", P1, 1)]).rows[0]
    assert (row.n_personas, row.n_aborted, row.n_missing) == (1, 0, 1)
    assert row.ci95.tsacc is None  # one persona: no interval


def render(table) -> str:
    console = Console(record=True, width=400)
    console.print(table)
    return console.export_text()


def test_reports_render():
    cells = (both("m", "default", 1, 2) + both("m", "atr", 3, 4) + both("m", "always_ask", 2, 2)
             + both("m", "oracle_target", 9, 10, False) + both("ref:passive", "default", 0, 0)
             + both("ref:asker", "atr", 5, 5) + both("ref:oracle", "oracle_target", 11, 11, False))
    sc = build(cells)
    full = render(scorecard_table(sc))
    row = sc.row("m", "atr")
    lo, hi = row.ci95.tsacc
    assert f"{row.metrics.tsacc:.2f} [{lo:.2f}, {hi:.2f}]" in full
    assert "–" in full  # undefined AcqPrec / AppliedRate
    paper = render(paper_table(sc))
    lines = [ln for ln in paper.splitlines() if ln.startswith("│ m ") or ln.startswith("│ reference ")]
    assert len(lines) == 2  # one line per model group
    assert f"{sc.row('m', 'atr').gap:.2f}" in paper
    breakdown = render(breakdown_table(sc))
    assert "tool_identity" in breakdown and "commerce" in breakdown


def test_the_common_shape_carries_atrs_scorecard_without_loss():
    """atr scores into the one scorecard shape every suite uses (n, per_unit, atr's own fields in
    extra); its typed view comes back unchanged, and an old run's scorecard JSON (the golden file
    is one) reads as the same common shape."""
    from longview.harness.scorecard import upgrade_json
    from longview.suites.atr.scorecard import from_common, to_common

    sc = build(both("m", "atr", 3, 5) + both("m", "default", 1, 2) + both("ref:oracle", "oracle_target", 99, 99, False))
    common = to_common(sc)
    assert from_common(common) == sc
    row = common.to_json_dict()["rows"][0]
    assert "n_personas" not in row and "per_persona" not in row and {"group", "gap", "breakdown"} <= set(row["extra"])
    golden = json.loads((Path(__file__).parents[2] / "golden/atr/scorecard.json").read_text())
    upgraded = upgrade_json(golden)
    assert all("n_personas" not in r and "n" in r and "per_unit" in r for r in upgraded["rows"])
    back = from_common(type(common).model_validate({**upgraded, "metrics": {}}))
    assert back.to_json_dict() == golden


def test_an_external_agents_row_names_its_harness_under_the_agent_as_the_rows_table_does():
    """The harness line the generic rows table prints ('name version (kind)', dim, as text: markup
    and escapes from the process never reach the terminal), in atr's own table; it survives the
    common shape both ways and stays out of the JSON of rows without one."""
    from longview.harness.terminal.tables import rows_table
    from longview.suites.atr.scorecard import from_common, to_common

    hostile = {"kind": "command", "name": "[link=http://x]evil[/link]\x1b[2J", "version": "1.0"}
    sc = build(both("cmd:agent", "atr", 3, 5) + both("ref:passive", "default", 0, 0))
    sc.rows[[r.agent for r in sc.rows].index("cmd:agent")].harness = hostile
    assert from_common(to_common(sc)) == sc
    label = "[link=http://x]evil[/link]\\x1b[2J 1.0 (command)"
    for table in (scorecard_table(sc), rows_table(to_common(sc))):
        shown = render(table)
        assert label in shown and "\x1b" not in shown
        lines = shown.splitlines()
        (i,) = [n for n, ln in enumerate(lines) if ln.startswith("│ cmd:agent ")]
        assert lines[i + 1].startswith(f"│ {label}")  # under the agent, in its column
    rows = {r["agent"]: r for r in sc.to_json_dict()["rows"]}
    assert rows["cmd:agent"]["harness"] == hostile and "harness" not in rows["ref:passive"]
