"""Import π-Bench's released data (schema v2) from the user's own checkout: ``pibench:PATH``.

Nothing of the release is copied into longview. ``PATH`` is the checkout (with ``data/``) or its
``data/`` folder; every persona folder holds ``profile.yaml``, ``episode.yaml`` (task order and
``depends_on``), ``tools.yaml`` (the tools the persona's agent is offered), ``tasks/<task_id>/``
with ``task.yaml`` and the task's workspace assets, and ``scripts/`` with rule scripts.

The release's files are read as data (:mod:`~longview.suites.intents.pib_files`): no path may lead
outside its ``data/`` folder, no file may be a FIFO or device, and **no code of the release runs
while loading** — a rule script is only checked to be a ``.py`` file there; it runs confined when a
session is scored (:mod:`~longview.suites.intents.rules`).

Loading accepts the shapes the release uses (goals YAML reads as mappings, an empty
``checklist:``, a bare ``trigger: env`` with an ``environment`` block, long event texts) and is
otherwise strict: a malformed file stops the load with one message naming file, task and field.
Every task is then classified (:mod:`~longview.suites.intents.pib_classify`); runnable tasks run in
episode order as whole dependency units — a unit with any non-runnable task is left out.
"""

from __future__ import annotations

import hashlib
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from longview.kernel.errors import DataError
from longview.kernel.ids import check_id
from longview.suites.intents.dataset import Classification, IntentsDataset
from longview.suites.intents.pib_classify import PREFIX, classify, text_apps, tool_apps
from longview.suites.intents.pib_files import inside, load_yaml, task_assets
from longview.suites.intents.schema import ChecklistItem, Episode, HiddenIntent, Persona, Session


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _text_of(v: Any) -> str:
    """A goal or role entry as text: YAML reads ``Goal: detail`` (an unquoted ': ') as a mapping."""
    if isinstance(v, dict):
        return "; ".join(f"{k}: {_text_of(x)}" for k, x in v.items())
    if isinstance(v, list):
        return "; ".join(_text_of(x) for x in v)
    return "" if v is None else str(v)


class PibProfile(_Strict):
    schema_version: Literal["v2"] = Field(description="Schema version.")
    user_id: str = Field(min_length=1, description="Persona id (its folder name).")
    role: str | dict[str, Any] = Field(description="Who the user is (text, or a mapping with role_text).")
    preferences: dict[str, Any] | None = Field(default=None, description="Style hints.")
    long_term_goals: list[Any] | None = Field(default=None, description="Stable objectives (text; an entry YAML "
                                              "reads as a mapping is kept as 'key: value' text).")

    def goals(self) -> list[str]:
        return [_text_of(g) for g in self.long_term_goals or []]

    def role_text(self) -> str:
        return self.role if isinstance(self.role, str) else _text_of(self.role.get("role_text", self.role))


class PibEpisodeTask(_Strict):
    task_id: str = Field(min_length=1, description="Task id.")
    depends_on: list[str] | None = Field(default=None, description="Earlier prerequisite task ids.")


class PibEpisode(_Strict):
    schema_version: Literal["v2"] = Field(description="Schema version.")
    episode_id: str = Field(min_length=1, description="Episode id.")
    user_id: str = Field(min_length=1, description="Persona id.")
    tasks: list[PibEpisodeTask] = Field(min_length=1, description="Task order.")
    runtime: dict[str, Any] | None = Field(default=None, description="Runtime binding (docker image).")


class PibTools(_Strict):
    tool_names: list[str] = Field(description="The AppWorld APIs the persona's agent is offered (no prefix).")


class PibHiddenIntent(_Strict):
    content: str = Field(min_length=1, description="The requirement.")
    status: Literal["not_provided", "provided"] = Field(default="not_provided", description="Initial status.")

    @field_validator("content", mode="before")
    @classmethod
    def _not_blank(cls, v: Any) -> Any:
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            v = str(v)  # the release reads every content with str()
        if isinstance(v, str) and not v.strip():
            raise ValueError("must not be blank")
        return v.strip() if isinstance(v, str) else v


class PibIntent(_Strict):
    initial_input: str = Field(min_length=1, description="The initial request.")
    hidden_intent: list[PibHiddenIntent] = Field(min_length=1, description="Hidden intents.")


class PibCriterion(_Strict):
    criterion: str = Field(min_length=1, description="Rubric criterion.")
    weight: float = Field(default=1.0, gt=0, allow_inf_nan=False, description="Weight.")
    evaluation: Literal["llm"] = Field(default="llm", description="How it is judged (the release knows only llm).")


class PibObjectives(_Strict):
    tools: list[dict[str, dict[str, list[str] | None] | None]] | None = Field(
        default=None, description="Tool-trace specs: {tool_name: {call: [...], result: [...]}}.")
    checklist: list[PibCriterion] | None = Field(default=None, description="Rubric criteria (empty: none).")
    files_read: list[str] | None = Field(default=None, description="Files judges see.")
    tools_evaluation_path: str | None = Field(default=None, description="Rule script path (repository-relative).")

    @field_validator("tools")
    @classmethod
    def _one_tool_each(cls, v: list[dict] | None) -> list[dict] | None:
        for item in v or []:
            if len(item) != 1:
                raise ValueError("each tools entry must name exactly one tool")
            (spec,) = item.values()
            if spec is not None and set(spec) - {"call", "result"}:
                raise ValueError(f"unknown keys {sorted(set(spec) - {'call', 'result'})} (expected call, result)")
        return v


class PibTrigger(_Strict):
    type: str = Field(description="user, user_query, env or environmental_signal.")


class PibTask(_Strict):
    schema_version: Literal["v2"] = Field(description="Schema version.")
    task_id: str = Field(min_length=1, description="Task id (its folder name).")
    user_id: str = Field(min_length=1, description="Persona id.")
    environment_id: str | None = Field(default=None, description="Environment binding.")
    title: str | None = Field(default=None, description="Title.")
    description: str | None = Field(default=None, description="What the task evaluates.")
    task_type: str | None = Field(default=None, description="short_term_independent | short_term_contextual | long_term.")
    trigger: PibTrigger | str = Field(description="What starts the task (a mapping with type, or the bare type).")
    environment: Any = Field(default=None, description="Environment-triggered tasks: the signal (events...).")
    intent: PibIntent = Field(description="Request and hidden intents.")
    objectives: PibObjectives | None = Field(default=None, description="Checklist, tool specs, rule script.")
    metadata: Any = Field(default=None, description="Free-form.")

    def tool_names(self) -> list[str]:
        return [str(next(iter(t))).strip() for t in (self.objectives.tools or [] if self.objectives else [])]

    def checklist(self) -> list[PibCriterion]:
        return list(self.objectives.checklist or []) if self.objectives else []

    def trigger_type(self) -> str:
        return self.trigger if isinstance(self.trigger, str) else self.trigger.type


def _model(cls: type[BaseModel], raw: Any, path: Path, record: str) -> Any:
    if not isinstance(raw, dict):
        raise DataError(str(path), record, "<root>", "a mapping")
    try:
        return cls.model_validate(raw)
    except ValidationError as e:
        err = e.errors()[0]
        raise DataError.from_error(str(path), record, list(err["loc"]), err) from None


def _data_root(path: str) -> tuple[Path, Path]:
    """(the release's data folder, the folder rule-script paths are relative to), both resolved."""
    p = Path(path).expanduser().resolve()
    if (p / "data").is_dir():
        return p / "data", p
    if p.is_dir():
        return p, p.parent
    raise DataError(str(p), "<dataset>", "<path>", "an existing π-Bench checkout or data/ folder")


def script_path(rel: str, repo: Path, data: Path, file: str, record: str) -> Path:
    """Where a task's rule script is: a relative path ('data/<persona>/scripts/x.py') that stays
    inside the release's data folder. Absolute paths, '..' parts, links out and non-files are
    refused here, at load time — the script itself is not run until scoring."""
    field = "objectives.tools_evaluation_path"
    pure = PurePosixPath(rel.strip())
    if not rel.strip() or pure.is_absolute() or rel.strip().startswith(("~", "\\")) or "\\" in rel or ":" in rel:
        raise DataError(file, record, field, f"a path relative to the release, inside its data/ folder; got '{rel}'")
    if ".." in pure.parts:
        raise DataError(file, record, field, f"a path without '..' parts; got '{rel}'")
    if pure.suffix != ".py":
        raise DataError(file, record, field, f"a .py file; got '{rel}'")
    real = inside(repo / pure, data, file, record, field)
    if not real.is_file():
        raise DataError(file, record, field, f"a regular .py file; got '{rel}'")
    return real


def _units(order: list[str], deps: dict[str, list[str]]) -> list[set[str]]:
    """Connected components of the dependency graph (whole dependency units)."""
    parent = {t: t for t in order}

    def root(t: str) -> str:
        while parent[t] != t:
            parent[t] = parent[parent[t]]
            t = parent[t]
        return t

    for t, ds in deps.items():
        for d in ds:
            parent[root(t)] = root(d)
    groups: dict[str, set[str]] = {}
    for t in order:
        groups.setdefault(root(t), set()).add(t)
    return list(groups.values())


def _known_tools() -> set[str]:
    from longview.domains.apps.toolkit import AppsToolkit

    return set(AppsToolkit.tool_names())


class PersonaLoad:
    """One persona folder, loaded: its episode (runnable tasks only), every task's verdict, and
    what running needs (task folders, rule scripts, the tool allow-list)."""

    def __init__(self) -> None:
        self.episode: Episode | None = None
        self.classification: list[Classification] = []
        self.dirs: dict[str, Path] = {}
        self.allowed_tools: list[str] | None = None
        self.task_types: dict[str, str] = {}


def load_persona(folder: Path, data: Path, repo: Path, digest: Any) -> PersonaLoad:
    out = PersonaLoad()
    prof_path, ep_path, tools_path = folder / "profile.yaml", folder / "episode.yaml", folder / "tools.yaml"
    profile: PibProfile = _model(PibProfile, load_yaml(prof_path, data, "profile"), prof_path, "profile")
    episode: PibEpisode = _model(PibEpisode, load_yaml(ep_path, data, "episode"), ep_path, "episode")
    check_id(profile.user_id, str(prof_path), profile.user_id, "user_id")  # names cell folders and traces
    digest.update(prof_path.read_bytes() + b"\0" + ep_path.read_bytes())
    if tools_path.exists() or tools_path.is_symlink():
        tools: PibTools = _model(PibTools, load_yaml(tools_path, data, "tools"), tools_path, "tools")
        out.allowed_tools = [n.removeprefix(PREFIX) for n in tools.tool_names]
        digest.update(b"tools\0" + "\n".join(out.allowed_tools).encode())
    tasks: dict[str, PibTask] = {}
    assets: dict[str, list[Path]] = {}
    for i, et in enumerate(episode.tasks):
        check_id(et.task_id, str(ep_path), et.task_id, f"tasks.{i}.task_id")  # a folder name and a session id
        if et.task_id in tasks:
            raise DataError(str(ep_path), et.task_id, f"tasks.{i}.task_id", f"unique task ids ('{et.task_id}' is "
                            "listed twice)")
        tdir = folder / "tasks" / et.task_id
        tpath = tdir / "task.yaml"
        if not (tpath.exists() or tpath.is_symlink()):
            raise DataError(str(ep_path), et.task_id, f"tasks.{i}.task_id", f"a task file at {tpath}")
        task: PibTask = _model(PibTask, load_yaml(tpath, data, et.task_id), tpath, et.task_id)
        if task.task_id != et.task_id:
            raise DataError(str(tpath), et.task_id, "task_id", f"'{et.task_id}' (its folder name), got '{task.task_id}'")
        digest.update(tpath.read_bytes())
        found = task_assets(inside(tdir, data, str(tpath), et.task_id, "<folder>"), data, str(tpath), et.task_id)
        for a in found:  # workspace assets are part of the dataset's identity
            digest.update(str(a.relative_to(tdir)).encode() + b"\0" + a.read_bytes())
        tasks[task.task_id], assets[task.task_id], out.dirs[task.task_id] = task, found, tdir
        out.task_types[task.task_id] = task.task_type or ""
    order = [t.task_id for t in episode.tasks]
    deps = {t.task_id: list(t.depends_on or []) for t in episode.tasks}
    crit = {tid: bool(t.checklist() or (t.objectives and t.objectives.tools_evaluation_path))
            for tid, t in tasks.items()}
    for i, et in enumerate(episode.tasks):
        for d in deps[et.task_id]:
            if d not in order[:i]:
                raise DataError(str(ep_path), et.task_id, f"tasks.{i}.depends_on",
                                f"earlier task ids of this episode, got '{d}'")
            if crit[d]:
                raise DataError(str(ep_path), et.task_id, f"tasks.{i}.depends_on",
                                f"prerequisites without criteria ('{d}' has a checklist)")
        if deps[et.task_id] and not crit[et.task_id]:
            raise DataError(str(folder / "tasks" / et.task_id / "task.yaml"), et.task_id, "objectives.checklist",
                            "a non-empty checklist (the task has depends_on)")
    scripts: dict[str, Path] = {}
    for tid, t in tasks.items():
        rel = t.objectives.tools_evaluation_path if t.objectives else None
        if rel is not None:
            scripts[tid] = script_path(rel, repo, data, str(out.dirs[tid] / "task.yaml"), tid)
            digest.update(scripts[tid].read_bytes())  # read as bytes for the hash; never imported here
    known = _known_tools()
    seen: set[str] = set()
    verdicts: dict[str, Classification] = {}
    for tid in order:  # the workspace persists: a task sees its own and earlier tasks' files
        seen |= {p.name.lower() for p in assets[tid]}
        t = tasks[tid]
        verdicts[tid] = classify(tid, t.intent.initial_input, [h.content for h in t.intent.hidden_intent],
                                 t.tool_names(), assets[tid], set(seen), known)
    keep: set[str] = set()
    for unit in _units(order, deps):
        if all(verdicts[tid].verdict == "runnable" for tid in unit):
            keep |= unit
        else:
            blocked = sorted(tid for tid in unit if verdicts[tid].verdict != "runnable")
            for tid in unit:
                if verdicts[tid].verdict == "runnable":
                    verdicts[tid].reason = f"runs offline, but its dependency unit does not ({', '.join(blocked)})"
                    verdicts[tid].verdict = "excluded_unit"
    out.classification = [verdicts[t] for t in order]
    sessions = [_session(tasks[tid], deps[tid], scripts.get(tid)) for tid in order if tid in keep]
    if sessions:
        goals = profile.goals()
        text = profile.role_text().strip() + ("\n\nLong-term goals:\n" + "\n".join(f"- {g}" for g in goals)
                                              if goals else "")
        out.episode = Episode(persona=Persona(id=profile.user_id, name=profile.user_id, profile=text),
                              sessions=sessions)
    return out


def _session(t: PibTask, depends_on: list[str], script: Path | None) -> Session:
    names = t.tool_names()
    obj = t.objectives
    return Session(
        id=t.task_id, title=t.title or t.task_id, request=t.intent.initial_input, depends_on=depends_on,
        apps=sorted(tool_apps(names) | text_apps(t.intent.initial_input)),
        hidden_intents=[HiddenIntent(id=f"I{k + 1}", content=h.content, recoverable_from="unlabelled",
                                     question=h.content, initially_provided=h.status == "provided")
                        for k, h in enumerate(t.intent.hidden_intent)],
        checklist=[ChecklistItem(id=f"C{k + 1}", text=c.criterion, weight=c.weight)
                   for k, c in enumerate(t.checklist())],
        rule_script=str(script) if script else None, rule_tools=names, tool_prefix=PREFIX,
        files_read=list(obj.files_read or []) if obj else [], task_type=t.task_type or "",
        category=_meta(t, "category"), difficulty=_meta(t, "difficulty"))


def _meta(t: PibTask, key: str) -> str:
    """A text field of the task's free-form metadata (breakdown keys), empty when absent."""
    v = t.metadata.get(key) if isinstance(t.metadata, dict) else None
    return str(v) if isinstance(v, str | int | float) else ""


def load_pibench(path: str) -> IntentsDataset:
    data, repo = _data_root(path)
    digest = hashlib.sha256()
    episodes: dict[str, Episode] = {}
    ds = IntentsDataset(name=f"pibench:{path}", sha256="", episodes={}, origin="pibench")
    folders = sorted(p for p in data.iterdir() if p.is_dir() and (p / "episode.yaml").exists())
    if not folders:
        raise DataError(str(data), "<dataset>", "<path>", "persona folders with episode.yaml")
    owner: dict[str, Path] = {}
    for folder in folders:
        got = load_persona(folder, data, repo, digest)
        ds.classification[folder.name] = got.classification
        ds.task_types.update({(folder.name, k): v for k, v in got.task_types.items()})
        ep = got.episode
        pid = ep.persona.id if ep else None
        if pid is not None:
            if pid in owner:
                raise DataError(str(folder / "profile.yaml"), pid, "user_id",
                                f"unique persona ids (duplicate of {owner[pid] / 'profile.yaml'})")
            owner[pid] = folder
        if ep is None:
            continue
        episodes[ep.persona.id] = ep
        for s in ep.sessions:
            ds.asset_dirs[(ep.persona.id, s.id)] = got.dirs[s.id]
        if got.allowed_tools is not None:
            ds.allowed_tools[ep.persona.id] = got.allowed_tools
        skills = folder / "skills"
        if skills.is_dir() and not skills.is_symlink():  # copied into the workspace: checked like assets
            task_assets(skills, data, str(skills), ep.persona.id)
            ds.skills_dirs[ep.persona.id] = skills
    ds.episodes = episodes
    ds.sha256 = digest.hexdigest()
    return ds
