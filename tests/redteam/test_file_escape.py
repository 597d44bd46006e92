"""An agent that tries every way out of its workspace through intents' file tools (the only suite
whose file tools touch the disk; atr, prefs and tempo keep documents as records with ids): `..`,
paths into the run folder around the workspace, absolute paths, `~`, a backslash form, NUL, a long
name, and writes that would create files outside. Every attempt is a tool error the agent reads,
nothing appears outside the workspace, and no byte of a planted secret reaches the run folder."""

from __future__ import annotations

import json
from pathlib import Path

import longview
from longview.kernel.agent import AssistantTurn, Observation, ToolCall
from longview.kernel.trace import read_trace

SECRET = "PLANTED-SECRET-4f1c"


def attempts(run: Path, outside: Path) -> list[tuple[str, dict]]:
    reads = ["../result.json", "../../../manifest.json", "../../../../secret.txt", str(outside / "secret.txt"),
             "/etc/passwd", "~/.bashrc", "..\\..\\manifest.json", "sub/../../x", "./../../..", "a\x00b", "z" * 5000,
             str(run / "manifest.json")]
    out: list[tuple[str, dict]] = [("read_file", {"path": p}) for p in reads]
    out += [("list_dir", {"path": p}) for p in ("..", "../..", "/", str(outside))]
    out += [("write_file", {"path": p, "content": "escape attempt"}) for p in
            ("../escaped.txt", "../../../escaped.txt", str(outside / "escaped.txt"), "sub/../../escaped.txt")]
    out += [("edit_file", {"path": "../../../manifest.json", "old_text": "suite", "new_text": "owned"}),
            ("delete_file", {"path": "../result.json"}), ("delete_file", {"path": str(outside / "secret.txt")})]
    return out


class Escaper:
    name = "probe:escape"

    def __init__(self, run: Path, outside: Path) -> None:
        self.calls = attempts(run, outside)

    async def act(self, obs: Observation) -> AssistantTurn:
        offered = {t["function"]["name"] for t in obs.tools}
        if any(m.role == "assistant" for m in obs.messages):
            return AssistantTurn(text="Done.")
        return AssistantTurn(tool_calls=[ToolCall(id=f"e{i}", name=n, arguments=a)
                                         for i, (n, a) in enumerate(self.calls) if n in offered])


def test_no_file_tool_leaves_the_workspace(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET)
    out = tmp_path / "run"
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    result = longview.run("intents", agent=lambda cell: Escaper(out, outside), name="probe:escape", units=1,
                          out=out, no_cache=True)
    assert not result.aborted
    tried = [e.data for t in (out / "cells").rglob("*.jsonl") for e in read_trace(t)
             if e.type == "tool_call" and str(e.data.get("call_id", "")).startswith("e")]
    assert len(tried) >= len(attempts(out, outside))  # every session offered the file tools: all were tried
    assert all(d["ok"] is False and d["error"] for d in tried), [d for d in tried if d["ok"]]
    assert (outside / "secret.txt").read_text() == SECRET  # not deleted
    assert not list(tmp_path.rglob("escaped.txt"))
    leaked = [p for p in out.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]
    assert not leaked, leaked
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["suite"] == "intents"
    new_outside = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if not p.is_relative_to(out))
    assert new_outside == [x for x in before]
