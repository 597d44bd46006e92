"""LLMAgent over the mock provider: one model call per observation, prompt prefix unchanged."""

from __future__ import annotations

import pytest

from longview.agents.llm import LLMAgent
from longview.kernel.agent import Agent, AssistantTurn, Message, Observation
from longview.kernel.models import (
    GenParams,
    ModelCallFailed,
    ResponseCache,
    make_client,
    register_script,
    unregister_script,
)

TOOLS = [{"type": "function", "function": {"name": "search_items", "parameters": {"type": "object"}}}]


@pytest.fixture
def recorder():
    """A mock script that records every request it sees and answers with a tool call, then text."""
    seen: list[tuple[str | None, list[Message], list[dict]]] = []

    def answer(system, messages, tools):
        seen.append((system, list(messages), tools))
        if len(seen) == 1:
            return {"tool_calls": [{"name": "search_items", "arguments": {"q": "tea"}}]}
        return "Found three teas."

    register_script("llm-agent-rec", answer)
    yield seen
    unregister_script("llm-agent-rec")


def obs(messages: list[Message]) -> Observation:
    return Observation(system="You are a helpful assistant.", messages=messages, tools=TOOLS, session_id="s1")


async def test_act_forwards_observation_and_returns_turn(recorder):
    agent = LLMAgent(make_client("mock/llm-agent-rec"), GenParams(temperature=0.0))
    assert isinstance(agent, Agent)
    assert agent.name == "mock/llm-agent-rec"
    msgs = [Message(role="user", content="find me some tea")]
    first = await agent.act(obs(msgs))
    assert isinstance(first, AssistantTurn)
    assert first.tool_calls[0].name == "search_items" and first.tool_calls[0].arguments == {"q": "tea"}
    assert first.usage.input_tokens > 0  # mock usage estimate flows through
    msgs += [
        Message(role="assistant", tool_calls=first.tool_calls),
        Message(role="tool", tool_call_id=first.tool_calls[0].id, name="search_items", content="[]"),
    ]
    second = await agent.act(obs(msgs))
    assert second.text == "Found three teas." and not second.tool_calls
    # Same system prompt and tools on every turn; the earlier messages are a prefix of the later.
    (s1, m1, t1), (s2, m2, t2) = recorder
    assert s1 == s2 == "You are a helpful assistant." and t1 == t2 == TOOLS
    assert m2[: len(m1)] == m1


async def test_name_override_and_trial_reaches_cache_key(tmp_path):
    calls = iter(range(100))
    register_script("llm-agent-trial", lambda s, m, t: f"sample {next(calls)}")
    try:
        cache = ResponseCache(tmp_path)
        client = make_client("mock/llm-agent-trial", cache=cache)
        o = obs([Message(role="user", content="hi")])
        a0 = LLMAgent(client, GenParams(), name="candidate", trial=0)
        a1 = LLMAgent(client, GenParams(), trial=1)
        assert a0.name == "candidate"
        first, again, other = await a0.act(o), await a0.act(o), await a1.act(o)
        assert first.text == again.text == "sample 0"  # same trial: served from the cache
        assert other.text == "sample 1"  # another trial: an independent sample
    finally:
        unregister_script("llm-agent-trial")


async def test_model_failure_propagates_as_model_call_failed():
    class Failing:
        model = "mock/failing"

        async def complete(self, system, messages, tools, params, trial=0):
            raise ModelCallFailed("provider gave up", model=self.model, attempts=3)

    agent = LLMAgent(Failing(), GenParams())
    with pytest.raises(ModelCallFailed, match="provider gave up"):
        await agent.act(obs([Message(role="user", content="hi")]))
