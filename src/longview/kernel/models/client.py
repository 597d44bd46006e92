"""The model-layer contract: one async :class:`ModelClient` for every provider, and its factory.

Model strings follow LiteLLM's ``provider/model`` convention (``openai/gpt-5.4``,
``anthropic/claude-opus-4-7``, ``hosted_vllm/<model>`` with ``api_base``, ``mock/<script>``).
:func:`make_client` resolves the provider and wraps its client so that every call goes
cache lookup → retried provider call → usage accounting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from longview.kernel.agent import AssistantTurn, Message
from longview.kernel.errors import CellAborted, ConfigError

from .secrets import redact

if TYPE_CHECKING:
    from .cache import ResponseCache
    from .retry import RetryPolicy
    from .usage import UsageLedger


class GenParams(BaseModel):
    """Generation parameters; ``None`` means "provider default" and is not sent."""

    temperature: float | None = Field(default=None, description="Sampling temperature.")
    max_tokens: int | None = Field(default=None, description="Cap on completion tokens.")
    reasoning_effort: Literal["low", "medium", "high"] | None = Field(
        default=None, description="Reasoning budget for models that support it."
    )
    extra: dict[str, Any] = Field(
        default_factory=dict, description="Provider-specific fields merged into the request as-is."
    )
    cache_prompt: bool = Field(
        default=True,
        description="Ask providers that cache only at explicit marks (Anthropic models) to cache the "
        "stable prompt prefix: cache_control breakpoints on the tool block, system prompt and "
        "conversation tail. Other providers cache prefixes on their own.",
    )
    prompt_cache_key: str | None = Field(
        default=None,
        description="Routing key for automatic prompt caching where supported (OpenAI's "
        "prompt_cache_key): calls sharing a prompt prefix, e.g. one cell's sessions, share a key.",
    )

    # Fields that steer provider-side caching but never the answer: not part of a response-cache key.
    TRANSPORT_FIELDS: ClassVar[frozenset[str]] = frozenset({"cache_prompt", "prompt_cache_key"})

    def answer_fields(self) -> dict[str, Any]:
        """The fields that can change a model's answer (JSON mode), for cache keys."""
        return self.model_dump(mode="json", exclude=set(self.TRANSPORT_FIELDS))


class ProviderError(Exception):
    """One failed provider call, classified for the retry layer.

    ``status`` is the HTTP status (None for timeouts and connection errors). The message is
    redacted on construction, so it is safe to log or embed.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retryable: bool | None = None,
        retry_after: float | None = None,
    ) -> None:
        self.status = status
        self.retry_after = retry_after
        self.retryable = is_retryable_status(status) if retryable is None else retryable
        self.message = redact(message)
        super().__init__(self.message)


def is_retryable_status(status: int | None) -> bool:
    """Worth retrying: 429, 5xx, 408 (a timeout) and None (transport error); other 4xx not."""
    return status is None or status in (408, 429) or status >= 500


class ModelCallFailed(CellAborted):
    """A model call failed for good (retries exhausted, or a non-retryable error).

    Subclasses :class:`CellAborted` so the runner records the cell as aborted with ``reason``.
    """

    def __init__(
        self, reason: str, *, model: str = "", attempts: int = 0, status: int | None = None
    ) -> None:
        self.model, self.attempts, self.status = model, attempts, status
        super().__init__(redact(reason))


@runtime_checkable
class ModelClient(Protocol):
    """Anything that turns (system, messages, tools, params) into an :class:`AssistantTurn`."""

    model: str

    async def complete(
        self,
        system: str | None,
        messages: list[Message],
        tools: list[dict],
        params: GenParams,
        trial: int = 0,
    ) -> AssistantTurn: ...


@dataclass(frozen=True)
class ProviderSpec:
    """How to reach one provider prefix."""

    prefix: str
    backend: Literal["openai_compat", "litellm", "mock"]
    api_base: str | None = None
    key_env: str | None = None
    # Key required only when talking to the provider's default endpoint; a custom api_base
    # (local proxy, test server) may not need one.
    key_required: bool = False
    reasoning_effort: bool = False
    # OpenAI deprecated ``max_tokens`` for chat completions; its reasoning models reject it.
    max_tokens_field: str = "max_tokens"
    # Further variables holding credentials this provider reads (LiteLLM backends): copied from
    # ``.env`` when missing and masked in every output, like ``key_env``.
    secret_env: tuple[str, ...] = ()

    def secret_envs(self) -> tuple[str, ...]:
        """Every credential variable of this provider."""
        return ((self.key_env,) if self.key_env else ()) + self.secret_env
    # Accepts ``prompt_cache_key`` (GenParams.prompt_cache_key) in the request body.
    prompt_cache_key: bool = False


def _compat(prefix: str, base: str | None, key: str | None, **kw: Any) -> ProviderSpec:
    return ProviderSpec(prefix, "openai_compat", base, key, key_required=key is not None, **kw)


# Seconds of silence after which a request is abandoned (and retried): a hung server costs at most
# this times --max-attempts. Non-streamed answers from slow reasoning models can need more.
DEFAULT_REQUEST_TIMEOUT = 30.0

PROVIDERS: dict[str, ProviderSpec] = {
    p.prefix: p
    for p in [
        _compat(
            "openai",
            "https://api.openai.com/v1",
            "OPENAI_API_KEY",
            reasoning_effort=True,
            max_tokens_field="max_completion_tokens",
            prompt_cache_key=True,
        ),
        _compat(
            "openrouter",
            "https://openrouter.ai/api/v1",
            "OPENROUTER_API_KEY",
            reasoning_effort=True,
        ),
        _compat("deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY"),
        _compat("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY"),
        _compat("together_ai", "https://api.together.xyz/v1", "TOGETHERAI_API_KEY"),
        _compat("xai", "https://api.x.ai/v1", "XAI_API_KEY"),
        _compat("mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY"),
        _compat("ollama", "http://localhost:11434/v1", None),
        _compat("ollama_chat", "http://localhost:11434/v1", None),
        # vLLM serves whatever it was started with: no default endpoint, optional key.
        ProviderSpec("hosted_vllm", "openai_compat", None, "HOSTED_VLLM_API_KEY"),
        # No OpenAI-compatible endpoint: delegated to the optional LiteLLM extra.
        ProviderSpec("anthropic", "litellm", key_env="ANTHROPIC_API_KEY"),
        ProviderSpec("gemini", "litellm", key_env="GEMINI_API_KEY"),
        ProviderSpec("vertex_ai", "litellm"),  # credentials come from a service-account file
        ProviderSpec(
            "bedrock",
            "litellm",
            secret_env=("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"),
        ),
        ProviderSpec("azure", "litellm", key_env="AZURE_API_KEY"),
        ProviderSpec("cohere", "litellm", key_env="COHERE_API_KEY"),
        # ``litellm/<anything LiteLLM accepts>``: an escape hatch for its other providers.
        ProviderSpec("litellm", "litellm"),
        ProviderSpec("mock", "mock"),
    ]
}


def split_model(model: str) -> tuple[ProviderSpec, str]:
    """Split ``provider/name`` into its spec and the provider-side model name."""
    prefix, sep, name = model.partition("/")
    spec = PROVIDERS.get(prefix)
    if not sep or not name or spec is None:
        supported = ", ".join(f"{p}/" for p in PROVIDERS)
        raise ConfigError(
            f"unknown model provider in {model!r}: expected 'provider/model' with one of "
            f"the supported prefixes: {supported}"
        )
    return spec, name


def make_provider_client(
    model: str, *, api_base: str | None = None, request_timeout: float | None = None
) -> ModelClient:
    """The bare provider client for ``model``: no cache, no retry, no accounting.

    ``request_timeout`` bounds a request's silence (seconds without a byte from the server);
    None uses the backend default (:data:`DEFAULT_REQUEST_TIMEOUT`).
    """
    spec, name = split_model(model)
    if request_timeout is not None and not request_timeout > 0:
        raise ConfigError(f"request timeout must be a positive number of seconds, got {request_timeout}")
    if spec.backend == "mock":
        from .mock import MockClient

        return MockClient(model)
    if spec.backend == "litellm":
        from .litellm_client import LiteLLMClient

        return LiteLLMClient(model, api_base=api_base, timeout=request_timeout or DEFAULT_REQUEST_TIMEOUT)
    from .openai_compat import OpenAICompatClient, make_timeout

    return OpenAICompatClient(
        model, spec, name, api_base=api_base, timeout=make_timeout(request_timeout or DEFAULT_REQUEST_TIMEOUT)
    )


class ManagedClient:
    """A provider client wrapped with response cache, retry policy and usage ledger."""

    def __init__(
        self,
        inner: ModelClient,
        *,
        retry: RetryPolicy,
        cache: ResponseCache | None = None,
        ledger: UsageLedger | None = None,
        role: str = "agent",
        api_base: str | None = None,
    ) -> None:
        self.inner, self.retry, self.cache, self.ledger, self.role = (
            inner,
            retry,
            cache,
            ledger,
            role,
        )
        self.model = inner.model
        # Part of the cache key: another server may answer the same model name differently.
        self.api_base = api_base.rstrip("/") if api_base else None

    def __repr__(self) -> str:
        return f"ManagedClient({self.inner!r}, role={self.role!r}, cached={self.cache is not None})"

    async def complete(
        self,
        system: str | None,
        messages: list[Message],
        tools: list[dict],
        params: GenParams,
        trial: int = 0,
    ) -> AssistantTurn:
        """Serve from the cache if possible, else call the provider (with retries) and record."""
        from .usage import price_usage

        key = None
        if self.cache is not None:
            key = self.cache.key(
                self.model, system, messages, tools, params, trial, api_base=self.api_base
            )
            hit = self.cache.get(key)
            if hit is not None:
                if self.ledger is not None:
                    self.ledger.record_cache_hit(self.role)
                return hit
        attempts = 0

        async def attempt() -> AssistantTurn:
            nonlocal attempts
            attempts += 1
            return await self.inner.complete(system, messages, tools, params, trial)

        try:
            turn = await self.retry.call(attempt, label=self.model)
        except ModelCallFailed:
            if self.ledger is not None:
                self.ledger.record_failure(self.role, attempts)
            raise
        turn.usage, cost_known = price_usage(
            self.model, turn.usage, self.ledger.prices if self.ledger is not None else None
        )
        if self.ledger is not None:
            self.ledger.record(self.role, turn.usage, cost_known=cost_known, attempts=attempts)
        # An empty turn (no text, no calls) is a provider hiccup callers retry; never replay it.
        if self.cache is not None and key is not None and (turn.tool_calls or (turn.text or "").strip()):
            self.cache.put(key, turn, model=self.model)
        return turn


def make_client(
    model: str,
    *,
    api_base: str | None = None,
    cache: ResponseCache | None = None,
    retry: RetryPolicy | None = None,
    ledger: UsageLedger | None = None,
    role: str = "agent",
    request_timeout: float | None = None,
) -> ModelClient:
    """Build the client for ``model`` wrapped with cache → retry → usage accounting.

    ``cache=None`` disables caching (``--no-cache``); ``retry=None`` uses the default
    :class:`RetryPolicy`; ``ledger=None`` skips accounting (costs are still filled in);
    ``request_timeout`` is ``--request-timeout`` (seconds of silence; default 30).
    Raises :class:`ConfigError` for an unknown provider, a missing key or a missing extra.
    """
    from .retry import RetryPolicy

    inner = make_provider_client(model, api_base=api_base, request_timeout=request_timeout)
    return ManagedClient(
        inner, retry=retry or RetryPolicy(), cache=cache, ledger=ledger, role=role, api_base=api_base
    )
