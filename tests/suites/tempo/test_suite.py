"""The suite end to end through run_cell/score with a hand-built CellContext: the reference-agent
targets of the issue, the scorecard shape, and the timeline view."""

import json
import re

import pytest

from longview.suites.tempo.timeline import timeline_lines

UNITS = ["research-deadline:{p}", "shopping-monitor:{p}"]  # one GPU-slot and one quota scenario
REFS = ["ref:oracle", "ref:policy", "ref:always-suggest", "ref:always-execute", "ref:passive"]


@pytest.fixture(scope="module")
def card(tmp_path_factory, run_cells):
    units = [u.format(p=p) for u in UNITS for p in ("reviewer", "operator")]
    return run_cells(REFS, units, tmp_path_factory.mktemp("cells"))


def test_scorecard_keys_and_rows(card):
    sc, _ = card
    assert sc.suite == "tempo"
    keys = {"tc_rules", "ta", "tr_d", "trust_sim", "interruptions"}  # offline: no TR-J, no 5-component TC
    assert set(sc.metrics) == keys and sc.metrics["interruptions"].higher_is_better is False
    for row in sc.rows:
        assert set(row.metrics) == keys
        assert row.variant == "default" and row.n == 4
        assert row.extra["judge_agreement"] is None


def test_oracle_targets(card):
    row = card[0].row("ref:oracle", "default")
    assert row.metrics["tr_d"] >= 0.95 and row.metrics["ta"] == 1.0 and row.metrics["tc_rules"] == 1.0
    assert row.extra["continuation_quality"] == 1.0


def test_policy_never_defers(card):
    row = card[0].row("ref:policy", "default")
    assert row.metrics["ta"] == 0.0 and row.extra["ta_now"] == 1.0 and row.extra["ta_later"] == 0.0


def test_always_suggest_tr_d_is_the_share_of_suggest_tasks(card):
    _, results = card
    for text in results:
        cell = json.loads(text)
        if cell["agent"] != "ref:always-suggest":
            continue
        for run in cell["runs"]:
            tasks = run["score"]["tasks"]
            share = sum(t["expected"] == "suggest" for t in tasks) / len(tasks)
            assert run["score"]["tr_d"] == pytest.approx(share)


def test_always_execute_ends_with_lower_trust_than_policy_for_reviewers(card):
    sc, _ = card
    for unit in [u.format(p="reviewer") for u in UNITS]:
        ex = sc.row("ref:always-execute", "default").per_unit[unit]["trust_sim"]
        pol = sc.row("ref:policy", "default").per_unit[unit]["trust_sim"]
        assert ex < pol


def test_passive_is_the_floor_of_the_reference_agents(card):
    sc, _ = card
    low = sc.row("ref:passive", "default").metrics
    for ref in REFS[:-1]:
        row = sc.row(ref, "default").metrics
        for key in ("tc_rules", "tr_d", "trust_sim"):
            assert low[key] < row[key], (ref, key)


def test_persona_option_names_the_variant(tmp_path, run_cells):
    sc, _ = run_cells(["ref:oracle"], ["shopping-monitor:operator"], tmp_path, persona="operator")
    assert [r.variant for r in sc.rows] == ["operator"]
    assert sc.dataset.units == 10  # ten scenarios x the one persona


def test_timeline_view(tmp_path, run_cells):
    run_cells(["ref:oracle"], ["research-deadline:reviewer"], tmp_path)
    folder = next(tmp_path.iterdir())
    text = "\n".join(timeline_lines(folder))
    assert "Day 1 Mon 02 Mar: asleep until 07:00, from 23:00" in text
    assert re.search(r"19:20  DEFER    JOB-2 .* until 2026-03-06T23:30:00", text)
    assert "picks up deferred work" in text
    assert "user asleep: delivered Sat 07:00" in text
    assert re.search(r"07:00  user decides R\d+ \(held since Fri 23:30\)", text)
    assert (folder / "a001.jsonl").exists()  # one kernel trace per activation


def test_an_aborted_cell_is_recorded_and_never_scored(tmp_path, run_cells):
    from longview.kernel.errors import CellAborted

    class Failing:
        name = "mock/failing"

        async def act(self, obs):
            raise CellAborted("model kept failing")

    sc, results = run_cells(["mock/failing"], ["food-mealplan:reviewer"], tmp_path, agent_factory=lambda a, u: Failing())
    assert json.loads(results[0])["status"] == "aborted"
    row = sc.rows[0]
    assert row.n == 0 and row.n_aborted == 1 and row.metrics["tr_d"] is None
    assert row.abort_reasons == {"food-mealplan:reviewer": "model kept failing"}


def test_trace_labels_depths(tmp_path, run_cells):
    from longview.kernel.trace import read_trace
    from longview.suites.tempo.suite import TempoSuite

    run_cells(["ref:oracle"], ["research-deadline:planner"], tmp_path)
    folder = next(tmp_path.iterdir())
    lines = [ln for f in sorted(folder.glob("a*.jsonl")) for ln in TempoSuite().transcript(read_trace(f))]
    text = "\n".join(lines)
    for label in ("PREPARE save_note(", "SUGGEST approval request [", "EXECUTE book(", "DEFER JOB-2", "woken by user_message"):
        assert label in text


class GateAgent:
    """Counts the runs inside a model call at once: each call yields to the loop a few times, so
    runs that are in flight together overlap (a count, not a clock)."""

    name = "probe:gate"

    def __init__(self, counter):
        self.counter = counter

    async def act(self, obs):
        import asyncio

        from longview.kernel.agent import AssistantTurn, ToolCall

        c = self.counter
        c["now"] += 1
        c["peak"] = max(c["peak"], c["now"])
        for _ in range(20):
            await asyncio.sleep(0)
        c["now"] -= 1
        return AssistantTurn(tool_calls=[ToolCall(id="f", name="finish", arguments={})])


@pytest.mark.parametrize("repeats", [1, 3])
def test_repeats_run_concurrently(tmp_path, repeats):
    import asyncio

    from longview.harness.context import CellContext
    from longview.harness.roles import Roles
    from longview.harness.suite import Cell
    from longview.suites.tempo.suite import TempoSuite

    suite = TempoSuite()
    opts = suite.Options(repeats=repeats)
    data = suite.load_dataset("builtin", opts)
    counter = {"now": 0, "peak": 0}
    cell = Cell(agent="probe:gate", variant="default", unit="food-mealplan:reviewer")

    async def go():
        ctx = CellContext(cell=cell, dataset=data, options=opts, agent=GateAgent(counter), components={},
                          roles=Roles({}, no_cache=True), folder=tmp_path, slots=asyncio.Semaphore(8))
        return await suite.run_cell(ctx)

    res = asyncio.run(go())
    assert res.status == "complete" and len(res.runs) == repeats
    assert counter["peak"] == repeats  # in flight with repeats=3 is 3x repeats=1
    assert sorted(p.name for p in tmp_path.glob("*run.json")) == (
        ["run.json"] if repeats == 1 else [f"r{r}-run.json" for r in range(repeats)])
