"""The live lane (opt-in): a small slice of every suite against a real local model server.

Not a test (it needs a running model server and minutes of CPU): run it by hand, or in CI with a
model server, after starting llama.cpp's server from ``../shared/tools/local-model/`` (or any
OpenAI-compatible server: vLLM, Ollama, ...)::

    M=$(../shared/tools/local-model/setup.sh 0.5b | tail -1)
    ~/.cache/longview-local-model/venv/bin/python ../shared/tools/local-model/serve.py "$M" 18350 &
    python benchmarks/live_smoke.py --api-base http://127.0.0.1:18350/v1

Per suite it runs the reference agents and the model on the same slice (one unit; atr: the
oracle_target variant, which has no learning phase, on the first test sessions; intents: the first
session that holds a hidden intent the workspace reveals and depends on no earlier one; prefs: the
first user's first sessions and final probes, without change events), then checks:

* the run completes with **0 aborted cells**;
* **usage is counted**: the agent made model calls, with input and output tokens;
* the model's headline metric (the suite's profile metric) is a number **within the reference
  floor and ceiling** measured on the same slice: above the ceiling (or below 0) is a failure — a
  broken metric or model layer; below the floor is printed as a note, not a failure, where the
  floor agent does real work (prefs' habit-following agents, intents' literal agent): a weak model
  may fall below it.

It prints one line per suite and exits 1 if a check fails. Small open models write tool calls as
text, so ``--param agent.tool_calls=text`` is on by default (``--native-tools`` turns it off); the
slice's turn cap and output cap keep a 0.5B model on 2 shared CPU cores to minutes per suite.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Any

from longview.harness import registry
from longview.harness import run as harness
from longview.harness.options import RunConfig
from longview.harness.roles import AGENT
from longview.harness.runstore import config_hash
from longview.kernel.models import GenParams
from longview.report.data import load_run
from longview.report.hooks import profile_spec
from longview.report.profile import headline

# The slice per suite: suite options, the model's variants, and units (reference agents run theirs).
SLICES: dict[str, dict[str, Any]] = {
    "atr": {"variants": ["oracle_target"], "options": {}},
    "intents": {"variants": [], "options": {}},  # one session: see trim_intents
    "tempo": {"variants": [], "options": {}},
    "prefs": {"variants": ["none"], "options": {"trace": False}},
}


def run_suite(name: str, args: argparse.Namespace) -> dict[str, Any]:
    suite = registry.load(name)
    spec = profile_spec(suite)
    sl = SLICES.get(name, {"variants": [], "options": {}})
    params = GenParams(max_tokens=args.max_tokens, tool_calls="native" if args.native_tools else "text")
    cfg = RunConfig(suite=name, agents=["reference"], models=[args.model], variants=[], units=1,
                    suite_options=sl["options"], out=Path(args.out) / name, force=True, api_base=args.api_base,
                    no_cache=True, max_turns=args.max_turns, request_timeout=args.request_timeout,
                    max_attempts=args.max_attempts, max_concurrency=1, role_params={AGENT: params},
                    allow_aborts=True)
    prepared = harness.prepare(cfg)
    if name == "prefs":  # 132 scenes a user is hours on a CPU: a few sessions and final probes, no change events
        prepared.dataset = trim_prefs(prepared.dataset, args.prefs_sessions, args.prefs_probes)
    elif name == "atr":  # 12-18 test sessions a unit, each a fresh ~2.7k-token prompt (minutes on a busy CPU)
        prepared.dataset = trim_atr(prepared.dataset, prepared.cells[0].unit, args.atr_sessions)
    elif name == "intents":  # one session: the first whose hidden intent the workspace holds (proactivity is scored)
        prepared.dataset = trim_intents(prepared.dataset, prepared.cells[0].unit)
    if sl["variants"]:  # the model's cells on the slice's variants only; reference agents keep theirs
        prepared.cells = [c for c in prepared.cells if c.agent != args.model or c.variant in sl["variants"]]
        prepared.manifest.config["cells"] = sorted(c.key for c in prepared.cells)
        prepared.manifest.config_hash = config_hash(prepared.manifest.config)
    t0 = time.monotonic()
    store, sc = harness.run(cfg, prepared=prepared)
    wall = time.monotonic() - t0
    result = harness.outcome(store)
    usage = store.manifest().usage
    agent = (usage.get("roles") or {}).get(AGENT, {})
    run = load_run(store.root)
    line = headline(run, suite, spec, args.model)
    if line.get("floor") is None:  # the references agree on this slice: the bound is still their value
        line["floor"], line["ceiling"] = reference_bounds(run.scorecard, line.get("metric", "").split(" · ")[0])
    checks = {
        "0 aborted cells": not result.aborted,
        "usage counted": agent.get("calls", 0) > 0 and agent.get("input_tokens", 0) > 0 and agent.get("output_tokens", 0) > 0,
        "within floor and ceiling": _within(line),
    }
    below = line.get("value") is not None and line.get("floor") is not None and line.get("ceiling") is not None \
        and line["value"] < min(line["floor"], line["ceiling"]) - 1e-9
    return {"suite": name, "wall_s": round(wall, 1), "cells": result.planned, "aborted": [r for _, r in result.aborted],
            "metric": line.get("metric"), "value": line.get("value"), "floor": line.get("floor"),
            "ceiling": line.get("ceiling"), "agent_usage": {k: agent.get(k) for k in (
                "calls", "input_tokens", "cached_tokens", "output_tokens", "retries", "failed_calls", "truncated",
                "text_tool_calls", "streamed_calls", "mean_first_token_s", "tokens_per_s")},
            "checks": checks, "below_floor": below, "ok": all(checks.values())}


def trim_prefs(ds: Any, sessions: int, probes: int) -> Any:
    """The first user's first ``sessions`` ordinary sessions and ``probes`` final probes, without its
    change events (so no pre-event probes): the same for the reference agents and the model. The
    probes alternate between targets that differ from the attribute's habit and targets that match
    it, so the habit-following reference agents score below the ceiling and the slice has a floor.
    Built in memory, past the file loader's completeness checks, for this smoke check only."""
    from longview.suites.prefs.model import taxonomy

    ud = ds.users[0].model_copy(deep=True)
    ud.user.changes = []
    ud.pre_probes = []
    ud.sessions = [s for s in ud.sessions if s.kind != "change"][:sessions]
    habit = [ud.user.target(p.context, p.attribute, p.day) == taxonomy().attribute(p.attribute).habit
             for p in ud.final_probes]
    differ = [p for p, h in zip(ud.final_probes, habit, strict=True) if not h]
    same = [p for p, h in zip(ud.final_probes, habit, strict=True) if h]
    picked = [p for pair in itertools.zip_longest(differ, same) for p in pair if p is not None][:probes]
    ud.final_probes = [p for p in ud.final_probes if p in picked]  # dataset order
    return ds.model_copy(update={"users": [ud]})


def trim_atr(ds: Any, unit: str, tests: int) -> Any:
    """The unit's first ``tests`` test sessions (the slice's model runs oracle_target: no learning
    phase), rules and learning sessions kept; in memory, for this smoke check only."""
    ep = ds.episode(unit)
    return ds.model_copy(update={"episodes": [ep.model_copy(update={"test_sessions": ep.test_sessions[:tests]})]})


def trim_intents(ds: Any, unit: str) -> Any:
    """The unit's first session that depends on no earlier one and holds a hidden intent the
    workspace reveals (what the suite's headline, proactive recovery, scores); in memory."""
    import dataclasses

    ep = ds.episode(unit)
    first = next(s for s in ep.sessions if not s.depends_on
                 and any(h.recoverable_from == "workspace" for h in s.hidden_intents))
    return dataclasses.replace(ds, episodes={unit: ep.model_copy(update={"sessions": [first]})})


def reference_bounds(scorecard: dict[str, Any], metric: str) -> tuple[float | None, float | None]:
    """(floor, ceiling): the worst and best reference agent's value of ``metric``, equal or not."""
    refs = [r["metrics"][metric] for r in scorecard.get("rows", [])
            if r["agent"].startswith("ref:") and isinstance(r["metrics"].get(metric), (int, float))]
    if not refs:
        return None, None
    hib = (scorecard.get("metrics") or {}).get(metric, {}).get("higher_is_better", True)
    return (min(refs), max(refs)) if hib else (max(refs), min(refs))


def _within(line: dict[str, Any]) -> bool:
    """A number, at least 0, and not better than the best reference agent (below the floor: a note)."""
    value, lo, hi = line.get("value"), line.get("floor"), line.get("ceiling")
    if value is None or value < -1e-9:
        return False
    if lo is None or hi is None:  # the references do not bound it on this slice: nothing more to check
        return True
    return value <= max(lo, hi) + 1e-9


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--api-base", required=True, help="the model server, e.g. http://127.0.0.1:18350/v1")
    ap.add_argument("--model", default="hosted_vllm/qwen2.5-coder-0.5b", help="provider/model as the server knows it")
    ap.add_argument("--suites", default="atr,tempo,intents,prefs", help="comma-separated, in this order")
    ap.add_argument("--out", default="runs/live-smoke", help="parent of the run folders")
    ap.add_argument("--max-turns", type=int, default=3, help="assistant-turn cap per session (keeps the slice small)")
    ap.add_argument("--max-tokens", type=int, default=128, help="agent output cap per turn (a tool call needs ~60)")
    ap.add_argument("--request-timeout", type=float, default=180.0,
                    help="seconds of silence per request (a streamed reply is silent only between pieces; "
                         "llama.cpp sends a keep-alive every 30 s while it reads a long prompt)")
    ap.add_argument("--max-attempts", type=int, default=3)
    ap.add_argument("--native-tools", action="store_true", help="read the API's tool_calls only (no text parser)")
    ap.add_argument("--atr-sessions", type=int, default=2, help="atr: test sessions kept")
    ap.add_argument("--prefs-sessions", type=int, default=2, help="prefs: ordinary sessions kept")
    ap.add_argument("--prefs-probes", type=int, default=3, help="prefs: final probes kept")
    ap.add_argument("--json", default=None, help="also write the results here")
    args = ap.parse_args(argv)
    results = []
    for name in [s.strip() for s in args.suites.split(",") if s.strip()]:
        r = run_suite(name, args)
        results.append(r)
        u = r["agent_usage"]
        print(f"{r['suite']:8} {'ok  ' if r['ok'] else 'FAIL'} {r['wall_s']:7.1f} s  cells {r['cells']} aborted "
              f"{len(r['aborted'])}  {r['metric']} = {r['value']} (floor {r['floor']}, ceiling {r['ceiling']})  agent: "
              f"{u['calls']} calls, {u['input_tokens']} in / {u['cached_tokens']} cached / {u['output_tokens']} out, "
              f"{u['text_tool_calls']} text tool calls, {u['truncated']} cut at the cap, retries {u['retries']}, "
              f"first token {u['mean_first_token_s']} s, {u['tokens_per_s']} tok/s", flush=True)
        for reason in r["aborted"][:3]:
            print(f"         aborted: {reason[:300]}")
        if r["below_floor"]:
            print("         note: below the reference floor (a weak model; not a failure)")
        for check, ok in r["checks"].items():
            if not ok:
                print(f"         failed check: {check}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
