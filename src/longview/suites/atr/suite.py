"""The `atr` suite as a harness plugin: ATRBench's ask-to-remember protocol."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from longview.domains.personal import all_tool_names, safe_fields
from longview.suite import Agent, Cell, CellContext, NoOptions, Roles, RoleSpec, Section, SessionOutcome, Suite
from longview.suite import Scorecard as CommonScorecard
from longview.suites.atr import report_hooks
from longview.suites.atr.agents import REFERENCE_AGENTS, make_reference_agent
from longview.suites.atr.dataset import Dataset, load_dir
from longview.suites.atr.paper import embedded_scaffold_note
from longview.suites.atr.protocol import SEND_TO_USER
from longview.suites.atr.records import CellRecord
from longview.suites.atr.release_prompts import prompt_set
from longview.suites.atr.runner import Scaffold, run_cell, scaffold_for
from longview.suites.atr.scorecard import build_scorecard, from_common, to_common
from longview.suites.atr.variants import MAIN_VARIANTS, get_variant, prompt_only_notes

if TYPE_CHECKING:
    import typer
    from rich.table import Table

BUILTIN = "builtin"


def builtin_path() -> Path:
    return Path(str(resources.files("longview.suites.atr") / "data" / BUILTIN))


def load_dataset(spec: str) -> Dataset:
    """`builtin`, a folder of episode JSON files, or `atrbench:PATH` (the released layout)."""
    if spec == BUILTIN:
        return load_dir(builtin_path(), BUILTIN, all_tool_names())
    if spec.startswith("atrbench:"):
        from longview.suites.atr.importer import load_atrbench

        return load_atrbench(Path(spec.split(":", 1)[1]).expanduser())
    return load_dir(Path(spec), spec, all_tool_names())


class ATRSuite(Suite[Dataset, NoOptions, CellRecord]):
    name = "atr"
    summary = "ask-to-remember (ATRBench): does the agent ask now for a standing rule a later session needs?"
    roles = (
        RoleSpec(name="user", description="words the simulated user's replies", embedded="scripted-user"),
        RoleSpec(name="router", description="decides whether a user-facing message asks a standing-rule question",
                 embedded="keyword-router"),
        RoleSpec(name="classifier", description="maps a standing-rule question to the rule it asks about",
                 embedded="decision-classifier"),
    )
    reference_agents = dict(REFERENCE_AGENTS)
    variants = {
        "default": "no standing-rule instructions (the rule-blind baseline)",
        "atr": "the agent is told what a standing rule is and invited to ask for them",
        "always_ask": "the agent is told to ask about standing rules in every learning session",
        "oracle_target": "no learning; the test-bound rule's answer is in the context",
        "oracle_full": "no learning; every rule's answer is in the context",
    }
    model_variants = tuple(MAIN_VARIANTS)
    datasets = {
        "builtin": "20 generated personas shipped with longview",
        "PATH": "a folder of ATRBench-format episode JSON files",
        "atrbench:PATH": "the released ATRBench data (data/personas/*/episodes)",
    }
    profile = report_hooks.PROFILE

    def load_dataset(self, spec: str, options: NoOptions) -> Dataset:
        return load_dataset(spec)

    def sample_dataset(self, folder: Path) -> str:
        """Two builtin episodes cut to two rules and two learning sessions, as a plain episode
        folder: small and quick to run (for the fuzz suite)."""
        import json

        folder.mkdir(parents=True, exist_ok=True)
        for f in sorted(builtin_path().glob("*.json"))[:2]:
            ep = json.loads(f.read_text(encoding="utf-8"))
            ep["rules"] = ep["rules"][:2]
            kept = {r["rule_id"] for r in ep["rules"]}
            ep["test_sessions"] = [t for t in ep["test_sessions"] if t["rule_id"] in kept]
            ep["learning_sessions"] = ep["learning_sessions"][:2]
            meta = ep.get("metadata") or {}
            meta["selected_rules"] = [r for r in meta.get("selected_rules", []) if r in kept]
            (folder / f.name).write_text(json.dumps(ep, indent=1), encoding="utf-8")
        return str(folder)

    def reference_agent(self, name: str, dataset: Dataset, unit: str) -> Agent:
        return make_reference_agent(name, dataset.episode(unit))

    def components_for(self, roles: Roles, options: NoOptions, dataset: Dataset) -> Scaffold:
        # The prompt set follows the dataset: the release's own on an atrbench checkout that has them.
        return scaffold_for(roles, prompt_set(dataset.name))

    def sessions_in_flight(self, cell: Cell, dataset: Dataset, options: NoOptions) -> int:
        """A cell's test sessions run side by side once its learning phase is over."""
        return len(dataset.episode(cell.unit).test_sessions)

    def component_names(self, components: Scaffold) -> dict[str, str]:
        return components.names()

    def sessions(self, cell: Cell, dataset: Dataset, options: NoOptions) -> int:
        ep = dataset.episode(cell.unit)
        return len(ep.test_sessions) + (len(ep.learning_sessions) if get_variant(cell.variant).learning else 0)

    async def run_cell(self, ctx: CellContext[Dataset, NoOptions]) -> CellRecord:
        return await run_cell(ctx, ctx.dataset.episode(ctx.cell.unit))

    def score(self, results: list[str], dataset: Dataset, options: NoOptions, seed: int) -> CommonScorecard:
        cells = [CellRecord.model_validate_json(t) for t in results]
        personas = {c.persona_id for c in cells}
        episodes = {e.persona_id: e for e in dataset.episodes if e.persona_id in personas}
        return to_common(build_scorecard(cells, episodes, dataset.name, dataset.sha256, safe_fields, seed=seed))

    def tables(self, scorecard: CommonScorecard) -> list[Table]:
        from longview.suites.atr.tables import breakdown_table, paper_table, scorecard_table, summary_table

        view = from_common(scorecard)
        out = [scorecard_table(view)]
        if any(not r.agent.startswith("ref:") for r in view.rows):
            out.append(paper_table(view))
            if (summary := summary_table(view)) is not None:
                out.append(summary)
        return out + [breakdown_table(view)]

    def notes(self, scorecard: CommonScorecard, components: dict[str, str]) -> list[str]:
        model_ran = any(not r.agent.startswith("ref:") for r in scorecard.rows)
        note = embedded_scaffold_note(components, model_ran)
        return ([note] if note else []) + prompt_only_notes(scorecard)

    def report_sections(self, scorecard: dict[str, Any]) -> list[Section]:
        return report_hooks.report_sections(scorecard)

    def session_outcomes(self, result: str, dataset: Dataset) -> dict[str, SessionOutcome]:
        return report_hooks.session_outcomes(result, dataset)

    def transcript(self, events: list[Any]) -> list[str]:
        from longview.harness.transcript import trace_lines

        return trace_lines(events, to_user=frozenset({SEND_TO_USER.name}))

    def prompts_for(self, dataset: Dataset) -> dict[str, str]:
        prompts = prompt_set(dataset.name)
        return {f"{prompts.name}:{f}": h for f, h in prompts.hashes.items()}

    def commands(self) -> typer.Typer:
        from longview.suites.atr.commands import app

        return app

    def estimate(self, cells: list[Cell], dataset: Dataset, roles: Roles, options: NoOptions) -> dict[str, tuple[int, int]]:
        from longview.suites.atr.estimate import estimate

        return estimate(cells, dataset, roles)
