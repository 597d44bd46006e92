"""The loopback OpenAI-compatible server: answers through longview's real client path, counts the
requests in flight, injects faults, and its connections come from one shared pool per endpoint."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys

import httpx
import pytest

from longview.kernel.agent import Message
from longview.kernel.models import GenParams, ModelCallFailed, RetryPolicy, aclose_all, make_client, openai_compat
from longview.testing.loopback import Fault, LoopbackServer, tool_call_message, tool_then_finish

USER = [Message(role="user", content="plan my week")]
TOOLS = [
    {"type": "function", "function": {"name": "list_events", "parameters": {"type": "object"}}},
    {"type": "function", "function": {"name": "finish_session", "parameters": {"type": "object"}}},
]


def quick_retry(max_attempts: int = 3) -> RetryPolicy:
    async def no_sleep(_: float) -> None:
        return None

    return RetryPolicy(max_attempts=max_attempts, sleep=no_sleep, rng=random.Random(0))


async def test_answers_through_the_real_client_path_with_the_scripted_agent():
    async with LoopbackServer(latency=0.001, agent=tool_then_finish) as server:
        client = make_client("hosted_vllm/loop", api_base=server.url, retry=quick_retry())
        first = await client.complete("sys", USER, TOOLS, GenParams())
        assert [c.name for c in first.tool_calls] == ["list_events"] and first.usage.input_tokens > 0
        history = [*USER, Message(role="assistant", content=None, tool_calls=first.tool_calls),
                   Message(role="tool", content="[]", tool_call_id=first.tool_calls[0].id)]
        second = await client.complete("sys", history, TOOLS, GenParams())
        assert [c.name for c in second.tool_calls] == ["finish_session"]
        third = await client.complete("sys", USER, [], GenParams())
        assert third.text == "done" and not third.tool_calls
        assert server.stats.requests == server.stats.answered == 3
        await aclose_all()


async def test_custom_agent_sees_the_request_body():
    seen = []

    def agent(body):
        seen.append(body)
        return tool_call_message("look", {"q": body["messages"][-1]["content"]})

    async with LoopbackServer(agent=agent) as server:
        client = make_client("hosted_vllm/loop", api_base=server.url, retry=quick_retry())
        turn = await client.complete("be brief", USER, [], GenParams(temperature=0.0))
        assert turn.tool_calls[0].arguments == {"q": "plan my week"}
        assert seen[0]["model"] == "loop" and seen[0]["temperature"] == 0.0
        assert seen[0]["messages"][0] == {"role": "system", "content": "be brief"}
        await aclose_all()


async def test_counts_requests_in_flight_and_their_peak():
    async with LoopbackServer(latency=0.05) as server:
        client = make_client("hosted_vllm/loop", api_base=server.url, retry=quick_retry())
        limit = asyncio.Semaphore(8)

        async def one() -> None:
            async with limit:
                await client.complete(None, USER, [], GenParams())

        await asyncio.gather(*(one() for _ in range(24)))
        st = server.stats
        assert st.requests == st.answered == 24 and st.in_flight == 0
        assert st.peak_in_flight == 8  # bounded by the semaphore, and reached
        assert st.connections_opened <= 8  # keep-alive: connections are reused
        server.reset_stats()
        assert server.stats.requests == 0 and server.stats.peak_in_flight == 0
        await aclose_all()


async def test_rate_limit_and_server_error_are_retried_then_answered():
    async with LoopbackServer() as server:
        client = make_client("hosted_vllm/loop", api_base=server.url, retry=quick_retry(4))
        server.inject(Fault.RATE_LIMIT)
        server.inject(Fault.SERVER_ERROR)
        turn = await client.complete(None, USER, [], GenParams())
        assert turn.text and server.stats.requests == 3 and server.stats.answered == 1
        assert server.stats.faults == {"429": 1, "500": 1}
        await aclose_all()


async def test_dropped_connection_and_exhausted_retries_fail_the_call():
    async with LoopbackServer() as server:
        client = make_client("hosted_vllm/loop", api_base=server.url, retry=quick_retry(2))
        server.inject(Fault.DROP, times=2)
        with pytest.raises(ModelCallFailed, match="connection error|RemoteProtocolError"):
            await client.complete(None, USER, [], GenParams())
        assert server.stats.faults == {"drop": 2} and server.stats.answered == 0
        await aclose_all()


async def test_fault_plan_decides_per_request():
    async with LoopbackServer(faults=lambda i, body: Fault.SERVER_ERROR if i % 2 == 0 else None) as server:
        client = make_client("hosted_vllm/loop", api_base=server.url, retry=quick_retry(3))
        await client.complete(None, USER, [], GenParams())
        assert server.stats.requests == 2 and server.stats.faults == {"500": 1}
        await aclose_all()


async def test_hang_trips_the_request_timeout_and_close_releases_it():
    async with LoopbackServer(hang=5.0) as server:
        server.inject(Fault.HANG)
        async with httpx.AsyncClient(timeout=0.1) as http:
            with pytest.raises(httpx.ReadTimeout):
                await http.post(f"{server.url}/chat/completions", json={"messages": []})
        assert server.stats.in_flight == 1  # still hanging on the server side
    assert server.stats.in_flight == 0 and server.closed.is_set()


async def test_stats_route_and_unknown_route():
    async with LoopbackServer() as server:
        async with httpx.AsyncClient() as http:
            await http.post(f"{server.url}/chat/completions", json={"messages": []})
            stats = (await http.get(f"{server.url}/stats")).json()
            assert stats["requests"] == 1 and stats["peak_in_flight"] == 1
            assert (await http.post(f"{server.url}/stats/reset")).json() == {"ok": True}
            assert (await http.get(f"{server.url}/stats")).json()["requests"] == 0
            missing = await http.get(f"{server.url}/nothing")
            assert missing.status_code == 404
            bad = await http.post(f"{server.url}/chat/completions", content=b"{not json")
            assert bad.status_code == 400


async def test_lifetime_bounds_the_server():
    server = await LoopbackServer(lifetime=0.05).start()
    await asyncio.wait_for(server.closed.wait(), 2.0)
    with pytest.raises(httpx.ConnectError):
        async with httpx.AsyncClient() as http:
            await http.get(f"{server.url}/health")


async def test_clients_of_one_endpoint_share_one_pool_until_closed():
    async with LoopbackServer() as server:
        a = make_client("hosted_vllm/a", api_base=server.url, retry=quick_retry())
        b = make_client("hosted_vllm/b", api_base=server.url + "/", retry=quick_retry())
        await a.complete(None, USER, [], GenParams())
        await b.complete(None, USER, [], GenParams())
        pools = openai_compat.open_pools()
        assert list(pools) == [server.url] and pools[server.url] == openai_compat.DEFAULT_MAX_CONNECTIONS
        assert server.stats.connections_opened == 1
        await aclose_all()
        assert openai_compat.open_pools() == {}
        await a.complete(None, USER, [], GenParams())  # a closed pool reopens on the next call
        assert server.stats.connections_opened == 2
        await aclose_all()


async def test_connection_limit_bounds_requests_in_flight():
    async with LoopbackServer(latency=0.03) as server:
        openai_compat.set_connection_limit(3, api_base=server.url)
        try:
            client = make_client("hosted_vllm/loop", api_base=server.url, retry=quick_retry())
            await asyncio.gather(*(client.complete(None, USER, [], GenParams()) for _ in range(12)))
            assert server.stats.peak_in_flight == 3 and server.stats.answered == 12
        finally:
            openai_compat.set_connection_limit(None, api_base=server.url)
            await aclose_all()
    with pytest.raises(Exception, match="at least 1"):
        openai_compat.set_connection_limit(0)


def test_runs_as_a_process_and_stops_when_stdin_closes():
    proc = subprocess.Popen(
        [sys.executable, "-m", "longview.testing.loopback", "--agent", "echo", "--lifetime", "30"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        line = proc.stdout.readline().split()
        assert line[0] == "LISTENING"
        url = line[1]
        r = httpx.post(f"{url}/chat/completions", json={"messages": [{"role": "user", "content": "hi"}]})
        assert r.json()["choices"][0]["message"]["content"] == "loopback: hi"
        assert json.loads(httpx.get(f"{url}/stats").text)["answered"] == 1
    finally:
        proc.stdin.close()
        assert proc.wait(timeout=10) == 0


def test_in_thread_serves_blocking_callers_and_stops_on_exit():
    with LoopbackServer(agent=tool_then_finish).in_thread() as server:
        answer = httpx.post(f"{server.url}/chat/completions", json={"model": "m", "messages": []}).json()
        assert answer["choices"][0]["message"]["content"] == "done" and server.stats.answered == 1
    assert server.closed.is_set()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{server.url}/health")
