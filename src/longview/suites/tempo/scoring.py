"""Per-run scores (App. E): TC, TA (+ continuation quality), TR-D, TR-J and the trust trajectory.

Deterministic components come from the world log; judged components (TC semantics and completion)
are None unless a judge supplied them — a missing judgment is never a pass or a fail.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from longview.suites.tempo.attribution import Credit, credit
from longview.suites.tempo.model import Scenario, Task
from longview.suites.tempo.text import about, contains
from longview.suites.tempo.world import TempoWorld


class TaskScore(BaseModel):
    """One active task's outcome."""

    task: str = Field(description="Task id.")
    kind: str = Field(description="Task kind.")
    weight: float = Field(description="v_t.")
    expected: str = Field(description="Expected depth for the persona.")
    chosen: str = Field(description="Depth the agent chose.")
    evidence: float | None = Field(default=None, description="Share of evidence records opened by the due time.")
    outputs: float | None = Field(default=None, description="Required outputs at the chosen depth.")
    constraints: float | None = Field(default=None, description="Share of content constraints met.")
    semantics: float | None = Field(default=None, description="Judged; None without a judge.")
    completion: float | None = Field(default=None, description="Judged; None without a judge.")
    tc: float | None = Field(default=None, description="Mean of the applicable, defined components.")
    trust: float = Field(description="Simulated trust at the task's close (embedded TR-J rating).")
    acts: list[int] = Field(default_factory=list, description="Credited world-log indices.")


class TAScore(BaseModel):
    """The decision window's outcome (App. E.3)."""

    now: bool = Field(description="The urgent task got attention inside the window.")
    later: bool = Field(description="The competing task was explicitly deferred and not done inside the window.")
    ta: float = Field(description="1 when now and later.")
    continuation: float = Field(description="1 concrete feasible plan, 0.5 vague, 0 none or infeasible.")


class RunScore(BaseModel):
    tasks: list[TaskScore] = Field(description="Active tasks.")
    ta: TAScore | None = Field(default=None, description="None when the window's tasks were not both active.")
    tc: float | None = None
    tr_d: float | None = None
    tr_j: float | None = None
    trust_final: float = 0.0
    uncredited: int = Field(default=0, description="Messages, requests and changes credited to no active task (noise).")


def _outputs(task: Task, expected: str, c: Credit, world: TempoWorld) -> float:
    acts = [world.log[i] for i in c.acts]
    if expected == "noop":
        return 1.0 if c.depth == "noop" else 0.0
    if c.depth == "execute":
        return 1.0 if any(a.kind == "execute" and a.ok for a in acts) else 0.0
    if c.depth == "suggest":
        if any(a.kind == "execute" and a.ok for a in acts):
            return 1.0
        reqs = [a for a in acts if a.kind == "request" and any(i.action == task.action for i in a.items)]
        if any(all(i.decision != "incomplete" for i in a.items if i.action == task.action) for a in reqs):
            return 1.0
        if task.output == "message" and any(a.kind in ("message", "request") for a in acts):
            return 1.0
        return 0.5  # presented without the explicit action list, or incompletely
    if c.depth == "prepare":
        return 1.0
    return 0.0


def _constraints(task: Task, c: Credit, world: TempoWorld) -> float | None:
    checks = len(task.include) + len(task.exclude)
    if not checks:
        return None
    text = "\n".join(world.log[i].text for i in c.acts)
    if not text:
        return 0.0
    ok = sum(contains(text, s) for s in task.include) + sum(not contains(text, s) for s in task.exclude)
    return ok / checks


def _evidence(task: Task, world: TempoWorld) -> float | None:
    if not task.evidence:
        return None
    read = {e.args.get("record_id") for e in world.log if e.kind == "read" and e.at <= task.due}
    return sum(r in read for r in task.evidence) / len(task.evidence)


def _mean(xs: list[float | None]) -> float | None:
    d = [x for x in xs if x is not None]
    return sum(d) / len(d) if d else None


def task_scores(scenario: Scenario, persona: str, world: TempoWorld) -> list[TaskScore]:
    credits = credit(scenario, world)
    out = []
    for tid, c in credits.items():
        t = scenario.task(tid)
        expected = t.depth[persona]
        ev, outp, con = _evidence(t, world), _outputs(t, expected, c, world), _constraints(t, c, world)
        close = world.closed.get(tid, t.due)
        out.append(TaskScore(task=tid, kind=t.kind, weight=t.weight, expected=expected, chosen=c.depth,
                             evidence=ev, outputs=outp, constraints=con, tc=_mean([ev, outp, con]),
                             trust=world.trust.at(close), acts=c.acts))
    return out


def ta_score(scenario: Scenario, world: TempoWorld, credits: dict[str, Credit] | None = None) -> TAScore | None:
    dw = scenario.decision_window
    if dw.urgent not in world.active or dw.competing not in world.active:
        return None
    credits = credits or credit(scenario, world)
    urgent, competing = scenario.task(dw.urgent), scenario.task(dw.competing)

    def inside(at: datetime) -> bool:
        return dw.start <= at < dw.end

    now = any(inside(world.log[i].at) for i in credits[urgent.id].acts)
    done_now = any(inside(world.log[i].at) and world.log[i].kind == "execute" for i in credits[competing.id].acts)
    deferrals = [e for e in world.log if e.kind in ("defer", "wakeup") and inside(e.at)
                 and any(about(e.text, k) for k in competing.keys)]
    later = bool(deferrals) and not done_now
    cq = 0.0
    for e in deferrals:
        if e.until is not None:
            q = 1.0 if dw.feasible_from <= e.until <= competing.due else 0.0
        else:
            q = 0.5 if e.text.strip() else 0.0
        cq = max(cq, q)
    if done_now:
        cq = 0.0
    return TAScore(now=now, later=later, ta=float(now and later), continuation=cq)


def score_run(scenario: Scenario, persona: str, world: TempoWorld) -> RunScore:
    tasks = task_scores(scenario, persona, world)
    weighted = [(t.weight, t.tc) for t in tasks if t.tc is not None]
    tc = sum(w * v for w, v in weighted) / sum(w for w, _ in weighted) if weighted else None
    credited = {i for t in tasks for i in t.acts}
    noise = sum(1 for i, e in enumerate(world.log) if e.kind in ("message", "request", "execute") and i not in credited)
    return RunScore(
        uncredited=noise,
        tasks=tasks,
        ta=ta_score(scenario, world),
        tc=tc,
        tr_d=sum(t.chosen == t.expected for t in tasks) / len(tasks) if tasks else None,
        tr_j=sum(t.trust for t in tasks) / len(tasks) if tasks else None,
        trust_final=world.trust.value,
    )
