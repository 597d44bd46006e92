"""Rule scripts: reference vs fixed histories, confinement (no keys, no bytecode, a throw-away
working folder laid out as the release's evaluator expects), failures judge nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from longview.suites.intents.evidence import CallRecord
from longview.suites.intents.rules import RuleScriptError, histories, run_script, score_rules

ORDERED = '''
def score(h):
    names = [i["tool_name"] for i in h]
    ok = "mcp_appworld_a__make" in names and names.count("mcp_appworld_a__check") >= 2
    return {"two_checks": int(ok), "made": int("mcp_appworld_a__make" in names)}
'''


def calls():
    return [CallRecord("a__make", {"x": 1}, True, {"id": 7}, 0, 0),
            CallRecord("a__check", {"id": 7}, True, {"ok": True}, 1, 0),
            CallRecord("a__check", {"id": 7}, True, {"ok": True}, 2, 0),
            CallRecord("b__other", {}, True, {}, 3, 1)]


def test_histories_reference_keeps_last_call_per_tool_per_turn():
    allowed = {"mcp_appworld_a__make", "mcp_appworld_a__check"}
    ref = histories(calls(), allowed, "mcp_appworld_", "reference")
    assert [[i["tool_name"] for i in h] for h in ref] == [["mcp_appworld_a__make", "mcp_appworld_a__check"], []]
    assert ref[0][0] == {"tool_name": "mcp_appworld_a__make", "call": {"x": 1}, "result": {"response": {"id": 7}}}
    fixed = histories(calls(), allowed, "mcp_appworld_", "fixed")
    assert [i["tool_name"] for i in fixed[0]].count("mcp_appworld_a__check") == 2


def test_unprefixed_declared_names_match_nothing_as_in_the_release():
    """marketer_020 declares 'todoist__create_sub_task' without the prefix the agent's calls carry:
    the release's evaluator keeps no call for it, so neither does longview."""
    hs = histories(calls(), {"a__make", "a__check"}, "mcp_appworld_", "fixed")
    assert hs == [[]]


def test_modes_differ_on_a_script_that_needs_the_full_history(tmp_path: Path):
    p = tmp_path / "s.py"
    p.write_text(ORDERED)
    allowed = {"mcp_appworld_a__make", "mcp_appworld_a__check"}
    ref = score_rules(p, calls(), allowed, "mcp_appworld_", "reference")
    assert ref.keys == ["two_checks", "made"] and ref.met == {"two_checks": False, "made": True}
    assert score_rules(p, calls(), allowed, "mcp_appworld_", "fixed").met == {"two_checks": True, "made": True}


@pytest.mark.parametrize("body, reason", [
    ("def score(h):\n    raise ValueError('boom')\n", "boom"),
    ("def score(h):\n    return [1]\n", "must return a dict"),
    ("def score(h):\n    return {'k': 7}\n", "expected 0 or 1"),
    ("def score(h):\n    return {}\n", "named no criteria"),
    ("import os\ndef score(h):\n    os.write(1, b'not json at all')\n    os._exit(0)\n", "not JSON"),
    ("import sys\ndef score(h):\n    sys.stdout.write('x' * (32 << 20))\n    return {'k': 1}\n", "limit"),
])
def test_a_failing_script_raises_with_its_reason(tmp_path: Path, body, reason):
    p = tmp_path / "bad.py"
    p.write_text(body)
    with pytest.raises(RuleScriptError, match=reason):
        run_script(p, [[]])


def test_prints_do_not_corrupt_the_answer(tmp_path: Path):
    p = tmp_path / "chatty.py"
    p.write_text("def score(h):\n    print('{\"k\": 0}')\n    return {'k': 1}\n")
    keys, results = run_script(p, [[]])
    assert keys == ["k"] and results == [{"k": 1}]


def test_a_hanging_script_is_killed(tmp_path: Path):
    p = tmp_path / "t.py"
    p.write_text("import time\ndef score(h):\n    time.sleep(30)\n    return {}\n")
    with pytest.raises(RuleScriptError, match="timed out"):
        run_script(p, [[]], timeout=0.5)


def test_script_runs_confined(tmp_path: Path, monkeypatch):
    """No key, proxy or caller variable reaches the script; its working folder is a throw-away copy
    laid out as the release's evaluator expects; nothing is written next to the script."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-planted-secret")
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "report.py").write_text("print('agent output')")
    script = tmp_path / "rel" / "probe.py"
    script.parent.mkdir()
    script.write_text('''
import json, os, sys
from pathlib import Path
import yaml
def score(h):
    cfg = yaml.safe_load(Path("config/nanobot.yaml").read_text())
    ws = Path(os.path.expanduser(cfg["nanobot"]["workspace_dir"]))
    Path("written-by-script").write_text("x")
    sys.stderr.write(json.dumps({"env": dict(os.environ), "cwd": os.getcwd(), "bytecode": sys.dont_write_bytecode,
                                 "report": (ws / "report.py").read_text()}))
    return {"seen": int((ws / "report.py").exists())}
''')
    keys, results = run_script(script, [[]], workspace=workspace)
    assert results == [{"seen": 1}]
    # what the script saw: read back through a second script that reports on stdout
    probe = script.parent / "probe2.py"
    probe.write_text('''
import json, os, sys
def score(h):
    return {k: 1 for k in sorted(os.environ)} | {"cwd_is_tmp_" + str(int("lv-rule-" in os.getcwd())): 1,
                                                  "no_bytecode_" + str(int(sys.dont_write_bytecode)): 1}
''')
    env_keys, _ = run_script(probe, [[]], workspace=workspace)
    assert "OPENAI_API_KEY" not in env_keys and "HTTPS_PROXY" not in env_keys and "PYTHONPATH" not in env_keys
    assert set(env_keys) - {"cwd_is_tmp_1", "no_bytecode_1"} <= {
        "PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING", "LC_CTYPE"}
    assert "cwd_is_tmp_1" in env_keys and "no_bytecode_1" in env_keys
    assert sorted(p.name for p in script.parent.iterdir()) == ["probe.py", "probe2.py"]  # no __pycache__
    assert not (workspace / "written-by-script").exists() and (workspace / "report.py").read_text() == "print('agent output')"


def test_release_style_script_reads_the_session_workspace(tmp_path: Path):
    """Financier_017-style scripts find the agent's file through config/nanobot.yaml relative to
    their working folder; they must see the session's workspace, not score 0 for want of it."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "pipeline.py").write_text("import zipfile\nvol = returns.std() * sqrt(252)\n")
    script = tmp_path / "s.py"
    script.write_text('''
import os, re, yaml
from pathlib import Path
def score(h):
    p = Path("config") / "nanobot.yaml"
    if not p.exists():
        return {"zip": 0, "annualised": 0}
    ws = Path(os.path.expanduser(yaml.safe_load(p.read_text())["nanobot"]["workspace_dir"]))
    f = ws / "pipeline.py"
    text = f.read_text() if f.exists() else ""
    return {"zip": int("import zipfile" in text), "annualised": int(bool(re.search(r"sqrt[^\\n]*25[02]", text)))}
''')
    out = score_rules(script, [], set(), "mcp_appworld_", "reference", workspace=ws)
    assert out.met == {"zip": True, "annualised": True}
    assert json.dumps(out.met)  # plain data


def test_a_script_past_its_memory_limit_judges_nothing(tmp_path: Path):
    p = tmp_path / "hog.py"
    p.write_text("def score(h):\n    block = bytearray(3 << 30)\n    return {'k': len(block) > 0}\n")
    with pytest.raises(RuleScriptError, match="MemoryError|limit"):
        run_script(p, [[]])


def test_a_script_cannot_write_into_the_release_or_leave_children(tmp_path: Path):
    """Its working folder is a throw-away copy; a child it forks is killed with it."""
    release = tmp_path / "data" / "p" / "scripts"
    release.mkdir(parents=True)
    p = release / "s.py"
    p.write_text("import os, subprocess, sys\n"
                 "def score(h):\n"
                 "    open('written.txt', 'w').write('x')\n"
                 "    subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
                 "    return {'k': 1}\n")
    keys, results = run_script(p, [[]])
    assert results == [{"k": 1}]
    assert sorted(x.name for x in release.iterdir()) == ["s.py"]
