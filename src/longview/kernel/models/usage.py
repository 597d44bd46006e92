"""Token and cost accounting per role (agent, user simulator, judge...).

Costs come from a small built-in price table (USD per 1M tokens). Models outside it cost 0
and are flagged ``cost_known=False`` so a manifest never presents a guess as a price.
Cache hits are counted apart: they cost nothing and add no tokens, since no provider was called.
"""

from __future__ import annotations

import re
import threading

from pydantic import BaseModel, Field, computed_field

from longview.kernel.agent import Usage


class Price(BaseModel):
    """USD per 1M tokens."""

    input: float
    cached: float
    output: float


# A snapshot of list prices; extend or override via ``UsageLedger(prices=...)``.
PRICES: dict[str, Price] = {
    "openai/gpt-4o": Price(input=2.50, cached=1.25, output=10.00),
    "openai/gpt-4o-mini": Price(input=0.15, cached=0.075, output=0.60),
    "openai/gpt-4.1": Price(input=2.00, cached=0.50, output=8.00),
    "openai/gpt-4.1-mini": Price(input=0.40, cached=0.10, output=1.60),
    "openai/gpt-5": Price(input=1.25, cached=0.125, output=10.00),
    "openai/gpt-5-mini": Price(input=0.25, cached=0.025, output=2.00),
    "anthropic/claude-sonnet-4": Price(input=3.00, cached=0.30, output=15.00),
    "anthropic/claude-opus-4-1": Price(input=15.00, cached=1.50, output=75.00),
}

# Dated snapshots (``gpt-4o-2024-08-06``, ``claude-sonnet-4-20250514``) share the base price.
_DATE_SUFFIX = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8})$")


def lookup_price(model: str, prices: dict[str, Price] | None = None) -> Price | None:
    """The price of ``model`` (``provider/name``), trying it without a date suffix too."""
    table = PRICES if prices is None else prices
    return table.get(model) or table.get(_DATE_SUFFIX.sub("", model))


def price_usage(
    model: str, usage: Usage, prices: dict[str, Price] | None = None
) -> tuple[Usage, bool]:
    """``usage`` with ``cost_usd`` filled in, and whether that cost is known.

    A cost the provider reported itself (e.g. OpenRouter) is kept when the table has no price.
    """
    price = lookup_price(model, prices)
    if price is None:
        return usage, usage.cost_usd > 0
    cached = min(usage.cached_tokens, usage.input_tokens)
    cost = (
        (usage.input_tokens - cached) * price.input
        + cached * price.cached
        + usage.output_tokens * price.output
    ) / 1_000_000
    return usage.model_copy(update={"cost_usd": cost}), True


class RoleUsage(BaseModel):
    """Totals for one role."""

    calls: int = Field(default=0, description="Provider calls made (cache hits excluded).")
    input_tokens: int = Field(default=0, description="Prompt tokens, cached ones included.")
    cached_tokens: int = Field(default=0, description="Prompt tokens served from provider cache.")
    output_tokens: int = Field(default=0, description="Completion tokens.")
    cost_usd: float = Field(default=0.0, description="Estimated cost of the provider calls.")
    cache_hits: int = Field(default=0, description="Calls answered by the local response cache.")
    cost_known: bool = Field(default=True, description="False if any call's model had no price.")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def cached_share(self) -> float:
        """Share of prompt tokens served from the provider's prompt cache."""
        return self.cached_tokens / self.input_tokens if self.input_tokens else 0.0

    def add(self, other: RoleUsage) -> None:
        """Accumulate ``other`` into this total."""
        self.calls += other.calls
        self.input_tokens += other.input_tokens
        self.cached_tokens += other.cached_tokens
        self.output_tokens += other.output_tokens
        self.cost_usd += other.cost_usd
        self.cache_hits += other.cache_hits
        self.cost_known = self.cost_known and other.cost_known


class UsageSummary(BaseModel):
    """What the run manifest records about model usage."""

    roles: dict[str, RoleUsage] = Field(default_factory=dict, description="Totals per role.")
    total: RoleUsage = Field(default_factory=RoleUsage, description="Totals over all roles.")


class UsageLedger:
    """Accumulates usage per role; safe to share across clients, tasks and threads."""

    def __init__(self, prices: dict[str, Price] | None = None) -> None:
        self.prices = dict(PRICES if prices is None else prices)
        self._roles: dict[str, RoleUsage] = {}
        self._lock = threading.Lock()

    def record(self, role: str, usage: Usage, *, cost_known: bool = True) -> None:
        """Count one provider call whose ``usage`` already carries its cost."""
        with self._lock:
            r = self._roles.setdefault(role, RoleUsage())
            r.add(
                RoleUsage(
                    calls=1,
                    input_tokens=usage.input_tokens,
                    cached_tokens=usage.cached_tokens,
                    output_tokens=usage.output_tokens,
                    cost_usd=usage.cost_usd,
                    cost_known=cost_known,
                )
            )

    def record_cache_hit(self, role: str) -> None:
        """Count one call served from the local response cache (free, no tokens)."""
        with self._lock:
            self._roles.setdefault(role, RoleUsage()).cache_hits += 1

    def role(self, role: str) -> RoleUsage:
        """A copy of the totals for ``role`` (zeros if it made no calls)."""
        with self._lock:
            return self._roles.get(role, RoleUsage()).model_copy()

    def summary(self) -> UsageSummary:
        """A snapshot for the manifest."""
        with self._lock:
            roles = {k: v.model_copy() for k, v in sorted(self._roles.items())}
        total = RoleUsage()
        for r in roles.values():
            total.add(r)
        return UsageSummary(roles=roles, total=total)


def add_summaries(a: dict, b: dict) -> dict:
    """Sum two manifest usage blocks role by role (a resumed run's earlier and new invocations)."""
    total = UsageSummary.model_validate(b) if b else UsageSummary(roles={}, total=RoleUsage())
    if a:
        old = UsageSummary.model_validate(a)
        for role, u in old.roles.items():
            total.roles.setdefault(role, RoleUsage()).add(u)
        total.total.add(old.total)
    return total.model_dump()
