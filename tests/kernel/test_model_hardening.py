"""A silent server is abandoned after the request timeout; attempts are counted in the usage
ledger; answers from one endpoint are never replayed for another."""

from __future__ import annotations

import time

import pytest
from test_retry_server import COMPLETION, MESSAGES, Reply, fast_retry, scripted_server

from longview.kernel.errors import ConfigError
from longview.kernel.models import GenParams, ModelCallFailed, ResponseCache, UsageLedger, make_client


async def test_silent_server_times_out_and_attempts_are_counted():
    def reply(n: int, request: dict) -> Reply:
        time.sleep(1.0)  # silence, far longer than the request timeout below
        return 200, {}, COMPLETION

    ledger = UsageLedger()
    with scripted_server(reply, max_requests=2) as (base, seen):
        client = make_client("hosted_vllm/m", api_base=base, retry=fast_retry(max_attempts=2), ledger=ledger,
                             request_timeout=0.2)
        with pytest.raises(ModelCallFailed, match="2 attempt.*timeout"):
            await client.complete(None, MESSAGES, [], GenParams())
    u = ledger.role("agent")
    assert (u.calls, u.failed_calls, u.retries) == (0, 1, 1)


async def test_retries_are_counted_per_role():
    def reply(n: int, request: dict) -> Reply:
        if n % 2 == 0:
            return 429, {"Retry-After": "0"}, {"error": {"message": "slow down"}}
        return 200, {}, COMPLETION

    ledger, journal = UsageLedger(), []
    ledger.journal = journal.append
    with scripted_server(reply, max_requests=4) as (base, _):
        agent = make_client("hosted_vllm/m", api_base=base, retry=fast_retry(), ledger=ledger, role="agent")
        judge = make_client("hosted_vllm/m", api_base=base, retry=fast_retry(), ledger=ledger, role="judge")
        await agent.complete(None, MESSAGES, [], GenParams())
        await judge.complete(None, MESSAGES, [], GenParams())
    summary = ledger.summary()
    assert summary.roles["agent"].retries == 1 and summary.roles["judge"].retries == 1
    assert summary.total.retries == 2 and summary.total.calls == 2
    assert [e["role"] for e in journal] == ["agent", "judge"] and journal[0]["retries"] == 1


async def test_cache_never_replays_another_endpoints_answer(tmp_path):
    cache = ResponseCache(tmp_path / "cache")
    with scripted_server(lambda n, r: (200, {}, COMPLETION), max_requests=1) as (base_a, seen_a):
        a = make_client("hosted_vllm/m", api_base=base_a, retry=fast_retry(), cache=cache)
        await a.complete(None, MESSAGES, [], GenParams())
    with scripted_server(lambda n, r: (200, {}, COMPLETION), max_requests=1) as (base_b, seen_b):
        b = make_client("hosted_vllm/m", api_base=base_b, retry=fast_retry(), cache=cache)
        await b.complete(None, MESSAGES, [], GenParams())
    assert len(seen_a.requests) == 1 and len(seen_b.requests) == 1  # b was not served a's answer
    assert cache.hits == 0
    key = ResponseCache.key
    assert key("m", None, MESSAGES, [], GenParams()) != key("m", None, MESSAGES, [], GenParams(), api_base="http://x/v1")
    assert key("m", None, MESSAGES, [], GenParams(), api_base="http://x/v1/") == key(
        "m", None, MESSAGES, [], GenParams(), api_base="http://x/v1"
    )


@pytest.mark.parametrize("timeout", [0, -1.0])
def test_request_timeout_must_be_positive(timeout):
    with pytest.raises(ConfigError, match="timeout"):
        make_client("hosted_vllm/m", api_base="http://127.0.0.1:9/v1", request_timeout=timeout)


def test_default_timeout_is_well_under_a_minute():
    from longview.kernel.models.client import DEFAULT_REQUEST_TIMEOUT
    from longview.kernel.models.openai_compat import DEFAULT_TIMEOUT

    assert DEFAULT_REQUEST_TIMEOUT <= 30 and DEFAULT_TIMEOUT.read <= 30
    client = make_client("hosted_vllm/m", api_base="http://127.0.0.1:9/v1", request_timeout=12.5)
    assert client.inner._timeout.read == 12.5
