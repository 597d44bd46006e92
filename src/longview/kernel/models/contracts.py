"""The model layer's contracts: generation parameters, provider errors, the client protocol and
how a provider is reached. Nothing here builds a client (see :mod:`.client`), so every provider
module can import these without a cycle."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from longview.kernel.agent import AssistantTurn, Message
from longview.kernel.errors import CellAborted

from .secrets import redact


class GenParams(BaseModel):
    """Generation parameters; ``None`` means "provider default" and is not sent."""

    temperature: float | None = Field(default=None, ge=0, allow_inf_nan=False, description="Sampling temperature.")
    max_tokens: int | None = Field(default=None, ge=1, description="Cap on completion tokens.")
    reasoning_effort: Literal["low", "medium", "high"] | None = Field(
        default=None, description="Reasoning budget for models that support it."
    )
    seed: int | None = Field(
        default=None, description="Sampling seed, sent to OpenAI-compatible providers that accept one (a run sets "
        "it from --seed and the trial unless given; not sent through LiteLLM); providers may still vary.",
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
    tool_calls: Literal["native", "text"] = Field(
        default="native",
        description="Where tool calls come from: 'native' (the API's tool_calls only) or 'text' (also "
        "a reply whose text is a tool call — a bare JSON object, a fenced JSON block or <tool_call> "
        "tags — naming an offered tool; opt-in, counted per role as text_tool_calls).",
    )
    stream: bool | None = Field(
        default=None,
        description="Stream the reply (server-sent events): None streams on plain-http endpoints "
        "(local servers), True/False force it on or off where the client supports streaming.",
    )

    # Fields that steer transport or provider-side caching but never the answer: not part of a
    # response-cache key.
    TRANSPORT_FIELDS: ClassVar[frozenset[str]] = frozenset({"cache_prompt", "prompt_cache_key", "stream"})

    def answer_fields(self) -> dict[str, Any]:
        """The fields that can change a model's answer (JSON mode), for cache keys. ``seed`` and
        ``tool_calls`` join only when not their defaults, so keys computed before they existed stay."""
        fields = self.model_dump(mode="json", exclude=set(self.TRANSPORT_FIELDS) | {"tool_calls"})
        if fields["seed"] is None:  # keys of requests without a seed stay those computed before seeds were sent
            del fields["seed"]
        if self.tool_calls != "native":
            fields["tool_calls"] = self.tool_calls
        return fields


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
    # The request field for a sampling seed (GenParams.seed); None: the provider takes none, never sent.
    seed_field: str | None = "seed"
    # Further variables holding credentials this provider reads (LiteLLM backends): copied from
    # ``.env`` when missing and masked in every output, like ``key_env``.
    secret_env: tuple[str, ...] = ()

    def secret_envs(self) -> tuple[str, ...]:
        """Every credential variable of this provider."""
        return ((self.key_env,) if self.key_env else ()) + self.secret_env
    # Accepts ``prompt_cache_key`` (GenParams.prompt_cache_key) in the request body.
    prompt_cache_key: bool = False
