"""Whole cells through run_cell/score: probes write nothing back, the leakage audit is clean, the
reference agents and memory systems order as they should, and a model using its memory gains."""

import asyncio

from longview.harness.roles import Roles
from longview.memory.registry import create
from longview.suites.prefs.agents import AGENTS
from longview.suites.prefs.dataset import builtin
from longview.suites.prefs.runner import Timeline
from longview.suites.prefs.suite import PrefsOptions, PrefsSuite

from .conftest import make_ctx, run_cells


def test_probes_leave_state_byte_identical(tmp_path):
    ud = builtin().users[0]
    scenes = {s.sid: s for s in ud.sessions + ud.final_probes + ud.pre_probes}
    seen = []
    for agent, memory in (("ref:reader", "file"), ("ref:contextual", "rag")):
        tl = Timeline(None, ud, create(memory), AGENTS[agent](scenes), trace_sessions=False)
        asyncio.run(tl.run(probe_hook=lambda before, after: seen.append((before, after))))
    assert len(seen) == 2 * 6  # 5 pre-event checkpoints + the final one, per cell
    for before, after in seen:
        assert before == after
    assert any(b["memory"] != seen[0][0]["memory"] for b, _ in seen)  # memory did change between checkpoints


def test_reference_agents_and_memories_order(tmp_path):
    sc = run_cells(tmp_path, [("ref:oracle", "oracle"), ("ref:habits", "none"), ("ref:recency", "none"),
                              ("ref:contextual", "none"), ("ref:reader", "none"), ("ref:reader", "rag"),
                              ("ref:reader", "file"), ("ref:reader", "oracle")])
    m = {(r.agent, r.variant): r.metrics for r in sc.rows}
    assert set(m[("ref:oracle", "oracle")]) == {"psa", "cs", "pet", "carry_over", "brs", "prs"}
    assert m[("ref:oracle", "oracle")]["psa"] >= 0.95
    assert m[("ref:habits", "none")]["psa"] <= 0.60
    rec, ctx, hab = m[("ref:recency", "none")], m[("ref:contextual", "none")], m[("ref:habits", "none")]
    assert rec["carry_over"] > ctx["carry_over"] and rec["pet"] > hab["pet"] and ctx["cs"] > rec["cs"]
    r = {v: m[("ref:reader", v)]["psa"] for v in ("none", "rag", "file", "oracle")}
    # simple RAG over raw messages does not beat No Memory (the paper's finding; the unit is the paper's)
    assert r["none"] <= r["rag"] < r["file"] <= r["oracle"]
    assert all(row.extra["leakage"]["leaks"] == 0 and row.extra["leakage"]["messages"] > 100 for row in sc.rows)
    assert sc.rows[0].extra["counts"]["capability_failures"] == 0
    # memoryless agents do not carry over (errors without evidence are errors), and CS + carry-over
    # stays well below 1 (the first release's rule made it 0.85-1.00 in every row)
    for agent in ("ref:habits", "ref:reader"):
        none = m[(agent, "none")]
        assert none["carry_over"] <= 0.20 and none["cs"] + none["carry_over"] < 0.9


def test_model_using_memory_gains_from_file_memory(tmp_path):
    from longview.agents.llm import LLMAgent

    from . import mock_pa  # noqa: F401  registers mock/prefs-memory-user

    suite = PrefsSuite()
    roles = Roles({})
    results = []
    for i, memory in enumerate(("none", "file")):
        client = roles.client("agent", "mock/prefs-memory-user")
        agent = LLMAgent(client, roles.params("agent"), name="mock/prefs-memory-user")
        ctx = make_ctx(tmp_path / str(i), "mock/prefs-memory-user", memory, agent=agent)
        results.append(asyncio.run(suite.run_cell(ctx)).model_dump_json())
    sc = suite.score(results, builtin(), PrefsOptions(), seed=0)
    psa = {r.variant: r.metrics["psa"] for r in sc.rows}
    assert psa["file"] > psa["none"]
    # golden; 21/33 -> 24/33 (issue 23): a reply that shows no setting (the mock's plain answer on tone)
    # now gets a neutral close, not a correction; then none 12 -> 15, file 24 -> 22 (issue 23): the
    # built-in matrices have the paper's 18 differing pairs (user_a: 5, was 7), a new draw of targets
    # file 22 -> 20/33 (issue 23): requests come in several phrasings; the mock finds the term to explain
    # by one phrasing ("mention the X."), so in the others its guidance reply misses the term
    assert psa == {"none": 15 / 33, "file": 20 / 33}


def test_traces_written_per_session(tmp_path):
    suite = PrefsSuite()
    ctx = make_ctx(tmp_path, "ref:oracle", "oracle", trace=True)
    res = asyncio.run(suite.run_cell(ctx))
    files = list(tmp_path.glob("*.jsonl"))
    assert len(files) == res.sessions + len(res.probes)


def test_memory_record_keeps_public_record_only():
    """E.4: user messages, tool calls and results, the interaction-tool call and the delivered reply;
    never the respond payload or held actions."""
    from longview.suites.prefs.agents import ScriptedPA
    from longview.suites.prefs.runner import memory_record

    class SelfDirected(ScriptedPA):
        name = "t"

        def choose(self, attr, obs):
            return "self_directed"

    ud = builtin().users[0]
    scene = next(s for s in ud.final_probes if s.attribute == "autonomy_level")
    tl = Timeline(None, ud, create("none"), SelfDirected({scene.sid: scene}), trace_sessions=False)
    world = tl.world.branch()
    for rec in scene.records:
        world.add(rec)
    r, core, outcome, proto = asyncio.run(tl.session(scene, world, create("none"), tl.sim, tl.agent, probe=True))
    assert [a.status for a in r.actions] == ["executed", "held"]
    rec = memory_record(outcome.messages, proto)
    calls = [c.name for m in rec for c in m.tool_calls]
    assert calls == ["set_autonomy_level", "update_event"]
    texts = [m.content for m in rec if m.role == "assistant" and m.content]
    assert texts and texts[0] == r.deliveries[0].text
    assert not any("respond" == (m.name or "") for m in rec)
