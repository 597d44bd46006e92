"""Model layer, offline: mock provider, factory, cache, usage ledger, retry policy, secrets,
request/response conversion and the optional LiteLLM backend (with a stand-in module)."""

from __future__ import annotations

import json
import os
import random
import sys
import types

import pytest

from longview.kernel.agent import AssistantTurn, Message, ToolCall, Usage
from longview.kernel.errors import CellAborted, ConfigError, DataError
from longview.kernel.models import (
    GenParams,
    MockScriptError,
    ModelCallFailed,
    ModelClient,
    Price,
    ProviderError,
    ResponseCache,
    RetryPolicy,
    UsageLedger,
    make_client,
    redact,
    register_script,
    secrets,
    unregister_script,
)
from longview.kernel.models.client import PROVIDERS, split_model
from longview.kernel.models.openai_compat import (
    OpenAICompatClient,
    parse_completion,
    to_openai_messages,
    to_openai_tools,
)
from longview.kernel.models.retry import parse_retry_after
from longview.kernel.models.usage import price_usage

P = GenParams()
USER = [Message(role="user", content="book a table for two")]
TOOLS = [{"type": "function", "function": {"name": "book", "parameters": {"type": "object"}}}]


@pytest.fixture
def script():
    """Register scripts under unique names and forget them afterwards."""
    names: list[str] = []

    def reg(name, turns):
        register_script(name, turns)
        names.append(name)
        return f"mock/{name}"

    yield reg
    for n in names:
        unregister_script(n)


@pytest.fixture
def clean_secrets(monkeypatch, tmp_path):
    """Run in an empty directory with no .env state carried over, and restore os.environ
    afterwards (a loaded .env writes into it)."""
    saved = dict(os.environ)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(secrets, "_dotenv_values", {})
    monkeypatch.setattr(secrets, "_loaded_from", set())
    monkeypatch.setattr(secrets, "_registered", set())
    monkeypatch.setattr(secrets, "_names_cache", None)
    yield tmp_path
    os.environ.clear()
    os.environ.update(saved)


def instant_retry(**kw) -> RetryPolicy:
    async def no_sleep(_: float) -> None:
        return None

    return RetryPolicy(sleep=no_sleep, rng=random.Random(0), **kw)


# --- mock provider -----------------------------------------------------------------------------


async def test_mock_replays_script_then_reports_exhaustion(script):
    model = script(
        "replay",
        [
            {"tool_calls": [{"name": "book", "arguments": {"people": 2}}]},
            "Booked.",
        ],
    )
    client = make_client(model)
    assert isinstance(client, ModelClient) and client.model == "mock/replay"
    first = await client.complete("sys", USER, TOOLS, P)
    assert first.text is None
    assert first.tool_calls == [ToolCall(id="call_0_0", name="book", arguments={"people": 2})]
    second = await client.complete("sys", USER, TOOLS, P)
    assert second.text == "Booked." and second.tool_calls == []
    with pytest.raises(MockScriptError, match="exhausted.*2 scripted"):
        await client.complete("sys", USER, TOOLS, P)


async def test_each_mock_client_has_its_own_position(script):
    model = script("positions", ["one", "two"])
    a, b = make_client(model), make_client(model)
    assert (await a.complete(None, USER, [], P)).text == "one"
    assert (await b.complete(None, USER, [], P)).text == "one"
    assert (await a.complete(None, USER, [], P)).text == "two"


async def test_callable_script_reacts_to_conversation(script):
    seen: list[int] = []

    def agent(system, messages, tools):
        seen.append(len(messages))
        results = [m for m in messages if m.role == "tool"]
        if not results:
            return {
                "tool_calls": [{"id": "c1", "name": tools[0]["function"]["name"], "arguments": {}}]
            }
        return AssistantTurn(text=f"done: {results[-1].content}")

    client = make_client(script("reactive", agent))
    turn = await client.complete("sys", USER, TOOLS, P)
    assert turn.tool_calls[0].name == "book"
    history = USER + [
        Message(role="assistant", tool_calls=turn.tool_calls),
        Message(role="tool", tool_call_id="c1", name="book", content="ok #42"),
    ]
    assert (await client.complete("sys", history, TOOLS, P)).text == "done: ok #42"
    assert seen == [1, 3]


async def test_async_callable_script(script):
    async def agent(system, messages, tools):
        return "async reply"

    assert (
        await make_client(script("async", agent)).complete(None, USER, [], P)
    ).text == "async reply"


async def test_mock_echo_and_plausible_usage():
    turn = await make_client("mock/echo").complete("You are terse.", USER, TOOLS, P)
    assert turn.text == "book a table for two"
    assert turn.usage.input_tokens > 5 and turn.usage.output_tokens == len(turn.text) // 4


async def test_mock_script_from_file(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"turns": [{"text": "hi", "tool_calls": [{"name": "f"}]}]}))
    turn = await make_client(f"mock/file:{path}").complete(None, USER, [], P)
    assert (
        turn.text == "hi" and turn.tool_calls[0].name == "f" and turn.tool_calls[0].arguments == {}
    )


def test_malformed_mock_file_names_the_turn(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([{"text": "ok"}, {"tool_calls": [{"arguments": {}}]}]))
    with pytest.raises(DataError, match="turn 1"):
        make_client(f"mock/file:{path}")


def test_unregistered_mock_script_is_config_error():
    with pytest.raises(ConfigError, match="no mock script named 'nope'"):
        make_client("mock/nope")


# --- factory -----------------------------------------------------------------------------------


@pytest.mark.parametrize("model", ["foo/bar", "gpt-4o", "openai/"])
def test_unknown_provider_names_string_and_lists_prefixes(model):
    with pytest.raises(ConfigError) as exc:
        make_client(model)
    msg = str(exc.value)
    assert repr(model) in msg and "openai/" in msg and "hosted_vllm/" in msg and "mock/" in msg


def test_provider_prefixes_split_on_first_slash():
    spec, name = split_model("openrouter/anthropic/claude-sonnet-4")
    assert spec.prefix == "openrouter" and name == "anthropic/claude-sonnet-4"
    assert PROVIDERS["ollama"].api_base == "http://localhost:11434/v1"


def test_hosted_vllm_requires_api_base():
    with pytest.raises(ConfigError, match="api_base"):
        make_client("hosted_vllm/qwen")


def test_missing_key_names_the_variable(clean_secrets, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        make_client("openai/gpt-4o")
    make_client("ollama/qwen3")  # local providers need no key


def test_key_from_dotenv_does_not_override_env(clean_secrets, monkeypatch):
    monkeypatch.setenv("DEEPSEEK_API_KEY", "from-env-1234")
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    (clean_secrets / ".env").write_text(
        "# keys\nexport OPENROUTER_API_KEY='sk-or-dotenv-5678'\nDEEPSEEK_API_KEY=from-file-0000\n"
    )
    assert secrets.get_key("OPENROUTER_API_KEY") == "sk-or-dotenv-5678"
    assert secrets.get_key("DEEPSEEK_API_KEY") == "from-env-1234"
    client = make_client("openrouter/openai/gpt-4o")
    assert "sk-or-dotenv" not in repr(client)


def test_parse_dotenv_dialect():
    parsed = secrets.parse_dotenv('A=1\n# c\nexport B="two words"\nC=x # note\nbad line\n=v\n')
    assert parsed == {"A": "1", "B": "two words", "C": "x"}


# --- cache -------------------------------------------------------------------------------------


async def test_cache_hit_returns_same_turn_and_counts_as_hit(script, tmp_path):
    calls = []

    def agent(system, messages, tools):
        calls.append(1)
        return {
            "text": "cached answer",
            "tool_calls": [{"id": "k", "name": "book", "arguments": {"n": 1}}],
        }

    cache, ledger = ResponseCache(tmp_path / "cache"), UsageLedger()
    client = make_client(script("cached", agent), cache=cache, ledger=ledger)
    first = await client.complete("sys", USER, TOOLS, P)
    again = await client.complete("sys", USER, TOOLS, P)
    assert len(calls) == 1
    assert (again.text, again.tool_calls) == (first.text, first.tool_calls)
    assert again.usage.input_tokens == first.usage.input_tokens and again.usage.cost_usd == 0.0
    agent_usage = ledger.role("agent")
    assert (agent_usage.calls, agent_usage.cache_hits) == (1, 1)
    assert agent_usage.input_tokens == first.usage.input_tokens  # hits add no tokens
    assert cache.hits == 1 and len(list((tmp_path / "cache").rglob("*.json"))) == 1
    assert not list((tmp_path / "cache").rglob(".tmp-*"))


async def test_cache_key_differs_by_trial_and_inputs(script, tmp_path):
    key = ResponseCache.key
    base = key("mock/x", "s", USER, TOOLS, P, 0)
    assert base == key("mock/x", "s", [m.model_copy() for m in USER], TOOLS, GenParams(), 0)
    assert base != key("mock/x", "s", USER, TOOLS, P, 1)
    assert base != key("mock/y", "s", USER, TOOLS, P, 0)
    assert base != key("mock/x", "s", USER, TOOLS, GenParams(temperature=0.0), 0)
    assert base != key("mock/x", None, USER, TOOLS, P, 0)

    counter = iter(range(100))
    client = make_client(
        script("trials", lambda s, m, t: f"sample {next(counter)}"), cache=ResponseCache(tmp_path)
    )
    t0 = await client.complete("s", USER, [], P, trial=0)
    t1 = await client.complete("s", USER, [], P, trial=1)
    assert (t0.text, t1.text) == ("sample 0", "sample 1")
    assert (await client.complete("s", USER, [], P, trial=1)).text == "sample 1"


def test_corrupt_cache_entry_is_a_miss(tmp_path):
    cache = ResponseCache(tmp_path)
    k = "ab" + "0" * 62
    cache.put(k, AssistantTurn(text="x"), model="mock/x")
    assert cache.get(k).text == "x"
    cache.path(k).write_text("{not json")
    assert cache.get(k) is None and cache.misses == 1


# --- usage ---------------------------------------------------------------------------------------


async def test_usage_ledger_sums_per_role_with_prices(script):
    usage = Usage(input_tokens=1_000_000, cached_tokens=250_000, output_tokens=100_000)
    model = script("priced", [AssistantTurn(text="a", usage=usage)] * 3)
    ledger = UsageLedger(prices={model: Price(input=2.0, cached=0.5, output=10.0)})
    agent = make_client(model, ledger=ledger, role="agent")
    t = await agent.complete(None, USER, [], P)
    assert t.usage.cost_usd == pytest.approx(0.75 * 2.0 + 0.25 * 0.5 + 0.1 * 10.0)
    await agent.complete(None, USER, [], P)
    judge = make_client("mock/echo", ledger=ledger, role="judge")
    j = await judge.complete(None, USER, [], P)

    summary = ledger.summary()
    a = summary.roles["agent"]
    assert (a.calls, a.input_tokens, a.cached_tokens, a.output_tokens) == (
        2,
        2_000_000,
        500_000,
        200_000,
    )
    assert a.cost_usd == pytest.approx(2 * 2.625) and a.cost_known and a.cached_share == 0.25
    assert summary.roles["judge"].cost_known is False  # mock/echo has no price
    assert summary.total.calls == 3 and summary.total.cost_known is False
    assert summary.total.input_tokens == 2_000_000 + j.usage.input_tokens
    assert "cached_share" in summary.model_dump()["total"]


def test_builtin_prices_cover_dated_snapshots():
    usage = Usage(input_tokens=1_000_000, output_tokens=1_000_000)
    priced, known = price_usage("openai/gpt-4o-2024-08-06", usage)
    assert known and priced.cost_usd == pytest.approx(12.5)
    unpriced, known = price_usage("openai/some-future-model", usage)
    assert not known and unpriced.cost_usd == 0.0


# --- retry policy ------------------------------------------------------------------------------


def test_backoff_is_exponential_capped_and_seeded():
    policy = RetryPolicy(base_delay=1.0, max_delay=5.0, jitter=False)
    assert [policy.delay(n) for n in range(1, 6)] == [1.0, 2.0, 4.0, 5.0, 5.0]
    assert policy.delay(1, retry_after=60.0) == 5.0 and policy.delay(3, retry_after=0.0) == 0.0
    a = [RetryPolicy(rng=random.Random(7)).delay(n) for n in range(1, 4)]
    b = [RetryPolicy(rng=random.Random(7)).delay(n) for n in range(1, 4)]
    assert a == b and all(0.5 * 2 ** (n - 1) <= d <= 2 ** (n - 1) for n, d in enumerate(a, 1))


def test_parse_retry_after_seconds_and_http_date():
    assert parse_retry_after("3") == 3.0 and parse_retry_after(None) is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == pytest.approx(
        10.0
    )
    assert parse_retry_after("soon") is None


async def test_retry_stops_on_non_retryable_status():
    attempts = []

    async def bad_request():
        attempts.append(1)
        raise ProviderError("context too long", status=400)

    with pytest.raises(ModelCallFailed) as exc:
        await instant_retry().call(bad_request, label="openai/gpt-4o")
    assert len(attempts) == 1 and exc.value.attempts == 1 and isinstance(exc.value, CellAborted)
    assert "openai/gpt-4o" in exc.value.reason and "400" in exc.value.reason


async def test_retry_recovers_after_transient_errors():
    slept: list[float] = []
    outcomes = iter(
        [ProviderError("slow down", status=429, retry_after=2.0), ProviderError("timeout"), "ok"]
    )

    async def flaky():
        out = next(outcomes)
        if isinstance(out, Exception):
            raise out
        return out

    async def record(d: float) -> None:
        slept.append(d)

    policy = RetryPolicy(base_delay=1.0, jitter=False, sleep=record)
    assert await policy.call(flaky, label="m") == "ok"
    assert slept == [2.0, 2.0]


# --- secrets -----------------------------------------------------------------------------------


def test_redact_masks_only_provider_keys_and_registered_names(clean_secrets, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-123456")
    monkeypatch.setenv("GH_TOKEN", "ghp_tokenvalue")  # not a key longview reads: data, not a secret
    monkeypatch.setenv("APP_SECRET", "s3cr3t-value")
    monkeypatch.setenv("FOO_TOKEN", "test")
    monkeypatch.setenv("GROQ_API_KEY", "short")  # below the minimum length: never masked
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    (clean_secrets / ".env").write_text("DEEPSEEK_API_KEY=dotenv-deepseek-value\nCUSTOM_CREDENTIAL=dotenv-only-value\n")
    secrets.load_dotenv()
    text = "a sk-openai-123456 b ghp_tokenvalue c s3cr3t-value d session_test e dotenv-deepseek-value f dotenv-only-value short"
    assert redact(text) == "a *** b ghp_tokenvalue c s3cr3t-value d session_test e *** f dotenv-only-value short"
    secrets.register_secret_env("APP_SECRET")
    assert redact("c s3cr3t-value") == "c ***"


def test_a_key_echoed_in_another_case_is_masked_too(clean_secrets, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-Openai-AbCdEf123")
    text = "echo SK-OPENAI-ABCDEF123 and sk-openai-abcdef123 and sK-oPeNaI-aBcDeF123"
    assert redact(text) == "echo *** and *** and ***"


def test_dotenv_is_never_applied_wholesale(clean_secrets, monkeypatch):
    monkeypatch.delenv("HTTP_PROXY", raising=False)
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    (clean_secrets / ".env").write_text("HTTP_PROXY=http://evil:1\nMISTRAL_API_KEY=mistral-from-file\n")
    assert secrets.get_key("MISTRAL_API_KEY") == "mistral-from-file"
    assert "HTTP_PROXY" not in os.environ and "MISTRAL_API_KEY" not in os.environ
    assert secrets.export_env(["MISTRAL_API_KEY"]) == ["MISTRAL_API_KEY"]
    assert os.environ["MISTRAL_API_KEY"] == "mistral-from-file" and "HTTP_PROXY" not in os.environ


def test_redact_is_identity_without_secrets(clean_secrets, monkeypatch):
    for name in secrets.secret_env_names():
        monkeypatch.delenv(name, raising=False)
    text = "nothing *** to hide sk-abc"
    assert redact(text) is text


def test_provider_errors_and_failures_are_redacted(clean_secrets, monkeypatch):
    monkeypatch.setenv("XAI_API_KEY", "sk-zz-leaky-key")
    assert "sk-zz" not in str(ProviderError("echo sk-zz-leaky-key"))
    assert "sk-zz" not in ModelCallFailed("failed with sk-zz-leaky-key").reason


# --- OpenAI-compatible conversion --------------------------------------------------------------


def test_messages_convert_to_chat_completions_form():
    msgs = [
        Message(role="user", content="hi"),
        Message(
            role="assistant",
            content=None,
            tool_calls=[
                ToolCall(id="c1", name="f", arguments={"a": 1}),
                ToolCall(id="c2", name="g", arguments={"__raw__": "{broken"}),
            ],
        ),
        Message(role="tool", tool_call_id="c1", name="f", content='{"ok": true}'),
        Message(role="assistant", content=None),
    ]
    out = to_openai_messages("be brief", msgs)
    assert out[0] == {"role": "system", "content": "be brief"}
    calls = out[2]["tool_calls"]
    assert calls[0] == {
        "id": "c1",
        "type": "function",
        "function": {"name": "f", "arguments": '{"a": 1}'},
    }
    assert calls[1]["function"]["arguments"] == "{broken"
    assert out[3] == {"role": "tool", "tool_call_id": "c1", "content": '{"ok": true}'}
    assert out[4] == {"role": "assistant", "content": ""}
    assert to_openai_tools([{"name": "f"}]) == [{"type": "function", "function": {"name": "f"}}]


def test_parse_completion_text_tool_calls_and_usage():
    data = {
        "choices": [
            {
                "message": {
                    "content": "",
                    "tool_calls": [
                        {"id": "x1", "function": {"name": "f", "arguments": '{"q": "a"}'}},
                        {"function": {"name": "g", "arguments": "{not json"}},
                        {"id": "x3", "function": {"name": "h", "arguments": "[1, 2]"}},
                        {"id": "x4", "function": {"name": "k", "arguments": ""}},
                    ],
                }
            }
        ],
        "usage": {
            "prompt_tokens": 120,
            "completion_tokens": 7,
            "prompt_tokens_details": {"cached_tokens": 100},
        },
    }
    turn = parse_completion(data)
    assert turn.text is None
    assert [(c.id, c.arguments) for c in turn.tool_calls] == [
        ("x1", {"q": "a"}),
        ("call_1", {"__raw__": "{not json"}),
        ("x3", {"__raw__": "[1, 2]"}),
        ("x4", {}),
    ]
    assert turn.usage == Usage(input_tokens=120, cached_tokens=100, output_tokens=7)


@pytest.mark.parametrize("body", [
    {"choices": "x"}, {"choices": [None]}, {"choices": [{"message": "text"}]}, {"choices": [{"message": None}]},
    {"choices": [{"message": {"tool_calls": "zz"}}]}, {"choices": [{"message": {"tool_calls": [1]}}]},
    {"choices": [{"message": {"tool_calls": [{"function": "f"}]}}]}, {"choices": [{"message": {"content": 5}}]},
    {"choices": [{"message": {"tool_calls": [{"id": 3, "function": {"name": "f"}}]}}]},
    {"choices": [{"message": {"tool_calls": [{"function": {"name": ["f"]}}]}}]},
])
def test_a_malformed_completion_is_a_retryable_provider_fault_never_an_answer(body):
    with pytest.raises(ProviderError, match="malformed response") as e:
        parse_completion(body)
    assert e.value.retryable


def test_completion_text_is_made_writable_and_odd_parts_are_tolerated():
    data = {"choices": [{"message": {
        "content": "hi \ud800", "tool_calls": [
            {"id": "c1", "function": {"name": "f", "arguments": '{"p": "a\\ud800b", "ok": "\\ud83d\\ude00"}'}},
            {"id": "c2", "function": {"name": "g", "arguments": "[" * 50_000 + "]" * 50_000}}]}}],
        "usage": [1]}
    turn = parse_completion(data)
    assert turn.text == "hi \ufffd"  # an unpaired surrogate cannot be written as UTF-8
    assert turn.tool_calls[0].arguments == {"p": "a\ufffdb", "ok": "\U0001f600"}  # a real pair is kept
    assert list(turn.tool_calls[1].arguments) == ["__raw__"]  # too deep to parse: the tool layer answers it
    assert turn.usage == Usage()
    json.dumps(turn.model_dump(), ensure_ascii=False).encode("utf-8")  # writable


def test_parse_completion_error_body_is_classified():
    with pytest.raises(ProviderError) as exc:
        parse_completion({"error": {"message": "upstream overloaded", "code": 502}})
    assert exc.value.status == 502 and exc.value.retryable
    with pytest.raises(ProviderError) as exc:
        parse_completion({"error": {"message": "bad model", "code": 400}})
    assert not exc.value.retryable


def test_request_body_per_provider(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-unit-test-0001")
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-unit-test-0002")
    params = GenParams(temperature=0.2, max_tokens=50, reasoning_effort="low", extra={"seed": 3})
    oa = OpenAICompatClient("openai/gpt-5", PROVIDERS["openai"], "gpt-5")
    body = oa.request_body("s", USER, TOOLS, params)
    assert body["model"] == "gpt-5" and body["max_completion_tokens"] == 50
    assert body["reasoning_effort"] == "low" and body["seed"] == 3 and body["tools"] == TOOLS
    ds = OpenAICompatClient("deepseek/deepseek-chat", PROVIDERS["deepseek"], "deepseek-chat")
    body = ds.request_body("s", USER, [], params)
    assert "reasoning_effort" not in body and body["max_tokens"] == 50 and "tools" not in body
    assert ds.api_base == "https://api.deepseek.com/v1" and "sk-unit" not in repr(ds)


# --- optional LiteLLM backend ------------------------------------------------------------------


def test_litellm_missing_tells_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "litellm", None)  # makes ``import litellm`` fail
    with pytest.raises(ConfigError, match=r"pip install 'longview\[litellm\]'"):
        make_client("anthropic/claude-opus-4-7")


async def test_litellm_backend_with_stand_in_module(monkeypatch):
    fake = types.ModuleType("litellm")
    seen: list[dict] = []

    class RateLimitError(Exception):
        status_code = 429

    RateLimitError.__module__ = "litellm.exceptions"
    outcomes = [
        RateLimitError("slow down"),
        {
            "choices": [{"message": {"content": "hello"}}],
            "usage": {"prompt_tokens": 9, "completion_tokens": 2},
        },
    ]

    async def acompletion(**kw):
        seen.append(kw)
        out = outcomes.pop(0)
        if isinstance(out, Exception):
            raise out
        return out

    fake.acompletion = acompletion
    monkeypatch.setitem(sys.modules, "litellm", fake)
    client = make_client("anthropic/claude-opus-4-7", retry=instant_retry())
    turn = await client.complete("sys", USER, TOOLS, GenParams(reasoning_effort="high"))
    assert turn.text == "hello" and turn.usage.input_tokens == 9 and len(seen) == 2
    kw = seen[0]
    assert kw["model"] == "anthropic/claude-opus-4-7" and kw["num_retries"] == 0
    assert kw["reasoning_effort"] == "high" and kw["messages"][0]["role"] == "system"


async def test_litellm_bug_is_not_retried(monkeypatch):
    fake = types.ModuleType("litellm")
    calls = []

    async def acompletion(**kw):
        calls.append(kw)
        raise KeyError("our bug")

    fake.acompletion = acompletion
    monkeypatch.setitem(sys.modules, "litellm", fake)
    with pytest.raises(KeyError):
        await make_client("litellm/cohere/command-r", retry=instant_retry()).complete(
            None, USER, [], P
        )
    assert len(calls) == 1 and calls[0]["model"] == "cohere/command-r"


async def test_empty_turns_are_not_cached(script, tmp_path):
    answers = iter(["", "real answer"])
    client = make_client(script("hiccup", lambda s, m, t: next(answers)), cache=ResponseCache(tmp_path))
    assert (await client.complete("s", USER, [], P)).text in ("", None)
    assert (await client.complete("s", USER, [], P)).text == "real answer"  # asked again, not replayed
    assert (await client.complete("s", USER, [], P)).text == "real answer"  # now cached


def _reasoning_client(model: str, answers: list[dict], seen: list[dict]):
    import httpx as _httpx

    def handler(request):
        seen.append(json.loads(request.content))
        msg = answers.pop(0)
        return _httpx.Response(200, json={"choices": [{"message": msg}], "usage": {}})

    c = OpenAICompatClient(model, PROVIDERS["openai"], model.split("/")[-1], api_base="http://x/v1")
    c._client = lambda: _httpx.AsyncClient(transport=_httpx.MockTransport(handler))
    return c


@pytest.mark.parametrize("model, text_turn_echoed", [("deepseek/deepseek-v4-pro", False), ("openai/MiniMax-M2.7", True)])
async def test_reasoning_content_is_echoed_for_models_that_need_it(model, text_turn_echoed):
    call = {"id": "c1", "type": "function", "function": {"name": "book", "arguments": "{}"}}
    seen: list[dict] = []
    c = _reasoning_client(model, [
        {"role": "assistant", "content": None, "tool_calls": [call], "reasoning_content": "think A"},
        {"role": "assistant", "content": "Done.", "reasoning_content": "think B"},
        {"role": "assistant", "content": "ok"},
    ], seen)
    t1 = await c.complete("s", USER, TOOLS, P)
    history = USER + [Message(role="assistant", content=t1.text, tool_calls=t1.tool_calls),
                      Message(role="tool", content="{}", tool_call_id="c1", name="book")]
    t2 = await c.complete("s", history, TOOLS, P)
    await c.complete("s", history + [Message(role="assistant", content=t2.text)], TOOLS, P)
    sent = [m for m in seen[2]["messages"] if m["role"] == "assistant"]
    assert sent[0]["reasoning_content"] == "think A"
    assert ("reasoning_content" in sent[1]) is text_turn_echoed
    assert not text_turn_echoed or sent[1]["reasoning_content"] == "think B"


async def test_reasoning_content_is_not_sent_to_other_models():
    seen: list[dict] = []
    c = _reasoning_client("openai/gpt-5", [{"role": "assistant", "content": "a", "reasoning_content": "r"},
                                           {"role": "assistant", "content": "b"}], seen)
    t = await c.complete("s", USER, [], P)
    await c.complete("s", USER + [Message(role="assistant", content=t.text)], [], P)
    assert all("reasoning_content" not in m for m in seen[1]["messages"])
