"""`--agent 'mcp:COMMAND ...'`: an external harness built only on the mcp SDK's client runs its own loop
against a loopback model server. longview serves each session's tools over MCP; every call the
harness makes is in the trace as a native agent's, and a harness whose model behaves like a
scripted reference agent gets that agent's scores."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import shlex
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from longview.cli import app
from longview.harness import registry
from longview.kernel.agent import Message, Observation, ToolCall
from longview.kernel.trace import read_trace
from longview.testing.loopback import LoopbackServer

pytest.importorskip("mcp")
sys.path.insert(0, str(Path(__file__).parent))
from mcp_harness import WarmHarness  # noqa: E402

LAUNCHER = Path(__file__).parent / "mcp_launcher.py"
REPLY = "reply_to_user"


class ReferenceModel:
    """A chat-completions 'model' that answers as the suite's reference agent would on the same
    conversation (the harness keeps it in OpenAI form; it is read back into an Observation)."""

    def __init__(self, suite: str, ref: str, dataset: str = "builtin") -> None:
        s = registry.load(suite)
        ds = s.load_dataset(dataset, s.Options())
        self.agent = s.reference_agent(ref, ds, ds.unit_ids()[0])
        self.pool = concurrent.futures.ThreadPoolExecutor(1)

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        msgs = body["messages"]
        obs = Observation(system=msgs[0]["content"], messages=[_message(m) for m in msgs[1:]],
                          tools=[t for t in body["tools"] if t["function"]["name"] != REPLY], session_id=body["user"])
        turn = self.pool.submit(asyncio.run, self.agent.act(obs)).result()
        out: dict[str, Any] = {"content": turn.text}
        if turn.tool_calls:
            out["tool_calls"] = [{"id": c.id, "type": "function",
                                  "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                                 for c in turn.tool_calls]
        return out


def _message(m: dict[str, Any]) -> Message:
    calls = [ToolCall(id=c["id"], name=c["function"]["name"], arguments=json.loads(c["function"]["arguments"]))
             for c in m.get("tool_calls") or []]
    return Message(role=m["role"], content=m.get("content"), tool_calls=calls, tool_call_id=m.get("tool_call_id"),
                   name=m.get("name"))


def _agent(harness: WarmHarness, transport: str = "http") -> str:
    where = "{mcp_url}" if transport == "http" else "--stdio"
    args = [sys.executable, str(LAUNCHER), str(harness.port), where, "{observation_file}"]
    return ("mcp:" if transport == "http" else "mcp+stdio:") + " ".join(shlex.quote(a) for a in args)


def _run(suite: str, agent: str, variant: str, out: Path, *extra: str) -> dict:
    r = CliRunner().invoke(app, ["run", suite, "--agent", agent, "--variant", variant, "--personas", "1",
                                 "--out", str(out), "--json", str(out) + ".json", "--no-cache",
                                 "--max-concurrency", "8", *extra])
    assert r.exit_code == 0, r.output
    return json.loads(Path(str(out) + ".json").read_text())


CASES = {  # suite -> (reference agent, its variant, options making the run small)
    "atr": ("ref:asker", "atr", []),
    "intents": ("ref:asker", "default", ["-S", "sessions=3"]),
    "tempo": ("ref:policy", "default", []),
    "prefs": ("ref:habits", "none", []),
}


def _small_prefs(folder: Path) -> str:
    """The first built-in prefs user cut to its sessions before the first change, no change events
    (and so no pre-event probes), and the 28 final probes: a whole timeline in 31 sessions."""
    from longview.suites.prefs.dataset import builtin

    ds = builtin()
    ud = ds.users[0]
    first_change = next(i for i, sc in enumerate(ud.sessions) if sc.kind == "change")
    ud = ud.model_copy(update={"sessions": ud.sessions[:min(first_change, 3)], "pre_probes": [],
                               "user": ud.user.model_copy(update={"changes": []})})
    path = folder / "prefs-small.json"
    path.write_text(ds.model_copy(update={"users": [ud]}).model_dump_json(exclude={"sha256"}))
    return str(path)


@pytest.mark.parametrize(("suite", "transport"), [*((s, "http") for s in sorted(CASES)), ("atr", "stdio"),
                                                  ("intents", "stdio")])
def test_an_mcp_harness_scores_as_the_reference_agent_it_behaves_like(suite, transport, tmp_path):
    """Over streamable HTTP (mcp:) on every suite, and over the harness's own stdio (mcp+stdio:)."""
    ref, variant, extra = CASES[suite]
    dataset = _small_prefs(tmp_path) if suite == "prefs" else "builtin"
    extra = [*extra, "--dataset", dataset]
    native = _run(suite, ref, variant, tmp_path / "native", *extra)
    log = tmp_path / "calls.jsonl"
    with LoopbackServer(agent=ReferenceModel(suite, ref, dataset)).in_thread() as server, \
            WarmHarness(server.url, "test-key", str(log)) as harness:
        agent = _agent(harness, transport)
        mine = _run(suite, agent, variant, tmp_path / "mcp", *extra)
    assert mine["run"]["cells"]["aborted"] == 0
    (row,) = [r for r in mine["rows"] if r["agent"] == agent]
    (ref_row,) = [r for r in native["rows"] if r["agent"] == ref]
    if suite != "prefs":  # prefs' reference agents learn across sessions in-process (see docs/agents.md)
        assert row["metrics"] == ref_row["metrics"]
    # Every call the harness made is in the traces, with its arguments, as the kernel traces a
    # native agent's turns (a batch's calls in the order they reached the server).
    made = [json.loads(line) for line in log.read_text().splitlines()]
    assert made
    traced: dict[str, Counter] = {}
    for t in (tmp_path / "mcp" / "cells").rglob("*.jsonl"):
        for e in read_trace(t):
            if e.type == "assistant_turn":
                got = traced.setdefault(e.session_id, Counter())
                got.update(_key(c["name"], c["arguments"]) for c in e.data["tool_calls"])
                if e.data["text"] and not e.data["tool_calls"]:
                    got[_key(REPLY, {"text": e.data["text"]})] += 1
    by_session: dict[str, Counter] = {}
    for c in made:
        if c["ran"]:
            by_session.setdefault(c["session"], Counter())[_key(c["name"], c["arguments"])] += 1
    assert by_session == traced


def _key(name: str, arguments: dict) -> str:
    return name + json.dumps(arguments, sort_keys=True)


@pytest.mark.parametrize("prefix", ["mcp", "mcp+stdio"])
def test_a_harness_that_fails_or_hangs_aborts_its_cell_with_the_reason(prefix, tmp_path):
    crash = tmp_path / "crash.py"
    crash.write_text("import sys\nprint('no API key for the harness', file=sys.stderr)\nsys.exit(4)\n")
    hang = tmp_path / "hang.py"
    hang.write_text("import time\ntime.sleep(120)\n")
    # Over stdio, stdout is the MCP channel: a harness that prints there breaks the protocol.
    garbage = tmp_path / "garbage.py"
    garbage.write_text("import time\nprint('Starting my agent...', flush=True)\ntime.sleep(120)\n")
    cases = [(crash, "exited with code 4"), (hang, "neither called a tool nor exited within 0.5 s")]
    if prefix == "mcp+stdio":
        cases.append((garbage, "wrote a line on stdout that is not JSON"))
    for script, reason in cases:
        out = tmp_path / script.stem
        r = CliRunner().invoke(app, ["run", "atr", "--agent",
                                     f"{prefix}:{shlex.quote(sys.executable)} {script} {{prompt}}",
                                     "--variant", "atr", "--personas", "1", "--out", str(out), "--agent-timeout", "0.5"])
        assert r.exit_code == 1 and reason in r.output, r.output
        assert "Traceback (most recent call last)" not in r.output
        events = [e for t in (out / "cells").rglob("*.jsonl") for e in read_trace(t) if e.type == "session_aborted"]
        assert events and reason in events[0].data["reason"]
        if script is crash:
            assert "no API key for the harness" in events[0].data["detail"]


def test_an_unknown_placeholder_is_a_usage_error(tmp_path):
    r = CliRunner().invoke(app, ["run", "atr", "--agent", "mcp:harness {promt}", "--out", str(tmp_path / "r")])
    assert r.exit_code == 2 and "unknown placeholder {promt}" in r.output
    # A stdio harness has no server URL or config file to be given.
    r = CliRunner().invoke(app, ["run", "atr", "--agent", "mcp+stdio:harness --mcp {mcp_config}",
                                 "--out", str(tmp_path / "r")])
    assert r.exit_code == 2 and "{mcp_config} names the HTTP server" in r.output, r.output
    assert not (tmp_path / "r").exists()
