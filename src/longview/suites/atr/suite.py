"""The `atr` suite's entry points: datasets, the cell plan, running, and scoring a run directory.

The CLI stays thin: it parses options into :class:`RunOptions` and calls :func:`run`.
"""

from __future__ import annotations

import asyncio
import json
from importlib import resources
from pathlib import Path
from typing import Callable

from pydantic import BaseModel, Field

from longview import __version__
from longview.domains.personal import all_tool_names, safe_fields
from longview.kernel.agent import Agent
from longview.kernel.errors import ConfigError
from longview.kernel.runstore import DatasetInfo, Manifest, RunStore, config_hash
from longview.kernel.session import DEFAULT_MAX_TURNS
from longview.suites.atr.agents import REFERENCE_AGENTS, make_reference_agent
from longview.suites.atr.dataset import Dataset, Episode, load_dir
from longview.suites.atr.records import CellRecord
from longview.suites.atr.runner import Cell, CellRunner, Scaffold, run_cells
from longview.suites.atr.scaffold import KeywordRouter, TopicClassifier
from longview.suites.atr.scorecard import Scorecard, build_scorecard
from longview.suites.atr.user import ScriptedUser
from longview.suites.atr.variants import get_variant, prompt_hashes

SUITE = "atr"
BUILTIN = "builtin"


def builtin_path() -> Path:
    return Path(str(resources.files("longview.suites.atr") / "data" / BUILTIN))


def load_dataset(spec: str) -> Dataset:
    """`builtin`, a folder of episode JSON files, or `atrbench:PATH` (the released layout)."""
    if spec == BUILTIN:
        return load_dir(builtin_path(), BUILTIN, all_tool_names())
    if spec.startswith("atrbench:"):
        from longview.suites.atr.importer import load_atrbench

        return load_atrbench(Path(spec.split(":", 1)[1]))
    return load_dir(Path(spec), spec, all_tool_names())


class RunOptions(BaseModel):
    """Everything a user chooses for one `longview run atr`."""

    agents: list[str] = Field(default_factory=lambda: ["reference"], description="Agents to evaluate.")
    variants: list[str] = Field(default_factory=list, description="Variants; empty = each agent's default.")
    dataset: str = Field(default=BUILTIN, description="Dataset spec.")
    personas: int | None = Field(default=None, description="Use only the first N personas.")
    seed: int = Field(default=0, description="Seed for bootstrap CIs and model trials.")
    max_turns: int = Field(default=DEFAULT_MAX_TURNS, description="Assistant-turn cap per session.")
    out: Path | None = Field(default=None, description="Run directory.")
    resume: bool = Field(default=False, description="Skip finished cells of an existing run.")
    force: bool = Field(default=False, description="Replace an existing run directory.")
    max_concurrency: int = Field(default=4, description="Cells run at once.")


def expand_agents(agents: list[str]) -> list[str]:
    out: list[str] = []
    for a in agents:
        for name in (list(REFERENCE_AGENTS) if a == "reference" else [a]):
            if name not in out:
                out.append(name)
    for a in out:
        if a.startswith("ref:") and a not in REFERENCE_AGENTS:
            raise ConfigError(f"unknown agent '{a}'; reference agents are {', '.join(REFERENCE_AGENTS)}")
        if not a.startswith("ref:"):
            raise ConfigError(f"unknown agent '{a}'; reference agents are {', '.join(REFERENCE_AGENTS)} (model agents need --model)")
    return out


def plan(opts: RunOptions, dataset: Dataset) -> list[Cell]:
    """The cells of a run: agent x variant x persona."""
    for v in opts.variants:
        get_variant(v)
    episodes = _select(dataset, opts.personas)
    cells = []
    for agent in expand_agents(opts.agents):
        variants = opts.variants or [REFERENCE_AGENTS.get(agent, "default")]
        cells += [Cell(agent, v, ep.persona_id) for v in variants for ep in episodes]
    return cells


def _select(dataset: Dataset, n: int | None) -> list[Episode]:
    eps = sorted(dataset.episodes, key=lambda e: e.persona_id)
    if n is not None:
        if n < 1:
            raise ConfigError(f"--personas must be at least 1, got {n}")
        eps = eps[:n]
    return eps


def default_scaffold() -> Scaffold:
    return Scaffold(router=KeywordRouter(), classifier=TopicClassifier(), user=ScriptedUser())


def make_agent(name: str, episode: Episode) -> Agent:
    return make_reference_agent(name, episode)


def manifest_for(opts: RunOptions, dataset: Dataset, cells: list[Cell], scaffold: Scaffold) -> Manifest:
    config = {
        "suite": SUITE,
        "dataset_sha256": dataset.sha256,
        "cells": sorted(c.key for c in cells),
        "seed": opts.seed,
        "max_turns": opts.max_turns,
        "components": scaffold.names(),
        "prompts": prompt_hashes(),
        "package_version": __version__,
    }
    personas = len({c.persona_id for c in cells})
    return Manifest(
        suite=SUITE,
        dataset=DatasetInfo(name=dataset.name, sha256=dataset.sha256, personas=personas),
        config=config,
        config_hash=config_hash(config),
        components={**scaffold.names(), "agents": ", ".join(sorted({c.agent for c in cells}))},
        prompts=prompt_hashes(),
    )


def default_out(manifest: Manifest) -> Path:
    return Path("runs") / f"{SUITE}-{manifest.config_hash[:10]}"


def run(
    opts: RunOptions,
    *,
    on_start: Callable[[int, int], None] = lambda cells, sessions: None,
    on_session: Callable[[], None] = lambda: None,
    on_cell: Callable[[Cell, CellRecord], None] = lambda c, r: None,
) -> tuple[RunStore, Scorecard]:
    """Plan, run the unfinished cells, score, and write the scorecard into the run directory.

    The dataset is fully validated before anything is written.
    """
    dataset = load_dataset(opts.dataset)
    cells = plan(opts, dataset)
    scaffold = default_scaffold()
    manifest = manifest_for(opts, dataset, cells, scaffold)
    store = RunStore(opts.out or default_out(manifest))
    store.open(manifest, resume=opts.resume, force=opts.force)
    episodes = {e.persona_id: e for e in dataset.episodes}
    todo = [c for c in cells if not store.is_done(c.key)]
    on_start(len(todo), sum(_sessions(episodes[c.persona_id], c.variant) for c in todo))
    runner = CellRunner(store=store, scaffold=scaffold, make_agent=make_agent, episodes=episodes,
                        max_turns=opts.max_turns, on_session=on_session)
    asyncio.run(run_cells(runner, cells, opts.max_concurrency, on_cell))
    return store, score(store, dataset)


def _sessions(ep: Episode, variant: str) -> int:
    return len(ep.test_sessions) + (len(ep.learning_sessions) if get_variant(variant).learning else 0)


def score(store: RunStore, dataset: Dataset | None = None) -> Scorecard:
    """Score every finished cell of a run directory and write ``scorecard.json`` there."""
    manifest = store.manifest()
    if dataset is None:
        dataset = load_dataset(manifest.dataset.name)
    if dataset.sha256 != manifest.dataset.sha256:
        raise ConfigError(
            f"{store.root}: dataset '{manifest.dataset.name}' changed since the run (sha256 "
            f"{manifest.dataset.sha256[:12]} -> {dataset.sha256[:12]})"
        )
    cells = [CellRecord.model_validate_json(t) for t in store.results()]
    personas = {c.persona_id for c in cells}
    episodes = {e.persona_id: e for e in dataset.episodes if e.persona_id in personas}
    sc = build_scorecard(cells, episodes, dataset.name, dataset.sha256, safe_fields, seed=manifest.config["seed"])
    store.write_json("scorecard.json", sc.to_json_dict())
    return sc


def write_json(sc: Scorecard, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(sc.to_json_dict(), indent=2))
    tmp.replace(path)
