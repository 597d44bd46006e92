"""Diagnostic variants (ATRBench, Table 1 and App. B.5) as prompt-block configurations.

The system prompt is assembled from named blocks shipped as versioned files in ``prompts/``:
base, domain policy, the cross-session ``<context>``, the phase block, the send protocol (learning
only), then the variant's blocks — phase and variant blocks sit after the context, near the tail.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, Field

from longview.kernel.errors import ConfigError


class Variant(BaseModel):
    """One diagnostic variant."""

    name: str = Field(description="Variant name.")
    learning: bool = Field(description="Whether the learning phase runs.")
    blocks: list[str] = Field(default_factory=list, description="Extra prompt blocks, in order.")
    oracle: Literal["target", "full"] | None = Field(
        default=None, description="Oracle context: the test-bound rule's answer, or all answers."
    )


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in [
        Variant(name="default", learning=True),
        Variant(name="atr", learning=True, blocks=["standing_rule_def", "variant_atr"]),
        Variant(name="always_ask", learning=True, blocks=["standing_rule_def", "variant_always_ask"]),
        Variant(name="oracle_target", learning=False, oracle="target"),
        Variant(name="oracle_full", learning=False, oracle="full"),
    ]
}
MAIN_VARIANTS = ["default", "atr", "always_ask", "oracle_target"]


def get_variant(name: str) -> Variant:
    try:
        return VARIANTS[name]
    except KeyError:
        raise ConfigError(f"unknown variant '{name}'; expected one of {', '.join(VARIANTS)}") from None


@cache
def block(name: str) -> str:
    """Text of one prompt block file."""
    return (resources.files("longview.suites.atr") / "prompts" / f"{name}.md").read_text(encoding="utf-8").strip()


def prompt_hashes() -> dict[str, str]:
    """sha256 of every prompt block, for the run manifest."""
    root = resources.files("longview.suites.atr") / "prompts"
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.iterdir(), key=lambda p: p.name)
        if p.name.endswith(".md")
    }


def system_prompt(variant: Variant, domain: str, phase: Literal["learning", "test"], context: str) -> str:
    """Assemble the agent's system prompt from named blocks.

    The cross-session context comes right after the base block, before the per-domain policy: a
    cell's test sessions share it, so the longest part of every prompt is a common prefix that
    providers can serve from their prompt cache.
    """
    parts = [block("base"), f"<context>\n{context}\n</context>", block(f"domain_{domain}")]
    parts.append(block(f"mode_{phase}"))
    if phase == "learning":
        parts.append(block("send_protocol"))
        parts += [block(b) for b in variant.blocks]
    return "\n\n".join(parts)


def prompt_only_notes(scorecard: Any) -> list[str]:
    """Where a scripted reference agent ran variants that differ only in prompt blocks: it does not
    read the prompt, so those rows are one behaviour by construction; the run says so."""
    by_agent: dict[str, list[str]] = {}
    for r in scorecard.rows:
        if r.agent.startswith("ref:") and r.variant in VARIANTS:
            by_agent.setdefault(r.agent, []).append(r.variant)
    notes = []
    for agent, names in by_agent.items():
        groups: dict[tuple[bool, str | None], list[str]] = {}
        for n in names:
            v = VARIANTS[n]
            groups.setdefault((v.learning, v.oracle), []).append(n)
        for same in groups.values():
            if len(same) > 1:
                notes.append(f"{agent} is scripted and does not read the system prompt: its rows for "
                             f"{', '.join(same)} differ only in prompt blocks, so they are one behaviour by "
                             "construction (the variants tell models apart, not reference agents)")
    return notes
