"""A `cmd:` agent that introduces itself with a hostile name and version (terminal escape sequences,
a bell, carriage returns and newlines, bidi override, markup and script; 20k characters is refused
by the hello schema and aborts the cell with the reason): every command that prints
a run (`run`, `show`, `compare`, `export`, `trace`) writes no raw control character, the manifest
keeps the report cut to a bounded length, and the HTML report carries it only as escaped text."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from longview.cli import app

NAME = "\x1b[2J\x1b]0;owned\x07<script>window.__lv_ran=1</script>\r\nsecond line\u202e" + "A" * 100
VERSION = "\x1b[31m1.0\x1b[0m\x00\n<img src=x onerror=alert(1)>"
CONTROL = ("\x1b", "\x07", "\x00", "\r", "\u202e")


def _start(tmp: Path, name: str):
    script = tmp / "agent.py"
    script.write_text(
        "import json, sys\n"
        f"print(json.dumps({{'type': 'hello', 'name': {name!r}, 'version': {VERSION!r}}}), flush=True)\n"
        "for line in sys.stdin:\n"
        "    obs = json.loads(line)\n"
        "    names = [t['function']['name'] for t in obs['tools']]\n"
        "    fin = next((n for n in ('finish_session', 'finish') if n in names), None)\n"
        "    turn = {'tool_calls': [{'id': 'x', 'name': fin, 'arguments': {}}]} if fin else {'text': 'ok'}\n"
        "    print(json.dumps(turn), flush=True)\n")
    agent = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    out = tmp / "r"
    r = CliRunner().invoke(app, ["run", "atr", "--agent", agent, "--variant", "default", "--personas", "1",
                                 "--out", str(out)])
    _clean(r.output)
    return r, out, agent


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[Path, str]:
    r, out, agent = _start(tmp_path_factory.mktemp("hostile_hello"), NAME)
    assert r.exit_code == 0, r.output
    return out, agent


def test_a_very_long_name_aborts_the_cell_with_the_reason(tmp_path):
    r, _, _ = _start(tmp_path, NAME + "A" * 20000)
    assert r.exit_code == 1 and "field 'name'" in r.output and "at most 200 characters" in r.output
    assert "A" * 300 not in r.output


def _clean(text: str) -> None:
    for ch in CONTROL:
        assert ch not in text, repr(ch)


def test_the_manifest_keeps_a_bounded_escaped_report(run):
    out, agent = run
    manifest = json.loads((out / "manifest.json").read_text())
    ident = json.dumps(manifest).split('"harnesses"', 1)
    assert len(ident) == 2, "the run records what the harness reported"
    reported = json.loads((out / "manifest.json").read_text())["harnesses"]
    text = json.dumps(reported, ensure_ascii=False)
    _clean(text)
    assert "second line" in text and len(text) < 2000


@pytest.mark.parametrize("cmd", [["show"], ["compare", "{r}", "{r}"], ["export", "{r}"]])
def test_commands_printing_the_run_emit_no_control_characters(run, cmd, tmp_path):
    out, _ = run
    args = [a.format(r=out) for a in cmd]
    if cmd == ["show"]:
        args.append(str(out))
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    _clean(r.output)


def test_the_trace_command_emits_no_control_characters(run):
    out, _ = run
    trace = next((out / "cells").rglob("*.jsonl"))
    r = CliRunner().invoke(app, ["trace", str(trace)])
    assert r.exit_code == 0, r.output
    _clean(r.output)


def test_the_report_holds_the_name_as_text_only(run, tmp_path):
    out, _ = run
    html = tmp_path / "r.html"
    r = CliRunner().invoke(app, ["report", str(out), "-o", str(html)])
    assert r.exit_code == 0, r.output
    page = html.read_text()
    assert "<script>window.__lv_ran" not in page and "<img src=x onerror" not in page
    assert "\x1b" not in page and "\x07" not in page


def test_what_an_mcp_client_says_it_is_is_escaped_and_cut():
    """The mcp: path (clientInfo, not schema-checked: the MCP SDK accepts any string) goes through the
    same intake as a cmd: hello: control characters escaped, markup kept as text, at most 200 characters."""
    from longview.agents.external.reported import MAX_FIELD, Reports

    r = Reports()
    r.introduce(NAME + "B" * 20000, VERSION, "the mcp harness")
    assert r.reported is not None
    for v in r.reported.values():
        _clean(v)
        assert "\n" not in v and len(v) <= MAX_FIELD
    assert r.reported["name"].startswith("\\x1b[2J")
