"""The simulated-time loop: branches, the user's feedback after misalignment, wake-ups."""

import asyncio

from longview.kernel.clock import SimClock
from longview.kernel.trace import TraceWriter
from longview.suites.tempo.agents import ReferenceAgent
from longview.suites.tempo.runner import ScenarioRun


def run(sc, persona, mode):
    r = ScenarioRun(sc, persona, ReferenceAgent(mode, sc, persona), SimClock(sc.start), lambda sid: TraceWriter(None, sid))
    asyncio.run(r.run())
    return r


def test_branches_follow_what_the_agent_did(builtin):
    sc = builtin.by_id["shopping-monitor"]
    oracle = run(sc, "reviewer", "oracle")
    assert "e10" in oracle.world.fired and "e11" in oracle.world.skipped  # ordered -> delivery follow-up, no nudge
    assert "e13" in oracle.world.fired and "e14" in oracle.world.skipped  # the reviewer declined the offer
    passive = run(sc, "operator", "passive")
    assert "e11" in passive.world.fired and "e10" in passive.world.skipped
    assert {"t11"} <= set(passive.world.active) and "t10" not in passive.world.active


def test_feedback_follows_misalignment_only(builtin):
    sc = builtin.by_id["shopping-monitor"]
    assert not [a for a in run(sc, "reviewer", "oracle").activations if a.kind == "feedback"]
    r = run(sc, "reviewer", "always-execute")
    fb = [a for a in r.activations if a.kind == "feedback"]
    over = ("check with me", "already taken care of", "no need to bring")
    assert fb and all(any(o in a.ref for o in over) for a in fb)  # always over-intervention, never "you could have done it"
    assert all(a.user == "awake" for a in fb)  # delivered when the user is available


def test_time_triggered_task_needs_the_agents_own_wakeup(builtin):
    sc = builtin.by_id["shopping-monitor"]
    r = run(sc, "operator", "oracle")
    woke = [a for a in r.activations if a.kind == "wakeup" and a.ref.startswith("scheduled:")]
    assert woke and woke[0].at == sc.task("t04").at


def test_a_delegated_joint_change_is_carried_out_whole(builtin):
    # t02's change is an event plus its reminder (joint group G2); the Operator delegates t02, so the
    # oracle's reminder is carried out too, not refused as undelegated.
    for sc in builtin.scenarios:
        r = run(sc, "operator", "oracle")
        refused = [e for e in r.world.log if e.kind == "execute" and not e.ok]
        assert refused == [], (sc.id, [(e.tool, e.error) for e in refused])
