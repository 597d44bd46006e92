"""Model roles of an ATR run: which implementation plays the agent, user, Router and Classifier,
their generation parameters, and the shared cache, retry policy and usage ledger.

A role without a model uses the embedded deterministic implementation.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from longview.kernel.agent import Agent
from longview.kernel.errors import ConfigError
from longview.kernel.models import (
    GenParams, ResponseCache, RetryPolicy, UsageLedger, make_client, make_provider_client,
)
from longview.suites.atr.agents import make_reference_agent
from longview.suites.atr.dataset import Episode
from longview.suites.atr.runner import Scaffold
from longview.suites.atr.scaffold import KeywordRouter, TopicClassifier
from longview.suites.atr.user import ScriptedUser

if TYPE_CHECKING:
    from longview.suites.atr.suite import RunOptions


ROLES = ("agent", "user", "router", "classifier")


def parse_role_params(items: list[str]) -> dict[str, GenParams]:
    """``role.key=value`` strings (e.g. ``router.temperature=0``) into per-role parameters."""
    raw: dict[str, dict] = {}
    for item in items:
        m = re.fullmatch(r"(\w+)\.(\w+)=(.*)", item.strip())
        if not m or m.group(1) not in ROLES:
            raise ConfigError(f"--param '{item}': expected ROLE.KEY=VALUE with ROLE one of {', '.join(ROLES)}")
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
    try:
        return {role: GenParams.model_validate(v) for role, v in raw.items()}
    except ValueError as e:
        raise ConfigError(f"--param: {' '.join(str(e).split())}") from None


class Models:
    """Model clients for every role of a run, sharing one cache, retry policy and usage ledger."""

    def __init__(self, opts: RunOptions) -> None:
        self.opts = opts
        self.ledger = UsageLedger()
        self.cache = None if opts.no_cache else ResponseCache(opts.cache_dir or default_cache_dir())
        self.retry = RetryPolicy(max_attempts=opts.max_attempts, base_delay=opts.retry_base_delay)

    def validate(self) -> None:
        """Fail fast, before a run directory exists, on an unknown provider, a missing key or endpoint."""
        for model in self.opts.models:
            make_provider_client(model, api_base=self.opts.api_base)

    def client(self, model: str, role: str):
        # Scripted mock replies are already deterministic; caching them would only make tests stateful.
        cache = None if model.startswith("mock/") else self.cache
        return make_client(model, api_base=self.opts.api_base, cache=cache, retry=self.retry,
                           ledger=self.ledger, role=role)

    def scaffold(self) -> Scaffold:
        """Embedded implementations unless a model is set for the role."""
        o, p = self.opts, self.params
        router, classifier, user = KeywordRouter(), TopicClassifier(), ScriptedUser()
        if o.router_model or o.classifier_model or o.user_model:
            from longview.suites.atr.llm_scaffold import LLMClassifier, LLMRouter, LLMUser

            router = LLMRouter(self.client(o.router_model, "router"), p("router")) if o.router_model else router
            classifier = (LLMClassifier(self.client(o.classifier_model, "classifier"), p("classifier"))
                          if o.classifier_model else classifier)
            user = LLMUser(self.client(o.user_model, "user"), p("user")) if o.user_model else user
        return Scaffold(router=router, classifier=classifier, user=user)

    def agent(self, name: str, episode: Episode, trial: int = 0) -> Agent:
        if name.startswith("ref:"):
            return make_reference_agent(name, episode)
        from longview.agents.llm import LLMAgent

        # The cache's trial index: the same seed and trial replay the cache, others sample afresh.
        return LLMAgent(self.client(name, "agent"), self.params("agent"), name=name, trial=self.opts.seed * 1000 + trial)

    def params(self, role: str) -> GenParams:
        return self.opts.role_params.get(role) or (GenParams() if role == "agent" else GenParams(temperature=0.0))


def default_cache_dir() -> Path:
    return Path(os.environ.get("LONGVIEW_CACHE_DIR") or Path.home() / ".cache" / "longview" / "responses")
