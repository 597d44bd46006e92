"""The mutable state of one run: records, the action log, approval requests, deliveries, jobs,
activated tasks and the simulated user's trust. Everything a scorer reads is in here."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field

from longview.kernel.state import WorldState
from longview.suites.tempo.schema import ActionSpec, Record, Scenario
from longview.suites.tempo.trust import TrustState

LogKind = Literal["read", "note", "message", "request", "execute", "defer", "wakeup"]


class ActionItem(BaseModel):
    """One proposed action inside an approval request, and what the user decided for it."""

    tool: str = Field(description="Tool the agent proposes to call.")
    args: dict[str, Any] = Field(default_factory=dict, description="Arguments it proposes.")
    action: str | None = Field(default=None, description="Catalog action it was recognised as, if any.")
    decision: str | None = Field(default=None, description="approve, decline, unrecognised, incomplete; None while undecided.")
    reason: str = Field(default="", description="Why.")


class LogEntry(BaseModel):
    """One agent act, stamped with simulated time."""

    at: datetime = Field(description="Simulated time.")
    kind: LogKind = Field(description="What kind of act.")
    session: str = Field(default="", description="Activation (session) id.")
    tool: str = Field(default="", description="Tool or control name.")
    args: dict[str, Any] = Field(default_factory=dict, description="Arguments.")
    text: str = Field(default="", description="Text the act carries (note body, message, request message, plan).")
    action: str | None = Field(default=None, description="Catalog action (execute).")
    authorised_by: str | None = Field(default=None, description="delegated, approval, or None (unauthorised).")
    ok: bool = Field(default=True, description="Whether it took effect.")
    error: str | None = Field(default=None, description="Why not.")
    request: str | None = Field(default=None, description="Approval request id (request).")
    items: list[ActionItem] = Field(default_factory=list, description="Proposed actions (request).")
    until: datetime | None = Field(default=None, description="Deferral target or wake-up time.")


class ApprovalRequest(BaseModel):
    """An approval request and its decision, decided by the user simulator's state machine."""

    id: str = Field(description="Request id (R1, R2...).")
    at: datetime = Field(description="When the agent sent it.")
    message: str = Field(description="The agent's message.")
    items: list[ActionItem] = Field(description="Proposed actions, each with its decision.")
    state: Literal["pending", "deferred", "decided"] = Field(description="pending while asleep, deferred while busy.")
    decide_at: datetime = Field(description="When the user decides (or decided).")
    reply: str = Field(default="", description="The user's reply once decided.")


class Delivery(BaseModel):
    """A message to the user and when they actually receive it."""

    sent: datetime = Field(description="When the agent sent it.")
    delivered: datetime = Field(description="When the user receives it (next available time).")
    text: str = Field(description="Message.")
    kind: str = Field(default="message", description="message or request.")


class Job(BaseModel):
    """Agent work holding or spending a resource."""

    job: str = Field(description="Job record id.")
    resource: str = Field(description="Resource id.")
    amount: int = Field(description="Slots held or points spent.")
    start: datetime = Field(description="Start.")
    end: datetime = Field(description="End (slots); equal to start for quota.")


class Wakeup(BaseModel):
    """A wake-up the agent scheduled for itself."""

    at: datetime = Field(description="When.")
    note: str = Field(description="What for.")
    set_at: datetime = Field(description="When it was scheduled.")


class UserLine(BaseModel):
    """Something the user said or answered (what a TR-J judge sees of the user's side)."""

    at: datetime = Field(description="Simulated time.")
    kind: str = Field(description="message (the user's own), feedback, or reply (to an approval request).")
    text: str = Field(description="What the user said.")


class TempoWorld(WorldState):
    """All state of one run."""

    records: dict[str, Record] = Field(default_factory=dict, description="Records by id.")
    log: list[LogEntry] = Field(default_factory=list, description="Every agent act, in order.")
    requests: list[ApprovalRequest] = Field(default_factory=list, description="Approval requests.")
    deliveries: list[Delivery] = Field(default_factory=list, description="Messages and when they arrive.")
    jobs: list[Job] = Field(default_factory=list, description="Agent jobs.")
    wakeups: list[Wakeup] = Field(default_factory=list, description="Scheduled wake-ups.")
    fired: dict[str, datetime] = Field(default_factory=dict, description="Event id -> when it fired.")
    skipped: dict[str, datetime] = Field(default_factory=dict, description="Conditional events whose branch was not taken.")
    active: dict[str, datetime] = Field(default_factory=dict, description="Task id -> activation time.")
    closed: dict[str, datetime] = Field(default_factory=dict, description="Task id -> close time.")
    trust: TrustState = Field(default_factory=TrustState, description="Simulated trust.")
    said: list[UserLine] = Field(default_factory=list, description="The user's messages, feedback and replies, in order.")
    counter: int = Field(default=0, description="Last number used for a new id.")

    @classmethod
    def initial(cls, scenario: Scenario) -> TempoWorld:
        return cls(records={r.id: r.model_copy(deep=True) for r in scenario.records})

    def user_said(self, at: datetime, kind: str, text: str) -> None:
        """Keep what the user said, and make the user's own messages and feedback records the agent
        can list and reopen in later activations (the briefing holds only recent acts)."""
        self.said.append(UserLine(at=at, kind=kind, text=text))
        if kind in ("message", "feedback"):
            rid = self.new_id("USR-")
            title = ("Feedback: " if kind == "feedback" else "User: ") + " ".join(text.split())[:80]
            self.records[rid] = Record(id=rid, kind="user_message", title=title, body=text,
                                       fields={"at": at.isoformat(), "from": "user"})

    def new_id(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    # ---- facts branches and the approval machine read --------------------------------------

    def executed(self, action: str, before: datetime) -> bool:
        return any(e.kind == "execute" and e.ok and e.action == action and e.at <= before for e in self.log)

    def decisions(self, action: str, before: datetime) -> list[str]:
        """Decisions the user took on ``action`` before ``before``, oldest first."""
        out = []
        for r in self.requests:
            if r.state == "decided" and r.decide_at <= before:
                out += [i.decision for i in r.items if i.action == action and i.decision in ("approve", "decline")]
        return out  # type: ignore[return-value]

    def approved(self, action: str, at: datetime) -> bool:
        d = self.decisions(action, at)
        return bool(d) and d[-1] == "approve"


# ---- matching a proposed or executed call to the catalog -----------------------------------


def _norm(v: Any) -> Any:
    if isinstance(v, str):
        s = v.strip()
        try:
            return datetime.fromisoformat(s.replace("Z", "")).replace(tzinfo=None)
        except ValueError:
            return " ".join(s.casefold().split())
    return v


def arg_matches(expected: Any, given: Any) -> bool:
    """One identifying argument: a {"from", "to"} range for times; for text, equal or contained as a
    whole word sequence ("flatmate" in "my flatmate Sam", but "ITEM-1" not in "ITEM-10"); else equal."""
    if isinstance(expected, dict) and set(expected) == {"from", "to"}:
        g = _norm(given) if isinstance(given, str) else None
        lo, hi = _norm(str(expected["from"])), _norm(str(expected["to"]))
        return isinstance(g, datetime) and lo <= g <= hi
    e, g = _norm(expected), _norm(given)
    if isinstance(e, str) and isinstance(g, str):
        return e == g or re.search(r"(?<![\w-])" + re.escape(e) + r"(?![\w-])", g) is not None
    return e == g


def match_action(actions: list[ActionSpec], tool: str, args: dict[str, Any]) -> ActionSpec | None:
    """The catalog action a call is, when its tool is the same and every identifying argument matches."""
    for a in actions:
        if a.tool == tool and all(k in args and arg_matches(v, args[k]) for k, v in a.args.items()):
            return a
    return None


# ---- resources ------------------------------------------------------------------------------


def last_renewal(scenario: Scenario, rid: str, t: datetime) -> datetime:
    res = next(r for r in scenario.resources if r.id == rid)
    if res.renew_at is None:
        return scenario.start
    day = t.replace(hour=res.renew_at.hour, minute=res.renew_at.minute, second=0, microsecond=0)
    if day > t:
        day -= timedelta(days=1)
    return max(day, scenario.start)


def resource_free(scenario: Scenario, world: TempoWorld, rid: str, t: datetime) -> int:
    """Slots free at t, or quota points left at t."""
    res = next(r for r in scenario.resources if r.id == rid)
    if res.kind == "slots":
        used = sum(u.amount for u in res.user_use if u.start <= t < u.end)
        used += sum(j.amount for j in world.jobs if j.resource == rid and j.start <= t < j.end)
        return res.capacity - used
    since = last_renewal(scenario, rid, t)
    spent = sum(u.amount for u in res.user_use if since <= u.start <= t)
    spent += sum(j.amount for j in world.jobs if j.resource == rid and since <= j.start <= t)
    return res.capacity - spent


def conflicts(scenario: Scenario, world: TempoWorld) -> list[dict[str, Any]]:
    """The user's own workloads that agent jobs left short of capacity."""
    out = []
    for res in scenario.resources:
        for u in res.user_use:
            if res.kind == "slots":
                agent = sum(j.amount for j in world.jobs if j.resource == res.id and j.start <= u.start < j.end)
                other = sum(v.amount for v in res.user_use if v is not u and v.start <= u.start < v.end)
                short = agent and other + agent + u.amount > res.capacity
            else:
                short = resource_free(scenario, world, res.id, u.start) < 0
                agent = any(j.resource == res.id for j in world.jobs)
            if short and agent:
                out.append({"resource": res.id, "at": u.start.isoformat(), "label": u.label})
    return out
