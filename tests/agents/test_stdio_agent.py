"""`--agent 'cmd:COMMAND'`: an agent process speaking JSON lines (docs/agents.md). The example agent
completes every suite; a process that crashes, hangs or writes garbage aborts its cells with the
reason (its stderr tail in the trace), the run exits 1, and nothing is scored for those cells."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from longview.cli import app
from longview.kernel.trace import read_trace

ROOT = Path(__file__).parents[2]
EXAMPLE = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(ROOT / 'examples' / 'stdio_agent.py'))}"


def _run(suite: str, agent: str, out: Path, *extra: str):
    return CliRunner().invoke(app, ["run", suite, "--agent", agent, "--personas", "1", "--out", str(out),
                                    "--json", str(out) + ".json", *extra])


@pytest.mark.parametrize("suite", ["atr", "prefs", "intents", "tempo"])
def test_the_example_stdio_agent_completes_every_suite(suite, tmp_path):
    r = _run(suite, EXAMPLE, tmp_path / "r")
    assert r.exit_code == 0, r.output
    sc = json.loads((tmp_path / "r.json").read_text())
    assert sc["run"]["cells"]["aborted"] == 0 and sc["rows"] and all(row["agent"] == EXAMPLE for row in sc["rows"])
    traces = list((tmp_path / "r" / "cells").rglob("*.jsonl"))
    turns = [e for t in traces for e in read_trace(t) if e.type == "assistant_turn"]
    assert turns, "the agent's turns are in the traces"
    ident = json.loads((tmp_path / "r" / "manifest.json").read_text())["config"]["external_agents"][EXAMPLE]
    assert ident["kind"] == "command" and str(ROOT / "examples" / "stdio_agent.py") in ident["files_sha256"]


def _script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text("import sys, time\n" + body)
    return f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


BAD = {
    "crash": ("sys.stdin.readline()\nprint('Traceback: the model key is missing', file=sys.stderr)\nsys.exit(3)\n",
              "exited with code 3", "the model key is missing"),
    "hang": ("sys.stdin.readline()\nprint('thinking...', file=sys.stderr, flush=True)\ntime.sleep(120)\n",
             "no turn within 0.5 s", "thinking..."),
    "garbage": ("sys.stdin.readline()\nprint('Sure! Here is my answer', flush=True)\ntime.sleep(120)\n",
                "not JSON", None),
    "off_schema": ("sys.stdin.readline()\nprint('{\"txt\": \"hi\"}', flush=True)\ntime.sleep(120)\n",
                   "field 'txt'", None),
}


@pytest.mark.parametrize("suite", ["atr", "prefs"])
@pytest.mark.parametrize("kind", sorted(BAD))
def test_a_broken_agent_process_aborts_its_cells_with_the_reason(suite, kind, tmp_path):
    body, reason, stderr = BAD[kind]
    agent = _script(tmp_path, kind, body)
    r = _run(suite, agent, tmp_path / "r", "--agent-timeout", "0.5", "--variant",
             "atr" if suite == "atr" else "none")
    assert r.exit_code == 1, r.output
    assert "Traceback (most recent call last)" not in r.output and reason in r.output
    sc = json.loads((tmp_path / "r.json").read_text())
    assert sc["run"]["cells"] == {"planned": 1, "finished": 1, "aborted": 1, "partial": False}
    (result,) = list((tmp_path / "r" / "cells").rglob("result.json"))
    assert json.loads(result.read_text())["status"] == "aborted"
    events = [e for t in (tmp_path / "r" / "cells").rglob("*.jsonl") for e in read_trace(t)]
    (aborted,) = [e for e in events if e.type == "session_aborted"]
    assert reason in aborted.data["reason"]
    if stderr:
        assert stderr in aborted.data["detail"]


def test_an_agent_that_cannot_start_aborts_with_the_reason(tmp_path):
    r = _run("atr", "cmd:/no/such/agent-binary --flag", tmp_path / "r", "--variant", "atr")
    assert r.exit_code == 1 and "could not start" in r.output


def test_a_bad_command_is_a_usage_error(tmp_path):
    r = _run("atr", "cmd:", tmp_path / "r")
    assert r.exit_code == 2 and "expected a command" in r.output
    r = _run("atr", "cmd:python 'unclosed", tmp_path / "r")
    assert r.exit_code == 2 and "cannot split" in r.output
    assert not (tmp_path / "r").exists()


PID_AGENT = """import json, os, sys
log = open(sys.argv[1], "a")
for line in sys.stdin:
    obs = json.loads(line)
    log.write(f"{os.getpid()} {obs['session_id']}\\n")
    log.flush()
    names = [t["function"]["name"] for t in obs["tools"]]
    print(json.dumps({"tool_calls": [{"id": obs["session_id"] + "-f", "name": "finish_session", "arguments": {}}]}
                     if "finish_session" in names else {"text": "Noted."}), flush=True)
"""


@pytest.mark.parametrize("mode", ["session", "cell"])
def test_a_process_per_session_by_default_or_per_cell(mode, tmp_path):
    script, log = tmp_path / "pid_agent.py", tmp_path / "pids.log"
    script.write_text(PID_AGENT)
    agent = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(script))} {shlex.quote(str(log))}"
    r = _run("atr", agent, tmp_path / "r", "--variant", "atr", "--personas", "2", "--agent-process", mode)
    assert r.exit_code == 0, r.output
    seen = [line.split() for line in log.read_text().splitlines()]
    sessions_of: dict[str, set[str]] = {}
    for pid, session in seen:
        sessions_of.setdefault(pid, set()).add(session)
    cells = len(list((tmp_path / "r" / "cells").iterdir()))
    assert cells == 2
    if mode == "session":  # every session its own process
        assert all(len(s) == 1 for s in sessions_of.values()) and len(sessions_of) == len({s for _, s in seen})
    else:  # two cells, two processes, each serving all of its cell's sessions
        assert len(sessions_of) == 2 and sum(len(s) for s in sessions_of.values()) == len({s for _, s in seen})
    ident = json.loads((tmp_path / "r" / "manifest.json").read_text())["config"]["external_agents"][agent]
    assert ident.get("process") == ("cell" if mode == "cell" else None)


def test_agent_process_cell_needs_a_cmd_agent(tmp_path):
    r = _run("atr", "ref:asker", tmp_path / "r", "--agent-process", "cell")
    assert r.exit_code == 2 and "applies to cmd: agents" in r.output
