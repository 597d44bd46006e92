"""Imported rule scripts run as pure functions of the tool history, in a subprocess with a timeout.

A π-Bench rule script defines ``score(tools_history) -> {key: 0|1}``; ``score([])`` names its
criteria (one checklist item of weight 1 per key). Each history item is
``{"tool_name", "call": <arguments>, "result": {"response": <output>}}``.

Two modes:

* ``reference`` — as π-Bench's released evaluator: per user turn, only the *last* call of each
  tool the task declares is passed, in first-seen order, and a key counts as met if any turn
  scores it 1.
* ``fixed`` — the whole session's history (every declared-tool call, in order) is passed once, so
  scripts that look for a call followed by a later check can see both.

A script that crashes, times out or returns a non-dict leaves its criteria undefined (None), never
0 or 1; unknown keys are ignored and missing keys score 0 (as the reference does).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Literal

from longview.suites.intents.evidence import CallRecord

RuleMode = Literal["reference", "fixed"]
TIMEOUT_S = 10.0

_RUNNER = r"""
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("lv_rule_script", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
histories = json.load(sys.stdin)
out = []
for h in histories:
    r = mod.score(h)
    if not isinstance(r, dict):
        raise TypeError("score() must return a dict, got " + type(r).__name__)
    out.append({str(k): r[k] for k in r})
json.dump(out, sys.stdout, default=str)
"""


class RuleScriptError(Exception):
    pass


def run_script(path: Path, histories: list[list[dict[str, Any]]], timeout: float = TIMEOUT_S) -> list[dict[str, Any]]:
    """Call ``score`` once per history in a fresh interpreter (isolated: no site dir, cwd = script dir)."""
    try:
        proc = subprocess.run([sys.executable, "-I", "-c", _RUNNER, str(path)], input=json.dumps(histories, default=str),
                              capture_output=True, text=True, timeout=timeout, cwd=str(path.parent))
    except subprocess.TimeoutExpired:
        raise RuleScriptError(f"{path.name}: timed out after {timeout:g}s") from None
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuleScriptError(f"{path.name}: {last}")
    try:
        return json.loads(proc.stdout)
    except ValueError:
        raise RuleScriptError(f"{path.name}: unreadable output") from None


def script_keys(path: Path, timeout: float = TIMEOUT_S) -> list[str]:
    """The criteria a script defines: the keys of ``score([])``."""
    (out,) = run_script(path, [[]], timeout)
    if not out:
        raise RuleScriptError(f"{path.name}: score([]) returned no criteria")
    return list(out)


def history_item(c: CallRecord, prefix: str) -> dict[str, Any]:
    return {"tool_name": prefix + c.name, "call": c.arguments, "result": {"response": c.output}}


def histories(calls: list[CallRecord], allowed: set[str], prefix: str, mode: RuleMode) -> list[list[dict[str, Any]]]:
    """The histories a script is called with: one per user turn (reference) or one (fixed)."""
    keep = [c for c in calls if not allowed or prefix + c.name in allowed]
    if mode == "fixed":
        return [[history_item(c, prefix) for c in keep]]
    out = []
    for seg in sorted({c.segment for c in calls}) or [0]:
        last: dict[str, CallRecord] = {}  # first-seen order, last call wins
        for c in keep:
            if c.segment == seg:
                last[c.name] = c
        out.append([history_item(c, prefix) for c in last.values()])
    return out


def score_rules(path: Path, keys: list[str], calls: list[CallRecord], allowed: set[str], prefix: str,
                mode: RuleMode, timeout: float = TIMEOUT_S) -> dict[str, bool]:
    """Key -> met in any history. Raises RuleScriptError when the script fails."""
    met = {k: False for k in keys}
    for result in run_script(path, histories(calls, allowed, prefix, mode), timeout):
        for k in keys:
            v = result.get(k, 0)
            if v not in (0, 1, True, False):
                raise RuleScriptError(f"{path.name}: key {k} scored {v!r}, expected 0 or 1")
            met[k] = met[k] or bool(v)
    return met
