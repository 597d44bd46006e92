"""Cross-session prompt-prefix share per suite: how much of a session's first request a provider's
prompt cache can serve from the request before it.

A server's prefix cache (llama.cpp's slot cache, vLLM's prefix caching, OpenAI's and DeepSeek's
automatic caching) serves the longest byte-identical prefix of an earlier request. Within a
session the prefix grows turn by turn; what a layout decides is the share at a session's *first*
request. Providers render the tool block before the system prompt and the conversation, so the
request is read here in that order: the tool schemas (JSON), then each message (role and
content). For each session's first request (one with no assistant message yet) the share is the
length of its common prefix with the previous request the server received (a one-slot cache such
as llama.cpp's), or with the best of the last 64 (a cache of many prefixes: vLLM, OpenAI), over its
own length. Both renderings are reported: tools first (Anthropic's documented order) and system
first (chat templates that put the tool list in the system turn: Qwen/Hermes in llama.cpp and vLLM).

Runs each suite's model agent (``hosted_vllm/loopback``) on a loopback server with one request in
flight (so "previous" is well defined), the scripted agent ``finish_or_send`` answering (each
session ends at once: many session starts), the suite's first ``--units`` units.

Run: python benchmarks/bench_prefix_share.py [--suites atr,prefs,intents,tempo] [--units 2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

from longview.harness import run as harness
from longview.harness.options import RunConfig
from longview.testing.loopback import LoopbackServer, finish_or_send


def rendered(body: dict[str, Any], order: str = "tools") -> str:
    """The request as a prompt cache reads it: ``tools`` — the tool block, then the messages in order
    (Anthropic's documented order); ``system`` — the system message, then the tools, then the rest
    (chat templates that put the tool list inside the system turn: Qwen/Hermes in llama.cpp and
    vLLM, OpenAI's developer message)."""
    tools = json.dumps(body.get("tools") or [], ensure_ascii=False)
    msgs = [f"<{m.get('role')}>{json.dumps(m.get('content'), ensure_ascii=False)}"
            f"{json.dumps(m.get('tool_calls'), ensure_ascii=False) if m.get('tool_calls') else ''}"
            for m in body.get("messages") or []]
    if order == "system" and msgs and (body.get("messages") or [{}])[0].get("role") == "system":
        return msgs[0] + tools + "".join(msgs[1:])
    return tools + "".join(msgs)


def common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    lo, hi = 0, n  # binary search on equal prefixes (the strings are long)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def shares(bodies: list[dict[str, Any]], order: str = "tools", window: int = 1) -> list[float]:
    """Per session start, its longest common prefix with one of the ``window`` requests before it
    (1: the previous request, a one-slot cache like llama.cpp's; more: a cache of many prefixes like
    vLLM's or OpenAI's), over its own length."""
    out = []
    before: list[str] = []
    for body in bodies:
        text = rendered(body, order)
        first = not any(m.get("role") == "assistant" for m in body.get("messages") or [])
        if first and before and text:
            out.append(max(common_prefix(text, b) for b in before) / len(text))
        before = [*before[-(window - 1):], text] if window > 1 else [text]
    return out


def measure(suite: str, units: int, options: dict[str, Any]) -> dict[str, Any]:
    bodies: list[dict[str, Any]] = []

    def agent(body: dict[str, Any]) -> dict[str, Any]:
        bodies.append(body)
        return finish_or_send(body)

    with tempfile.TemporaryDirectory() as tmp, LoopbackServer(agent=agent).in_thread() as srv:
        cfg = RunConfig(suite=suite, agents=[], models=["hosted_vllm/loopback"], units=units, api_base=srv.url,
                        out=Path(tmp) / "run", no_cache=True, max_concurrency=1, suite_options=options,
                        allow_aborts=True)
        harness.run(cfg)
    out: dict[str, Any] = {"suite": suite, "requests": len(bodies)}
    for order in ("tools", "system"):
        for window, key in ((1, order), (64, f"{order}_64")):
            s = shares(bodies, order, window)
            out[key] = {"session_starts": len(s), "mean": round(statistics.fmean(s), 3) if s else None,
                        "median": round(statistics.median(s), 3) if s else None, "min": round(min(s), 3) if s else None}
    return out


OPTIONS: dict[str, dict[str, Any]] = {"prefs": {"trace": False}, "intents": {}, "tempo": {}, "atr": {}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suites", default="atr,prefs,intents,tempo")
    ap.add_argument("--units", type=int, default=2)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    rows = []
    for suite in args.suites.split(","):
        r = measure(suite.strip(), args.units, OPTIONS.get(suite.strip(), {}))
        rows.append(r)
        print(f"{r['suite']:8} {r['tools']['session_starts']} session starts, {r['requests']} requests; "
              "prefix share mean / median:", flush=True)
        for key, what in (("tools", "tools first, previous request"), ("tools_64", "tools first, best of last 64"),
                          ("system", "system first, previous request"), ("system_64", "system first, best of last 64")):
            x = r[key]
            print(f"    {what:34} {x['mean']} / {x['median']} (min {x['min']})", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
