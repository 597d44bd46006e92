"""The model layer against servers as they really behave: strict about a request's shape, streaming
(or not, or refusing to), slow between pieces, cutting replies at the output cap, and small models
that write tool calls as text."""

from __future__ import annotations

import json
import random

import httpx
import pytest

from longview.kernel.agent import AssistantTurn, Message
from longview.kernel.models import GenParams, ModelCallFailed, RetryPolicy, UsageLedger, aclose_all, make_client
from longview.kernel.models.openai_compat import TAIL_CONTINUATION
from longview.kernel.models.text_tools import calls_from_text
from longview.testing.loopback import LoopbackServer, text_message, tool_call_message

USER = [Message(role="user", content="plan my week")]
TOOLS = [
    {"type": "function", "function": {"name": "list_events", "parameters": {"type": "object"}}},
    {"type": "function", "function": {"name": "finish_session", "parameters": {"type": "object"}}},
]


def quick_retry(max_attempts: int = 3) -> RetryPolicy:
    async def no_sleep(_: float) -> None:
        return None

    return RetryPolicy(max_attempts=max_attempts, sleep=no_sleep, rng=random.Random(0))


async def test_strict_server_refuses_a_trailing_assistant_and_the_client_never_sends_one():
    async with LoopbackServer(strict=True) as server:
        raw = {"model": "x", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "so"}]}
        async with httpx.AsyncClient() as http:
            resp = await http.post(f"{server.url}/chat/completions", json=raw)
        assert resp.status_code == 400 and "assistant message at the end" in resp.json()["error"]["message"]
        seen = []
        server.agent = lambda body: (seen.append(body["messages"]), text_message("ok"))[1]
        client = make_client("hosted_vllm/x", api_base=server.url, cache=None, retry=quick_retry(1))
        turn = await client.complete("s", [*USER, Message(role="assistant", content="Let me think.")], [], GenParams())
        assert turn.text == "ok" and server.stats.refused == 1
        assert seen[0][-2:] == [{"role": "assistant", "content": "Let me think."},
                                {"role": "user", "content": TAIL_CONTINUATION}]
        await aclose_all()


async def test_a_refused_request_is_reported_with_the_servers_message_and_the_requests_shape():
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(400, json={"error": {"code": 400, "type": "invalid_request_error",
                                                   "message": "Cannot have 2 or more assistant messages at the end of the list."}})

    client = make_client("hosted_vllm/x", api_base="http://127.0.0.1:9/v1", cache=None, retry=quick_retry())
    client.inner._client = lambda: httpx.AsyncClient(transport=httpx.MockTransport(handler))  # type: ignore[attr-defined]
    with pytest.raises(ModelCallFailed) as e:
        await client.complete("s", USER, TOOLS, GenParams())
    reason = e.value.reason
    assert "Cannot have 2 or more assistant messages at the end of the list." in reason
    assert "HTTP 400" in reason and "2 messages ending with a user message, 2 tools" in reason
    assert e.value.attempts == 1  # a refused shape is not retried


async def test_streamed_reply_is_assembled_and_timed():
    async with LoopbackServer(agent=lambda b: tool_call_message("list_events", {"day": "mon"})) as server:
        ledger = UsageLedger()
        client = make_client("hosted_vllm/x", api_base=server.url, cache=None, ledger=ledger, retry=quick_retry())
        turn = await client.complete("s", USER, TOOLS, GenParams())
        assert [(c.name, c.arguments) for c in turn.tool_calls] == [("list_events", {"day": "mon"})]
        assert turn.usage.input_tokens > 0 and turn.usage.output_tokens > 0
        assert server.stats.streamed == 1
        agent = ledger.summary().roles["agent"]
        assert agent.streamed_calls == 1 and agent.streamed_output_tokens == turn.usage.output_tokens
        assert agent.mean_first_token_s is not None
        # stream=False asks plainly.
        await client.complete("s", USER, TOOLS, GenParams(stream=False))
        assert server.stats.streamed == 1 and server.stats.answered == 2
        await aclose_all()


@pytest.mark.parametrize("mode", ["ignore", "refuse"])
async def test_server_that_does_not_stream_is_read_plainly(mode):
    async with LoopbackServer(agent=lambda b: text_message("plain"), stream=mode) as server:
        ledger = UsageLedger()
        client = make_client("hosted_vllm/x", api_base=server.url, cache=None, ledger=ledger, retry=quick_retry(1))
        for _ in range(2):
            turn = await client.complete("s", USER, [], GenParams())
            assert turn.text == "plain"
        assert server.stats.streamed == 0 and server.stats.answered == 2
        # A server that refused a streamed request is asked plainly from then on: one refusal only.
        assert server.stats.refused == (1 if mode == "refuse" else 0)
        assert ledger.summary().roles["agent"].streamed_calls == 0
        await aclose_all()


async def test_request_timeout_is_silence_between_pieces_not_the_whole_reply():
    # Six pieces 0.15 s apart take ~0.75 s: more than the 0.5 s timeout, yet never 0.5 s of silence.
    text = "a fairly long answer that arrives in pieces"
    async with LoopbackServer(agent=lambda b: tool_call_message("list_events", {"q": text}), chunk_gap=0.15) as server:
        client = make_client("hosted_vllm/x", api_base=server.url, cache=None, retry=quick_retry(1),
                             request_timeout=0.5)
        turn = await client.complete("s", USER, TOOLS, GenParams())
        assert turn.tool_calls[0].arguments == {"q": text} and server.stats.streamed == 1
        await aclose_all()


async def test_silent_stream_times_out_and_is_retried():
    async with LoopbackServer(agent=lambda b: text_message("slow reply"), chunk_gap=1.0) as server:
        client = make_client("hosted_vllm/x", api_base=server.url, cache=None, retry=quick_retry(2),
                             request_timeout=0.2)
        with pytest.raises(ModelCallFailed) as e:
            await client.complete("s", USER, [], GenParams())
        assert "no byte from the server for 0.2 s" in e.value.reason and server.stats.requests == 2
        await aclose_all()


async def test_a_reply_cut_at_the_output_cap_is_counted():
    async with LoopbackServer(agent=lambda b: text_message("word " * 100)) as server:
        ledger = UsageLedger()
        client = make_client("hosted_vllm/x", api_base=server.url, cache=None, ledger=ledger, retry=quick_retry())
        turn = await client.complete("s", USER, [], GenParams(max_tokens=8))
        assert turn.usage.output_tokens == 8
        await client.complete("s", USER, [], GenParams(max_tokens=4096))
        assert ledger.summary().roles["agent"].truncated == 1
        await aclose_all()


# ---- tool calls written as text ----------------------------------------------------------------

CALL = {"name": "list_events", "arguments": {"day": "mon"}}


@pytest.mark.parametrize("text", [
    json.dumps(CALL),
    json.dumps({"name": "list_events", "parameters": {"day": "mon"}}),
    json.dumps([CALL]),
    "Sure, checking.\n```json\n" + json.dumps(CALL, indent=2) + "\n```",
    "<tool_call>\n" + json.dumps(CALL) + "\n</tool_call>",
    json.dumps({"name": "list_events", "arguments": json.dumps({"day": "mon"})}),
])
def test_text_tool_call_forms(text):
    turn, n = calls_from_text(AssistantTurn(text=text), TOOLS)
    assert n == 1 and [(c.name, c.arguments) for c in turn.tool_calls] == [("list_events", {"day": "mon"})]
    assert turn.text in (None, "Sure, checking.")


def test_two_tagged_calls_and_prose_kept():
    text = ("I will look, then stop.\n<tool_call>" + json.dumps(CALL) + "</tool_call>\n<tool_call>"
            + json.dumps({"name": "finish_session", "arguments": {}}) + "</tool_call>")
    turn, n = calls_from_text(AssistantTurn(text=text), TOOLS)
    assert n == 2 and [c.name for c in turn.tool_calls] == ["list_events", "finish_session"]
    assert turn.text == "I will look, then stop." and len({c.id for c in turn.tool_calls}) == 2


@pytest.mark.parametrize("text", [
    json.dumps({"name": "delete_everything", "arguments": {}}),  # not an offered tool
    json.dumps({"name": "list_events", "arguments": [1, 2]}),  # arguments not an object
    "I would call list_events with {\"day\": \"mon\"} next.",  # prose containing JSON
    json.dumps(CALL) + " and then I will stop",  # JSON followed by prose, no fence
    "```json\n{\"answer\": 42}\n```",  # a fenced object that is not a call
    "<tool_call>{\"name\": \"list_events\", \"arguments\": {\"day\": }</tool_call>",  # broken JSON
])
def test_text_that_is_not_a_valid_call_stays_text(text):
    original = AssistantTurn(text=text)
    turn, n = calls_from_text(original, TOOLS)
    assert n == 0 and turn == original


def test_native_calls_and_no_tools_are_left_alone():
    native = AssistantTurn(text=json.dumps(CALL), tool_calls=[{"id": "a", "name": "finish_session", "arguments": {}}])
    assert calls_from_text(native, TOOLS) == (native, 0)
    assert calls_from_text(AssistantTurn(text=json.dumps(CALL)), []) == (AssistantTurn(text=json.dumps(CALL)), 0)


async def test_text_tool_calls_are_opt_in_and_counted():
    async with LoopbackServer(agent=lambda b: text_message("```json\n" + json.dumps(CALL) + "\n```")) as server:
        ledger = UsageLedger()
        client = make_client("hosted_vllm/x", api_base=server.url, cache=None, ledger=ledger, retry=quick_retry())
        plain = await client.complete("s", USER, TOOLS, GenParams())
        assert not plain.tool_calls and plain.text and "list_events" in plain.text
        assert ledger.summary().roles["agent"].text_tool_calls == 0
        read = await client.complete("s", USER, TOOLS, GenParams(tool_calls="text"))
        assert [c.name for c in read.tool_calls] == ["list_events"] and read.text is None
        assert ledger.summary().roles["agent"].text_tool_calls == 1
        await aclose_all()


def test_text_mode_is_part_of_the_cache_key_only_when_on():
    assert "tool_calls" not in GenParams().answer_fields()
    assert GenParams(tool_calls="text").answer_fields()["tool_calls"] == "text"
    assert "stream" not in GenParams(stream=True).answer_fields()
