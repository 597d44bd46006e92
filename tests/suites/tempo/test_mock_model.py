"""Scripted mock models through the LLM agent: deferring the competing task scores TA = 1, doing
both at once scores 0."""

import pytest

from longview.agents.llm import LLMAgent
from longview.kernel.models import GenParams, make_client
from longview.kernel.models.mock import register_script, unregister_script

FEASIBLE = {"research-deadline": "2026-03-06T23:30:00", "shopping-monitor": "2026-03-07T03:30:00"}
FINISH = {"tool_calls": [{"name": "finish", "arguments": {}}]}


def script(mode: str, feasible: str):
    def fn(system, messages, tools):
        if len(messages) > 1:
            return FINISH
        text = messages[0].content or ""
        if "(ref: event e08)" in text:
            calls = [{"name": "run_job", "arguments": {"job_id": "JOB-1"}}]
            if mode == "both":
                calls.append({"name": "run_job", "arguments": {"job_id": "JOB-2"}})
            return {"text": "Starting the urgent job now.", "tool_calls": calls}
        if "(ref: event e09)" in text and mode == "defer":
            return {"tool_calls": [{"name": "defer_task", "arguments": {
                "task": "JOB-2", "plan": "run it overnight when the resource is free", "until": feasible}}]}
        return FINISH
    return fn


@pytest.mark.parametrize("mode, expected", [("defer", 1.0), ("both", 0.0)])
def test_scripted_models_ta(tmp_path, run_cells, mode, expected):
    units = [f"{s}:operator" for s in FEASIBLE]

    def factory(agent, unit):
        sid = unit.split(":")[0]
        register_script(f"tempo-{mode}-{sid}", script(mode, FEASIBLE[sid]))
        return LLMAgent(make_client(f"mock/tempo-{mode}-{sid}"), GenParams())

    try:
        sc, _ = run_cells([f"mock/tempo-{mode}"], units, tmp_path, agent_factory=factory)
    finally:
        for sid in FEASIBLE:
            unregister_script(f"tempo-{mode}-{sid}")
    row = sc.rows[0]
    assert row.metrics["ta"] == expected
    assert row.extra["ta_now"] == 1.0
