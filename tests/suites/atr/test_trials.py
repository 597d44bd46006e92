"""Repeated trials: per-persona averaging, pass^k, cell keys, and the CLI plan."""

from __future__ import annotations

from pathlib import Path

import pytest

from longview.domains.personal import all_tool_names, safe_fields
from longview.harness import run as harness
from longview.harness.options import RunConfig
from longview.harness.suite import Cell
from longview.kernel.agent import ToolCall
from longview.suites.atr.dataset import load_episode
from longview.suites.atr.records import CellRecord, TestRecord
from longview.suites.atr.scorecard import build_scorecard

ROOT = Path(__file__).parents[2] / "fixtures/atrbench"
EP = load_episode(next(ROOT.glob("data/personas/cassandra_tovar/episodes/*.json")), all_tool_names())


def cell(trial: int, passing: set[int]) -> CellRecord:
    tests = []
    for i, t in enumerate(EP.test_sessions):
        ra = t.required_action
        batch = [ToolCall(id="c", name=ra.tool, arguments=ra.arguments)] if i in passing else []
        tests.append(TestRecord(session_id=t.session_id, rule_id=t.rule_id, termination="agent_finish",
                                batches=[batch] if batch else []))
    return CellRecord(agent="m/x", variant="oracle_target", persona_id=EP.persona_id, trial=trial,
                      status="complete", tests=tests)


def test_trials_average_per_persona_and_give_pass_k():
    cells = [cell(0, {0, 1}), cell(1, {0, 2}), cell(2, {0})]
    sc = build_scorecard(cells, {EP.persona_id: EP}, "fx", "0" * 64, safe_fields)
    row = sc.rows[0]
    n = len(EP.test_sessions)
    assert row.trials == 3 and row.n_personas == 1
    assert row.metrics.tsacc == pytest.approx((2 + 2 + 1) / 3 / n)
    # session 0 passes 3/3; sessions 1 and 2 pass 1/3 each
    assert row.tsacc_pass_k == {"1": pytest.approx(5 / 3 / n), "2": pytest.approx(1 / n), "3": pytest.approx(1 / n)}
    with pytest.raises(Exception, match="two cells"):
        build_scorecard(cells + [cell(1, set())], {EP.persona_id: EP}, "fx", "0" * 64, safe_fields)


def test_trial_cells_have_distinct_keys_and_trial_zero_keeps_its_key(tmp_path):
    assert Cell(agent="a", variant="v", unit="p").key == "a__v__p" and Cell(agent="a", variant="v", unit="p", trial=2).key == "a__v__p__t2"
    opts = RunConfig(suite="atr", dataset=f"atrbench:{ROOT}", agents=["ref:oracle"], trials=2, out=tmp_path / "r")
    cells = harness.prepare(opts).cells
    assert len(cells) == 4 and {c.trial for c in cells} == {0, 1}
    store, sc = harness.run(opts)
    assert sc.rows[0].trials == 2 and sc.rows[0].extra["tsacc_pass_k"] == {"1": 1.0, "2": 1.0}
