"""Optional backend for providers without an OpenAI-compatible endpoint (``anthropic/``,
``gemini/``, ``bedrock/``...), via LiteLLM.

LiteLLM is heavy and fast-moving, so it is an extra (``pip install 'longview[litellm]'``),
imported only when such a model is requested. Its responses use the chat-completions shape,
so parsing is shared with :mod:`.openai_compat`; its own retries are disabled because
:mod:`.retry` owns that policy.
"""

from __future__ import annotations

import os
from typing import Any

from longview.kernel.agent import AssistantTurn, Message
from longview.kernel.errors import ConfigError

from .contracts import GenParams, ProviderError
from .openai_compat import parse_completion, to_openai_messages, to_openai_tools
from .prompt_cache import mark_cache_control, needs_cache_control
from .retry import parse_retry_after
from .secrets import export_env, secret_env_names

INSTALL_HINT = "pip install 'longview[litellm]'"
# Exceptions from these packages are provider failures; anything else is a bug and propagates.
_PROVIDER_MODULES = {"litellm", "openai", "httpx", "httpcore", "anthropic"}


def _import_litellm(model: str) -> Any:
    # Without this LiteLLM downloads its price map at import: slow, and fails offline.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm
    except ImportError:
        raise ConfigError(
            f"model {model!r} needs the optional LiteLLM backend, which is not installed: "
            f"{INSTALL_HINT}"
        ) from None
    if hasattr(litellm, "suppress_debug_info"):
        litellm.suppress_debug_info = True  # our ModelCallFailed reason says what failed
    return litellm


def to_provider_error(err: Exception) -> ProviderError:
    """Classify a LiteLLM/SDK exception by HTTP status (None for timeouts, connection errors)."""
    status = getattr(err, "status_code", None)
    name = type(err).__name__
    if not isinstance(status, int) or "Timeout" in name or "Connection" in name:
        status = None
    headers = getattr(getattr(err, "response", None), "headers", None) or {}
    retry_after = parse_retry_after(headers.get("retry-after")) if hasattr(headers, "get") else None
    return ProviderError(f"{name}: {err}"[:400], status=status, retry_after=retry_after)


class LiteLLMClient:
    """Async client for one model through ``litellm.acompletion``."""

    def __init__(self, model: str, *, api_base: str | None = None, timeout: float | None = None) -> None:
        self._litellm = _import_litellm(model)
        # LiteLLM reads keys from os.environ: let ./.env fill in the provider's credentials (all
        # known ones for the ``litellm/`` escape hatch) and nothing else.
        from .providers import split_model

        spec, _ = split_model(model)
        export_env(secret_env_names() if spec.prefix == "litellm" else spec.secret_envs())
        self.model = model
        # ``litellm/<x>`` is our escape hatch: hand LiteLLM ``<x>`` verbatim.
        self.name = model.split("/", 1)[1] if model.startswith("litellm/") else model
        self.api_base = api_base
        self.timeout = timeout

    def __repr__(self) -> str:
        return f"LiteLLMClient({self.model!r})"

    def request_kwargs(
        self, system: str | None, messages: list[Message], tools: list[dict], params: GenParams
    ) -> dict[str, Any]:
        """Keyword arguments for ``litellm.acompletion``."""
        kw: dict[str, Any] = {
            "model": self.name,
            "messages": to_openai_messages(system, messages),
            "num_retries": 0,
        }
        if tools:
            kw["tools"] = to_openai_tools(tools)
        if params.cache_prompt and needs_cache_control(self.name):  # LiteLLM passes the marks on
            kw["messages"], kw["tools"] = mark_cache_control(kw["messages"], kw.get("tools", []))
            if not kw["tools"]:
                del kw["tools"]
        if self.api_base:
            kw["api_base"] = self.api_base
        if self.timeout:
            kw["timeout"] = self.timeout
        if params.temperature is not None:
            kw["temperature"] = params.temperature
        if params.max_tokens is not None:
            kw["max_tokens"] = params.max_tokens
        if params.reasoning_effort is not None:
            kw["reasoning_effort"] = params.reasoning_effort  # LiteLLM maps it per provider
        kw.update(params.extra)
        return kw

    async def complete(
        self,
        system: str | None,
        messages: list[Message],
        tools: list[dict],
        params: GenParams,
        trial: int = 0,
    ) -> AssistantTurn:
        """One ``acompletion`` call; provider failures raise :class:`ProviderError`."""
        try:
            resp = await self._litellm.acompletion(
                **self.request_kwargs(system, messages, tools, params)
            )
        except Exception as err:
            if type(err).__module__.split(".")[0] not in _PROVIDER_MODULES:
                raise
            raise to_provider_error(err) from None
        data = resp if isinstance(resp, dict) else resp.model_dump()
        return parse_completion(data)
