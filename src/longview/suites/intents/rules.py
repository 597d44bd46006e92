"""Imported rule scripts: dataset code, run only when scoring, confined.

A π-Bench rule script defines ``score(tools_history) -> {key: 0|1}``; ``score([])`` names its
criteria (one checklist item of weight 1 per key), as the release's evaluator reads them. Each
history item is ``{"tool_name", "call": <arguments>, "result": {"response": <output>}}``.

Nothing of a script runs when a dataset is loaded, inspected or dry-run: the loader only checks
that the file is a regular ``.py`` file inside the release's data folder. When a session is
scored, :func:`run_script` runs it in a separate interpreter that is confined (see
:mod:`longview.suites.intents.sandbox`): a scrubbed environment, a throw-away working folder laid
out as the release's evaluator expects (``config/nanobot.yaml`` naming a copy of the session's
workspace under ``$HOME/.nanobot/workspace``), time, memory, file-size and process limits, and no
bytecode written anywhere.

Two modes:

* ``reference`` — as π-Bench's released evaluator: per user turn, only the *last* call of each
  tool the task declares is passed, in first-seen order, and a key counts as met if any turn
  scores it 1.
* ``fixed`` — the whole session's history (every declared-tool call, in order) is passed once, so
  scripts that look for a call followed by a later check can see both.

A script that fails (raises, times out, exceeds a limit, prints something that is not its
answer, answers a value other than 0/1) judges nothing: its criteria are *not judged* (None) and
the reason is recorded, never a silent 0 or 1. Unknown keys are ignored and missing keys score 0,
as the reference does.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from longview.suites.intents.evidence import CallRecord
from longview.suites.intents.sandbox import SandboxError, run_confined

RuleMode = Literal["reference", "fixed"]
PREFIX = "mcp_appworld_"  # the release's agent sees AppWorld tools through an MCP bridge with this prefix
TIMEOUT_S = 10.0
RULE_FAILED = "[tools] (rule script failed)"  # stands for the criteria of a script that named none

# Runs inside the confined interpreter: loads the script from its copy, asks score([]) for the
# criteria, then scores each history. The script's own prints go to stderr so they cannot be
# mistaken for the answer, which is the last line of stdout.
_RUNNER = r"""
import importlib.util, json, sys
answer, sys.stdout = sys.stdout, sys.stderr
spec = importlib.util.spec_from_file_location("lv_rule_script", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
histories = json.load(sys.stdin)

def binary(k, v):
    if isinstance(v, bool) or (isinstance(v, int) and v in (0, 1)):
        return int(v)
    raise ValueError("key %r scored %r, expected 0 or 1" % (k, v))

first = mod.score([])
if not isinstance(first, dict):
    raise TypeError("score([]) must return a dict, got " + type(first).__name__)
keys = []
for k, v in first.items():
    k = str(k).strip()
    if k and k not in keys:
        binary(k, v)
        keys.append(k)
if not keys:
    raise ValueError("score([]) named no criteria")
out = []
for h in histories:
    r = mod.score(h)
    if not isinstance(r, dict):
        raise TypeError("score() must return a dict, got " + type(r).__name__)
    got = {str(k).strip(): v for k, v in r.items()}
    out.append({k: binary(k, got[k]) for k in keys if k in got})
answer.write("\n" + json.dumps({"keys": keys, "results": out}) + "\n")
"""


class RuleScriptError(Exception):
    """A rule script could not judge: the message says why (for ``rule_errors``)."""


@dataclass
class RuleOutcome:
    """What one scoring run of a script decided: its criteria and, per key, met in any history."""

    keys: list[str]
    met: dict[str, bool]


def run_script(path: Path, histories: list[list[dict[str, Any]]], *, workspace: Path | None = None,
               timeout: float = TIMEOUT_S) -> tuple[list[str], list[dict[str, int]]]:
    """The script's criteria (``score([])``'s keys) and its answer for each history, from a
    confined interpreter. Raises :class:`RuleScriptError` naming the script and the reason."""
    try:
        out = run_confined(_RUNNER, path, histories, workspace=workspace, timeout=timeout)
    except SandboxError as e:
        raise RuleScriptError(f"{path.name}: {e}") from None
    keys, results = out.get("keys"), out.get("results")
    if (not isinstance(keys, list) or not all(isinstance(k, str) for k in keys) or not isinstance(results, list)
            or len(results) != len(histories) or not all(isinstance(r, dict) for r in results)):
        raise RuleScriptError(f"{path.name}: an answer of the wrong shape")
    return keys, results


def history_item(c: CallRecord, prefix: str) -> dict[str, Any]:
    return {"tool_name": prefix + c.name, "call": c.arguments, "result": {"response": c.output}}


def declared_names(names: list[str]) -> set[str]:
    """The tool names a script's history keeps, as the release's evaluator matches them: exactly as
    the task declares them against the agent's (prefixed) tool names. A task that declares names
    without the ``mcp_appworld_`` prefix (marketer_020) therefore gets an empty history there, as
    in the release."""
    return set(names)


def histories(calls: list[CallRecord], allowed: set[str], prefix: str, mode: RuleMode) -> list[list[dict[str, Any]]]:
    """The histories a script is called with: one per user turn (reference) or one (fixed). Calls are
    named as the release's agent saw them (``prefix`` + name); only ``allowed`` names are kept when
    the task declares any (none declared: every call, as the release)."""
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


def score_rules(path: Path, calls: list[CallRecord], allowed: set[str], prefix: str, mode: RuleMode, *,
                workspace: Path | None = None, timeout: float = TIMEOUT_S) -> RuleOutcome:
    """Key -> met in any history. Raises :class:`RuleScriptError` when the script cannot judge."""
    keys, results = run_script(path, histories(calls, allowed, prefix, mode), workspace=workspace, timeout=timeout)
    met = {k: any(bool(r.get(k, 0)) for r in results) for k in keys}
    return RuleOutcome(keys, met)
