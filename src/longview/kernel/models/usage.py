"""Token and cost accounting per role (agent, user simulator, judge...).

Costs come from :mod:`.prices` (the user's prices, longview's dated table, LiteLLM's when
installed). Models found in none cost 0 and are flagged ``cost_known=False`` so a manifest never
presents a guess as a price.
Cache hits are counted apart: they cost nothing and add no tokens, since no provider was called.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

from pydantic import BaseModel, Field, computed_field

from longview.kernel.agent import Usage

from .callstats import CallStats
from .prices import PRICES, Price, lookup_price

__all__ = ["PRICES", "Price", "lookup_price", "price_usage", "RoleUsage", "UsageLedger", "UsageSummary"]


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

    calls: int = Field(default=0, ge=0, description="Provider calls made (cache hits excluded).")
    input_tokens: int = Field(default=0, ge=0, description="Prompt tokens, cached ones included.")
    cached_tokens: int = Field(default=0, ge=0, description="Prompt tokens served from provider cache.")
    output_tokens: int = Field(default=0, ge=0, description="Completion tokens.")
    cost_usd: float = Field(default=0.0, ge=0, allow_inf_nan=False, description="Estimated cost of the provider calls.")
    cache_hits: int = Field(default=0, ge=0, description="Calls answered by the local response cache.")
    retries: int = Field(default=0, ge=0, description="Extra provider attempts beyond the first, over all calls.")
    failed_calls: int = Field(default=0, ge=0, description="Calls that failed for good (retries exhausted or not retryable).")
    cost_known: bool = Field(default=True, description="False if any call's model had no price.")
    truncated: int = Field(default=0, ge=0, description="Replies that stopped at the output cap (finish_reason length).")
    text_tool_calls: int = Field(default=0, ge=0, description="Tool calls read from reply text (tool_calls=text), not the API's tool_calls.")
    streamed_calls: int = Field(default=0, ge=0, description="Calls whose reply was streamed (server-sent events).")
    streamed_output_tokens: int = Field(default=0, ge=0, description="Completion tokens of the streamed calls.")
    first_token_s: float = Field(default=0.0, ge=0, allow_inf_nan=False, description="Seconds from request to first token, summed over streamed calls.")
    decode_s: float = Field(default=0.0, ge=0, allow_inf_nan=False, description="Seconds from first token to the end, summed over streamed calls.")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def cached_share(self) -> float:
        """Share of prompt tokens served from the provider's prompt cache."""
        return self.cached_tokens / self.input_tokens if self.input_tokens else 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def mean_first_token_s(self) -> float | None:
        """Mean first-token latency of the streamed calls (None: nothing streamed)."""
        return round(self.first_token_s / self.streamed_calls, 4) if self.streamed_calls else None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def tokens_per_s(self) -> float | None:
        """Completion tokens per second of decoding, over the streamed calls (None: not measured)."""
        return round(self.streamed_output_tokens / self.decode_s, 2) if self.decode_s > 0 else None

    def add(self, other: RoleUsage) -> None:
        """Accumulate ``other`` into this total."""
        self.add_counts(other.cost_known, **{k: other.__dict__[k] for k in COUNTS})

    def add_counts(self, cost_known: bool = True, **counts: float) -> None:
        """Accumulate counts given by field name (a ledger adds one per model call: the fields are
        plain numbers, so they are summed in place, not through pydantic's per-field setattr)."""
        fields = self.__dict__
        for k, v in counts.items():
            fields[k] += v
        if not cost_known:
            fields["cost_known"] = False


# Wall-time measures (streamed calls): two runs of the same plan differ in these, and only in these.
TIMINGS = ("first_token_s", "decode_s", "mean_first_token_s", "tokens_per_s")


def without_timings(block: dict) -> dict:
    """A usage block or journal entry without its wall-time measures (to compare two runs)."""
    out = {k: v for k, v in block.items() if k not in TIMINGS}
    for key in ("roles",):
        if isinstance(out.get(key), dict):
            out[key] = {r: without_timings(u) for r, u in out[key].items()}
    if isinstance(out.get("total"), dict):
        out["total"] = without_timings(out["total"])
    return out


COUNTS = ("calls", "input_tokens", "cached_tokens", "output_tokens", "cost_usd", "cache_hits", "retries", "failed_calls",
          "truncated", "text_tool_calls", "streamed_calls", "streamed_output_tokens", "first_token_s", "decode_s")


class UsageSummary(BaseModel):
    """What the run manifest records about model usage."""

    roles: dict[str, RoleUsage] = Field(default_factory=dict, description="Totals per role.")
    total: RoleUsage = Field(default_factory=RoleUsage, description="Totals over all roles.")


class UsageLedger:
    """Accumulates usage per role; safe to share across clients, tasks and threads.

    ``journal`` (optional, settable later) receives one dict per recorded event — a role plus
    :class:`RoleUsage` fields — as it happens; a run store appends them to ``usage.jsonl`` so the
    usage of an invocation killed before it wrote its manifest is recovered on resume
    (:func:`summary_from_entries`).
    """

    def __init__(
        self, prices: dict[str, Price] | None = None, journal: Callable[[dict], None] | None = None
    ) -> None:
        self.prices = dict(prices or {})  # the user's prices; longview's and LiteLLM's tables come after
        self.journal = journal
        self._roles: dict[str, RoleUsage] = {}
        self._lock = threading.Lock()

    def _add(self, role: str, cost_known: bool = True, **counts: float) -> None:
        counts = {k: v for k, v in counts.items() if v}
        with self._lock:
            total = self._roles.get(role)
            if total is None:
                total = self._roles[role] = RoleUsage()
            total.add_counts(cost_known, **counts)
        if self.journal is not None:  # the fields that differ from a zero delta, and the role
            entry: dict = {**counts, "role": role}
            if not cost_known:
                entry["cost_known"] = False
            self.journal(entry)

    def record(self, role: str, usage: Usage, *, cost_known: bool = True, attempts: int = 1,
               stats: CallStats | None = None) -> None:
        """Count one provider call whose ``usage`` already carries its cost (after ``attempts`` tries),
        with what its transport reported (``stats``: truncation, text tool calls, streaming times)."""
        extra: dict[str, float] = {}
        if stats is not None:
            extra = {"truncated": int(stats.truncated), "text_tool_calls": stats.text_tool_calls}
            if stats.streamed:
                extra.update(streamed_calls=1, streamed_output_tokens=usage.output_tokens,
                             first_token_s=round(stats.first_token_s, 4), decode_s=round(stats.decode_s, 4))
        self._add(role, cost_known, calls=1, input_tokens=usage.input_tokens, cached_tokens=usage.cached_tokens,
                  output_tokens=usage.output_tokens, cost_usd=usage.cost_usd, retries=max(0, attempts - 1), **extra)

    def record_failure(self, role: str, attempts: int) -> None:
        """Count one call that failed for good after ``attempts`` tries (no tokens known)."""
        self._add(role, failed_calls=1, retries=max(0, attempts - 1))

    def record_cache_hit(self, role: str) -> None:
        """Count one call served from the local response cache (free, no tokens)."""
        self._add(role, cache_hits=1)

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


def summary_from_entries(entries: Iterable[dict]) -> dict:
    """A manifest usage block from journal entries (see :class:`UsageLedger`); malformed entries
    are skipped."""
    roles: dict[str, RoleUsage] = {}
    for e in entries:
        role = e.get("role")
        if not isinstance(role, str):
            continue
        try:
            delta = RoleUsage.model_validate({k: v for k, v in e.items() if k != "role"})
        except ValueError:
            continue
        roles.setdefault(role, RoleUsage()).add(delta)
    total = RoleUsage()
    for r in roles.values():
        total.add(r)
    return UsageSummary(roles=dict(sorted(roles.items())), total=total).model_dump()


def add_summaries(a: dict, b: dict) -> dict:
    """Sum two manifest usage blocks role by role (a resumed run's earlier and new invocations)."""
    total = UsageSummary.model_validate(b) if b else UsageSummary(roles={}, total=RoleUsage())
    if a:
        old = UsageSummary.model_validate(a)
        for role, u in old.roles.items():
            total.roles.setdefault(role, RoleUsage()).add(u)
        total.total.add(old.total)
    return total.model_dump()


def usage_notes(usage: dict) -> list[str]:
    """What a reader of a run's usage must not miss, one line each: replies cut at the output cap,
    tool calls read from text (a different measurement than native tool calls), streaming speed."""
    notes = []
    for role, u in (usage.get("roles") or {}).items():
        if not isinstance(u, dict):
            continue
        calls = u.get("calls", 0)
        if u.get("truncated"):
            notes.append(f"{role}: {u['truncated']} of {calls} replies stopped at the output cap (finish_reason "
                         f"length); raise it with --param {role}.max_tokens=N (--max-tokens for the agent)")
        if u.get("text_tool_calls"):
            notes.append(f"{role}: {u['text_tool_calls']} tool calls were read from reply text "
                         f"(--param {role}.tool_calls=text); do not compare with runs that read native tool calls only")
        if u.get("streamed_calls"):
            first, rate = u.get("mean_first_token_s"), u.get("tokens_per_s")
            notes.append(f"{role}: {u['streamed_calls']} of {calls} calls streamed; first token after "
                         f"{first if first is not None else '?'} s on average"
                         + (f", {rate} output tokens/s" if rate is not None else ""))
    return notes
