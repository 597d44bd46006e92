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
from longview.kernel.errors import ConfigError
from longview.kernel.models import GenParams
from longview.kernel.models.usage import add_summaries
from longview.kernel.runstore import DatasetInfo, Manifest, RunStore, atomic_write, config_hash
from longview.kernel.session import DEFAULT_MAX_TURNS
from longview.suites.atr.agents import REFERENCE_AGENTS
from longview.suites.atr.dataset import Dataset, Episode, load_dir
from longview.suites.atr.records import CellRecord
from longview.suites.atr.runner import Cell, CellRunner, Scaffold, run_cells
from longview.suites.atr.roles import Models
from longview.suites.atr.scorecard import Scorecard, build_scorecard
from longview.suites.atr.variants import MAIN_VARIANTS, get_variant, prompt_hashes

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

    agents: list[str] | None = Field(
        default=None, description="Reference agents to evaluate; None = all three unless models are given."
    )
    variants: list[str] = Field(default_factory=list, description="Variants; empty = each agent's default.")
    dataset: str = Field(default=BUILTIN, description="Dataset spec.")
    personas: int | None = Field(default=None, description="Use only the first N personas.")
    seed: int = Field(default=0, description="Seed for bootstrap CIs and model trials.")
    trials: int = Field(default=1, ge=1, description="Repetitions of every cell (model sampling differs per trial).")
    max_turns: int = Field(default=DEFAULT_MAX_TURNS, description="Assistant-turn cap per session.")
    out: Path | None = Field(default=None, description="Run directory.")
    resume: bool = Field(default=False, description="Skip finished cells of an existing run.")
    force: bool = Field(default=False, description="Replace an existing run directory.")
    max_concurrency: int = Field(default=4, description="Cells run at once.")
    models: list[str] = Field(default_factory=list, description="Models under test (provider/model).")
    user_model: str | None = Field(default=None, description="User-simulator wording model; None = embedded.")
    router_model: str | None = Field(default=None, description="Router model; None = embedded.")
    classifier_model: str | None = Field(default=None, description="Classifier model; None = embedded.")
    api_base: str | None = Field(default=None, description="Endpoint for every model role (vLLM, Ollama...).")
    role_params: dict[str, GenParams] = Field(
        default_factory=dict,
        description="Generation parameters per role (agent, user, router, classifier); scaffold roles "
        "default to temperature 0, the agent to the provider's defaults.",
    )
    no_cache: bool = Field(default=False, description="Bypass the disk response cache.")
    max_attempts: int = Field(default=6, ge=1, description="Attempts per model call before the cell aborts.")
    retry_base_delay: float = Field(default=1.0, ge=0, description="First backoff delay in seconds (doubles, jittered).")
    cache_dir: Path | None = Field(default=None, description="Response cache folder.")


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


def agents_of(opts: RunOptions) -> list[str]:
    """Reference agents asked for, then models; models alone run without reference agents."""
    asked = opts.agents if opts.agents is not None else ([] if opts.models else ["reference"])
    refs = expand_agents(asked)
    for m in opts.models:
        if "/" not in m:
            raise ConfigError(f"--model '{m}': expected provider/model, e.g. openai/gpt-5.4 or ollama/qwen3")
    return refs + [m for m in opts.models if m not in refs]


def plan(opts: RunOptions, dataset: Dataset) -> list[Cell]:
    """The cells of a run: agent x variant x persona."""
    for v in opts.variants:
        get_variant(v)
    episodes = _select(dataset, opts.personas)
    cells = []
    for agent in agents_of(opts):
        variants = opts.variants or ([REFERENCE_AGENTS[agent]] if agent in REFERENCE_AGENTS else MAIN_VARIANTS)
        cells += [Cell(agent, v, ep.persona_id, t) for v in variants for ep in episodes for t in range(opts.trials)]
    return cells


def _select(dataset: Dataset, n: int | None) -> list[Episode]:
    eps = sorted(dataset.episodes, key=lambda e: e.persona_id)
    if n is not None:
        if n < 1:
            raise ConfigError(f"--personas must be at least 1, got {n}")
        eps = eps[:n]
    return eps


def manifest_for(opts: RunOptions, dataset: Dataset, cells: list[Cell], scaffold: Scaffold) -> Manifest:
    config = {
        "suite": SUITE,
        "dataset_sha256": dataset.sha256,
        "cells": sorted(c.key for c in cells),
        "seed": opts.seed,
        "max_turns": opts.max_turns,
        "components": scaffold.names(),
        "prompts": prompt_hashes(),
        "models": {"agents": opts.models, "user": opts.user_model, "router": opts.router_model,
                   "classifier": opts.classifier_model},
        "role_params": {k: v.model_dump() for k, v in sorted(opts.role_params.items())},
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
    models = Models(opts)
    models.validate()
    scaffold = models.scaffold()
    manifest = manifest_for(opts, dataset, cells, scaffold)
    # The default folder is named by the config hash, so finding it means the same run: continue it.
    store = RunStore(opts.out or default_out(manifest))
    store.open(manifest, resume=opts.resume or opts.out is None, force=opts.force)
    previous_usage = store.previous_usage
    episodes = {e.persona_id: e for e in dataset.episodes}
    todo = [c for c in cells if not store.is_done(c.key)]
    on_start(len(todo), sum(_sessions(episodes[c.persona_id], c.variant) for c in todo))
    runner = CellRunner(store=store, scaffold=scaffold, make_agent=models.agent, episodes=episodes,
                        max_turns=opts.max_turns, on_session=on_session)
    try:
        asyncio.run(run_cells(runner, cells, opts.max_concurrency, on_cell))
    finally:  # usage goes into the manifest even if the run stops early; resumes add up
        manifest.usage = add_summaries(previous_usage, models.ledger.summary().model_dump())
        store.write_manifest(manifest)
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
    store.write_json("scorecard.json", scorecard_json(sc, manifest))
    return sc


def scorecard_json(sc: Scorecard, manifest: Manifest) -> dict:
    """The scorecard plus what makes it comparable: versions, config hash, seed, components."""
    data = sc.to_json_dict()
    data["run"] = {
        "package_version": manifest.package_version,
        "git_commit": manifest.git_commit,
        "config_hash": manifest.config_hash,
        "seed": manifest.config.get("seed"),
        "components": manifest.components,
        "prompts_sha256": config_hash(manifest.prompts),
    }
    return data


def write_json(sc: Scorecard, path: Path, manifest: Manifest) -> None:
    atomic_write(path, json.dumps(scorecard_json(sc, manifest), indent=2))
