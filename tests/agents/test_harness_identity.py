"""What an external harness says it is (a cmd: agent's hello line, an MCP client's clientInfo) is
recorded per cell and in the manifest, shown on its scorecard row, in `longview report` and in
`longview compare`; a resume whose harness reports another version aborts the new cells with the
reason instead of mixing two harnesses in one row."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from longview.cli import app
from longview.report.compare import compare
from longview.report.data import load_run
from longview.testing.loopback import LoopbackServer, finish_or_send

ROOT = Path(__file__).parents[2]
HELLO_AGENT = """import json, os, sys
print(json.dumps({"type": "hello", "name": "my-agent", "version": os.environ["MY_AGENT_VERSION"]}), flush=True)
for line in sys.stdin:
    obs = json.loads(line)
    names = [t["function"]["name"] for t in obs["tools"]]
    print(json.dumps({"tool_calls": [{"id": "f", "name": "finish_session", "arguments": {}}]}
                     if "finish_session" in names else {"text": "Noted."}), flush=True)
"""


def _run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(app, ["run", *args], env=env)


def test_a_hello_is_recorded_and_a_resume_under_another_version_is_refused(tmp_path):
    script = tmp_path / "my_agent.py"
    script.write_text(HELLO_AGENT)
    agent = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    out = tmp_path / "r"
    args = ["atr", "--agent", agent, "--variant", "atr", "--personas", "2", "--out", str(out),
            "--json", str(tmp_path / "r.json")]
    r = _run(*args, env={"MY_AGENT_VERSION": "1.0"})
    assert r.exit_code == 0, r.output
    assert "my-agent 1.0 (command)" in r.output  # under the agent in atr's scorecard table
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["harnesses"] == {agent: {"name": "my-agent", "version": "1.0"}}
    (row,) = json.loads((tmp_path / "r.json").read_text())["rows"]
    assert row["harness"] == {"kind": "command", "name": "my-agent", "version": "1.0"}
    from longview.results import load_run
    assert {r.harness for r in load_run(out).metric_rows()} == {"my-agent 1.0 (command)"}  # export's column
    # One cell lost its marker (an interrupted run); the harness was upgraded meanwhile.
    markers = sorted((out / "cells").glob("*/result.json"))
    assert len(markers) == 2
    markers[0].unlink()
    r = _run(*args, "--resume", env={"MY_AGENT_VERSION": "2.0"})
    assert r.exit_code == 1, r.output
    assert "reports my-agent 2.0, but this run's cells were made by my-agent 1.0" in " ".join(r.output.split())
    assert json.loads(markers[0].read_text())["status"] == "aborted"
    assert json.loads(markers[1].read_text()).get("status", "complete") == "complete"  # the old cell stays
    # Back on the run's version, the resume completes it.
    r = _run(*args, "--resume", env={"MY_AGENT_VERSION": "1.0"})
    assert r.exit_code == 0, r.output
    assert json.loads((tmp_path / "r.json").read_text())["run"]["cells"]["aborted"] == 0


def test_a_hello_that_does_not_fit_aborts_with_the_field(tmp_path):
    script = tmp_path / "bad_hello.py"
    script.write_text('import json, sys\nprint(json.dumps({"type": "hello", "nam": "x"}), flush=True)\n'
                      'sys.stdin.readline()\n')
    r = _run("atr", "--agent", f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(script))}", "--variant", "atr",
             "--personas", "1", "--out", str(tmp_path / "r"))
    assert r.exit_code == 1 and "wrote a hello that does not fit schema longview.agent/1" in r.output, r.output


def test_harness_rows_show_in_the_report_and_pair_with_a_model_run_in_compare(tmp_path):
    pytest.importorskip("mcp")
    sys.path.insert(0, str(Path(__file__).parent))
    from mcp_harness import HARNESS_VERSION, WarmHarness

    cmd_agent = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(ROOT / 'examples' / 'stdio_model_agent.py'))}"
    common = ["intents", "--personas", "1", "-S", "sessions=2", "--no-cache"]
    with LoopbackServer(agent=finish_or_send).in_thread() as server, \
            WarmHarness("", "", str(tmp_path / "calls.jsonl")) as harness:
        launcher = [sys.executable, str(Path(__file__).parent / "mcp_launcher.py"), str(harness.port), "--stdio",
                    "{observation_file}", "{base_url}", "{api_key}"]
        mcp_agent = "mcp+stdio:" + " ".join(shlex.quote(a) for a in launcher)
        r = _run(*common, "--agent", cmd_agent, "--agent", mcp_agent, "--model", "hosted_vllm/m1", "--api-base",
                 server.url, "--out", str(tmp_path / "harness"))
        assert r.exit_code == 0, r.output
        r = _run(*common, "--model", "hosted_vllm/m1", "--api-base", server.url, "--out", str(tmp_path / "model"))
        assert r.exit_code == 0, r.output
    rows = json.loads((tmp_path / "harness" / "scorecard.json").read_text())["rows"]
    harnesses = {row["agent"]: row["harness"] for row in rows}
    assert harnesses == {
        f"{cmd_agent} @ hosted_vllm/m1": {"kind": "command", "name": "example-stdio-model-agent", "version": "1.0",
                                          "model": "hosted_vllm/m1"},
        f"{mcp_agent} @ hosted_vllm/m1": {"kind": "mcp+stdio", "name": "test-harness", "version": HARNESS_VERSION,
                                          "model": "hosted_vllm/m1"},
    }
    html = tmp_path / "report.html"
    r = CliRunner().invoke(app, ["report", str(tmp_path / "harness"), "-o", str(html)])
    assert r.exit_code == 0, r.output
    page = html.read_text()
    assert "harness: example-stdio-model-agent 1.0 (command) @ hosted_vllm/m1" in page
    assert f"harness: test-harness {HARNESS_VERSION} (mcp+stdio) @ hosted_vllm/m1" in page
    # compare pairs the single harness row of a run with the model run's row (same variant).
    single = tmp_path / "one-harness"
    with LoopbackServer(agent=finish_or_send).in_thread() as server:
        r = _run(*common, "--agent", cmd_agent, "--model", "hosted_vllm/m1", "--api-base", server.url,
                 "--out", str(single))
        assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["compare", str(tmp_path / "model"), str(single), "-o", str(tmp_path / "cmp.html")])
    assert r.exit_code == 0, r.output
    c = compare(load_run(tmp_path / "model"), load_run(single))
    assert c.diffs and not c.unpaired
    assert {(d.a, d.b) for d in c.diffs} == {("hosted_vllm/m1 · default",
                                             f"{cmd_agent} @ hosted_vllm/m1 [example-stdio-model-agent 1.0] · default")}
    assert "example-stdio-model-agent 1.0" in (tmp_path / "cmp.html").read_text()
