"""Every request is reconstructible from the run folder: the prompt store and the traces rebuild
exactly what a real (loopback) server received, and `longview trace --raw` prints it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from longview.cli import app
from longview.harness.transcript import model_requests, wire_body
from longview.kernel.trace import PROMPTS, read_prompt, read_trace
from longview.testing.loopback import LoopbackServer, finish_or_send, text_message

runner = CliRunner()


def _recorder(seen: list[dict[str, Any]]):
    def agent(body: dict[str, Any]) -> dict[str, Any]:
        seen.append(body)
        # Text first (a protocol rescue or carry-on), then the suite's way to finish.
        if not any(m.get("role") == "assistant" for m in body.get("messages") or []):
            return text_message("Let me look into that.")
        return finish_or_send(body)

    return agent


def _canonical(body: dict[str, Any]) -> str:
    return json.dumps({"messages": body.get("messages"), "tools": body.get("tools")}, sort_keys=True)


def _rebuilt(run: Path) -> list[dict[str, Any]]:
    bodies = []
    for trace in sorted((run / "cells").glob("*/*.jsonl")):
        events = read_trace(trace)
        sha = events[0].data["prompt"]
        prompt = read_prompt(trace.parent, sha)
        assert prompt is not None and set(prompt) == {"system", "tools"}
        bodies += [wire_body(r) for r in model_requests(events, prompt)]
    return bodies


@pytest.mark.parametrize("suite, extra", [
    ("atr", ["--variant", "atr"]),
    ("intents", []),
    ("tempo", []),
    ("prefs", []),
])
def test_traces_rebuild_exactly_the_requests_the_server_received(tmp_path: Path, suite: str, extra: list[str]):
    seen: list[dict[str, Any]] = []
    out = tmp_path / "run"
    with LoopbackServer(agent=_recorder(seen)).in_thread() as server:
        r = runner.invoke(app, ["run", suite, "--model", "hosted_vllm/probe", "--api-base", server.url, "--personas",
                                "1", "--out", str(out), "--no-cache", "--max-turns", "3", *extra])
    assert r.exit_code == 0, r.output
    agent_calls = [b for b in seen if b.get("model") == "probe"]
    rebuilt = _rebuilt(out)
    assert len(agent_calls) > 3
    assert sorted(map(_canonical, rebuilt)) == sorted(map(_canonical, agent_calls))
    # The prompt store holds each distinct prompt once, however many sessions used it.
    stored = list((out / "cells").glob(f"*/{PROMPTS}/*.json"))
    sessions = list((out / "cells").glob("*/*.jsonl"))
    assert 0 < len(stored) <= len(sessions)


def test_trace_raw_prints_the_system_prompt_tools_and_parameters(tmp_path: Path):
    out = tmp_path / "run"
    with LoopbackServer(agent=finish_or_send).in_thread() as server:
        r = runner.invoke(app, ["run", "intents", "--model", "hosted_vllm/probe", "--api-base", server.url,
                                "--personas", "1", "--out", str(out), "--no-cache", "--temperature", "0.3"])
    assert r.exit_code == 0, r.output
    trace = sorted((out / "cells").glob("*/*.jsonl"))[0]
    shown = runner.invoke(app, ["trace", str(trace), "--raw", "--turn", "0"], terminal_width=200)
    assert shown.exit_code == 0, shown.output
    body = json.loads(shown.output.split("\n", 1)[1])
    assert body["model"] == "probe" and body["temperature"] == 0.3
    assert body["messages"][0]["role"] == "system" and body["messages"][0]["content"]
    assert body["tools"] and all(t["type"] == "function" for t in body["tools"])


def test_a_run_folder_without_prompts_still_shows_the_messages(tmp_path: Path):
    out = tmp_path / "run"
    r = runner.invoke(app, ["run", "atr", "--agent", "ref:asker", "--personas", "1", "--out", str(out)])
    assert r.exit_code == 0, r.output
    for folder in (out / "cells").glob(f"*/{PROMPTS}"):
        for f in folder.iterdir():
            f.unlink()
    trace = sorted((out / "cells").glob("*/*.jsonl"))[0]
    shown = runner.invoke(app, ["trace", str(trace), "--raw"], terminal_width=200)
    assert shown.exit_code == 0, shown.output
    assert "were not kept" in shown.output and '"messages"' in shown.output
