"""Model prices (USD per 1M tokens): where a run's dollars come from.

A price is looked up in this order, and the source is kept so a number is never presented without
saying where it came from:

1. prices the user gave (``--price MODEL=INPUT/OUTPUT[/CACHED]`` or ``--prices FILE``);
2. longview's own table below, a snapshot of the providers' list prices dated :data:`PRICES_AS_OF`;
3. LiteLLM's table, when the optional ``litellm`` package is installed (read from the installed
   package, never fetched).

A model found nowhere is *unpriced*: its cost is 0 and flagged, never guessed.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError, field_validator

from longview.kernel.errors import ConfigError


class Price(BaseModel):
    """List price of one model, USD per 1M tokens."""

    input: float = Field(ge=0, allow_inf_nan=False, description="Uncached prompt tokens, USD per 1M.")
    cached: float = Field(ge=0, allow_inf_nan=False, description="Prompt tokens read from the provider's cache, USD per 1M.")
    output: float = Field(ge=0, allow_inf_nan=False, description="Completion tokens (reasoning included), USD per 1M.")


PRICES_AS_OF = "2026-06"
"""When the built-in table was last checked against the providers' published list prices."""

# Standard (non-batch) list prices, short-context tier. Dated snapshots share the base price.
PRICES: dict[str, Price] = {
    "openai/gpt-5.5": Price(input=5.00, cached=0.50, output=30.00),
    "openai/gpt-5.4": Price(input=2.50, cached=0.25, output=15.00),
    "openai/gpt-5.4-mini": Price(input=0.75, cached=0.075, output=4.50),
    "openai/gpt-5.4-nano": Price(input=0.20, cached=0.02, output=1.25),
    "openai/gpt-5.2": Price(input=1.75, cached=0.175, output=14.00),
    "openai/gpt-5.1": Price(input=1.25, cached=0.125, output=10.00),
    "openai/gpt-5": Price(input=1.25, cached=0.125, output=10.00),
    "openai/gpt-5-mini": Price(input=0.25, cached=0.025, output=2.00),
    "openai/gpt-4.1": Price(input=2.00, cached=0.50, output=8.00),
    "openai/gpt-4.1-mini": Price(input=0.40, cached=0.10, output=1.60),
    "openai/gpt-4o": Price(input=2.50, cached=1.25, output=10.00),
    "openai/gpt-4o-mini": Price(input=0.15, cached=0.075, output=0.60),
    "anthropic/claude-opus-4-7": Price(input=5.00, cached=0.50, output=25.00),
    "anthropic/claude-opus-4-6": Price(input=5.00, cached=0.50, output=25.00),
    "anthropic/claude-opus-4-5": Price(input=5.00, cached=0.50, output=25.00),
    "anthropic/claude-opus-4-1": Price(input=15.00, cached=1.50, output=75.00),
    "anthropic/claude-sonnet-4-6": Price(input=3.00, cached=0.30, output=15.00),
    "anthropic/claude-sonnet-4-5": Price(input=3.00, cached=0.30, output=15.00),
    "anthropic/claude-sonnet-4": Price(input=3.00, cached=0.30, output=15.00),
    "anthropic/claude-haiku-4-5": Price(input=1.00, cached=0.10, output=5.00),
}

ASSUMED_OUTPUT_TOKENS = 250
"""Output tokens per call assumed by dry-run cost estimates (suites estimate input tokens only)."""

# Dated snapshots (``gpt-4o-2024-08-06``, ``claude-sonnet-4-20250514``) share the base price.
_DATE_SUFFIX = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8})$")
_SPEC = re.compile(r"^(?P<model>[^=\s]+)=(?P<numbers>[^=\s]+)$")


def _candidates(model: str) -> list[str]:
    names = [model, _DATE_SUFFIX.sub("", model)]
    return list(dict.fromkeys(names))


def lookup_price(model: str, prices: dict[str, Price] | None = None) -> Price | None:
    """The price of ``model`` (``provider/name``) from the user's ``prices`` and longview's table."""
    return priced(model, prices)[0]


def priced(model: str, prices: dict[str, Price] | None = None) -> tuple[Price | None, str]:
    """(price, where it came from) for ``model``; (None, "unpriced") when no table has it."""
    for source, table in (("given", prices or {}), (f"longview {PRICES_AS_OF}", PRICES)):
        for name in _candidates(model):
            if name in table:
                return table[name], source
    found = _litellm_price(model)
    return (found, "litellm") if found is not None else (None, "unpriced")


@functools.lru_cache(maxsize=256)
def _litellm_price(model: str) -> Price | None:
    """LiteLLM's price for ``model`` when that package is installed (its bundled table, offline)."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # never fetch the table over the network
    try:
        import litellm  # type: ignore[import-not-found]

        table = litellm.model_cost
    except Exception:  # noqa: BLE001 - not installed, or an optional extra that fails to import: no price
        return None
    if not isinstance(table, dict):
        return None
    provider, _, name = model.partition("/")
    for key in (model, name, *_candidates(name)):
        entry = table.get(key)
        if not isinstance(entry, dict):
            continue
        try:
            inp = float(entry["input_cost_per_token"]) * 1e6
            out = float(entry["output_cost_per_token"]) * 1e6
            cached = float(entry.get("cache_read_input_token_cost") or entry["input_cost_per_token"]) * 1e6
            return Price(input=inp, cached=cached, output=out)
        except (KeyError, TypeError, ValueError, ValidationError):
            continue
    return None


def parse_price(spec: str) -> tuple[str, Price]:
    """``MODEL=INPUT/OUTPUT[/CACHED]`` (USD per 1M tokens; cached defaults to INPUT) -> (model, price)."""
    m = _SPEC.match(spec.strip())
    numbers = m.group("numbers").split("/") if m else []
    if not m or len(numbers) not in (2, 3):
        raise ConfigError(f"--price '{spec}': expected MODEL=INPUT/OUTPUT[/CACHED] in USD per 1M tokens, "
                          "e.g. openai/gpt-5.4=2.50/15.00/0.25")
    try:
        values = [float(x) for x in numbers]
    except ValueError:
        raise ConfigError(f"--price '{spec}': prices must be numbers (USD per 1M tokens)") from None
    if any(not math.isfinite(v) or v < 0 for v in values):
        raise ConfigError(f"--price '{spec}': prices must be finite and >= 0")
    inp, out = values[0], values[1]
    return m.group("model"), Price(input=inp, output=out, cached=values[2] if len(values) == 3 else inp)


class PriceEntry(BaseModel):
    """One model's line in a prices file (USD per 1M tokens; ``cached`` defaults to ``input``)."""

    model_config = {"extra": "forbid"}

    input: float = Field(ge=0, allow_inf_nan=False, description="Uncached prompt tokens, USD per 1M.")
    output: float = Field(ge=0, allow_inf_nan=False, description="Completion tokens, USD per 1M.")
    cached: float | None = Field(default=None, ge=0, allow_inf_nan=False,
                                 description="Cached prompt tokens, USD per 1M (default: input).")

    @field_validator("input", "output", "cached", mode="before")
    @classmethod
    def _no_bool(cls, v: object) -> object:
        if isinstance(v, bool):
            raise ValueError("expected a number")
        return v


def load_prices_file(path: Path) -> dict[str, Price]:
    """A prices file: a JSON or YAML mapping ``provider/model -> {input, output, cached?}``."""
    from longview.kernel.ids import read_text

    text = read_text(path)  # DataError: not a regular file, unreadable, too large, not UTF-8
    yaml_file = path.suffix.lower() in (".yaml", ".yml")
    try:
        if yaml_file:
            import yaml

            data = yaml.safe_load(text)
        else:
            data = json.loads(text)
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply") from None
    except Exception as e:  # noqa: BLE001 - json's and yaml's own errors
        reason = (str(e).splitlines() or [""])[0][:200]
        raise ConfigError(f"{path}: not valid {'YAML' if yaml_file else 'JSON'} ({reason})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of model -> {{input, output, cached}}, got {type(data).__name__}")
    out: dict[str, Price] = {}
    for model, entry in data.items():
        try:
            line = PriceEntry.model_validate(entry)
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(x) for x in first["loc"]) or "entry"
            raise ConfigError(f"{path}: {model}.{where}: {first['msg']} (USD per 1M tokens)") from None
        cached = line.input if line.cached is None else line.cached
        out[str(model)] = Price(input=line.input, output=line.output, cached=cached)
    return out


def estimate_usd(price: Price, calls: int, input_tokens: int) -> float:
    """Dry-run dollars: input tokens at the uncached price plus an assumed output per call."""
    return input_tokens / 1e6 * price.input + calls * ASSUMED_OUTPUT_TOKENS / 1e6 * price.output
