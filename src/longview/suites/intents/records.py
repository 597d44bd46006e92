"""What a cell leaves for scoring: one record per session, one per cell."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

IntentStatus = Literal["completed", "elicited", "provided", "open"]


class IntentOutcome(BaseModel):
    status: IntentStatus = Field(description="Terminal status (open: unresolved at the turn cap).")
    reply: int | None = Field(default=None, description="Agent reply (1-based) at which it got its status.")
    judged: bool = Field(default=True, description="Whether its completion could be judged: deterministic checks, "
                         "rule-script keys that test it, or a judge model. False: it counts in no PROC or status "
                         "share (its status is kept for the record).")


class CriterionOutcome(BaseModel):
    weight: float = Field(description="Weight.")
    kind: Literal["check", "rubric", "rule"] = Field(description="How it is judged.")
    met: bool | None = Field(description="Met in any turn; None when not judged (no judge model, no proxy).")
    by: str = Field(default="", description="Which judge decided.")
    reason: str = Field(default="", description="The judge model's reason, or why it is not judged / counted NO.")


class RubricInput(BaseModel):
    """What the rubric judge reads for one session, kept so `longview rescore` can judge it again."""

    payload: dict[str, Any] = Field(description="The input a rubric judge model is sent (profile, hidden requirements, "
                                    "criteria, conversation, tool calls, state at the session's end), built whether "
                                    "or not a model judged.")
    proxy: dict[str, bool] = Field(default_factory=dict, description="Rubric item id -> its embedded proxy's label "
                                   "(items with a proxy only), for the agreement of a model judge with the proxy.")
    turns: list[dict[str, Any]] = Field(default_factory=list, description="With -S rubric_turns=each: the same input "
                                        "as the session stood after each reply of the assistant (conversation, calls "
                                        "and state up to then), each graded on its own; empty otherwise.")


class SessionRecord(BaseModel):
    session_id: str
    depends_on: list[str] = Field(default_factory=list)
    intents: dict[str, IntentOutcome] = Field(default_factory=dict)
    criteria: dict[str, CriterionOutcome] = Field(default_factory=dict)
    replies: int = Field(default=0, description="Agent replies delivered to the user.")
    termination: str = Field(default="", description="Why the session ended.")
    agreement: list[tuple[str, bool, bool]] = Field(
        default_factory=list, description="(stage:intent, embedded label, model label) where both judged.")
    rule_errors: list[str] = Field(default_factory=list, description="Rule-script failures (criteria then undefined).")
    judge_missing: int = Field(default=0, description="Items a judge model left out of its verdict or answered "
                               "unparseably (each counted NO, as π-Bench's evaluator does).")
    tags: dict[str, str] = Field(default_factory=dict, description="Breakdown keys: task_type, category, difficulty.")
    rubric_input: RubricInput | None = Field(
        default=None, description="What the rubric judge reads (`longview rescore`); None when the session has no "
        "rubric item, for the rule-guided ceiling, and in runs made before longview kept it.")
    rubric_missing: int = Field(default=0, description="The part of judge_missing the rubric judge left out or garbled.")


class CellRecord(BaseModel):
    """The completion marker of one cell (agent x variant x persona x trial)."""

    agent: str
    variant: str
    unit: str
    trial: int = 0
    status: Literal["complete", "aborted"] = "complete"
    abort_reason: str | None = None
    judge: str = Field(default="embedded:checks+rules", description="Which intent judges ran.")
    rubric: str = Field(default="embedded:proxy", description="Which rubric judge ran.")
    sessions: list[SessionRecord] = Field(default_factory=list)
    not_run: str = Field(default="", description="Why this reference agent ran no session on this dataset "
                         "(its metrics are then undefined, never 0).")
