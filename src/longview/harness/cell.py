"""The unit of work a run tracks (a cell), what a suite's dataset and cell result must offer."""

from __future__ import annotations

from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field


class Dataset(Protocol):
    """What the harness needs of a loaded, validated dataset."""

    name: str  # the spec it was loaded from: builtin, a path, importer:PATH
    sha256: str  # hash of its content; a run refuses to re-score a changed dataset

    def unit_ids(self) -> list[str]:
        """Replication units (personas, users, scenarios), in a stable order."""
        ...


class Cell(BaseModel):
    """One unit of work the run store tracks: agent x variant x unit x trial."""

    model_config = ConfigDict(frozen=True)

    agent: str = Field(description="Reference agent (ref:...) or model string (provider/model).")
    variant: str = Field(description="Variant or condition.")
    unit: str = Field(description="Replication unit id (persona, user, scenario).")
    trial: int = Field(default=0, description="Trial index, 0-based.")

    @property
    def key(self) -> str:
        base = f"{self.agent}__{self.variant}__{self.unit}"
        return f"{base}__t{self.trial}" if self.trial else base


class CellResult(BaseModel):
    """The least a cell's result holds; a suite's result model subclasses it or has these fields.
    It is written as the cell's completion marker."""

    status: str = Field(default="complete", description="complete or aborted; aborted cells are never scored.")
    abort_reason: str | None = Field(default=None, description="Why the cell aborted.")


class SessionOutcome(BaseModel):
    """One session's outcome, for reports (failed sessions link to their transcripts)."""

    outcome: Literal["pass", "fail"] | None = Field(default=None, description="None: the session is not scored alone.")
    labels: dict[str, str] = Field(default_factory=dict, description="Buckets it counts in (domain, check type...).")
    reason: str = Field(default="", description="Why it passed or failed, in one line.")


class CellOutcomes(BaseModel):
    """``cells/<cell>/outcomes.json``: the suite's verdict on each session of one finished cell,
    stored when the run is scored, so a report reads them instead of scoring again."""

    sessions: dict[str, SessionOutcome] = Field(default_factory=dict, description="Session id -> its outcome.")
    error: str | None = Field(default=None, description="Why the suite could not give them (then sessions is empty).")
