"""The provider table: which prefix (``openai/``, ``hosted_vllm/``...) is reached how, with which
key; and :func:`split_model`. Registers every provider's credential variables for redaction."""

from __future__ import annotations

from typing import Any

from longview.kernel.errors import ConfigError

from .contracts import ProviderSpec
from .secrets import register_provider_env


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
        _compat("deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", seed_field=None),
        _compat("groq", "https://api.groq.com/openai/v1", "GROQ_API_KEY"),
        _compat("together_ai", "https://api.together.xyz/v1", "TOGETHERAI_API_KEY"),
        _compat("xai", "https://api.x.ai/v1", "XAI_API_KEY"),
        _compat("mistral", "https://api.mistral.ai/v1", "MISTRAL_API_KEY", seed_field="random_seed"),
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


for _spec in PROVIDERS.values():  # their values are masked in every output
    register_provider_env(*_spec.secret_envs())
