"""A model agent that behaves as ATRBench's runner tolerates scores as it would there.

A loopback OpenAI-compatible server plays scripted agents on the released fixture episodes with
``oracle_target``: the gold call straight away, one or two narration turns before it, one empty
response before it. Under the release's orchestrator each of them passes every test session;
longview must agree (TSAcc 1.0 here; the issue's bar is >= 0.98), with the response cache on, so a
cached empty answer cannot be replayed into the retry.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from longview.harness import run as harness
from longview.harness.options import RunConfig
from longview.testing.loopback import LoopbackServer, text_message, tool_call_message

PERSONAS = Path(__file__).parents[2] / "fixtures/atrbench/data/personas"


def gold_actions() -> dict[str, dict]:
    """test instruction -> its required action, from the fixture episodes."""
    out = {}
    for f in PERSONAS.glob("*/episodes/*.json"):
        for t in json.loads(f.read_text())["test_sessions"]:
            out[t["instruction"].strip()] = t["labels"]["task_success"]["required_actions"][0]
    return out


class ScriptedAgents:
    """The loopback server's agent; model name = behaviour: `gold`, `narrate1`, `narrate2`, `empty1`."""

    def __init__(self) -> None:
        self.gold = gold_actions()
        self.calls: dict[tuple[str, str], int] = {}

    def __call__(self, body: dict) -> dict:
        model, messages = body["model"], body["messages"]
        instruction = next(m["content"] for m in messages if m["role"] == "user").strip()
        key = (model, instruction)
        n = self.calls[key] = self.calls.get(key, 0) + 1  # requests so far in this session
        lead = {"gold": [], "narrate1": ["text"], "narrate2": ["text", "text"], "empty1": ["empty"]}[model]
        if n <= len(lead):
            return text_message("Let me look at what fits best." if lead[n - 1] == "text" else "")
        if n == len(lead) + 1:
            gold = self.gold[instruction]
            return {**tool_call_message(gold["tool"], gold["arguments"]), "content": "Doing it now."}
        return tool_call_message("finish_session")


@pytest.mark.parametrize("behaviour", ["gold", "narrate1", "narrate2", "empty1"])
def test_scripted_release_behaviours_pass_every_oracle_test_session(episodes, tmp_path, behaviour):
    with LoopbackServer(agent=ScriptedAgents()).in_thread() as srv:
        opts = RunConfig(suite="atr",
            dataset=str(episodes), models=[f"hosted_vllm/{behaviour}"], variants=["oracle_target"],
            api_base=srv.url, out=tmp_path / "run", cache_dir=tmp_path / "cache", max_attempts=1,
        )
        store, sc = harness.run(opts)
    row = next(r for r in sc.rows if r.agent == f"hosted_vllm/{behaviour}")
    assert row.n_aborted == 0 and row.n == 2
    assert row.metrics["tsacc"] == 1.0
