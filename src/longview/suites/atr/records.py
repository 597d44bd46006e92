"""What one ATR cell (agent x variant x persona) leaves behind for scoring.

A cell's record is written with its completion marker; the scorer reads only these records and
the episode, so a finished run can be re-scored without re-running anything.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from longview.kernel.agent import ToolCall


class AskRecord(BaseModel):
    """One Router-positive user-facing message in a learning session."""

    turn: int = Field(description="Assistant turn index within the session (0-based).")
    span: str = Field(description="The standing-rule question span the Router extracted.")
    rule_id: str | None = Field(description="Classifier verdict: matched rule id, or null for a miss.")


class LearningRecord(BaseModel):
    """Outcome of one learning session."""

    session_id: str = Field(description="Learning session id.")
    domain: str = Field(description="Tool domain.")
    termination: str = Field(description="Why the session ended (TerminationReason value).")
    turns: int = Field(description="Assistant turns taken.")
    asks: list[AskRecord] = Field(default_factory=list, description="Router-positive sends, in order.")


class TestRecord(BaseModel):
    """Outcome of one test session: the agent's tool-call batches, in order."""

    __test__ = False

    session_id: str = Field(description="Test session id.")
    rule_id: str = Field(description="The bound rule.")
    termination: str = Field(description="Why the session ended (TerminationReason value).")
    batches: list[list[ToolCall]] = Field(
        description="Domain tool calls of each assistant turn that made any, in order."
    )


class CellRecord(BaseModel):
    """Everything scored for one (agent, variant, persona) cell."""

    agent: str = Field(description="Agent name, e.g. ref:oracle or openai/gpt-5.4.")
    variant: str = Field(description="Variant name.")
    persona_id: str = Field(description="Persona (episode) id.")
    trial: int = Field(default=0, description="Trial index (0-based) when a cell is repeated.")
    status: Literal["complete", "aborted"] = Field(description="Aborted cells are never scored.")
    abort_reason: str | None = Field(default=None, description="Why the cell aborted.")
    learning: list[LearningRecord] = Field(default_factory=list, description="Learning sessions.")
    tests: list[TestRecord] = Field(default_factory=list, description="Test sessions.")
