"""What a tempo cell leaves behind: the completion record the harness stores, and per-run files."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from longview.suites.tempo.metrics import RunScore
from longview.suites.tempo.trust import TrustPoint


class RunRecord(BaseModel):
    """One complete run of a scenario for one persona."""

    repeat: int = Field(description="Repeat index within the cell.")
    score: RunScore = Field(description="Per-run scores.")
    trust: list[TrustPoint] = Field(description="Simulated trust at each checkpoint.")
    activations: int = Field(description="Times the agent was woken.")
    conflicts: list[dict[str, Any]] = Field(default_factory=list, description="User workloads left short by agent jobs.")
    judge: dict[str, Any] | None = Field(default=None, description="Model judges of this run: names and per-judge run-level TC, TR-J and TA (for agreement).")


class TempoCellResult(BaseModel):
    """The cell's completion record: identity plus every run."""

    status: str = Field(description="complete or aborted.")
    abort_reason: str | None = Field(default=None, description="Why it aborted.")
    agent: str = Field(description="Agent name.")
    variant: str = Field(description="Variant.")
    unit: str = Field(description="scenario:persona.")
    trial: int = Field(default=0, description="Trial index.")
    scenario: str = Field(description="Scenario id.")
    persona: str = Field(description="Persona id.")
    judges: list[str] = Field(default_factory=list, description="Judging components used.")
    runs: list[RunRecord] = Field(default_factory=list, description="Runs (repeats).")
