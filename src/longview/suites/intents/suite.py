"""The intents suite plugged into the harness (see longview.harness.suite)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from longview.judges.base import LLMJudge
from longview.kernel.errors import CellAborted, ConfigError
from longview.kernel.ids import write_models
from longview.suite import Cell, CellContext, Roles, RoleSpec, Scorecard, SessionOutcome, Suite
from longview.suites.intents.agents import KINDS, ReferenceAgent
from longview.suites.intents.ceiling import RuleCeiling, is_ceiling
from longview.suites.intents.dataset import (
    BUILTIN,
    IntentsDataset,
    load_folder_dataset,
    load_json_dataset,
)
from longview.suites.intents.judge import (
    RUBRIC_PROMPT,
    SATISFACTION_PROMPT,
    TARGETED_PROMPT,
    Decisions,
    IntentJudges,
    RubricJudge,
    prompt_hashes,
)
from longview.suites.intents.records import CellRecord
from longview.suites.intents.report_hooks import PROFILE
from longview.suites.intents.runner import Components, abort_record, run_episode
from longview.suites.intents.scorecard import score_cells, scorecard_notes
from longview.users.base import ModelWording

if TYPE_CHECKING:
    import typer

# Reference agents that act from the dataset's reference scripts (intent actions, cues): imported
# π-Bench tasks have none, so on them these agents would only paste text and bound nothing.
# (ref:oracle plays the rule-guided ceiling there instead: longview.suites.intents.ceiling.)
SCRIPTED = {"ref:recall": "the history ablation"}


def no_reference_script(agent: str, dataset: IntentsDataset) -> str:
    """Why ``agent`` does not run on ``dataset`` ('' when it does)."""
    if agent in SCRIPTED and dataset.origin != "builtin":
        return (f"{agent} acts from reference scripts that imported tasks do not have; {SCRIPTED[agent]} comes "
                "from built-in data (longview run intents)")
    return ""


USER_PROMPT = """You voice a user talking to their assistant. Rewrite the draft reply in a natural, brief way in the
user's voice. Keep every fact, number and name of the draft; add no new requirement or information."""


class IntentsOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rule_mode: Literal["reference", "fixed"] = Field(
        default="reference", description="Imported rule scripts: reference (last call of each tool per user turn, "
        "as π-Bench's evaluator) or fixed (the whole tool history at once).")
    sessions: int = Field(default=0, ge=0, description="Run only the first N sessions of each episode (0: all).")
    no_history: bool = Field(default=False, description="The ablation alone: run the no_history variant (every "
                             "session starts with an empty memory) instead of each agent's default.")
    rubric_turns: Literal["end", "each"] = Field(
        default="end", description="Rubric items with a judge model: end (one grading of the whole session) or each "
        "(π-Bench's evaluator: a grading of the session as it stood after each reply, an item met when any says so; "
        "one judge call per reply).")


class IntentsSuite(Suite[IntentsDataset, IntentsOptions, CellRecord]):
    name = "intents"
    summary = ("π-Bench: does the agent surface hidden requirements of underspecified requests (PROC) and still "
               "deliver correct artifacts (COMP)?")
    Options = IntentsOptions
    roles = (
        RoleSpec(name="user", description="Words the simulated user's replies (the core decides what is said).",
                 embedded="verbatim"),
        RoleSpec(name="judge", description="Satisfaction and targeted-question judges of the two-stage user, and "
                 "rubric checklist items.", embedded="checks+rules"),
    )
    reference_agents = {f"ref:{k}": "default" for k in KINDS}
    variants = {"default": "earlier sessions carried in the agent's file memory",
                "no_history": "every session starts with an empty memory (workspace and app state persist)"}
    model_variants = ("default",)
    default_max_turns = 30  # π-Bench: 30 agent replies to the user per task (see runner.TOOL_STEPS_PER_REPLY)
    datasets = {"builtin": "5 generated personas x 20 sessions (offline, deterministic judges)",
                "pibench:PATH": "π-Bench's released data from your own checkout (schema v2); runnable tasks only",
                "PATH": "a folder of episode JSON files (one persona each), or one dataset .json file"}
    profile = PROFILE

    def default_variants(self, agent: str, options: IntentsOptions) -> list[str] | None:
        return ["no_history"] if options.no_history else None

    def load_dataset(self, spec: str, options: IntentsOptions) -> IntentsDataset:
        if spec == "builtin":
            return load_json_dataset(BUILTIN, "builtin")
        if spec.startswith("pibench:"):
            from longview.suites.intents.importer import load_pibench

            return load_pibench(spec.split(":", 1)[1])
        if Path(spec).is_dir():
            return load_folder_dataset(Path(spec), spec)
        if spec.endswith(".json"):
            return load_json_dataset(Path(spec), spec)
        raise ConfigError(f"unknown intents dataset '{spec}': use builtin, pibench:PATH, a folder of episode "
                          "files or a .json file")

    def sample_dataset(self, folder: Path) -> str:
        """Three built-in personas cut to one prerequisite and its dependent session each (a 1 + 1
        dependency group), as a folder of episode files: small and quick to run (fuzz suite; three
        units so the kill-and-resume test still has a cell queued when the first one finishes)."""
        ds = load_json_dataset(BUILTIN, "builtin")
        episodes = []
        for ep in list(ds.episodes.values())[:3]:
            dependent = next(s for s in ep.sessions if len(s.depends_on) == 1)
            prereq = next(s for s in ep.sessions if s.id == dependent.depends_on[0])
            episodes.append(ep.model_copy(update={"sessions": [prereq, dependent]}))
        write_models(folder, ((ep.persona.id, ep) for ep in episodes))
        return str(folder)

    def reference_agent(self, name: str, dataset: IntentsDataset, unit: str) -> Any:
        if is_ceiling(name, dataset):
            return RuleCeiling(dataset, unit)
        return ReferenceAgent(name.removeprefix("ref:"), dataset, unit)

    def components(self, roles: Roles, options: IntentsOptions) -> Components:
        opts = options if isinstance(options, IntentsOptions) else IntentsOptions()
        comps = Components(rule_mode=opts.rule_mode, rubric_turns=opts.rubric_turns == "each")
        judge = roles.client("judge")
        if judge is not None:
            p = roles.params("judge")
            comps.judges = IntentJudges(LLMJudge(judge, p, SATISFACTION_PROMPT, Decisions, "judge"),
                                        LLMJudge(judge, p, TARGETED_PROMPT, Decisions, "judge"))
            comps.rubric = RubricJudge(LLMJudge(judge, p, RUBRIC_PROMPT, Decisions, "judge"), per_turn=comps.rubric_turns)
        user = roles.client("user")
        if user is not None:
            comps.wording = ModelWording(user, roles.params("user"), USER_PROMPT)
        return comps

    def component_names(self, components: Any) -> dict[str, str]:
        c: Components = components
        return {"user": c.wording.name, "judge": c.judges.name, "rubric": c.rubric.name}

    rejudged_roles = ("judge",)
    rejudged_components = {"judge": ("rubric",)}  # the intent judges steered the user: only the rubric is judged again

    async def rejudge(self, result: str, dataset: IntentsDataset, options: IntentsOptions, roles: Roles, read: Any = None) -> str:
        """The rubric items (COMP's judged part) of every session judged again by the judge role from
        the stored rubric input; PROC and the intents' statuses stay as the in-session judges made them."""
        import asyncio

        from longview.suites.intents.runner import apply_rubric_verdicts

        client = roles.client("judge")
        if client is None:
            raise ConfigError("rescore of intents needs a judge model (--judge-model)")
        rubric = RubricJudge(LLMJudge(client, roles.params("judge"), RUBRIC_PROMPT, Decisions, "judge"),
                             per_turn=options.rubric_turns == "each")
        cell = CellRecord.model_validate_json(result)
        if cell.status != "complete" or cell.not_run:
            return result  # no session ran
        cell.rubric = rubric.name  # as a run with this judge names it, the ceiling's cells too
        if is_ceiling(cell.agent, dataset):
            return cell.model_dump_json(indent=1)  # scored on rule criteria only: no rubric item to judge
        sessions = {s.id: s for s in dataset.episode(cell.unit).sessions}
        todo = [(rec, sessions[rec.session_id]) for rec in cell.sessions
                if any(c.check is None for c in sessions[rec.session_id].checklist)]
        if any(rec.rubric_input is None for rec, _ in todo):
            raise ConfigError(f"cell {cell.agent}/{cell.variant}/{cell.unit}: this run did not keep what the rubric "
                              "judge reads (made before longview kept it); run it again to judge it")

        async def one(rec: Any, session: Any) -> None:
            v = await rubric.grade(rec.rubric_input.payload, rec.rubric_input.turns)
            apply_rubric_verdicts(rec, session, v, rubric.name)

        await asyncio.gather(*(one(r, s) for r, s in todo))
        return cell.model_dump_json(indent=1)

    def sessions(self, cell: Cell, dataset: IntentsDataset, options: IntentsOptions) -> int:
        if no_reference_script(cell.agent, dataset):
            return 0
        n = len(dataset.episode(cell.unit).sessions)
        k = options.sessions
        return min(n, k) if k else n

    async def run_cell(self, ctx: CellContext[IntentsDataset, IntentsOptions]) -> CellRecord:
        comps = ctx.components if isinstance(ctx.components, Components) else Components()
        why = no_reference_script(ctx.cell.agent, ctx.dataset)
        if why:
            return CellRecord(agent=ctx.cell.agent, variant=ctx.cell.variant, unit=ctx.cell.unit,
                              trial=ctx.cell.trial, not_run=why)
        try:
            return await run_episode(ctx, ctx.dataset, comps, no_history=ctx.cell.variant == "no_history",
                                     limit=ctx.options.sessions)
        except CellAborted as e:
            return abort_record(ctx, e)

    def score(self, results: list[str], dataset: IntentsDataset, options: IntentsOptions, seed: int) -> Scorecard:
        judge, rubric = "embedded:checks+rules", "embedded:proxy"
        for r in results:
            c = CellRecord.model_validate_json(r)
            if c.status == "complete" and not c.not_run:
                judge, rubric = c.judge, c.rubric
                break
        return score_cells(results, dataset.name, dataset.sha256, dataset.unit_ids(), seed, list(self.variants),
                           judge=judge, rubric=rubric, origin=dataset.origin)

    def session_outcomes(self, result: str, dataset: IntentsDataset) -> dict[str, SessionOutcome]:
        from longview.suites.intents.report_hooks import session_outcomes

        return session_outcomes(result, dataset)

    def notes(self, scorecard: Any, components: dict[str, str]) -> list[str]:
        return scorecard_notes(scorecard)

    def tables(self, scorecard: Any) -> list[Any]:
        from longview.harness.terminal.tables import rows_table
        from longview.suites.intents.scorecard import breakdown_table

        out = [rows_table(scorecard)]
        if (b := breakdown_table(scorecard)) is not None:
            out.append(b)
        return out

    def prompts(self) -> dict[str, str]:
        import hashlib

        return {**prompt_hashes(), "user": hashlib.sha256(USER_PROMPT.encode()).hexdigest()}

    def estimate(self, cells: list[Cell], dataset: IntentsDataset, roles: Roles, options: IntentsOptions) -> dict[str, tuple[int, int]]:
        """Rough --dry-run figures: per session, two agent turns per hidden intent plus three; the
        prompt grows with the file memory (capped at 60,000 characters); the intent judges run twice per
        reply, the rubric judge once per session with rubric items (once per reply with rubric_turns=each)."""
        k = options.sessions
        agent = judge = user = 0
        a_tok = j_tok = u_tok = 0
        for cell in cells:
            if no_reference_script(cell.agent, dataset):
                continue
            sessions = dataset.episode(cell.unit).sessions
            sessions = sessions[:k] if k else sessions
            memory = 0
            for s in sessions:
                turns = 3 + 2 * len(s.hidden_intents)
                prompt = 3000 + min(memory, 60_000) // 4 + len(s.request) // 4
                if not cell.agent.startswith("ref:"):  # reference agents are scripted: no calls
                    agent += turns
                    a_tok += turns * (prompt + 300 * turns // 2)
                replies = 1 + len(s.hidden_intents)
                judge += 2 * replies
                j_tok += 2 * replies * 2500
                if any(c.check is None for c in s.checklist):
                    graded = replies if options.rubric_turns == "each" else 1
                    judge += graded
                    j_tok += graded * 5000  # conversation, calls and state so far
                user += replies
                u_tok += replies * 400
                if cell.variant != "no_history":
                    memory += 1500 * turns
        out = {"agent": (agent, a_tok)} if agent else {}
        if roles.model("judge"):
            out["judge"] = (judge, j_tok)
        if roles.model("user"):
            out["user"] = (user, u_tok)
        return out

    def commands(self) -> typer.Typer:
        from longview.suites.intents.commands import app

        return app
