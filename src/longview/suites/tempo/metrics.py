"""Per-run scores (App. E): TC (rule components; all five when judged), TA (+ continuation quality),
TR-D, the simulated trust (``trust_sim``) and the costs of attention.

Deterministic components come from the world log; judged ones (TC semantics and completion, TR-J,
a model TA verdict) are None unless a judge supplied a verified verdict — a missing judgment is
never a pass or a fail.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from pydantic import BaseModel, Field

from longview.suites.tempo import timing
from longview.suites.tempo.attribution import Credit, credit, task_actions
from longview.suites.tempo.deferral import deferrals
from longview.suites.tempo.schema import Scenario, Task
from longview.suites.tempo.text import contains
from longview.suites.tempo.trust import CHECKPOINT_DAYS
from longview.suites.tempo.world import TempoWorld


class TaskScore(BaseModel):
    """One active task's outcome."""

    task: str = Field(description="Task id.")
    kind: str = Field(description="Task kind.")
    weight: float = Field(description="v_t.")
    expected: str = Field(description="Expected depth for the persona.")
    chosen: str = Field(description="Depth the agent chose.")
    evidence: float | None = Field(default=None, description="Share of the needed records opened before the task's work "
                                   "(0 when no work was credited; by the due time for a NOOP abstention).")
    outputs: float | None = Field(default=None, description="Required outputs at the chosen depth.")
    constraints: float | None = Field(default=None, description="Share of content constraints met.")
    semantics: float | None = Field(default=None, description="Judged (mean of the judges); None when not judged.")
    completion: float | None = Field(default=None, description="Judged (mean of the judges); None when not judged.")
    tc_rules: float | None = Field(default=None, description="Mean of the applicable rule components (evidence, outputs, constraints).")
    tc: float | None = Field(default=None, description="Mean of all five components; only when both judged ones are defined.")
    trust: float = Field(description="Simulated trust at the task's close (trust_sim, not TR-J).")
    tr_j: float | None = Field(default=None, description="Judges' five-construct rating at the task's close (Eq. 8); None offline.")
    trj_ratings: dict[str, dict[str, float]] = Field(default_factory=dict, description="Judge -> construct -> rating (1-5).")
    acts: list[int] = Field(default_factory=list, description="Credited world-log indices.")
    reports: list[int] = Field(default_factory=list, description="World-log indices of reports about the task (no depth).")


class TAScore(BaseModel):
    """The decision window's outcome (App. E.3)."""

    now: bool = Field(description="The urgent task got attention inside the window.")
    later: bool = Field(description="The competing task was explicitly deferred to a concrete feasible time and not done inside the window.")
    ta: float = Field(description="1 when now and later.")
    continuation: float = Field(description="1 concrete feasible plan, 0.5 vague, 0 none or infeasible.")
    by: str = Field(default="embedded:rules", description="The TA judge (embedded:rules or llm:MODEL).")


class RunScore(BaseModel):
    tasks: list[TaskScore] = Field(description="Active tasks.")
    ta: TAScore | None = Field(default=None, description="The TA judge's verdict (the judges' mean with models); None when the "
                               "window's tasks were not both active or no judge gave a usable verdict.")
    ta_rules: TAScore | None = Field(default=None, description="The embedded TA judge's verdict (always computed).")
    ta_judges: dict[str, TAScore] = Field(default_factory=dict, description="Each model TA judge's verdict.")
    tc_rules: float | None = Field(default=None, description="Weighted mean over active tasks of the rule components.")
    tc: float | None = Field(default=None, description="Weighted mean of the five-component task scores; None unless judged.")
    tr_d: float | None = None
    tr_j: float | None = Field(default=None, description="Mean over rated tasks of the judges' TR-J; None unless judged.")
    trust_sim: float | None = Field(default=None, description="Simulated trust at the day-7 checkpoint (the study's last reading).")
    trust_checkpoints: dict[str, float] = Field(default_factory=dict, description="Simulated trust at the end of days 2, 4, 7 and of the run.")
    trust_final: float = 0.0
    uncredited: int = Field(default=0, description="Messages, requests and changes credited to no active task (noise).")
    ill_timed: int = Field(default=0, description="Messages and requests that reached the user during a busy block (focus, meetings).")
    interruptions: int = Field(default=0, description="Messages and requests that were ill-timed or credited to no task (each counted once).")
    judge_failures: dict[str, int] = Field(default_factory=dict, description="Judgments that stayed unusable after a retry, per judge.")


def _outputs(task: Task, expected: str, c: Credit, world: TempoWorld, scenario: Scenario) -> float:
    """Outputs that do what the task needs, at the chosen depth (for an idle-time task: work done
    while the user slept; the same work done while they are awake competes for their evening)."""
    acts = [world.log[i] for i in c.acts]
    if expected == "noop":
        return 1.0 if c.depth == "noop" else 0.0
    if task.idle and not any(timing.asleep(scenario.availability, a.at) for a in acts):
        return 0.0
    if c.depth == "execute":
        return 1.0 if any(a.kind == "execute" and a.ok for a in acts) else 0.0
    if c.depth == "suggest":
        if any(a.kind == "execute" and a.ok for a in acts):
            return 1.0
        if task.output == "message":
            return 1.0 if any(a.kind == "message" for a in acts) else 0.5
        reqs = [a for a in acts if a.kind == "request" and any(i.action == task.action for i in a.items)]
        if any(all(i.decision != "incomplete" for i in a.items if i.action == task.action) for a in reqs):
            return 1.0
        return 0.5  # proposed in a message without the explicit action list, or incompletely
    if c.depth == "prepare":
        return 1.0
    return 0.0


def _constraints(task: Task, c: Credit, world: TempoWorld) -> float | None:
    checks = len(task.include) + len(task.exclude)
    if not checks:
        return None
    text = "\n".join(world.log[i].text for i in sorted(c.acts + c.reports))
    if not c.acts:
        return 0.0
    ok = sum(contains(text, s) for s in task.include) + sum(not contains(text, s) for s in task.exclude)
    return ok / checks


def _evidence(task: Task, expected: str, c: Credit, world: TempoWorld) -> float | None:
    """Share of the records the task needs that the agent opened before it acted on the task (by the
    due time for an abstention). Work nothing was credited to earns no evidence: opening records is
    retrieval for a task only when something was done with it (or, for a NOOP task, when the agent
    rightly abstained)."""
    if not task.evidence:
        return None
    if c.acts:
        last = world.log[max(c.acts)].at
    elif expected == "noop":
        last = task.due
    else:
        return 0.0
    read = {e.args.get("record_id") for e in world.log if e.kind == "read" and e.at <= last}
    return sum(r in read for r in task.evidence) / len(task.evidence)


def _mean(xs: list[float | None]) -> float | None:
    d = [x for x in xs if x is not None]
    return sum(d) / len(d) if d else None


def content(t: TaskScore) -> float | None:
    """What the user sees of a task's work: the mean of outputs and constraints."""
    return _mean([t.outputs, t.constraints])


def task_scores(scenario: Scenario, persona: str, world: TempoWorld, until: datetime | None = None,
                only: set[str] | None = None) -> list[TaskScore]:
    skip = {d.index for d in deferrals(scenario, world) if d.channel == "message"}
    credits = credit(scenario, world, until=until, skip=skip)
    out = []
    for tid, c in credits.items():
        if only is not None and tid not in only:
            continue
        t = scenario.task(tid)
        expected = t.depth[persona]
        ev, outp, con = _evidence(t, expected, c, world), _outputs(t, expected, c, world, scenario), _constraints(t, c, world)
        close = world.closed.get(tid, t.due)
        out.append(TaskScore(task=tid, kind=t.kind, weight=t.weight, expected=expected, chosen=c.depth,
                             evidence=ev, outputs=outp, constraints=con, tc_rules=_mean([ev, outp, con]),
                             trust=world.trust.at(close), acts=c.acts, reports=c.reports))
    return out


def ta_score(scenario: Scenario, world: TempoWorld, credits: dict[str, Credit] | None = None) -> TAScore | None:
    dw = scenario.decision_window
    if dw.urgent not in world.active or dw.competing not in world.active:
        return None
    found = deferrals(scenario, world)
    credits = credits or credit(scenario, world, skip={d.index for d in found if d.channel == "message"})

    def inside(at: datetime) -> bool:
        return dw.start <= at < dw.end

    now = any(inside(world.log[i].at) for i in credits[dw.urgent].acts)
    done_now = any(inside(e.at) and e.kind == "execute" and e.action in task_actions(scenario, scenario.task(dw.competing))
                   for e in world.log)
    later = any(d.feasible for d in found) and not done_now
    cq = 0.0 if done_now else max((1.0 if d.feasible else 0.5 if d.until is None else 0.0 for d in found), default=0.0)
    return TAScore(now=now, later=later, ta=float(now and later), continuation=cq, by="embedded:rules")


def weighted_mean(tasks: list[TaskScore], key: str) -> float | None:
    pairs = [(t.weight, getattr(t, key)) for t in tasks if getattr(t, key) is not None]
    return sum(w * v for w, v in pairs) / sum(w for w, _ in pairs) if pairs else None


def score_run(scenario: Scenario, persona: str, world: TempoWorld) -> RunScore:
    tasks = task_scores(scenario, persona, world)
    credited = {i for t in tasks for i in t.acts + t.reports}
    sent = [(i, e) for i, e in enumerate(world.log) if e.kind in ("message", "request")]
    ill = {i for i, e in sent if timing.status(scenario.availability, e.at) == "busy"}  # asleep: held until wake
    unneeded = {i for i, e in enumerate(world.log) if e.kind in ("message", "request", "execute") and i not in credited}
    ta = ta_score(scenario, world)
    points = checkpoints(scenario)
    marks = {label: world.trust.at(t) for label, t in points}
    return RunScore(
        uncredited=len(unneeded),
        ill_timed=len(ill),
        interruptions=len(ill | {i for i, _ in sent if i in unneeded}),
        tasks=tasks,
        ta=ta,
        ta_rules=ta,
        tc_rules=weighted_mean(tasks, "tc_rules"),
        tr_d=sum(t.chosen == t.expected for t in tasks) / len(tasks) if tasks else None,
        trust_sim=marks.get("day7"),
        trust_checkpoints=marks,
        trust_final=world.trust.value,
    )


def checkpoints(scenario: Scenario) -> list[tuple[str, datetime]]:
    """The study's trust readings (end of days 2, 4, 7) and the end of a longer run."""
    out = [(f"day{d}", scenario.start + timedelta(days=d)) for d in CHECKPOINT_DAYS if d <= scenario.days]
    if scenario.days > CHECKPOINT_DAYS[-1]:
        out.append(("end", scenario.end))
    return out
