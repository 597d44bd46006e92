"""Simulated trust on a 1-5 scale, moving as the paper's human study measured (App. G.5).

Each task the user notices is an aligned (A) or misaligned (M) intervention; trust moves by the
mean change the study observed for the transition from the previous intervention to this one:
A->A +0.17, A->M -1.86, M->A +1.27, M->M -0.44. The first intervention is read as following an
aligned one (the user starts out content). Values are clamped to [1, 5].
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

DELTA: dict[tuple[str, str], float] = {("A", "A"): 0.17, ("A", "M"): -1.86, ("M", "A"): 1.27, ("M", "M"): -0.44}
INITIAL = 4.0
LOW, HIGH = 1.0, 5.0


def step(value: float, previous: str, current: str) -> float:
    """Trust after an intervention labelled ``current`` (A or M) that follows ``previous``."""
    return round(min(HIGH, max(LOW, value + DELTA[(previous, current)])), 4)


class TrustPoint(BaseModel):
    """One move of the simulated trust."""

    at: datetime = Field(description="Simulated time of the move (the task's close).")
    task: str = Field(description="Task whose outcome the user noticed.")
    label: str = Field(description="A (aligned) or M (misaligned).")
    value: float = Field(description="Trust after the move.")


class TrustState(BaseModel):
    """The simulated user's current trust and how it got there."""

    value: float = Field(default=INITIAL, description="Current trust, 1-5.")
    last: str = Field(default="A", description="Label of the previous noticed intervention.")
    history: list[TrustPoint] = Field(default_factory=list, description="Every move, in order.")

    def observe(self, at: datetime, task: str, aligned: bool) -> float:
        label = "A" if aligned else "M"
        self.value = step(self.value, self.last, label)
        self.last = label
        self.history.append(TrustPoint(at=at, task=task, label=label, value=self.value))
        return self.value

    def at(self, t: datetime) -> float:
        """Trust as it stood at time t (after every move at or before t)."""
        v = INITIAL
        for p in self.history:
            if p.at <= t:
                v = p.value
        return v
