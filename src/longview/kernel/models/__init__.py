"""The model layer: one async :class:`ModelClient` for any provider.

``make_client("openai/gpt-5.4", cache=..., retry=..., ledger=..., role="agent")`` returns a
client whose ``complete(system, messages, tools, params, trial)`` yields an
:class:`~longview.kernel.agent.AssistantTurn`. OpenAI-compatible providers go over httpx;
others (``anthropic/``, ``gemini/``...) through the optional LiteLLM extra; ``mock/`` replays
scripts offline. HTTP connections are pooled per endpoint for the whole run: close them with
``await aclose_all()`` (or ``async with http_pool():``) when the run ends.
"""

import sys

from .cache import ResponseCache
from .client import (
    PROVIDERS,
    GenParams,
    ManagedClient,
    ModelCallFailed,
    ModelClient,
    ProviderError,
    make_client,
    make_provider_client,
)
from .mock import MockClient, MockScriptError, register_script, unregister_script
from .retry import RetryPolicy
from .secrets import export_env, get_key, load_dotenv, redact, register_secret_env
from .usage import PRICES, Price, RoleUsage, UsageLedger, UsageSummary

__all__ = [
    "PRICES",
    "PROVIDERS",
    "GenParams",
    "ManagedClient",
    "MockClient",
    "MockScriptError",
    "ModelCallFailed",
    "ModelClient",
    "Price",
    "ProviderError",
    "ResponseCache",
    "RetryPolicy",
    "RoleUsage",
    "UsageLedger",
    "UsageSummary",
    "aclose_all",
    "get_key",
    "export_env",
    "http_pool",
    "load_dotenv",
    "register_secret_env",
    "make_client",
    "make_provider_client",
    "redact",
    "register_script",
    "set_connection_limit",
    "unregister_script",
]

_LAZY = {"http_pool", "set_connection_limit"}  # the HTTP pool: httpx loads on first use


async def aclose_all() -> None:
    """Close every pooled HTTP connection; nothing to do (and httpx stays unloaded) when no HTTP
    provider was used."""
    pool = sys.modules.get(f"{__name__}.openai_compat")
    if pool is not None:
        await pool.aclose_all()


def __getattr__(name: str):  # noqa: ANN202 (module attribute hook)
    if name in _LAZY:
        from . import openai_compat

        return getattr(openai_compat, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
