"""Concurrency efficiency of model calls against a loopback OpenAI-compatible server.

Starts ``python -m longview.testing.loopback`` in its own process (so its CPU is not counted as
the harness's) with a fixed latency, and drives model calls through longview's real client path
(make_client -> ManagedClient -> OpenAICompatClient, no response cache) at each concurrency level,
bounded by an asyncio.Semaphore standing in for the harness's session slots. Every request carries
a realistic body (a ~6 kB system prompt, a short tool conversation and a domain's 14 tool schemas).

Reports per level: calls, wall seconds, efficiency = (calls x latency / concurrency) / wall (1.0 is
perfect), the peak number of requests in flight seen by the server, and the harness's CPU per call.
Then, against a zero-latency server, the highest request rate sustained (client and server share
the machine's cores) and the CPU per call at that rate.

With --cli, the same levels are also run through the real CLI: ``longview run atr --model
hosted_vllm/loopback --api-base URL --max-concurrency N --variant oracle_target --trials T``.
oracle_target has no learning phase, so every test session of every cell may run at once; T is
chosen so there are about ``--rounds`` x N sessions, enough to keep N slots busy (the scripted
agent takes two turns per test session: a domain tool, then finish_session). Reports model calls,
efficiency, peak in flight and CPU per call of the whole run process, and apart from it the CPU per
call while the cells run (the harness's cost per model call) and the fixed CPU around them
(start-up, dataset, scoring), from one run (the CLI runs in-process with its executor timed).

Run: python benchmarks/bench_concurrency.py [--latency 1] [--levels 1,16,64,256] [--rounds 16]
     [--rate-calls 4000] [--cli [--cli-levels 16,64,256]] [--json out.json]
A model run's harness CPU per call: --latency 0 --cli (includes the CLI's start-up).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from benchdir import add_dir_option

from longview.domains.personal import make_env
from longview.kernel.agent import Message, ToolCall
from longview.kernel.models import GenParams, aclose_all, make_client
from longview.kernel.models.openai_compat import set_connection_limit


class Server:
    """The loopback server as a child process; stops when this process closes its stdin."""

    def __init__(self, latency: float, agent: str = "tool_then_finish", lifetime: float = 3600) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "longview.testing.loopback", "--latency", str(latency),
             "--agent", agent, "--lifetime", str(lifetime)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        line = (self.proc.stdout.readline() if self.proc.stdout else "").split()
        if not line or line[0] != "LISTENING":
            raise RuntimeError(f"loopback server did not start: {line}")
        self.url = line[1]
        self.latency = latency

    def stats(self) -> dict:
        return httpx.get(f"{self.url}/stats").json()

    def reset(self) -> None:
        httpx.post(f"{self.url}/stats/reset")

    def cpu(self) -> float:
        """CPU seconds the server process has used so far (Linux)."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return float("nan")

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def realistic_request() -> tuple[str, list[Message], list[dict]]:
    system = ("You are a personal assistant acting through tools. " * 12 + "\n") * 10  # ~6 kB
    tools = make_env("commerce", [], None).schemas()
    messages = [
        Message(role="user", content="Order the usual running shoes in my size, delivered by Friday."),
        Message(role="assistant", content=None,
                tool_calls=[ToolCall(id="call_1", name=tools[0]["function"]["name"], arguments={"query": "running shoes"})]),
        Message(role="tool", content=json.dumps({"results": [{"id": f"P{i}", "price": 80 + i} for i in range(12)]}),
                tool_call_id="call_1", name=tools[0]["function"]["name"]),
    ]
    return system, messages, tools


async def drive(url: str, concurrency: int, calls: int) -> dict:
    """``calls`` model calls, at most ``concurrency`` at once; wall and CPU seconds."""
    client = make_client("hosted_vllm/loopback", api_base=url, cache=None)
    system, messages, tools = realistic_request()
    params = GenParams()
    slots = asyncio.Semaphore(concurrency)
    failures = 0

    async def one() -> None:
        nonlocal failures
        async with slots:
            try:
                await client.complete(system, messages, tools, params)
            except Exception:  # noqa: BLE001 (counted and reported, never silently dropped)
                failures += 1

    t0, c0 = time.perf_counter(), time.process_time()
    await asyncio.gather(*(one() for _ in range(calls)))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    await aclose_all()
    return {"wall_s": wall, "cpu_s": cpu, "failures": failures}


def level(server: Server, concurrency: int, rounds: int) -> dict:
    server.reset()
    calls = concurrency * rounds
    r = asyncio.run(drive(server.url, concurrency, calls))
    st = server.stats()
    ideal = calls * server.latency / concurrency
    return {
        "concurrency": concurrency,
        "calls": calls,
        "wall_s": round(r["wall_s"], 3),
        "efficiency": round(ideal / r["wall_s"], 4) if server.latency else None,
        "peak_in_flight": st["peak_in_flight"],
        "connections_opened": st["connections_opened"],
        "cpu_ms_per_call": round(1000 * r["cpu_s"] / calls, 3),
        "failures": r["failures"],
    }


def rate(server: Server, concurrency: int, calls: int) -> dict:
    server.reset()
    s0 = server.cpu()
    r = asyncio.run(drive(server.url, concurrency, calls))
    return {
        "concurrency": concurrency,
        "calls": calls,
        "wall_s": round(r["wall_s"], 3),
        "requests_per_s": round(calls / r["wall_s"], 1),
        "harness_cpu_ms_per_call": round(1000 * r["cpu_s"] / calls, 3),
        "server_cpu_ms_per_call": round(1000 * (server.cpu() - s0) / calls, 3),
        "failures": r["failures"],
    }


ATR_TEST_SESSIONS = 299  # test sessions of the built-in cohort (20 personas)


# Runs the CLI in-process and notes the process's CPU when the cells start and end (the run's
# executor is wrapped): what the run spends around them is fixed (imports, dataset, scoring).
CLI_PROBE = """
import json, sys, time
from longview.harness import executor
marks = {}
run_cells = executor.LocalExecutor.run_cells
async def timed(self, *a, **k):
    marks["cells_start"] = time.process_time()
    try:
        return await run_cells(self, *a, **k)
    finally:
        marks["cells_end"] = time.process_time()
executor.LocalExecutor.run_cells = timed
from longview.cli import app
try:
    app(sys.argv[1:])
except SystemExit as e:
    code = e.code
print("PROBE " + json.dumps(marks), file=sys.stderr)
"""


def cli_level(server: Server, concurrency: int, rounds: int, where: str | None = None) -> dict:
    """One `longview run atr` against the server: the whole process's CPU per call (rusage), and
    the CPU per call while cells run apart from the fixed part (start-up, dataset, scoring)."""
    server.reset()
    trials = max(1, -(-rounds * concurrency // ATR_TEST_SESSIONS))
    with tempfile.TemporaryDirectory(dir=where) as tmp:
        cmd = [sys.executable, "-c", CLI_PROBE, "run", "atr", "--model", "hosted_vllm/loopback", "--api-base", server.url,
               "--variant", "oracle_target", "--trials", str(trials),
               "--max-concurrency", str(concurrency), "--no-cache", "--out", f"{tmp}/run", "--force"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    probe = next((json.loads(line[6:]) for line in proc.stderr.splitlines()[::-1] if line.startswith("PROBE ")), {})
    cells = probe.get("cells_end", 0) - probe.get("cells_start", 0)
    st = server.stats()
    calls = st["requests"]
    return {
        "concurrency": concurrency,
        "trials": trials,
        "exit_code": proc.returncode,
        "calls": calls,
        "wall_s": round(wall, 3),
        "efficiency": round(calls * server.latency / concurrency / wall, 4) if server.latency else None,
        "peak_in_flight": st["peak_in_flight"],
        "cpu_ms_per_call": round(1000 * cpu / max(calls, 1), 3),
        "cells_cpu_ms_per_call": round(1000 * cells / max(calls, 1), 3) if cells else None,
        "fixed_cpu_s": round(cpu - cells, 3) if cells else None,
        "stderr_tail": proc.stderr.strip().splitlines()[-3:] if proc.returncode else [],
    }


def table(title: str, rows: list[dict], cols: list[str]) -> str:
    out = [title, "  ".join(f"{c:>16}" for c in cols)]
    for r in rows:
        out.append("  ".join(f"{'-' if r.get(c) is None else r.get(c):>16}" for c in cols))
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--latency", type=float, default=1.0, help="server latency in seconds")
    ap.add_argument("--levels", default="1,16,64,256", help="comma-separated concurrency levels")
    # The first round also opens every connection, so few rounds understate the steady state.
    ap.add_argument("--rounds", type=int, default=16, help="calls per slot at each level")
    ap.add_argument("--rate-calls", type=int, default=4000, help="calls per zero-latency rate run (0: skip)")
    ap.add_argument("--rate-levels", default="16,64,256", help="concurrency levels tried for the rate")
    ap.add_argument("--max-connections", type=int, default=None, help="per-endpoint connection limit")
    ap.add_argument("--cli", action="store_true", help="also run `longview run atr --model ...`")
    ap.add_argument("--cli-levels", default="16,64,256",
                    help="concurrency levels of the CLI runs (one test session per slot takes 2 x latency)")
    add_dir_option(ap)
    ap.add_argument("--json", type=Path, default=None, help="write the results here")
    a = ap.parse_args()
    levels = [int(x) for x in a.levels.split(",") if x]
    if a.max_connections:
        set_connection_limit(a.max_connections)
    result: dict = {"latency_s": a.latency, "cores": os.cpu_count(), "levels": [], "rate": [], "cli": []}

    server = Server(a.latency)
    try:
        for n in levels:
            result["levels"].append(level(server, n, a.rounds))
            print(f"  concurrency {n}: done", file=sys.stderr)
        if a.cli:
            for n in [int(x) for x in a.cli_levels.split(",") if x]:
                result["cli"].append(cli_level(server, n, a.rounds, a.dir))
                print(f"  cli concurrency {n}: done", file=sys.stderr)
    finally:
        server.close()
    if a.rate_calls:
        fast = Server(0.0)
        try:
            for n in [int(x) for x in a.rate_levels.split(",") if x]:
                result["rate"].append(rate(fast, n, a.rate_calls))
        finally:
            fast.close()
        best = max(result["rate"], key=lambda r: r["requests_per_s"])
        result["max_requests_per_s"] = best["requests_per_s"]

    print(table(f"model calls via make_client, server latency {a.latency:g} s", result["levels"],
                ["concurrency", "calls", "wall_s", "efficiency", "peak_in_flight", "cpu_ms_per_call", "failures"]))
    if result["cli"]:
        print()
        print(table("longview run atr --model hosted_vllm/loopback", result["cli"],
                    ["concurrency", "trials", "exit_code", "calls", "wall_s", "efficiency", "peak_in_flight",
                     "cpu_ms_per_call", "cells_cpu_ms_per_call", "fixed_cpu_s"]))
    if result["rate"]:
        print()
        print(table(f"zero-latency server, {os.cpu_count()} cores shared by client and server", result["rate"],
                    ["concurrency", "calls", "requests_per_s", "harness_cpu_ms_per_call", "server_cpu_ms_per_call", "failures"]))
        print(f"\nhighest sustained rate: {result['max_requests_per_s']} requests/s")
    if a.json:
        a.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
