"""--provider-limit: requests in flight to one provider are bounded (each request holds a slot,
retry backoff does not); other providers are not; an unknown provider is refused."""

from __future__ import annotations

import asyncio

import pytest

from longview.harness.roles import Roles
from longview.kernel.agent import Message
from longview.kernel.errors import ConfigError
from longview.kernel.models import GenParams
from longview.kernel.models.mock import register_script, unregister_script


async def test_requests_to_a_limited_provider_never_exceed_its_limit():
    state = {"now": 0, "peak": 0}

    async def slow(system, messages, tools):
        state["now"] += 1
        state["peak"] = max(state["peak"], state["now"])
        await asyncio.sleep(0.01)
        state["now"] -= 1
        return "ok"

    register_script("slow-limit", slow)
    try:
        limited = Roles({}, provider_limits={"mock": 2}, no_cache=True)
        client = limited.client("agent", "mock/slow-limit")
        turns = await asyncio.gather(*(client.complete(None, [Message(role="user", content="hi")], [], GenParams())
                                       for _ in range(6)))
        assert [t.text for t in turns] == ["ok"] * 6 and state["peak"] == 2
        assert limited.ledger.role("agent").calls == 6  # accounting unchanged by the gate
        state["peak"] = 0
        free = Roles({}, provider_limits={"openai": 1}, no_cache=True).client("agent", "mock/slow-limit")
        await asyncio.gather(*(free.complete(None, [Message(role="user", content="hi")], [], GenParams())
                               for _ in range(6)))
        assert state["peak"] == 6  # another provider's limit does not apply
    finally:
        unregister_script("slow-limit")


@pytest.mark.parametrize("limits", [{"nosuch": 2}, {"openai": 0}])
def test_bad_provider_limit_is_refused(limits):
    with pytest.raises(ConfigError, match="--provider-limit"):
        Roles({}, provider_limits=limits)
