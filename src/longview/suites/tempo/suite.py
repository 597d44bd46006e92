"""The `tempo` suite: Proactivity-Gym (paper 003) on the plugin kernel."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from longview.harness.context import CellContext
from longview.harness.roles import Roles
from longview.harness.scorecard import DatasetInfo as ScoreDatasetInfo
from longview.harness.scorecard import MetricInfo, Scorecard, build_row, row_order
from longview.harness.suite import Cell, RoleSpec, Suite
from longview.kernel.agent import Agent
from longview.kernel.errors import CellAborted
from longview.kernel.ids import write_models
from longview.kernel.models.secrets import redact
from longview.kernel.stats import macro_mean
from longview.suites.tempo import dataset as ds
from longview.suites.tempo.agents import ReferenceAgent
from longview.suites.tempo.report_hooks import PROFILE
from longview.suites.tempo.results import RunRecord, TempoCellResult
from longview.suites.tempo.runner import ScenarioRun
from longview.suites.tempo.scoring import score_run
from longview.suites.tempo.world import conflicts

METRICS = ["tc", "ta", "tr_d", "tr_j", "trust_final"]
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


class TempoSuite(Suite):
    name = "tempo"
    summary = "Proactivity-Gym (003): the right work, at the right time, at the depth the user trusts"
    Options = TempoOptions
    roles = (
        RoleSpec(name="user", description="Words the simulated user's replies (the decision is the state machine's).",
                 embedded="approval-state-machine"),
        RoleSpec(name="judge", description="Judges TC semantics/completion and rates trust as a second TR-J judge "
                 "(semantics/completion are None without it).", embedded="rules+trust-state"),
    )
    reference_agents = {f"ref:{m}": "default" for m in ("oracle", "policy", "always-suggest", "always-execute")}
    variants = {"default": "the protocol as published; with --persona P the rows are named P"}
    model_variants = ("default",)
    datasets = {"builtin": "10 generated scenarios (seed 0), 7-10 days, 14-16 tasks each", "PATH": "a folder of scenario JSON files"}
    profile = PROFILE

    def load_dataset(self, spec: str, options: BaseModel) -> ds.TempoDataset:
        return ds.load(spec, getattr(options, "persona", None))

    def sample_dataset(self, folder: Path) -> str:
        """The first built-in scenario (3 units: one per persona) as a scenario folder (fuzz suite).
        A scenario cannot be cut smaller: the format asks for 7-10 days and 10-19 tasks."""
        first = sorted(ds.builtin_dir().glob("*.json"))[0]
        scenario = ds.load_file(first)
        write_models(folder, [(scenario.id, scenario)])
        return str(folder)

    def reference_agent(self, name: str, dataset: Any, unit: str) -> Agent:
        scenario, persona = dataset.unit(unit)
        return ReferenceAgent(name.removeprefix("ref:"), scenario, persona)

    def components(self, roles: Roles, options: BaseModel) -> dict[str, Any]:
        return {"user_model": roles.model("user"), "judge_model": roles.model("judge")}

    def component_names(self, components: Any) -> dict[str, str]:
        c = components or {}
        return {"user": f"embedded:approval-state-machine+llm:{c['user_model']}" if c.get("user_model") else "embedded:approval-state-machine",
                "judge": f"embedded:rules+trust-state+llm:{c['judge_model']}" if c.get("judge_model") else "embedded:rules+trust-state"}

    def tables(self, scorecard: Any) -> list[Any]:
        from longview.harness.tables import rows_table
        from longview.suites.tempo.report import breakdown_table

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

    def estimate(self, cells: list[Cell], dataset: Any, roles: Roles, options: BaseModel) -> dict[str, tuple[int, int]]:
        """Rough: ~25 activations per run, ~3 turns each, ~2.5k input tokens a turn; judges ~2 calls per task."""
        runs = len(cells) * getattr(options, "repeats", 1)
        model_runs = sum(getattr(options, "repeats", 1) for c in cells if not c.agent.startswith("ref:"))
        out: dict[str, tuple[int, int]] = {}
        if model_runs:
            out["agent"] = (model_runs * 75, model_runs * 75 * 2500)
        if roles.model("judge"):
            out["judge"] = (runs * 28, runs * 28 * 2000)
        if roles.model("user"):
            out["user"] = (runs * 12, runs * 12 * 300)
        return out

    def commands(self) -> Any:
        from longview.suites.tempo.commands import app

        return app

    def sessions(self, cell: Cell, dataset: Any, options: BaseModel) -> int:
        return getattr(options, "repeats", 1)  # one session slot per complete run (activations run in order)

    async def run_cell(self, ctx: CellContext) -> TempoCellResult:
        scenario, persona = ctx.dataset.unit(ctx.cell.unit)  # type: ignore[attr-defined]
        repeats = getattr(ctx.options, "repeats", 1)
        comps = ctx.components or {}
        judge_model, user_model = comps.get("judge_model"), comps.get("user_model")
        judges = ["embedded:rules", "embedded:trust-state"] + ([f"llm:{judge_model}"] if judge_model else [])
        base = TempoCellResult(status="complete", agent=ctx.cell.agent, variant=ctx.cell.variant, unit=ctx.cell.unit,
                               trial=ctx.cell.trial, scenario=scenario.id, persona=persona, judges=judges)
        wording = None
        if user_model:
            from longview.users.base import ModelWording

            user_client = ctx.roles.client("user")
            assert user_client is not None
            wording = ModelWording(user_client, ctx.roles.params("user"), USER_SYSTEM.format(
                user=scenario.user, style=scenario.persona(persona).style or "plain and brief"))
        for r in range(repeats):
            agent = ctx.agent if r == 0 else self._fresh(ctx, scenario, persona, r)
            clock = ctx.start_clock(scenario.start)
            prefix = f"r{r}-" if repeats > 1 else ""
            run = ScenarioRun(scenario, persona, agent, clock, functools.partial(_trace, ctx, prefix), max_turns=ctx.max_turns,
                              wording=wording)
            try:
                async with ctx.session():
                    world = await run.run()
                s = score_run(scenario, persona, world)
                judged = None
                if judge_model:
                    from longview.suites.tempo.judge import judge_run

                    judge_client = ctx.roles.client("judge")
                    assert judge_client is not None
                    judged = await judge_run(judge_client, ctx.roles.params("judge"), scenario, persona, world, s)
            except CellAborted as e:
                base.status, base.abort_reason = "aborted", e.reason
                return base
            rec = RunRecord(repeat=r, score=s, trust=world.trust.history, activations=len(run.activations),
                            conflicts=conflicts(scenario, world), judge=judged)
            base.runs.append(rec)
            (ctx.folder / f"{prefix}run.json").write_text(redact(json.dumps({
                "scenario": scenario.id, "persona": persona, "agent": ctx.cell.agent, "days": scenario.days,
                "start": scenario.start.isoformat(), "availability": scenario.availability.model_dump(mode="json"),
                "activations": [a.model_dump(mode="json") for a in run.activations],
                "world": world.model_dump(mode="json"), "score": s.model_dump(mode="json"),
                "decision_window": scenario.decision_window.model_dump(mode="json"),
                "conflicts": rec.conflicts,
            }, ensure_ascii=False, indent=1)), encoding="utf-8")  # the world log holds the model's texts
        return base

    def _fresh(self, ctx: CellContext, scenario: Any, persona: str, r: int) -> Agent:
        if ctx.cell.agent.startswith("ref:"):
            return ReferenceAgent(ctx.cell.agent.removeprefix("ref:"), scenario, persona)
        agent = ctx.agent
        if hasattr(agent, "trial"):  # an LLM agent: sample each repeat afresh (distinct response-cache key)
            agent.trial = ctx.cell.trial * 100 + r  # type: ignore[attr-defined]
        return agent

    def score(self, results: list[str], dataset: Any, options: BaseModel, seed: int) -> Scorecard:
        cells = [TempoCellResult.model_validate_json(t) for t in results]
        persona_opt = getattr(options, "persona", None)
        groups: dict[tuple[str, str], list[TempoCellResult]] = {}
        for c in cells:
            variant = persona_opt or c.variant
            groups.setdefault((c.agent, variant), []).append(c)
        judge_names = sorted({j for c in cells for j in c.judges if j.startswith("llm:")})
        rows = []
        for (agent, variant), cs in groups.items():
            scored: dict[str, list[Mapping[str, float | None]]] = {}
            aborted: dict[str, str] = {}
            extra: dict[str, dict[str, list[float]]] = {}
            for c in cs:
                if c.status != "complete":
                    aborted[f"{c.unit}#{c.trial}" if c.trial else c.unit] = c.abort_reason or "aborted"
                    continue
                for run in c.runs:
                    s = run.score
                    scored.setdefault(c.unit, []).append({
                        "tc": s.tc, "ta": s.ta.ta if s.ta else None, "tr_d": s.tr_d, "tr_j": s.tr_j, "trust_final": s.trust_final})
                    x = extra.setdefault(c.unit, {"now": [], "later": [], "continuation": [], "trajectory": [], "uncredited": []})
                    x["uncredited"].append(float(s.uncredited))
                    if s.ta:
                        x["now"].append(float(s.ta.now))
                        x["later"].append(float(s.ta.later))
                        x["continuation"].append(s.ta.continuation)
                    x["trajectory"].append([p.value for p in run.trust])  # type: ignore[arg-type]
            row = build_row(agent, variant, METRICS, scored, aborted=aborted, units_in_dataset=len(dataset.unit_ids()),
                            seed=seed, trials=max((c.trial for c in cs), default=0) + 1)
            row.extra = _extras(cells=[c for c in cs if c.status == "complete"], extra=extra)
            row.extra["judge_agreement"] = _agreement([c for c in cs if c.status == "complete"])
            rows.append(row)
        order = ["default", *PERSONA_VARIANTS]
        rows.sort(key=lambda r: row_order(r.agent, r.variant, order))
        return Scorecard(
            suite=self.name,
            dataset=ScoreDatasetInfo(name=dataset.name, sha256=dataset.sha256, units=len(dataset.unit_ids())),
            metrics={
                "tc": MetricInfo(description="Task capability: weighted mean over active tasks of the mean of evidence, outputs, "
                                 "constraints" + (", semantics, completion" if judge_names else " (semantics/completion not judged)"),
                                 kind="judged" if judge_names else "deterministic", by="+".join(["embedded:rules", *judge_names])),
                "ta": MetricInfo(description="Temporal allocation: urgent task attended now AND competing task explicitly deferred "
                                 "in the decision window", kind="deterministic", by="embedded:rules"),
                "tr_d": MetricInfo(description="Share of active tasks at the persona's expected depth", kind="deterministic",
                                   by="embedded:rules"),
                "tr_j": MetricInfo(description="Trust rating (1-5) at each active task's close: the simulated trust state"
                                   + (", averaged with the model judge's five-construct rating" if judge_names else
                                      " (one embedded judge; agreement not applicable)"),
                                   kind="judged", by="+".join(["embedded:trust-state", *judge_names])),
                "trust_final": MetricInfo(description="Simulated trust (1-5) at the end of the run", kind="deterministic",
                                          by="embedded:approval-state-machine"),
            },
            rows=rows,
            extra={"judges": ["embedded:rules", "embedded:trust-state", *judge_names],
                   "note": "TC semantics/completion need a judge model; without one they are not judged (None)."},
        )


def _trace(ctx: CellContext, prefix: str, sid: str) -> Any:
    return ctx.trace(prefix + sid)


def _agreement(cells: list[TempoCellResult]) -> dict[str, Any] | None:
    """Agreement of the two TR-J raters (embedded trust state vs model judge) over every rated task."""
    pairs = [tuple(p) for c in cells for r in c.runs if r.judge for p in r.judge.get("pairs", [])]
    if not pairs:
        return None
    n = len(pairs)
    mae = sum(abs(a - b) for a, b in pairs) / n
    ma, mb = sum(a for a, _ in pairs) / n, sum(b for _, b in pairs) / n
    va, vb = sum((a - ma) ** 2 for a, _ in pairs), sum((b - mb) ** 2 for _, b in pairs)
    cov = sum((a - ma) * (b - mb) for a, b in pairs)
    return {"n": n, "mae": mae, "pearson": cov / (va * vb) ** 0.5 if va and vb else None,
            "mean_embedded": ma, "mean_model": mb}


def _extras(cells: list[TempoCellResult], extra: dict[str, dict[str, list]]) -> dict[str, Any]:
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
        "uncredited_acts": avg("uncredited"),
        "tc_components": {k: (sum(v) / len(v) if v else None) for k, v in comps.items()},
        "depth_confusion": {k: v[0] for k, v in sorted(depth.items())},
        "trust_trajectories": {u: v["trajectory"] for u, v in sorted(extra.items())},
        "tc_judged": {k: _mean_of(cells, k) for k in ("semantics", "completion")},
    }


def _mean_of(cells: list[TempoCellResult], key: str) -> float | None:
    xs = [getattr(t, key) for c in cells for r in c.runs for t in r.score.tasks if getattr(t, key) is not None]
    return sum(xs) / len(xs) if xs else None
