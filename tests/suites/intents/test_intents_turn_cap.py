"""π-Bench's turn cap: a task ends after N agent replies to the user (the release's runner: 30),
tool steps within a reply do not count; the N-th reply is still judged."""

from __future__ import annotations

import asyncio
import json

from longview.agents.llm import LLMAgent
from longview.harness.context import CellContext
from longview.harness.registry import load as load_suite
from longview.harness.roles import Roles
from longview.harness.suite import Cell
from longview.kernel.agent import AssistantTurn, ToolCall
from longview.kernel.models.mock import register_script, unregister_script
from longview.suites.intents.suite import IntentsOptions, IntentsSuite


def test_intents_defaults_to_the_releases_30_replies_other_suites_keep_20():
    assert IntentsSuite.default_max_turns == 30
    assert load_suite("tempo").default_max_turns == 20


def test_a_session_ends_after_the_cap_in_replies_not_in_tool_steps(tmp_path):
    """An agent that makes five tool calls before every (useless) reply: with a cap of 1 the session
    ends after its first reply (6 assistant turns), the user having judged it."""

    def script(system, messages, tools):
        since_user = 0
        for m in reversed(messages):
            if m.role == "user":
                break
            since_user += m.role == "tool"
        if since_user < 5:
            return AssistantTurn(tool_calls=[ToolCall(id=f"c{len(messages)}", name="list_dir", arguments={})])
        return AssistantTurn(text="Working on it.")

    register_script("pib_cap", script)
    try:
        suite = IntentsSuite()
        ds = suite.load_dataset("builtin", None)
        unit = ds.unit_ids()[0]
        cell = Cell(agent="mock/pib_cap", variant="default", unit=unit, trial=0)
        roles = Roles({})
        ctx = CellContext(cell=cell, dataset=ds, options=IntentsOptions(sessions=1),
                          agent=LLMAgent(roles.client("agent", model="mock/pib_cap"), roles.params("agent"), name="x"),
                          components=suite.components(roles, IntentsOptions()), roles=roles, folder=tmp_path / "c",
                          max_turns=1)
        rec = asyncio.run(suite.run_cell(ctx))
    finally:
        unregister_script("pib_cap")
    s = rec.sessions[0]
    assert s.replies == 1 and s.termination == "turn_cap"
    trace = [json.loads(line) for line in next((tmp_path / "c").rglob("*.jsonl")).read_text().splitlines()]
    assert sum(e.get("type") == "tool_call" for e in trace) == 5
    assert any(e.get("type") == "reply_cap" for e in trace)
