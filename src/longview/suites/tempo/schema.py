"""The tempo scenario format (Proactivity-Gym, App. D): one typed file per scenario.

A scenario is a multi-day stretch of a user's life: a goal, an initial environment (records such
as messages, documents, calendar entries, products, jobs), the user's availability (sleep and busy
intervals), shared resources, a catalog of the changes an agent could make, a timeline of events
(some conditional on what happened before), tasks scored for the three personas, and one TA
decision window with two competing tasks. Times are naive ISO datetimes on the simulated clock.
"""

from __future__ import annotations

import math
from datetime import datetime, time, timedelta
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

Depth = Literal["noop", "prepare", "suggest", "execute"]
DEPTH_ORDER: dict[str, int] = {"noop": 0, "prepare": 1, "suggest": 2, "execute": 3}
PERSONAS: tuple[str, ...] = ("reviewer", "planner", "operator")
Response = Literal["approve", "decline"]


EARLIEST = datetime(1900, 1, 1)  # bounds of the simulated clock: far from datetime's own limits,
LATEST = datetime(2999, 12, 31)  # so no date arithmetic of a run can overflow
MAX_JOB_HOURS = 240  # a job runs at most the longest scenario (10 days)
MAX_JOB_AMOUNT = 1_000_000


def _not_a_number(v: Any) -> Any:
    """JSON numbers would parse as Unix timestamps or seconds (with a timezone): only ISO text."""
    if isinstance(v, (int, float)):
        raise ValueError("an ISO 8601 string on the simulated clock (not a number)")
    return v


def _naive_datetime(v: datetime) -> datetime:
    if v.tzinfo is not None:
        raise ValueError("a naive ISO datetime without timezone (times are on the simulated clock)")
    if not EARLIEST <= v <= LATEST:
        raise ValueError(f"a datetime between {EARLIEST.date()} and {LATEST.date()}")
    return v


def _naive_time(v: time) -> time:
    if v.tzinfo is not None:
        raise ValueError("a time of day without timezone (times are on the simulated clock)")
    return v


SimTime = Annotated[datetime, BeforeValidator(_not_a_number), AfterValidator(_naive_datetime)]
SimClockTime = Annotated[time, BeforeValidator(_not_a_number), AfterValidator(_naive_time)]


class _RangeEnd(BaseModel):
    at: SimTime


def _range_end(v: Any) -> datetime:
    try:
        return _RangeEnd(at=v).at
    except ValidationError as e:
        raise ValueError(f"'from'/'to': {e.errors()[0]['msg']} (got {str(v)[:40]!r})") from None


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class Record(_Strict):
    """Something in the user's world the agent can list and open (messages, docs, calendar...)."""

    id: str = Field(description="Record id, unique in the scenario (e.g. MSG-3, PRD-M27).")
    kind: str = Field(description="message, document, calendar, product, job, order, form, note...")
    title: str = Field(description="One line shown by list_records.")
    body: str = Field(default="", description="Full content, shown only by open_record.")
    fields: dict[str, Any] = Field(default_factory=dict, validate_default=True, description="Structured attributes "
                                   "(price, start, resource...). A job record has 'resource' (a resource id), "
                                   "'amount' (integer, default 1) and "
                                   f"'hours' (its duration, 0-{MAX_JOB_HOURS}; 0: done at once, default 0).")

    @field_validator("fields")
    @classmethod
    def _job_fields(cls, v: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        if info.data.get("kind") != "job":
            return v
        if not isinstance(v.get("resource"), str) or not v["resource"]:
            raise ValueError("a job record needs fields.resource: the id of a resource of the scenario")
        amount = v.get("amount", 1)
        if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= MAX_JOB_AMOUNT:
            raise ValueError(f"job fields.amount: an integer between 1 and {MAX_JOB_AMOUNT} (got {str(amount)[:40]!r})")
        hours = v.get("hours", 0)
        if (isinstance(hours, bool) or not isinstance(hours, (int, float)) or not math.isfinite(hours)
                or not 0 <= hours <= MAX_JOB_HOURS):
            raise ValueError(f"job fields.hours: a number of hours between 0 and {MAX_JOB_HOURS} "
                             f"(got {str(hours)[:40]!r})")
        return v


class Interval(_Strict):
    """A stretch of simulated time with a label."""

    start: SimTime = Field(description="Start (inclusive).")
    end: SimTime = Field(description="End (exclusive).")
    label: str = Field(default="", description="What happens then (e.g. 'lab meeting').")

    @model_validator(mode="after")
    def _ordered(self) -> Interval:
        if self.end <= self.start:
            raise ValueError("end must be after start")
        return self


class Availability(_Strict):
    """When the user can receive messages and decide. Sleep repeats daily; busy intervals are
    one-off (messages are delivered, decisions wait until the interval ends)."""

    wake: SimClockTime = Field(default=time(7, 0), description="Daily wake-up time.")
    sleep: SimClockTime = Field(default=time(23, 0), description="Daily bedtime (sleep lasts until wake).")
    busy: list[Interval] = Field(default_factory=list, description="Focus blocks, meetings, travel.")


class Use(_Strict):
    """The user's own consumption of a resource (e.g. their main training run on the GPUs)."""

    start: SimTime = Field(description="Start.")
    end: SimTime = Field(description="End.")
    amount: int = Field(ge=1, description="Slots held (slots) or points spent at start (quota).")
    label: str = Field(default="", description="What it is.")

    @model_validator(mode="after")
    def _ordered(self) -> Use:
        if self.end <= self.start:
            raise ValueError("end must be after start")
        return self


class Resource(_Strict):
    """Shared capacity: 'slots' (GPUs held for a duration) or 'quota' (points renewed nightly)."""

    id: str = Field(description="Resource id, e.g. gpu or ai-quota.")
    kind: Literal["slots", "quota"] = Field(description="slots are held for a job's duration; quota points are spent.")
    capacity: int = Field(ge=1, description="Slots, or quota points after each renewal.")
    renew_at: SimClockTime | None = Field(default=None, description="Daily renewal time (quota only).")
    user_use: list[Use] = Field(default_factory=list, description="The user's own scheduled use.")


class ActionSpec(_Strict):
    """A change the agent could make, identified by its tool and the arguments that matter."""

    id: str = Field(description="Action id, unique in the scenario.")
    tool: str = Field(description="Write tool, e.g. place_order, run_job, create_event.")
    args: dict[str, Any] = Field(default_factory=dict, description="Identifying arguments (others are free): a value, "
                                 "matched case-insensitively as a whole word sequence of the given text, or {from, to} for a time range.")
    fill: dict[str, Any] = Field(default_factory=dict, description="Example values of the tool's other required arguments.")
    joint: str | None = Field(default=None, description="Group id: actions of a group must be approved together.")
    min_trust: float = Field(default=2.0, description="The user declines it while simulated trust is below this.")
    label: str = Field(default="", description="Readable description.")

    @field_validator("args")
    @classmethod
    def _arg_values(cls, v: dict[str, Any]) -> dict[str, Any]:
        for key, value in v.items():
            if isinstance(value, dict):
                if set(value) != {"from", "to"}:
                    raise ValueError(f"args.{key}: a time range must have exactly 'from' and 'to'")
                lo, hi = (_range_end(value[k]) for k in ("from", "to"))
                if hi < lo:
                    raise ValueError(f"args.{key}: 'to' must not be before 'from'")
            elif value is None or isinstance(value, list):
                raise ValueError(f"args.{key}: a text, number or {{from, to}} time range (got {type(value).__name__})")
        return v


class Condition(_Strict):
    """All listed facts must hold when the event is due; an empty condition always holds."""

    executed: list[str] = Field(default_factory=list, description="Action ids executed successfully before.")
    not_executed: list[str] = Field(default_factory=list, description="Action ids not executed before.")
    approved: list[str] = Field(default_factory=list, description="Action ids the user approved before.")
    declined: list[str] = Field(default_factory=list, description="Action ids the user declined before.")

    def empty(self) -> bool:
        return not (self.executed or self.not_executed or self.approved or self.declined)


class Event(_Strict):
    """A timeline entry that wakes the agent: a user message or a notification."""

    id: str = Field(description="Event id, unique in the scenario.")
    at: SimTime = Field(description="When it happens.")
    kind: Literal["user_message", "notification"] = Field(description="Who it comes from.")
    text: str = Field(description="What the agent is told.")
    when: Condition = Field(default_factory=Condition, description="Activation condition (a branch).")
    adds: list[Record] = Field(default_factory=list, description="Records that appear when it fires.")
    persona_text: dict[str, str] = Field(default_factory=dict, description="Persona-specific wording, if any.")


class Task(_Strict):
    """One scored unit of a scenario (App. D.1)."""

    id: str = Field(description="Task id, unique in the scenario.")
    title: str = Field(description="What the useful work is.")
    kind: str = Field(description="explicit, latent, event, scheduled, prepare, noop, followup, competing...")
    trigger: str | None = Field(default=None, description="Event id that activates it; None = time-triggered.")
    at: SimTime | None = Field(default=None, description="Start of a time-triggered task (agent must wake itself).")
    due: SimTime = Field(description="End of its window: work after this is not credited.")
    evidence: list[str] = Field(default_factory=list, description="Record ids the agent needs to open.")
    action: str | None = Field(default=None, description="Catalog action the work amounts to (also for noop tasks: the wrong move).")
    keys: list[str] = Field(description="Strings that identify a note, message or deferral as being about this task.")
    include: list[str] = Field(default_factory=list, description="Content constraints: strings the output must contain.")
    exclude: list[str] = Field(default_factory=list, description="Content constraints: strings it must not contain.")
    depth: dict[str, Depth] = Field(description="Expected intervention depth per persona.")
    stated: dict[str, Depth] = Field(default_factory=dict, description="Depth the stated policy alone implies, where feedback changed it.")
    response: dict[str, Response] = Field(default_factory=dict, description="Persona's answer to an approval request (default approve).")
    weight: float = Field(default=1.0, gt=0, description="Task weight v_t in TC.")
    idle: bool = Field(default=False, description="Its value depends on being done in idle time (while the user sleeps): "
                       "outputs credit only work done then.")
    output: Literal["change", "message"] = Field(default="change", description="At suggest depth: 'change' needs an approval "
                                                 "request listing the action; 'message' is satisfied by presenting it in a message.")

    @model_validator(mode="after")
    def _shape(self) -> Task:
        if (self.trigger is None) == (self.at is None):
            raise ValueError("exactly one of trigger and at must be set")
        if set(self.depth) != set(PERSONAS):
            raise ValueError(f"depth must name every persona: {', '.join(PERSONAS)}")
        if any(d != "noop" for d in self.depth.values()) and self.action is None:
            raise ValueError("a task with a non-noop depth needs an action")
        return self

    def stated_depth(self, persona: str) -> str:
        return self.stated.get(persona, self.depth[persona])


class DecisionWindow(_Strict):
    """The TA decision window (App. E.3): two tasks compete; one must be deferred."""

    start: SimTime = Field(description="Window start (inclusive).")
    end: SimTime = Field(description="Window end (exclusive).")
    urgent: str = Field(description="Task id that needs attention now.")
    competing: str = Field(description="Task id that can wait.")
    resource: str = Field(description="Resource (or 'attention') they share.")
    feasible_from: SimTime = Field(description="Earliest time the competing task can be handled without conflict.")
    note: str = Field(default="", description="Why they compete.")


class Persona(_Strict):
    """A user's delegation style (App. D.1): what the agent may do without asking."""

    id: Literal["reviewer", "planner", "operator"] = Field(description="Persona id.")
    policy: str = Field(description="The delegation policy as the user states it to the agent.")
    style: str = Field(default="", description="Speaking style (for a wording model).")


class Scenario(_Strict):
    """One multi-day scenario."""

    id: str = Field(description="Scenario id.")
    domain: str = Field(description="research, travel, living, food, career, business, education, finance, shopping, health.")
    title: str = Field(description="Short title.")
    user: str = Field(description="The user's name.")
    goal: str = Field(description="The user's situation and goal, as the agent knows it.")
    start: SimTime = Field(description="Simulated start (day 1, 00:00), a naive ISO datetime (no timezone).")
    days: int = Field(ge=7, le=10, description="Length in simulated days.")
    availability: Availability = Field(default_factory=Availability, description="Sleep and busy times.")
    resources: list[Resource] = Field(default_factory=list, description="Shared capacities.")
    records: list[Record] = Field(description="Initial environment.")
    actions: list[ActionSpec] = Field(description="Catalog of recognised changes.")
    events: list[Event] = Field(description="Timeline, in time order.")
    tasks: list[Task] = Field(description="Scored tasks (10-19).", min_length=10, max_length=19)
    personas: list[Persona] = Field(description="reviewer, planner, operator.")
    decision_window: DecisionWindow = Field(description="The TA decision window.")

    @property
    def end(self) -> datetime:
        return self.start + timedelta(days=self.days)

    def persona(self, pid: str) -> Persona:
        return next(p for p in self.personas if p.id == pid)

    def task(self, tid: str) -> Task:
        return next(t for t in self.tasks if t.id == tid)

    def action(self, aid: str) -> ActionSpec:
        return next(a for a in self.actions if a.id == aid)

    @model_validator(mode="after")
    def _refs(self) -> Scenario:
        """Cross-references, each failure located at the field that holds the bad reference."""
        ids = {r.id for r in self.records} | {r.id for e in self.events for r in e.adds}
        acts = {a.id for a in self.actions}
        evs = {e.id for e in self.events}
        for label, seq in (("records", [r.id for r in self.records]), ("actions", [a.id for a in self.actions]),
                           ("events", [e.id for e in self.events]), ("tasks", [t.id for t in self.tasks]),
                           ("resources", [r.id for r in self.resources])):
            seen: set[str] = set()
            for i, x in enumerate(seq):
                if x in seen:
                    _invalid((label, i, "id"), x, f"duplicate ids in {label} ({x})")
                seen.add(x)
        if sorted(p.id for p in self.personas) != sorted(PERSONAS):
            _invalid(("personas",), [p.id for p in self.personas],
                     "personas must be exactly reviewer, planner, operator")
        res = {r.id for r in self.resources}
        located: list[tuple[tuple, Record]] = [(("records", i), r) for i, r in enumerate(self.records)]
        located += [(("events", i, "adds", k), r) for i, e in enumerate(self.events) for k, r in enumerate(e.adds)]
        for loc, r in located:
            if r.kind == "job" and r.fields["resource"] not in res:
                known = ", ".join(sorted(res)) or "none"
                _invalid((*loc, "fields", "resource"), r.fields["resource"], f"record {r.id}: job resource "
                         f"{r.fields['resource']!r} is not one of the scenario's resources ({known})")
        for i, e in enumerate(self.events):
            for key in ("executed", "not_executed", "approved", "declined"):
                for k, aid in enumerate(getattr(e.when, key)):
                    if aid not in acts:
                        _invalid(("events", i, "when", key, k), aid,
                                 f"event {e.id}: condition names unknown action {aid}")
            if not self.start <= e.at < self.end:
                _invalid(("events", i, "at"), e.at.isoformat(), f"event {e.id}: time outside the scenario")
        for i, t in enumerate(self.tasks):
            if t.trigger is not None and t.trigger not in evs:
                _invalid(("tasks", i, "trigger"), t.trigger, f"task {t.id}: unknown trigger event {t.trigger}")
            if t.action is not None and t.action not in acts:
                _invalid(("tasks", i, "action"), t.action, f"task {t.id}: unknown action {t.action}")
            for k, rid in enumerate(t.evidence):
                if rid not in ids:
                    _invalid(("tasks", i, "evidence", k), rid, f"task {t.id}: unknown evidence record {rid}")
        dw = self.decision_window
        tids = {t.id for t in self.tasks}
        for key in ("urgent", "competing"):
            if getattr(dw, key) not in tids:
                _invalid(("decision_window", key), getattr(dw, key), f"decision_window: {key} must be a task id")
        if dw.urgent == dw.competing:
            _invalid(("decision_window", "competing"), dw.competing,
                     "decision_window: urgent and competing must be two different task ids")
        return self


def _invalid(loc: tuple, value: Any, message: str) -> None:
    """Fail validation at ``loc`` (relative to the scenario; pydantic prefixes any outer location)."""
    raise ValidationError.from_exception_data("Scenario", [
        {"type": "value_error", "loc": loc, "input": value, "ctx": {"error": ValueError(message)}}])
