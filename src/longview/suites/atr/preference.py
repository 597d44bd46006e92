"""Machine-applicable standing preferences and test-task frames (longview extensions).

ATRBench rules are natural language. For longview's built-in cohort each rule also carries a
structured :class:`Preference` (what a rule-aware policy does) and a structured counterfactual
default (what a rule-blind policy does), and each test session a :class:`TaskFrame` (how to carry
out the task apart from the rule-bound decision). Reference agents use them; LLM agents never see
them. Imported ATRBench episodes have none of these fields.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class Selector(BaseModel):
    """How a policy picks records among the candidates its discovery calls surfaced.

    Filter ops (eq, ne, contains, in) keep every record that passes; extreme ops (max, min) keep
    the best record only. ``then`` refines the survivors; remaining ties are broken by record id.
    The attribute name ``id`` means the record's own id (records never carry an ``id`` attribute).
    """

    attribute: str = Field(description="Key in the record's `attributes`, or `id` for the record id.")
    op: Literal["eq", "ne", "contains", "in", "max", "min"] = Field(
        description="eq/ne/contains/in keep records whose attribute equals / differs from / "
        "contains / is one of `value`; max/min take the record with the largest/smallest attribute."
    )
    value: Any = Field(default=None, description="Comparison value for eq/ne/contains/in.")
    then: Selector | None = Field(default=None, description="Refinement applied to the survivors.")


class Preference(BaseModel):
    """A behaviour a policy can execute: which tool, and how the decision slot is filled.

    With ``param`` set but neither ``value`` nor ``select``, the slot is left out of the call
    (the rule-blind default for optional enums such as ``seat_preference``).
    """

    tool: str = Field(description="The tool to call for the decision.")
    param: str | None = Field(default=None, description="The decision parameter, if any.")
    value: Any = Field(default=None, description="Fixed value for the decision parameter (enums).")
    select: Selector | None = Field(default=None, description="Object choice for *_id / *_ids slots.")
    confirm: bool = Field(default=False, description="Call get_user_confirmation for `tool` first.")


class Step(BaseModel):
    """One tool call of a plan or gold trajectory."""

    tool: str = Field(description="Tool name.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Call arguments.")


class TaskFrame(BaseModel):
    """Everything a reference policy needs to do a test task except the rule-bound decision."""

    discovery: list[Step] = Field(
        default_factory=list, description="READ calls that surface the candidate records."
    )
    candidate_type: str | None = Field(
        default=None, description="Reference type among which an object decision is made."
    )
    arguments: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="Base arguments per tool for the decision call, keyed by tool name; "
        "the policy adds the decision slot.",
    )
