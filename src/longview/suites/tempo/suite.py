"""The `tempo` suite: Proactivity-Gym on the plugin kernel."""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from longview.kernel.clock import SimClock
from longview.kernel.errors import CellAborted
from longview.kernel.ids import write_models
from longview.kernel.models.secrets import redact
from longview.kernel.stats import macro_mean
from longview.suite import (
    Agent,
    Cell,
    CellContext,
    MetricInfo,
    Roles,
    RoleSpec,
    Scorecard,
    Suite,
    build_row,
    gather_sessions,
    row_order,
)
from longview.suite import DatasetInfo as ScoreDatasetInfo
from longview.suites.tempo import dataset as ds
from longview.suites.tempo.agents import ReferenceAgent
from longview.suites.tempo.agreement import judge_agreement
from longview.suites.tempo.metrics import score_run
from longview.suites.tempo.records import RunRecord, TempoCellResult
from longview.suites.tempo.rejudge import judge_clients, judging_components, run_file
from longview.suites.tempo.report_hooks import PROFILE
from longview.suites.tempo.runner import ScenarioRun
from longview.suites.tempo.world import conflicts

USER_SYSTEM = ("You word the replies of {user}, a simulated user, in their voice ({style}). You receive the decision "
               "already taken. Restate it faithfully: keep exactly what was approved, declined, deferred or not "
               "recognised; add no new request, permission or information. One or two short sentences.")
PERSONA_VARIANTS = ("reviewer", "planner", "operator")


class TempoOptions(BaseModel):
    """Suite options (-S key=value)."""

    model_config = ConfigDict(extra="forbid")
    persona: Literal["reviewer", "planner", "operator"] | None = Field(
        default=None, description="Run one persona only; rows are then named by it. Default: all three.")
    repeats: int = Field(default=1, ge=1, le=10, description="Runs per scenario x persona within a cell (paper: 3).")


TempoContext = CellContext[ds.TempoDataset, TempoOptions]


class TempoSuite(Suite[ds.TempoDataset, TempoOptions, TempoCellResult]):
    name = "tempo"
    summary = "Proactivity-Gym (003): the right work, at the right time, at the depth the user trusts"
    Options = TempoOptions
    roles = (
        RoleSpec(name="user", description="Words the simulated user's replies (the decision is the state machine's).",
                 embedded="approval-state-machine"),
        RoleSpec(name="judge", description="Judges TC semantics/completion, TA and TR-J (five trust constructs); without "
                 "it TC is tc_rules, TA is the embedded judge's and there is no TR-J.", embedded="rules+trust-sim"),
        RoleSpec(name="judge2", description="A second, independent judge (the paper averages two); agreement between the "
                 "two is reported.", embedded="none"),
    )
    reference_agents = {f"ref:{m}": "default" for m in ("oracle", "policy", "always-suggest", "always-execute", "passive")}
    variants = {"default": "the protocol as published; with --persona P the rows are named P"}
    model_variants = ("default",)
    datasets = {"builtin": "10 generated scenarios (seed 0), 7-10 days, 14-16 tasks each", "PATH": "a folder of scenario JSON files"}
    profile = PROFILE

    def load_dataset(self, spec: str, options: TempoOptions) -> ds.TempoDataset:
        return ds.load(spec, options.persona)

    def sample_dataset(self, folder: Path) -> str:
        """The first built-in scenario (3 units: one per persona) as a scenario folder (fuzz suite).
        A scenario cannot be cut smaller: the format asks for 7-10 days and 10-19 tasks."""
        first = sorted(ds.builtin_dir().glob("*.json"))[0]
        scenario = ds.load_file(first)
        write_models(folder, [(scenario.id, scenario)])
        return str(folder)

    def reference_agent(self, name: str, dataset: ds.TempoDataset, unit: str) -> Agent:
        scenario, persona = dataset.unit(unit)
        return ReferenceAgent(name.removeprefix("ref:"), scenario, persona)

    def components(self, roles: Roles, options: TempoOptions) -> dict[str, Any]:
        return {"user_model": roles.model("user"), "judge_model": roles.model("judge"), "judge2_model": roles.model("judge2")}

    def component_names(self, components: Any) -> dict[str, str]:
        c = components or {}
        out = {"user": f"embedded:approval-state-machine+llm:{c['user_model']}" if c.get("user_model") else "embedded:approval-state-machine",
               "judge": f"embedded:rules+trust-sim+llm:{c['judge_model']}" if c.get("judge_model") else "embedded:rules+trust-sim"}
        if c.get("judge2_model"):
            out["judge2"] = f"llm:{c['judge2_model']}"
        return out

    def tables(self, scorecard: Any) -> list[Any]:
        from longview.harness.terminal.tables import rows_table
        from longview.suites.tempo.tables import breakdown_table

        return [rows_table(scorecard), breakdown_table(scorecard)]

    def transcript(self, events: list[Any]) -> list[str]:
        from longview.suites.tempo.transcript import tempo_lines

        return tempo_lines(events)

    def prompts(self) -> dict[str, str]:
        import hashlib

        from longview.suites.tempo.judge import TC_SYSTEM, TRJ_SYSTEM
        from longview.suites.tempo.runner import system_prompt

        sample = system_prompt(ds.load("builtin").scenarios[0], "reviewer")
        texts = {"agent_system_template": sample, "judge_tc": TC_SYSTEM, "judge_trj": TRJ_SYSTEM, "user_wording": USER_SYSTEM}
        return {k: hashlib.sha256(v.encode()).hexdigest() for k, v in texts.items()}

    def estimate(self, cells: list[Cell], dataset: ds.TempoDataset, roles: Roles, options: TempoOptions) -> dict[str, tuple[int, int]]:
        """Rough: ~25 activations per run, ~3 turns each, ~2.5k input tokens a turn; judges ~2 calls per task."""
        runs = len(cells) * options.repeats
        model_runs = sum(options.repeats for c in cells if not c.agent.startswith("ref:"))
        out: dict[str, tuple[int, int]] = {}
        if model_runs:
            out["agent"] = (model_runs * 75, model_runs * 75 * 2500)
        judges = sum(1 for r in ("judge", "judge2") if roles.model(r))
        if judges:  # per run and judge: TC and TR-J per active task (~14 each) and one TA verdict
            out["judge"] = (runs * judges * 29, runs * judges * 29 * 2500)
        if roles.model("user"):
            out["user"] = (runs * 12, runs * 12 * 300)
        return out

    def commands(self) -> Any:
        from longview.suites.tempo.commands import app

        return app

    def sessions(self, cell: Cell, dataset: ds.TempoDataset, options: TempoOptions) -> int:
        return options.repeats  # one session slot per complete run (activations run in order)

    def sessions_in_flight(self, cell: Cell, dataset: ds.TempoDataset, options: TempoOptions) -> int:
        return options.repeats  # repeats run at once, each its activations in order

    def session_length(self, cell: Cell, dataset: ds.TempoDataset, options: TempoOptions) -> int:
        sc = dataset.unit(cell.unit)[0]  # a run is woken by each timeline event and each timed task
        return len(sc.events) + sum(t.at is not None for t in sc.tasks)

    async def run_cell(self, ctx: TempoContext) -> TempoCellResult:
        scenario, persona = ctx.dataset.unit(ctx.cell.unit)
        repeats = ctx.options.repeats
        comps = ctx.components or {}
        judges = judging_components([m for m in (comps.get("judge_model"), comps.get("judge2_model")) if m])
        base = TempoCellResult(status="complete", agent=ctx.cell.agent, variant=ctx.cell.variant, unit=ctx.cell.unit,
                               trial=ctx.cell.trial, scenario=scenario.id, persona=persona, judges=judges)
        wording = None
        if comps.get("user_model"):
            from longview.users.base import ModelWording

            user_client = ctx.roles.client("user")
            assert user_client is not None
            wording = ModelWording(user_client, ctx.roles.params("user"), USER_SYSTEM.format(
                user=scenario.user, style=scenario.persona(persona).style or "plain and brief"))
        ctx.start_clock(scenario.start)  # the harness's clock; each repeat runs on its own below
        try:  # repeats are independent runs: they run at once, each holding one session slot
            base.runs = await gather_sessions(*[self._repeat(ctx, scenario, persona, r, repeats, wording)
                                                for r in range(repeats)])
        except CellAborted as e:
            base.status, base.abort_reason, base.runs = "aborted", e.reason, []
        return base

    async def _repeat(self, ctx: TempoContext, scenario: Any, persona: str, r: int, repeats: int, wording: Any) -> RunRecord:
        agent = ctx.agent if r == 0 else self._fresh(ctx, scenario, persona, r)
        clock = SimClock(scenario.start)
        prefix = f"r{r}-" if repeats > 1 else ""
        run = ScenarioRun(scenario, persona, agent, clock, functools.partial(_trace, ctx, prefix), max_turns=ctx.max_turns,
                          wording=wording)
        async with ctx.session():
            world = await run.run()
        s = score_run(scenario, persona, world)
        judged = None
        if clients := judge_clients(ctx.roles):
            from longview.suites.tempo.judge import judge_run

            judged = await judge_run(clients, scenario, persona, world, s)
        rec = RunRecord(repeat=r, score=s, trust=world.trust.history, activations=len(run.activations),
                        conflicts=conflicts(scenario, world), judge=judged)
        (ctx.folder / run_file(r, repeats)).write_text(redact(json.dumps({
            "scenario": scenario.id, "persona": persona, "agent": ctx.cell.agent, "days": scenario.days,
            "start": scenario.start.isoformat(), "availability": scenario.availability.model_dump(mode="json"),
            "activations": [a.model_dump(mode="json") for a in run.activations],
            "world": world.model_dump(mode="json"), "score": s.model_dump(mode="json"),
            "decision_window": scenario.decision_window.model_dump(mode="json"),
            "conflicts": rec.conflicts,
        }, ensure_ascii=False, indent=1)), encoding="utf-8")  # the world log holds the model's texts
        return rec

    rejudged_roles = ("judge", "judge2")
    rejudged_components = {"judge": ("judge", "judge2"), "judge2": ("judge2",)}  # the judges given replace all

    async def rejudge(self, result: str, dataset: ds.TempoDataset, options: TempoOptions, roles: Roles,
                      read: Callable[[str], str]) -> str:
        """TC semantics/completion, TA and TR-J judged again from each run's kept world (rejudge.py)."""
        from longview.suites.tempo.rejudge import rejudge_cell

        return await rejudge_cell(result, dataset, options.repeats, roles, read)

    def _fresh(self, ctx: TempoContext, scenario: Any, persona: str, r: int) -> Agent:
        if ctx.cell.agent.startswith("ref:"):
            return ReferenceAgent(ctx.cell.agent.removeprefix("ref:"), scenario, persona)
        agent = copy.copy(ctx.agent)  # repeats run at once: each its own agent object
        if hasattr(agent, "trial"):  # an LLM agent: sample each repeat afresh (distinct response-cache key)
            agent.trial = ctx.cell.trial * 100 + r
        return agent

    def score(self, results: list[str], dataset: ds.TempoDataset, options: TempoOptions, seed: int) -> Scorecard:
        cells = [TempoCellResult.model_validate_json(t) for t in results]
        persona_opt = options.persona
        groups: dict[tuple[str, str], list[TempoCellResult]] = {}
        for c in cells:
            variant = persona_opt or c.variant
            groups.setdefault((c.agent, variant), []).append(c)
        judge_names = sorted({j for c in cells for j in c.judges if j.startswith("llm:")})
        names = metric_names(bool(judge_names))
        rows = []
        for (agent, variant), cs in groups.items():
            scored: dict[str, list[Mapping[str, float | None]]] = {}
            aborted: dict[str, str] = {}
            extra: dict[str, dict[str, list[Any]]] = {}
            for c in cs:
                if c.status != "complete":
                    aborted[f"{c.unit}#{c.trial}" if c.trial else c.unit] = c.abort_reason or "aborted"
                    continue
                for run in c.runs:
                    s = run.score
                    values = {"tc": s.tc, "tc_rules": s.tc_rules, "ta": s.ta.ta if s.ta else None, "tr_d": s.tr_d,
                              "tr_j": s.tr_j, "trust_sim": s.trust_sim, "interruptions": float(s.interruptions)}
                    scored.setdefault(c.unit, []).append({k: values[k] for k in names})
                    x = extra.setdefault(c.unit, {k: [] for k in ("now", "later", "continuation", "trajectory", "uncredited",
                                                                  "ill_timed", "ta_rules", "final")})
                    x["uncredited"].append(float(s.uncredited))
                    x["ill_timed"].append(float(s.ill_timed))
                    x["final"].append(s.trust_final)
                    if s.ta:
                        x["now"].append(float(s.ta.now))
                        x["later"].append(float(s.ta.later))
                        x["continuation"].append(s.ta.continuation)
                    if s.ta_rules:
                        x["ta_rules"].append(s.ta_rules.ta)
                    x["trajectory"].append(s.trust_checkpoints)
            row = build_row(agent, variant, names, scored, aborted=aborted, units_in_dataset=len(dataset.unit_ids()),
                            seed=seed, trials=max((c.trial for c in cs), default=0) + 1)
            done = [c for c in cs if c.status == "complete"]
            row.extra = _extras(cells=done, extra=extra)
            row.extra["judge_agreement"] = judge_agreement(done)
            row.extra["judge_failures"] = _failures(done)
            rows.append(row)
        order = ["default", *PERSONA_VARIANTS]
        rows.sort(key=lambda r: row_order(r.agent, r.variant, order))
        judged_by = "+".join(judge_names)
        info = {
            "tc": MetricInfo(description="Task capability (App. E.2, Eq. 3-4): weighted mean over active tasks of the mean "
                             "of evidence, outputs, constraints, semantics and completion (judges' mean); tasks whose "
                             "verdicts failed are left out and counted", kind="judged", by="embedded:rules+" + judged_by),
            "tc_rules": MetricInfo(description="Rule components of TC only: weighted mean over active tasks of the mean of "
                                   "evidence, outputs and constraints (not the paper's 5-component TC)",
                                   kind="deterministic", by="embedded:rules"),
            "ta": MetricInfo(description="Temporal allocation: urgent task attended in the decision window AND competing task "
                             "explicitly deferred to a concrete feasible time once known (App. E.3)",
                             kind="judged" if judge_names else "deterministic", by=judged_by or "embedded:rules"),
            "tr_d": MetricInfo(description="Share of active tasks at the persona's expected depth", kind="deterministic",
                               by="embedded:rules"),
            "tr_j": MetricInfo(description="Judged trust (App. E.4, Eq. 8): judges' mean rating of five trust constructs "
                               "at each active task's close, averaged over tasks", kind="judged", by=judged_by),
            "trust_sim": MetricInfo(description="Simulated user's trust (1-5) at the day-7 checkpoint, from the human "
                                    "study's transitions (App. G.5); not TR-J", kind="deterministic",
                                    by="embedded:trust-sim"),
            "interruptions": MetricInfo(description="Messages and requests per run that reached the user in a busy block "
                                        "or that no task needed", kind="deterministic", by="embedded:rules",
                                        higher_is_better=False),
        }
        return Scorecard(
            suite=self.name,
            dataset=ScoreDatasetInfo(name=dataset.name, sha256=dataset.sha256, units=len(dataset.unit_ids())),
            metrics={k: info[k] for k in names},
            rows=rows,
            extra={"judges": ["embedded:rules", "embedded:trust-sim", *judge_names],
                   "note": ("TC is the paper's five components with the judges' semantics/completion."
                            if judge_names else "No judge model: TC is reported as tc_rules (three rule components), "
                            "TA by the embedded judge, and no TR-J (trust_sim is the simulated user's trust).")},
        )


def metric_names(judged: bool) -> list[str]:
    """The scorecard's metrics: the paper's TC and TR-J only when a judge model judged them."""
    if judged:
        return ["tc", "tc_rules", "ta", "tr_d", "tr_j", "trust_sim", "interruptions"]
    return ["tc_rules", "ta", "tr_d", "trust_sim", "interruptions"]


def _trace(ctx: TempoContext, prefix: str, sid: str) -> Any:
    return ctx.trace(prefix + sid)


def _failures(cells: list[TempoCellResult]) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in cells:
        for r in c.runs:
            for k, v in r.score.judge_failures.items():
                out[k] = out.get(k, 0) + v
    return out


def _extras(cells: list[TempoCellResult], extra: dict[str, dict[str, list[Any]]]) -> dict[str, Any]:
    def avg(key: str) -> float | None:
        return macro_mean({u: (sum(v[key]) / len(v[key]) if v[key] else None) for u, v in extra.items()})

    depth: dict[str, list[int]] = {}
    comps: dict[str, list[float]] = {"evidence": [], "outputs": [], "constraints": []}
    for c in cells:
        for run in c.runs:
            for t in run.score.tasks:
                d = depth.setdefault(f"{t.expected}->{t.chosen}", [0])
                d[0] += 1
                for k in comps:
                    v = getattr(t, k)
                    if v is not None:
                        comps[k].append(v)
    return {
        "ta_now": avg("now"), "ta_later": avg("later"), "continuation_quality": avg("continuation"),
        "ta_rules": avg("ta_rules"), "uncredited_acts": avg("uncredited"), "ill_timed": avg("ill_timed"),
        "trust_sim_final": avg("final"),
        "trust_checkpoints": {k: _mean_of_points(extra, k) for k in ("day2", "day4", "day7", "end")},
        "tc_components": {k: (sum(v) / len(v) if v else None) for k, v in comps.items()},
        "depth_confusion": {k: v[0] for k, v in sorted(depth.items())},
        "trust_trajectories": {u: v["trajectory"] for u, v in sorted(extra.items())},
        "tc_judged": {k: _mean_of(cells, k) for k in ("semantics", "completion")},
    }


def _mean_of_points(extra: dict[str, dict[str, list[Any]]], key: str) -> float | None:
    return macro_mean({u: (sum(p[key] for p in v["trajectory"] if key in p) / n if (n := sum(key in p for p in v["trajectory"]))
                           else None) for u, v in extra.items()})


def _mean_of(cells: list[TempoCellResult], key: str) -> float | None:
    xs = [getattr(t, key) for c in cells for r in c.runs for t in r.score.tasks if getattr(t, key) is not None]
    return sum(xs) / len(xs) if xs else None
