"""`--agent 'cmd:...' --model X` and `--agent 'mcp:...' --model X`: longview starts an OpenAI-compatible
endpoint in front of its model layer for the agent's process; the model server behind it sees the
harness's calls, and usage.jsonl, the manifest and the scorecard count them. Several agents x
several models give one row each."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from longview.cli import app
from longview.testing.loopback import Fault, LoopbackServer, finish_or_send

ROOT = Path(__file__).parents[2]
MODEL_AGENT = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(ROOT / 'examples' / 'stdio_model_agent.py'))}"


def _usage_lines(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "usage.jsonl").read_text().splitlines() if line.strip()]


def test_a_stdio_harness_calls_its_model_through_longview_and_is_counted(tmp_path):
    with LoopbackServer(agent=finish_or_send).in_thread() as server:
        r = CliRunner().invoke(app, ["run", "atr", "--agent", MODEL_AGENT, "--model", "hosted_vllm/m1",
                                     "--model", "hosted_vllm/m2", "--api-base", server.url, "--variant", "atr",
                                     "--personas", "1", "--out", str(tmp_path / "r"), "--json", str(tmp_path / "r.json"),
                                     "--no-cache"])
        seen = server.stats.answered
    assert r.exit_code == 0, r.output
    sc = json.loads((tmp_path / "r.json").read_text())
    assert sorted(row["agent"] for row in sc["rows"]) == [f"{MODEL_AGENT} @ hosted_vllm/m1", f"{MODEL_AGENT} @ hosted_vllm/m2"]
    assert {row["agent"]: row["model"] for row in sc["rows"]} == {
        f"{MODEL_AGENT} @ hosted_vllm/{m}": f"hosted_vllm/{m}" for m in ("m1", "m2")}  # the row's model, by itself
    calls = [u for u in _usage_lines(tmp_path / "r") if u["role"] == "agent"]
    assert seen > 0 and len(calls) == seen  # every call the model server answered is in usage.jsonl
    assert sc["run"]["usage"]["roles"]["agent"]["calls"] == seen  # ... and in the scorecard
    assert sc["run"]["usage"]["roles"]["agent"]["input_tokens"] > 0
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    ident = manifest["config"]["external_agents"][f"{MODEL_AGENT} @ hosted_vllm/m1"]
    assert ident["model"] == "hosted_vllm/m1" and ident["kind"] == "command"
    assert str(ROOT / "examples" / "stdio_model_agent.py") in ident["files_sha256"]


def test_a_failing_model_aborts_the_harness_cell(tmp_path):
    with LoopbackServer(agent=finish_or_send, faults=lambda i, body: Fault.SERVER_ERROR).in_thread() as server:
        r = CliRunner().invoke(app, ["run", "atr", "--agent", MODEL_AGENT, "--model", "hosted_vllm/m1",
                                     "--api-base", server.url, "--variant", "atr", "--personas", "1",
                                     "--out", str(tmp_path / "r"), "--no-cache", "--max-attempts", "1"])
    assert r.exit_code == 1 and "model call through longview failed" in r.output, r.output


def test_an_mcp_harness_with_a_model_is_counted(tmp_path):
    pytest.importorskip("mcp")
    sys.path.insert(0, str(Path(__file__).parent))
    from mcp_harness import WarmHarness

    log = tmp_path / "calls.jsonl"
    with LoopbackServer(agent=finish_or_send).in_thread() as server, WarmHarness("", "", str(log)) as harness:
        args = [sys.executable, str(Path(__file__).parent / "mcp_launcher.py"), str(harness.port), "{mcp_url}",
                "{observation_file}", "{base_url}", "{api_key}"]
        agent = "mcp:" + " ".join(shlex.quote(a) for a in args)
        r = CliRunner().invoke(app, ["run", "intents", "--agent", agent, "--model", "hosted_vllm/m1", "--api-base",
                                     server.url, "--personas", "1", "-S", "sessions=2", "--out", str(tmp_path / "r"),
                                     "--json", str(tmp_path / "r.json"), "--no-cache"])
        seen = server.stats.answered
    assert r.exit_code == 0, r.output
    sc = json.loads((tmp_path / "r.json").read_text())
    assert seen > 0 and sc["run"]["usage"]["roles"]["agent"]["calls"] == seen
    assert len([u for u in _usage_lines(tmp_path / "r") if u["role"] == "agent"]) == seen
