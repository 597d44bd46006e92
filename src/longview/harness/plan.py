"""Validating a run before anything is written: suite options, the cell plan (agent x variant x unit
x trial), model roles, the dataset and its unit ids, the manifest — and the agent of one cell."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field, ValidationError

from longview._version import __version__
from longview.harness import registry
from longview.harness.cell import Cell, CellResult, Dataset
from longview.harness.datafiles import Unhashable, files_sha256, recorded_sha256, spec_path
from longview.harness.options import RunConfig
from longview.harness.roles import AGENT, Roles
from longview.harness.runstore import Manifest, RunDataset, config_hash
from longview.harness.suite import AnySuite
from longview.kernel.agent import Agent
from longview.kernel.errors import ConfigError, DataError, LongviewError, RunFolderError, printable
from longview.kernel.ids import id_problem
from longview.kernel.models import GenParams
from longview.kernel.models.prompt_cache import with_cache_key
from longview.kernel.models.providers import split_model

if TYPE_CHECKING:
    from longview.agents.external.specs import ExternalAgent

REFERENCE = "reference"  # --agent reference: every reference agent of the suite


class AbortedCell(CellResult):
    """The completion marker of a cell whose run_cell raised CellAborted: recorded, never scored."""

    agent: str = Field(description="Agent of the cell.")
    variant: str = Field(description="Variant of the cell.")
    unit: str = Field(description="Unit of the cell.")
    trial: int = Field(default=0, description="Trial of the cell.")
    status: str = Field(default="aborted", description="Always aborted.")


def suite_options(suite: AnySuite, raw: dict[str, Any]) -> BaseModel:
    """The suite's typed options from ``-S key=value`` pairs (values already JSON-decoded); an
    unknown key is an error for every suite (a typo must not be silently ignored)."""
    unknown = sorted(set(raw) - set(suite.Options.model_fields))
    if unknown:
        raise ConfigError(f"-S {unknown[0]}: not an option of suite '{suite.name}' (its options: "
                          f"{', '.join(suite.Options.model_fields) or 'none'})")
    try:
        return suite.Options.model_validate(raw)
    except ValidationError as e:
        err = e.errors()[0]
        field = ".".join(str(x) for x in err["loc"]) or "<root>"
        raise ConfigError(f"-S {field}: {err['msg']} (suite '{suite.name}' options: "
                          f"{', '.join(suite.Options.model_fields) or 'none'})") from None


def agents_of(suite: AnySuite, cfg: RunConfig, objects: Sequence[str] = ()) -> list[str]:
    """Reference agents and external agents (module:attr, cmd:, mcp:, registered names) asked for,
    then agent objects handed to the Python API, then models; models or agent objects alone run
    without reference agents."""
    from longview.agents.external.specs import COMMAND_PREFIXES, is_external, paired_name

    asked = cfg.agents if cfg.agents is not None else ([] if cfg.models or objects else [REFERENCE])
    refs: list[str] = []
    for a in asked:
        for name in (list(suite.reference_agents) if a == REFERENCE else [a]):
            if name not in refs:
                refs.append(name)
    known = ", ".join(suite.reference_agents)
    for a in refs:
        if a not in suite.reference_agents and not is_external(a):
            hint = "" if a.startswith("ref:") else (" (model agents need --model; your own agent: module:attr, "
                                                    "cmd:COMMAND, mcp:COMMAND or mcp+stdio:COMMAND, see docs/agents.md)")
            raise ConfigError(f"unknown agent '{a}' for suite '{suite.name}'; reference agents are {known}{hint}")
    for m in cfg.models:
        if "/" not in m:
            raise ConfigError(f"--model '{m}': expected provider/model, e.g. openai/gpt-5.4 or ollama/qwen3")
    for o in objects:
        if o in refs or o in cfg.models:
            raise ConfigError(f"agent name '{o}' is taken by another agent of the run; give your agent another name")
    if cfg.models and any(a.startswith(COMMAND_PREFIXES) for a in refs):
        # A harness x model grid: each command agent runs with each model (through longview's endpoint).
        paired = [x for a in refs for x in ([paired_name(a, m) for m in cfg.models] if a.startswith(COMMAND_PREFIXES)
                                            else [a])]
        return paired + [o for o in objects if o not in refs]
    return refs + [o for o in objects if o not in refs] + [m for m in cfg.models if m not in refs]


def plan(suite: AnySuite, cfg: RunConfig, dataset: Dataset, options: BaseModel | None = None,
         objects: Sequence[str] = ()) -> list[Cell]:
    """The cells of a run: agent x variant x unit x trial."""
    for v in cfg.variants:
        if v not in suite.variants:
            raise ConfigError(f"unknown variant '{v}' for suite '{suite.name}'; expected one of {', '.join(suite.variants)}")
    units = select_units(list(dataset.unit_ids()), cfg.unit_ids, cfg.units)
    cells: list[Cell] = []
    for agent in agents_of(suite, cfg, objects):
        variants = cfg.variants or (suite.default_variants(agent, options) if options is not None else None) or (
            [suite.reference_agents[agent]] if agent in suite.reference_agents else list(suite.model_variants)
        )
        for v in variants:
            if v not in suite.variants:
                raise ConfigError(f"unknown variant '{v}' for suite '{suite.name}'; expected one of {', '.join(suite.variants)}")
        cells += [Cell(agent=agent, variant=v, unit=u, trial=t) for v in variants for u in units for t in range(cfg.trials)]
    return cells


def roles_of(suite: AnySuite, cfg: RunConfig) -> Roles:
    known = {r.name for r in suite.roles}
    for role in cfg.role_models:
        if role not in known:
            raise ConfigError(f"suite '{suite.name}' has no role '{role}'; its roles: {', '.join(sorted(known)) or 'none'}")
    for role in cfg.role_params:
        if role != AGENT and role not in known:
            raise ConfigError(f"--param: suite '{suite.name}' has no role '{role}'; roles: agent, {', '.join(sorted(known))}")
    return Roles(cfg.role_models, cfg.role_params, api_base=cfg.api_base, no_cache=cfg.no_cache,
                 cache_dir=cfg.cache_dir, max_attempts=cfg.max_attempts, retry_base_delay=cfg.retry_base_delay,
                 seed=cfg.seed, request_timeout=cfg.request_timeout, provider_limits=cfg.provider_limits,
                 prices=cfg.prices)


# What a loader that missed a check raises on hostile data (a pydantic validator comparing naive and
# aware datetimes, a depth the parser cannot take, a number too large to convert...).
_LOADER_SLIPS = (TypeError, ValueError, KeyError, IndexError, AttributeError, RecursionError, OverflowError,
                 UnicodeError)


def load_dataset(suite: AnySuite, spec: str, options: BaseModel) -> Dataset:
    """``suite.load_dataset`` with a safety net: whatever the suite's loader checks, bad data ends in
    one DataError (exit 2, nothing written), never a traceback. The message says the loader let it
    through, so the suite can add the check that names the field."""
    try:
        dataset: Dataset = suite.load_dataset(spec, options)
        return dataset
    except LongviewError:
        raise
    except _LOADER_SLIPS as e:
        detail = printable(" ".join(str(e).split()), 200)
        raise DataError(spec, "<dataset>", "<content>",
                        f"data the '{suite.name}' loader can read ({type(e).__name__}: {detail}; the loader "
                        "did not name the field — please report it)") from None


def load_run_dataset(suite: AnySuite, manifest: Manifest, manifest_file: Path, options: BaseModel, *,
                     strict: bool = True) -> Dataset:
    """The dataset of a run folder whose manifest is data, not trusted (a forged spec may name
    ``~/.aws/credentials``): the bytes of the files its spec names are hashed first and compared
    with ``dataset.files_sha256``, then the loaded ``sha256`` with the manifest's. Files that differ
    are refused unparsed when ``strict`` (rescore); otherwise (show, report) loaded, but like the
    files of a run that recorded no hash, as files not known to be the run's: the loader's message,
    which may quote them, is not shown. Each refusal names the manifest, the field and what was
    expected, and quotes no byte of the files."""
    spec = manifest.dataset.load_spec()
    field = "dataset.spec" if manifest.dataset.spec else "dataset.name"
    recorded = manifest.dataset.files_sha256
    path = spec_path(spec, suite.datasets)

    def refuse(field: str, expected: str) -> RunFolderError:
        return RunFolderError(str(manifest_file), "<manifest>", field, expected)

    matched = False
    if path is not None:
        try:
            actual = files_sha256(path)  # also before an unchecked load: no FIFO, no 'spec: /'
        except Unhashable as e:
            raise refuse(field, f"a dataset file or folder; '{spec}' is not one ({e}); none of it was read") from None
        matched = actual == recorded
        if strict and recorded is not None and not matched:
            raise refuse(field, f"a dataset whose files hash to {recorded[:12]}... (dataset.files_sha256); "
                         f"'{spec}' hashes to {actual[:12]}...: it changed since the run, or it is not the run's "
                         "dataset; none of it was parsed")
    elif recorded is not None:
        raise refuse(field, f"the run's dataset files (dataset.files_sha256 {recorded[:12]}...); '{spec}' names "
                     "no file or folder now")
    try:
        dataset = load_dataset(suite, spec, options)
    except LongviewError:
        if spec in suite.datasets or matched:  # the run's own files: the message is about them
            raise
        why = "its files differ from the run's" if recorded is not None else "the run did not record its files' hash"
        raise refuse(field, f"a {suite.name} dataset with sha256 {manifest.dataset.sha256[:12]}...; '{spec}' does "
                     f"not load as one (its loader's message is not shown: {why}; see it with "
                     f"`longview run {suite.name} --dataset SPEC --dry-run`)") from None
    if dataset.sha256 != manifest.dataset.sha256:
        raise refuse("dataset.sha256", f"the sha256 of dataset '{spec}' as loaded now ({dataset.sha256[:12]}...); "
                     "it changed since the run")
    return dataset


def select_units(available: list[str], chosen: list[str], first: int | None) -> list[str]:
    """The units a run plans, in dataset order: those named by ``--unit`` (an id, or ``A..B``, every
    unit from A to B in dataset order) or all, then the first ``--units N`` of them."""
    if first is not None and first < 1:
        raise ConfigError(f"--personas/--units must be at least 1, got {first}")
    if chosen:
        index = {u: i for i, u in enumerate(available)}
        picked: set[int] = set()
        for item in chosen:
            lo, sep, hi = item.partition("..")
            ends = [lo, hi] if sep else [item]
            for end in ends:
                if end not in index:
                    near = ", ".join(available[:5]) + (", ..." if len(available) > 5 else "")
                    raise ConfigError(f"--unit '{item}': no unit '{end}' in the dataset (its units: {near})")
            a, b = index[ends[0]], index[ends[-1]]
            if a > b:
                raise ConfigError(f"--unit '{item}': '{lo}' comes after '{hi}' in the dataset; write {hi}..{lo}")
            picked.update(range(a, b + 1))
        available = [available[i] for i in sorted(picked)]
    return available if first is None else available[:first]


def check_units(dataset: Dataset) -> None:
    """Unit ids name cell folders: whatever a suite's loader checked, each must be a safe, unique id
    (the same guarantee for every suite on the harness)."""
    seen: set[str] = set()
    for u in dataset.unit_ids():
        problem = id_problem(u)
        if problem:
            raise DataError(str(dataset.name), f"unit {printable(u, 60)}", "unit id", f"{problem}")
        if u in seen:
            raise DataError(str(dataset.name), f"unit {u}", "unit id", "unique unit ids (duplicate)")
        seen.add(u)


@dataclass
class Prepared:
    """A validated run, before anything is written."""

    suite: AnySuite
    cfg: RunConfig
    options: BaseModel
    dataset: Dataset
    cells: list[Cell]
    roles: Roles
    components: Any
    manifest: Manifest
    external: dict[str, ExternalAgent] = field(default_factory=dict)  # agent label -> agent not longview's
    # agent label -> the name and version its processes reported (harness.harnesses): set by the
    # run's first finished cell of that agent, or by the cells a resumed run finished before
    reported: dict[str, dict[str, str]] = field(default_factory=dict)


def external_agents(cfg: RunConfig, objects: Mapping[str, ExternalAgent] | None = None) -> dict[str, ExternalAgent]:
    """The run's agents that are neither reference agents nor models, resolved (imported, checked)."""
    from longview.agents.external.specs import COMMAND_PREFIXES, is_external, resolve, with_model

    out = dict(objects or {})
    if cfg.agent_process == "cell" and not any(a.startswith("cmd:") for a in cfg.agents or []):
        raise ConfigError("--agent-process cell: applies to cmd: agents (an mcp: harness is launched per session "
                          "with the session's opening), and the run has none")
    for a in cfg.agents or []:
        if is_external(a) and a not in out:
            ext = resolve(a, timeout=cfg.agent_timeout, process=cfg.agent_process)
            if cfg.models and a.startswith(COMMAND_PREFIXES):
                out.update({x.name: x for x in (with_model(ext, m) for m in cfg.models)})
            else:
                out[a] = ext
    if any(x.in_process for x in out.values()) and (cfg.workers > 1 or cfg.executor != "local"):
        raise ConfigError("an agent object handed to longview.run lives in this process: it runs with the local "
                          "executor and one worker (register it as module:attr to use --workers or --executor ray)")
    return out


def prepare(cfg: RunConfig, *, dry_run: bool = False, objects: Mapping[str, ExternalAgent] | None = None) -> Prepared:
    """Validate everything (dataset, plan, options, models, external agents) before anything is
    written. A dry run checks model strings' providers only, so a plan can be priced before any
    key is set. ``objects``: agents handed to the Python API (``longview.run``), by label."""
    suite = registry.load(cfg.suite)
    options = suite_options(suite, cfg.suite_options)
    spec = suite.resolve_dataset(cfg.dataset)  # the same data from any folder: show, report, workers
    dataset = load_dataset(suite, spec, options)
    check_units(dataset)
    external = external_agents(cfg, objects)
    cells = plan(suite, cfg, dataset, options, objects=list(objects or {}))
    roles = roles_of(suite, cfg)
    if dry_run:
        for m in [*cfg.models, *cfg.role_models.values()]:
            split_model(m)
    else:
        roles.validate(cfg.models)
    # A dry run builds no component: model-backed ones would need their keys.
    components = None if dry_run else suite.components_for(roles, options, dataset)
    names = {} if dry_run else suite.component_names(components)
    prompts = suite.prompts_for(dataset)
    config = {
        "suite": suite.name,
        "dataset_sha256": dataset.sha256,
        "cells": sorted(c.key for c in cells),
        "seed": cfg.seed,
        "max_turns": cfg.max_turns,
        "components": names,
        "prompts": prompts,
        "models": {"agents": cfg.models, **{r.name: cfg.role_models.get(r.name) for r in suite.roles}},
        "role_params": {k: v.model_dump() for k, v in sorted(cfg.role_params.items())},
        "options": options.model_dump(mode="json"),
        "package_version": __version__,
    }
    package = registry.package_of(suite.name)
    if package is not None and package["name"] != "longview":
        # A plugin's own version is part of the run (longview's is package_version): after its
        # scoring changes, --resume refuses to mix old and new cells.
        config["plugin"] = package
    # --api-base is not part of the identity: the endpoint is how to reach the model, not what is
    # measured (the model names are), so after aborts a corrected endpoint resumes the run; the
    # manifest records every endpoint used (Manifest.endpoints).
    if external:  # what each agent is: another agent (or version of it) is another run
        config["external_agents"] = {k: v.identity for k, v in sorted(external.items())}
    manifest = Manifest(
        suite=suite.name,
        dataset=RunDataset(name=dataset.name, sha256=dataset.sha256, units=len({c.unit for c in cells}), spec=spec,
                           files_sha256=recorded_sha256(spec, suite.datasets)),
        units=[u for u in dataset.unit_ids() if u in {c.unit for c in cells}],
        config=config,
        config_hash=config_hash(config),
        components={**names, "agents": ", ".join(sorted({c.agent for c in cells}))},
        prompts=prompts,
        api_base=cfg.api_base,
    )
    return Prepared(suite, cfg, options, dataset, cells, roles, components, manifest, external)


def default_out(manifest: Manifest) -> Path:
    return Path("runs") / f"{manifest.suite}-{manifest.config_hash[:10]}"


def make_agent(p: Prepared, cell: Cell) -> Agent:
    from longview.agents.external.reported import Reports

    if cell.agent in p.suite.reference_agents:
        return p.suite.reference_agent(cell.agent, p.dataset, cell.unit)
    if cell.agent in p.external:
        ext = p.external[cell.agent]
        agent = ext.make(cell)
        if isinstance(agent, Reports):  # a process that says what it is must say what the run's others said
            agent.expected = p.reported.get(cell.agent)
        if ext.model is not None:  # its model calls go through longview's client: cache, retries, usage
            client = p.roles.client(AGENT, ext.model)
            assert client is not None
            params = with_cache_key(p.roles.params(AGENT), p.suite.name, cell.agent, cell.variant, cell.unit)
            agent.use_model(client, params, p.roles.trial_key(cell.trial))  # type: ignore[attr-defined]
        return agent
    from longview.agents.llm import LLMAgent

    client = p.roles.client(AGENT, cell.agent)
    assert client is not None  # a model string always gives a client
    # One provider prompt-cache key per cell: its sessions share a long prompt prefix (never part of
    # the response-cache key; sent only to providers that take one).
    params = with_cache_key(p.roles.params(AGENT, cell.agent), p.suite.name, cell.agent, cell.variant, cell.unit)
    trial = p.roles.trial_key(cell.trial)
    if p.cfg.role_params.get(AGENT, GenParams()).seed is None:  # each trial samples with its own seed
        params = params.model_copy(update={"seed": trial})
    return LLMAgent(client, params, name=cell.agent, trial=trial)


