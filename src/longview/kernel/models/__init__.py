"""The model layer: one async :class:`ModelClient` for any provider.

``make_client("openai/gpt-5.4", cache=..., retry=..., ledger=..., role="agent")`` returns a
client whose ``complete(system, messages, tools, params, trial)`` yields an
:class:`~longview.kernel.agent.AssistantTurn`. OpenAI-compatible providers go over httpx;
others (``anthropic/``, ``gemini/``...) through the optional LiteLLM extra; ``mock/`` replays
scripts offline.
"""

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
    "get_key",
    "export_env",
    "load_dotenv",
    "register_secret_env",
    "make_client",
    "make_provider_client",
    "redact",
    "register_script",
    "unregister_script",
]
