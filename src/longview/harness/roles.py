"""Model roles of a run: the agents under test and each suite role (user, judge, router...), with
per-role generation parameters, one response cache, one retry policy and one usage ledger.

A role without a model uses the suite's embedded deterministic implementation.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from longview.kernel.agent import AssistantTurn, Message
from longview.kernel.errors import ConfigError
from longview.kernel.models import GenParams, ResponseCache, RetryPolicy, UsageLedger, make_client, make_provider_client
from longview.kernel.models.contracts import ModelClient
from longview.kernel.models.limits import with_output_cap
from longview.kernel.models.prices import Price
from longview.kernel.models.providers import PROVIDERS

AGENT = "agent"


def default_cache_dir() -> Path:
    return Path(os.environ.get("LONGVIEW_CACHE_DIR") or Path.home() / ".cache" / "longview" / "responses")


def parse_role_params(items: Iterable[str], roles: Iterable[str]) -> dict[str, GenParams]:
    """``role.key=value`` strings (e.g. ``router.temperature=0``) into per-role parameters."""
    known = list(roles)
    raw: dict[str, dict[str, Any]] = {}
    for item in items:
        m = re.fullmatch(r"(\w+)\.(\w+)=(.*)", item.strip())
        if not m or m.group(1) not in known:
            raise ConfigError(f"--param '{item}': expected ROLE.KEY=VALUE with ROLE one of {', '.join(known)}")
        role, key, value = m.groups()
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            parsed = value
        raw.setdefault(role, {})
        if key in GenParams.model_fields and key != "extra":
            raw[role][key] = parsed
        else:  # anything else goes to the provider as is
            raw[role].setdefault("extra", {})[key] = parsed
    out = {}
    for role, v in raw.items():
        try:
            out[role] = GenParams.model_validate(v)
        except ValidationError as e:  # one line naming the value, not pydantic's report with its link
            err = e.errors()[0]
            key = ".".join(str(x) for x in err["loc"])
            raise ConfigError(f"--param {role}.{key}={err.get('input')!r:.60}: {err['msg']}") from None
    return out


def parse_role_models(items: Iterable[str], roles: Iterable[str]) -> dict[str, str]:
    """``ROLE=MODEL`` strings (``--role judge=openai/gpt-5.4``) into a role -> model map."""
    known = list(roles)
    out: dict[str, str] = {}
    for item in items:
        role, sep, model = item.partition("=")
        role, model = role.strip(), model.strip()
        if not sep or role not in known or not model:
            raise ConfigError(f"--role '{item}': expected ROLE=MODEL with ROLE one of {', '.join(known) or '(none)'}")
        out[role] = model
    return out


class Roles:
    """Clients for every model role of one run, sharing cache, retry policy and usage ledger."""

    def __init__(
        self,
        models: Mapping[str, str | None],
        params: dict[str, GenParams] | None = None,
        *,
        api_base: str | None = None,
        no_cache: bool = False,
        cache_dir: Path | None = None,
        max_attempts: int = 6,
        retry_base_delay: float = 1.0,
        seed: int = 0,
        request_timeout: float | None = None,
        provider_limits: dict[str, int] | None = None,
        prices: dict[str, Price] | None = None,
    ) -> None:
        self.models = {k: v for k, v in models.items() if v}
        self._params = params or {}
        self.api_base = api_base
        self.request_timeout = request_timeout
        self.seed = seed
        self.ledger = UsageLedger(prices=prices)
        self.cache = None if no_cache else ResponseCache(cache_dir or default_cache_dir())
        self.retry = RetryPolicy(max_attempts=max_attempts, base_delay=retry_base_delay)
        self._clients: dict[tuple[str, str], ModelClient] = {}
        for prefix, n in (provider_limits or {}).items():
            if prefix not in PROVIDERS or n < 1:
                raise ConfigError(f"--provider-limit {prefix}={n}: expected PROVIDER=N with N >= 1 and PROVIDER one of "
                                  f"{', '.join(PROVIDERS)}")
        self.provider_limits = dict(provider_limits or {})
        self._semaphores: dict[str, asyncio.Semaphore] = {}
        # Requests in flight per limited provider: (provider) -> async context manager held around
        # each provider request. An executor may replace it (the Ray executor: one cluster-wide limiter).
        self.gate: Callable[[str], AbstractAsyncContextManager[Any]] = self._local_gate

    def set_provider_limits(self, limits: dict[str, int]) -> None:
        """Replace the per-provider request limits (a worker process takes its share of each)."""
        self.provider_limits = dict(limits)
        self._semaphores.clear()

    def _local_gate(self, prefix: str) -> AbstractAsyncContextManager[Any]:
        if prefix not in self._semaphores:
            self._semaphores[prefix] = asyncio.Semaphore(self.provider_limits[prefix])
        return self._semaphores[prefix]

    def validate(self, agent_models: Iterable[str] = ()) -> None:
        """Fail fast, before a run directory exists, on an unknown provider, a missing key or endpoint."""
        for model in [*agent_models, *self.models.values()]:
            make_provider_client(model, api_base=self.api_base, request_timeout=self.request_timeout)

    def model(self, role: str) -> str | None:
        return self.models.get(role)

    def client(self, role: str, model: str | None = None) -> ModelClient | None:
        """The (shared) client of ``role`` — of ``model`` for the agent role — or None if embedded."""
        model = model or self.models.get(role)
        if not model:
            return None
        key = (role, model)
        if key not in self._clients:
            # Scripted mock replies are already deterministic; caching them would only make tests stateful.
            cache = None if model.startswith("mock/") else self.cache
            client = make_client(model, api_base=self.api_base, cache=cache, retry=self.retry,
                                 ledger=self.ledger, role=role, request_timeout=self.request_timeout)
            prefix = model.partition("/")[0]
            if prefix in self.provider_limits:  # each request (each retry too) holds a slot; backoff does not
                client.inner = Gated(client.inner, self, prefix)  # type: ignore[attr-defined]
            self._clients[key] = client
        return self._clients[key]

    async def aclose(self) -> None:
        """Close every provider connection pool this run opened (HTTP pools are shared per endpoint
        for the whole run, whichever client or component opened them)."""
        for c in self._clients.values():
            close = getattr(getattr(c, "inner", c), "aclose", None)  # Gated passes it on
            if close is not None:
                await close()
        from longview.kernel.models import aclose_all

        await aclose_all()

    def params(self, role: str, model: str | None = None) -> GenParams:
        """A role's parameters; suite roles default to temperature 0, the agent to the provider's defaults.
        The sampling seed is the run's ``--seed`` unless the user gave one (the agent's is set per trial).
        Every role gets its default output cap when none was given (``model``: the agent's model, for
        the agent role)."""
        params = self._params.get(role) or (GenParams() if role == AGENT else GenParams(temperature=0.0))
        params = with_output_cap(role, model or self.models.get(role), params)
        return params if params.seed is not None else params.model_copy(update={"seed": self.seed})

    def trial_key(self, trial: int) -> int:
        """The response-cache trial index: the same seed and trial replay the cache, others sample afresh."""
        return self.seed * 1000 + trial


class Gated:
    """A provider client whose requests each hold one of its provider's slots (``--provider-limit``)."""

    def __init__(self, inner: ModelClient, roles: Roles, prefix: str) -> None:
        self.inner, self.roles, self.prefix = inner, roles, prefix
        self.model = inner.model

    async def complete(self, system: str | None, messages: list[Message], tools: list[dict[str, Any]], params: GenParams,
                       trial: int = 0) -> AssistantTurn:
        async with self.roles.gate(self.prefix):
            return await self.inner.complete(system, messages, tools, params, trial)

    async def aclose(self) -> None:
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()
