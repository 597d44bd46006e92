"""Provider-side prompt caching on the request body: cache_control breakpoints where the provider
needs them, prompt_cache_key where it is supported, and neither in the response-cache key."""

from __future__ import annotations

import copy
import sys
import types

from longview.kernel.agent import Message, ToolCall
from longview.kernel.models import GenParams, ResponseCache, make_client
from longview.kernel.models.client import PROVIDERS
from longview.kernel.models.openai_compat import OpenAICompatClient
from longview.kernel.models.prompt_cache import mark_cache_control, needs_cache_control

EPH = {"type": "ephemeral"}
TOOLS = [
    {"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}},
    {"type": "function", "function": {"name": "book", "parameters": {"type": "object"}}},
]
CONVO = [
    Message(role="user", content="find a table"),
    Message(role="assistant", content=None, tool_calls=[ToolCall(id="c1", name="search", arguments={})]),
    Message(role="tool", content='{"results": []}', tool_call_id="c1", name="search"),
]


def test_only_anthropic_models_need_marks():
    assert needs_cache_control("anthropic/claude-opus-4-7")
    assert needs_cache_control("bedrock/us.anthropic.claude-3-7-sonnet")
    assert needs_cache_control("anthropic/claude-3.5-sonnet")  # OpenRouter's provider-side name
    assert not needs_cache_control("openai/gpt-5") and not needs_cache_control("gemini/gemini-2.5-pro")


def test_marks_last_tool_system_and_last_message_with_text_without_touching_inputs():
    messages = [
        {"role": "system", "content": "rules"},
        {"role": "user", "content": "find a table"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1"}]},
        {"role": "tool", "tool_call_id": "c1", "content": "[]"},
    ]
    before_m, before_t = copy.deepcopy(messages), copy.deepcopy(TOOLS)
    out, tools = mark_cache_control(messages, TOOLS)
    assert messages == before_m and TOOLS == before_t
    assert "cache_control" not in tools[0] and tools[1]["cache_control"] == EPH
    assert out[0]["content"] == [{"type": "text", "text": "rules", "cache_control": EPH}]
    assert out[1]["content"] == [{"type": "text", "text": "find a table", "cache_control": EPH}]
    assert out[2] == messages[2] and out[3] == messages[3]  # no text / tool result: unmarked
    # Content already in parts: the last part is marked.
    out, _ = mark_cache_control([{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}], [])
    assert out[0]["content"] == [{"type": "text", "text": "a"}, {"type": "text", "text": "b", "cache_control": EPH}]


def test_openrouter_anthropic_body_has_marks_and_openai_body_has_cache_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-unit-test-0003")
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-unit-test-0004")
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-unit-test-0005")
    params = GenParams(prompt_cache_key="cell-7f3a")
    orc = OpenAICompatClient("openrouter/anthropic/claude-sonnet-4", PROVIDERS["openrouter"], "anthropic/claude-sonnet-4")
    body = orc.request_body("sys", CONVO, TOOLS, params)
    assert body["messages"][0]["content"][0]["cache_control"] == EPH
    assert body["messages"][1]["content"][0]["cache_control"] == EPH  # the last message with text
    assert body["tools"][-1]["cache_control"] == EPH and "prompt_cache_key" not in body
    oa = OpenAICompatClient("openai/gpt-5", PROVIDERS["openai"], "gpt-5")
    body = oa.request_body("sys", CONVO, TOOLS, params)
    assert body["prompt_cache_key"] == "cell-7f3a"
    assert body["messages"][0] == {"role": "system", "content": "sys"} and body["tools"] == TOOLS
    # Off: no marks, no key; the default body is exactly what it was before caching support.
    off = GenParams(cache_prompt=False)
    assert "cache_control" not in str(orc.request_body("sys", CONVO, TOOLS, off))
    assert "prompt_cache_key" not in oa.request_body("sys", CONVO, TOOLS, GenParams())
    ds = OpenAICompatClient("deepseek/deepseek-chat", PROVIDERS["deepseek"], "deepseek-chat")
    assert "prompt_cache_key" not in ds.request_body("sys", CONVO, TOOLS, params)


async def test_litellm_anthropic_request_carries_marks(monkeypatch):
    fake = types.ModuleType("litellm")
    seen: list[dict] = []

    async def acompletion(**kw):
        seen.append(kw)
        return {"choices": [{"message": {"content": "ok"}}], "usage": {"prompt_tokens": 3, "completion_tokens": 1}}

    fake.acompletion = acompletion
    monkeypatch.setitem(sys.modules, "litellm", fake)
    client = make_client("anthropic/claude-opus-4-7")
    await client.complete("sys", CONVO, TOOLS, GenParams())
    kw = seen[0]
    assert kw["messages"][0]["content"] == [{"type": "text", "text": "sys", "cache_control": EPH}]
    assert kw["tools"][-1]["cache_control"] == EPH and "cache_control" not in TOOLS[-1]
    await client.complete("sys", CONVO, [], GenParams(cache_prompt=False))
    assert seen[1]["messages"][0] == {"role": "system", "content": "sys"} and "tools" not in seen[1]


def test_caching_options_do_not_change_the_response_cache_key():
    base = ResponseCache.key("openai/gpt-5", "sys", CONVO, TOOLS, GenParams(temperature=0.0))
    keyed = ResponseCache.key(
        "openai/gpt-5", "sys", CONVO, TOOLS, GenParams(temperature=0.0, prompt_cache_key="k", cache_prompt=False)
    )
    assert base == keyed
    assert base != ResponseCache.key("openai/gpt-5", "sys", CONVO, TOOLS, GenParams(temperature=0.5))
    # The key is the one computed before these options existed (cache entries stay valid).
    assert GenParams(temperature=0.0).answer_fields() == {
        "temperature": 0.0, "max_tokens": None, "reasoning_effort": None, "extra": {},
    }
    # A sampling seed is part of what is asked: another seed is another answer.
    seeded = ResponseCache.key("openai/gpt-5", "sys", CONVO, TOOLS, GenParams(temperature=0.0, seed=1))
    assert seeded != base != ResponseCache.key("openai/gpt-5", "sys", CONVO, TOOLS, GenParams(temperature=0.0, seed=2))


def test_cell_cache_key_is_stable_per_cell_and_never_overrides_the_user():
    from longview.kernel.models.prompt_cache import with_cache_key

    a = with_cache_key(GenParams(temperature=0.2), "atr", "openai/gpt-5", "atr", "hana_sato")
    b = with_cache_key(GenParams(temperature=0.2), "atr", "openai/gpt-5", "atr", "hana_sato")
    c = with_cache_key(GenParams(temperature=0.2), "atr", "openai/gpt-5", "atr", "jun_park")
    assert a.prompt_cache_key == b.prompt_cache_key != c.prompt_cache_key
    assert a.prompt_cache_key.startswith("lv-") and a.temperature == 0.2
    assert with_cache_key(GenParams(prompt_cache_key="mine"), "x").prompt_cache_key == "mine"


def test_request_encoding_reuses_the_tool_block_only_for_the_same_schema_objects():
    import json

    from longview.kernel.models import openai_compat as oc

    body = {"model": "m", "messages": [{"role": "user", "content": "é"}], "tools": list(TOOLS), "temperature": 0}
    first = oc.encode_body(body)
    assert json.loads(first) == body and "é".encode() in first  # UTF-8, not \\u escapes
    assert oc.encode_body({**body, "tools": list(TOOLS)}) == first  # a new list of the same dicts: reused
    assert tuple(map(id, TOOLS)) in oc._TOOLS_JSON
    changed = [TOOLS[0], {**TOOLS[1], "function": {"name": "pay", "parameters": {"type": "object"}}}]
    assert json.loads(oc.encode_body({**body, "tools": changed}))["tools"][1]["function"]["name"] == "pay"
    assert json.loads(oc.encode_body({"model": "m", "messages": []})) == {"model": "m", "messages": []}
