"""Which agent acts belong to which task, and at what intervention depth (App. E.1, E.4).

An act is credited to an active task when it falls inside the task's window (activation .. due) and
is about it: an executed or proposed change that is the task's catalog action (or a member of its
joint group), or a note, message
or deferral that contains one of the task's keys. An executed or proposed change is credited to one
task only (the earliest-activated eligible one); notes and messages may cover several tasks.

Depth of one act: a note is *prepare*; a message or an approval request is *suggest*; a change
made under an approval the user gave is *suggest* too (the user decided); any other attempted
change, authorised by delegation or not, failed or not, is *execute*. A task's chosen depth is the
deepest act credited to it; *noop* when none is.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from longview.suites.tempo.model import DEPTH_ORDER, Scenario, Task
from longview.suites.tempo.text import about as key_in
from longview.suites.tempo.world import LogEntry, TempoWorld


class Credit(BaseModel):
    """Acts credited to one task."""

    task: str = Field(description="Task id.")
    acts: list[int] = Field(default_factory=list, description="Indices into the world log.")
    depth: str = Field(default="noop", description="Chosen depth.")


def window(world: TempoWorld, task: Task) -> tuple[datetime, datetime]:
    return world.active[task.id], task.due


def about(entry: LogEntry, task: Task) -> bool:
    return any(key_in(entry.text, k) for k in task.keys)


def act_depth(entry: LogEntry) -> str:
    if entry.kind == "note":
        return "prepare"
    if entry.kind in ("message", "request"):
        return "suggest"
    if entry.kind == "execute":
        return "suggest" if entry.authorised_by == "approval" else "execute"
    return "noop"


def task_actions(scenario: Scenario, task: Task) -> set[str]:
    """The task's catalog action and the members of its joint group."""
    if task.action is None:
        return set()
    spec = scenario.action(task.action)
    return {spec.id} | ({a.id for a in scenario.actions if a.joint == spec.joint} if spec.joint else set())


def credit(scenario: Scenario, world: TempoWorld, until: datetime | None = None) -> dict[str, Credit]:
    """Credits for every active task (optionally only acts up to ``until``)."""
    tasks = sorted((t for t in scenario.tasks if t.id in world.active), key=lambda t: (world.active[t.id], t.id))
    out = {t.id: Credit(task=t.id) for t in tasks}
    acts = {t.id: task_actions(scenario, t) for t in tasks}
    for i, e in enumerate(world.log):
        if until is not None and e.at > until:
            break
        if e.kind in ("read", "defer", "wakeup"):
            continue
        live = [t for t in tasks if world.active[t.id] <= e.at <= t.due]
        if e.kind == "execute":
            hit = next((t for t in live if e.action in acts[t.id]), None)
            if hit:
                out[hit.id].acts.append(i)
        elif e.kind == "request":
            used: set[str] = set()
            for item in e.items:
                hit = next((t for t in live if item.action in acts[t.id] and t.id not in used), None)
                if hit:
                    used.add(hit.id)
                    out[hit.id].acts.append(i)
            for t in live:  # a request's message may also mention other tasks
                if t.id not in used and about(e, t):
                    out[t.id].acts.append(i)
        else:
            for t in live:
                if about(e, t):
                    out[t.id].acts.append(i)
    for c in out.values():
        depths = [act_depth(world.log[i]) for i in c.acts]
        c.depth = max(depths, key=DEPTH_ORDER.__getitem__, default="noop")
    return out
