"""Rule scripts run in a subprocess: reference vs fixed histories, failures leave criteria undefined."""

from __future__ import annotations

from pathlib import Path

import pytest

from longview.suites.intents.evidence import CallRecord
from longview.suites.intents.rules import RuleScriptError, histories, run_script, score_rules, script_keys

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


def test_modes_differ_on_a_script_that_needs_the_full_history(tmp_path: Path):
    p = tmp_path / "s.py"
    p.write_text(ORDERED)
    keys = script_keys(p)
    allowed = {"mcp_appworld_a__make", "mcp_appworld_a__check"}
    assert score_rules(p, keys, calls(), allowed, "mcp_appworld_", "reference") == {"two_checks": False, "made": True}
    assert score_rules(p, keys, calls(), allowed, "mcp_appworld_", "fixed") == {"two_checks": True, "made": True}


def test_crash_and_timeout_raise(tmp_path: Path):
    crash = tmp_path / "c.py"
    crash.write_text("def score(h):\n    raise ValueError('boom')\n")
    with pytest.raises(RuleScriptError, match="boom"):
        run_script(crash, [[]])
    slow = tmp_path / "t.py"
    slow.write_text("import time\ndef score(h):\n    time.sleep(5)\n    return {}\n")
    with pytest.raises(RuleScriptError, match="timed out"):
        run_script(slow, [[]], timeout=0.5)
