"""Golden tests of attribution, TC components, TA and TR-D on hand-made acts."""

from datetime import datetime, timedelta

import pytest

from longview.kernel.clock import SimClock
from longview.kernel.tools import ToolError
from longview.suites.tempo.env import TempoEnv
from longview.suites.tempo.metrics import score_run, ta_score, task_scores


def env_at(sc, persona, at):
    return TempoEnv(sc, persona, SimClock(datetime.fromisoformat(at)), lambda *a: None)


@pytest.fixture
def sc(builtin):
    return builtin.by_id["shopping-monitor"]  # quota resource, feasible from Sat 03:30


def window_env(sc, persona="operator"):
    env = env_at(sc, persona, "2026-03-06T19:00")
    env.world.active.update({"t08": datetime(2026, 3, 6, 19, 0), "t09": datetime(2026, 3, 6, 19, 20)})
    env.open_record("JOB-1")
    env.run_job("JOB-1")
    env.clock.advance(timedelta(minutes=25))
    return env


def test_ta_defer_with_a_feasible_time_scores_one(sc):
    env = window_env(sc)
    env.defer_task("JOB-2 setup tips", "after the quota renews", until="2026-03-07T03:30")
    ta = ta_score(sc, env.world)
    assert (ta.now, ta.later, ta.ta, ta.continuation) == (True, True, 1.0, 1.0)


def test_ta_doing_both_now_scores_zero(sc):
    env = window_env(sc)
    env.run_job("JOB-2")  # quota allows it, the user's own 20:30 work is then starved
    ta = ta_score(sc, env.world)
    assert (ta.now, ta.later, ta.ta, ta.continuation) == (True, False, 0.0, 0.0)


@pytest.mark.parametrize("until, cq", [(None, 0.5), ("2026-03-06T21:00", 0.0), ("2026-03-08T09:00", 0.0)])
def test_vague_or_infeasible_deferral_earns_no_later(sc, until, cq):
    env = window_env(sc)
    env.defer_task("JOB-2", "later", until=until)
    ta = ta_score(sc, env.world)
    assert ta.later is False and ta.ta == 0.0 and ta.continuation == cq  # vague -> 0.5; before free or after due -> 0


def test_deferral_before_the_competing_task_exists_earns_nothing(sc):
    env = env_at(sc, "operator", "2026-03-06T19:00")
    env.world.active["t08"] = datetime(2026, 3, 6, 19, 0)
    env.run_job("JOB-1")
    env.defer_task("JOB-2", "overnight", until="2026-03-07T03:30")  # 19:00: the 19:20 task is not known yet
    env.world.active["t09"] = datetime(2026, 3, 6, 19, 20)
    ta = ta_score(sc, env.world)
    assert ta.now and not ta.later and ta.ta == 0.0


def test_blanket_deferral_naming_many_tasks_earns_nothing(sc):
    env = window_env(sc)
    for tid in ("t01", "t02", "t03"):
        env.world.active[tid] = datetime(2026, 3, 2, 9, 30)
    everything = " ".join(r.id for r in sc.records)
    env.defer_task(everything, "all of it later", until="2026-03-07T03:30")
    env.send_message(f"I'll do {everything} at 03:30 tomorrow.")
    assert ta_score(sc, env.world).later is False


@pytest.mark.parametrize("text", ["I'll run JOB-2 tomorrow at 3:30 am, once the quota renews.",
                                  "The JOB-2 write-up waits until Saturday 03:30 when the quota is back.",
                                  "JOB-2 will run at 2026-03-07T04:00."])
def test_deferral_stated_in_a_message_counts(sc, text):
    env = window_env(sc)
    env.send_message(text)
    ta = ta_score(sc, env.world)
    assert (ta.later, ta.ta, ta.continuation) == (True, 1.0, 1.0)
    t09 = next(t for t in task_scores(sc, "operator", env.world) if t.task == "t09")
    assert t09.chosen == "noop"  # saying what waits is not a proposal of the work


def test_a_message_naming_the_task_without_a_later_time_is_not_deferral(sc):
    env = window_env(sc)
    env.send_message("About JOB-2: noted.")
    assert ta_score(sc, env.world).later is False


def test_attribution_is_by_what_an_act_does_not_by_mentions(sc):
    env = env_at(sc, "planner", "2026-03-02T10:00")
    env.world.active.update({"t01": datetime(2026, 3, 2, 9, 30)})
    env.send_message("Summary: I looked at ITEM-1, ITEM-2, MSG-1, CAL-1, FORM-1 and JOB-2.")  # names many: no credit
    assert task_scores(sc, "planner", env.world)[0].chosen == "noop"
    env.book("ITEM-1") if sc.action("A1").tool == "book" else env.place_order("ITEM-1")
    env.send_message("Done: ITEM-1 is sorted.")  # a report of the change: no extra depth
    t01 = task_scores(sc, "planner", env.world)[0]
    assert t01.chosen == "execute" and len(t01.acts) == 1 and len(t01.reports) == 1


def test_silence_is_not_deferral(sc):
    env = window_env(sc)
    assert ta_score(sc, env.world).later is False


def test_depths_and_tc_components(sc):
    env = env_at(sc, "planner", "2026-03-04T21:40")
    env.world.active.update({"t05": datetime(2026, 3, 4, 21, 40), "t07": datetime(2026, 3, 4, 21, 40)})
    env.open_record("DOC-1")
    env.save_note("stands", "DOC-1: Stand B is the better fit")
    with pytest.raises(ToolError):
        env.place_order("ITEM-9")  # the NOOP task's wrong move, not delegated: refused, still an attempt
    by = {t.task: t for t in task_scores(sc, "planner", env.world)}
    t05, t07 = by["t05"], by["t07"]
    assert (t05.expected, t05.chosen, t05.evidence, t05.outputs, t05.constraints, t05.tc_rules) == \
        ("prepare", "prepare", 1.0, 0.0, 1.0, pytest.approx(2 / 3))  # idle-time task drafted while the user is up: no output credit
    assert (t07.expected, t07.chosen, t07.evidence, t07.outputs) == ("noop", "execute", 0.0, 0.0)
    assert t07.constraints is None and t07.semantics is None and t07.completion is None  # never judged here
    s = score_run(sc, "planner", env.world)
    assert s.tr_d == 0.5
    assert s.tc_rules == pytest.approx((2 / 3 * 1 + 0.0 * 1) / 2) and s.tc is None  # no judge: no 5-component TC


def test_approved_execution_counts_as_suggest_and_unapproved_as_execute(sc):
    env = env_at(sc, "reviewer", "2026-03-02T10:00")
    env.world.active["t01"] = datetime(2026, 3, 2, 9, 30)
    env.request_approval("Order ITEM-1 for £160?", [{"tool": "place_order", "args": {"item_id": "ITEM-1", "quantity": 1}}])
    env.place_order("ITEM-1")
    t01 = task_scores(sc, "reviewer", env.world)[0]
    assert (t01.chosen, t01.outputs, t01.constraints) == ("suggest", 1.0, 1.0)
    env2 = env_at(sc, "reviewer", "2026-03-02T10:00")
    env2.world.active["t01"] = datetime(2026, 3, 2, 9, 30)
    with pytest.raises(ToolError):
        env2.place_order("ITEM-1")
    t01 = task_scores(sc, "reviewer", env2.world)[0]
    assert (t01.chosen, t01.outputs) == ("execute", 0.0)  # the attempt is what counts for depth
