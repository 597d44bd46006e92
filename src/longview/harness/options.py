"""The options every suite's run shares (the CLI declares them once), as one validated model."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from longview.kernel.models import GenParams
from longview.kernel.models.prices import Price
from longview.kernel.session import DEFAULT_MAX_TURNS


class RunConfig(BaseModel):
    """Everything a user chooses for one `longview run SUITE`."""

    suite: str = Field(description="Registered suite name.")
    agents: list[str] | None = Field(
        default=None, description="Reference agents; None = all of the suite's unless models are given."
    )
    variants: list[str] = Field(default_factory=list, description="Variants; empty = each agent's default.")
    dataset: str = Field(default="builtin", description="Dataset spec (builtin, a folder, importer:PATH).")
    units: int | None = Field(default=None, description="Use only the first N units (personas, users...).")
    unit_ids: list[str] = Field(
        default_factory=list, description="Units to run, by id or as A..B (a range in dataset order); empty = all.",
    )
    seed: int = Field(default=0, description="Seed for bootstrap CIs and model trials.")
    trials: int = Field(default=1, ge=1, description="Repetitions of every cell.")
    max_turns: int = Field(default=DEFAULT_MAX_TURNS, ge=1, description="Assistant-turn cap per session.")
    out: Path | None = Field(default=None, description="Run directory (default runs/<suite>-<config hash>).")
    resume: bool = Field(default=False, description="Skip finished cells of an existing run.")
    force: bool = Field(default=False, description="Replace what longview wrote in an existing run directory.")
    max_concurrency: int = Field(default=4, ge=1, description="Sessions in flight across the run.")
    provider_limits: dict[str, int] = Field(
        default_factory=dict, description="Provider prefix -> model requests in flight to it across the run (or cluster)."
    )
    models: list[str] = Field(default_factory=list, description="Models under test (provider/model).")
    role_models: dict[str, str] = Field(default_factory=dict, description="Suite role -> model; others embedded.")
    api_base: str | None = Field(default=None, description="Endpoint for every model role (vLLM, Ollama...).")
    role_params: dict[str, GenParams] = Field(default_factory=dict, description="Generation parameters per role.")
    no_cache: bool = Field(default=False, description="Bypass the disk response cache.")
    prices: dict[str, Price] = Field(
        default_factory=dict, description="Prices the user gave (--price, --prices), provider/model -> USD per 1M "
        "tokens; they come before longview's table. Not part of the run's identity: they change dollars, not results.",
    )
    max_attempts: int = Field(default=6, ge=1, description="Attempts per model call before the cell aborts.")
    request_timeout: float | None = Field(
        default=None, gt=0, allow_inf_nan=False,
        description="Seconds of server silence before a request is abandoned (default 30)."
    )
    agent_timeout: float = Field(
        default=120.0, gt=0, allow_inf_nan=False,
        description="Seconds an external agent (cmd:, mcp:, mcp+stdio:) may stay silent before its cell aborts.",
    )
    agent_process: Literal["session", "cell"] = Field(
        default="session", description="How long a cmd: agent's process lives: one per session (default: nothing "
        "it keeps in memory crosses sessions) or one per cell (a stateful harness keeps its state across the cell's "
        "sessions, and starts fresh in the next cell).",
    )
    allow_aborts: bool = Field(default=False, description="Exit 0 even when some cells aborted.")
    retry_base_delay: float = Field(default=1.0, ge=0, description="First backoff delay in seconds (doubles, jittered).")
    cache_dir: Path | None = Field(default=None, description="Response cache folder.")
    executor: Literal["local", "ray"] = Field(
        default="local", description="What runs the cells: this process (local) or a Ray cluster (ray)."
    )
    workers: int = Field(
        default=1, ge=1, description="Processes of this machine that run cells (local executor); more than "
        "one pays when the run's cost is CPU (reference agents, embedded components), not model waits.",
    )
    ray_address: str | None = Field(
        default=None, description="Ray cluster to join (e.g. ray://head:10001 or auto); None = start a local one."
    )
    suite_options: dict[str, Any] = Field(default_factory=dict, description="Suite-only options (-S key=value).")
