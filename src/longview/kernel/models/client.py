"""The provider factory: :func:`make_provider_client` resolves a ``provider/model`` string (LiteLLM's
convention: ``openai/gpt-5.4``, ``anthropic/claude-opus-4-7``, ``hosted_vllm/<model>`` with
``api_base``, ``mock/<script>``) and :func:`make_client` wraps it so that every call goes cache
lookup → retried provider call → usage accounting. Contracts live in :mod:`.contracts`, the
provider table in :mod:`.providers`; both are re-exported here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from longview.kernel.agent import AssistantTurn, Message
from longview.kernel.errors import ConfigError

from . import callstats
from .contracts import (  # noqa: F401 - re-exported: the model layer's public names
    GenParams,
    ModelCallFailed,
    ModelClient,
    ProviderError,
    ProviderSpec,
    is_retryable_status,
)
from .providers import DEFAULT_REQUEST_TIMEOUT, PROVIDERS, split_model  # noqa: F401 - re-exported

if TYPE_CHECKING:
    from .cache import ResponseCache
    from .retry import RetryPolicy
    from .usage import UsageLedger


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
        stats = callstats.CallStats()

        async def attempt() -> AssistantTurn:
            nonlocal attempts, stats
            attempts += 1
            stats, token = callstats.begin()  # the provider client underneath fills it in
            try:
                return await self.inner.complete(system, messages, tools, params, trial)
            finally:
                callstats.end(token)

        try:
            turn = await self.retry.call(attempt, label=self.model)
        except ModelCallFailed:
            if self.ledger is not None:
                self.ledger.record_failure(self.role, attempts)
            raise
        if params.tool_calls == "text":
            from .text_tools import calls_from_text

            turn, stats.text_tool_calls = calls_from_text(turn, tools)
        turn.usage, cost_known = price_usage(
            self.model, turn.usage, self.ledger.prices if self.ledger is not None else None
        )
        if self.ledger is not None:
            self.ledger.record(self.role, turn.usage, cost_known=cost_known, attempts=attempts, stats=stats)
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
