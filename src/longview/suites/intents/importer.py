"""Import π-Bench's released data (schema v2) from the user's own checkout: ``pibench:PATH``.

Nothing of the release is copied into longview. ``PATH`` is the checkout (with ``data/``) or its
``data/`` folder; every persona folder holds ``profile.yaml``, ``episode.yaml`` (task order and
``depends_on``), ``tasks/<task_id>/task.yaml`` with the task's workspace assets next to it, and
``scripts/`` with rule scripts. Loading is strict: an unknown or missing field, a bad type, a
dependency that is unknown, later in the order, or breaks π-Bench's contract (a dependent has
criteria, its prerequisites have none) stops the load with one message naming file, task and field.

Every task is classified (rules in :func:`classify`); runnable tasks run in episode order as whole
dependency units — a unit with any non-runnable task is left out entirely.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from longview.domains.apps.state import APPS
from longview.domains.apps.toolkit import AppsToolkit
from longview.kernel.errors import DataError
from longview.kernel.ids import check_id
from longview.suites.intents.dataset import Classification, IntentsDataset
from longview.suites.intents.rules import RuleScriptError, script_keys
from longview.suites.intents.schema import ChecklistItem, Episode, HiddenIntent, Persona, Session

PREFIX = "mcp_appworld_"
APP_WORDS = {"simple_note": ("simple note", "simplenote"), "todoist": ("todoist",), "gmail": ("gmail",),
             "phone": ("text message", "phone number", "sms"), "splitwise": ("splitwise",), "spotify": ("spotify",),
             "amazon": ("amazon",), "venmo": ("venmo",), "file_system": ("file_system",)}
# AppWorld APIs whose answers come from AppWorld's own populated database (catalogues, inboxes,
# other users), which an offline run cannot reproduce.
APPWORLD_DB_TOOLS = {
    "amazon__search_products", "amazon__show_product", "amazon__show_product_reviews", "amazon__search_sellers",
    "amazon__show_recommended_products", "amazon__show_addresses", "amazon__show_payment_cards",
    "amazon__show_last_product_purchase", "amazon__show_product_purchases", "amazon__show_wish_list",
    "amazon__search_product_types", "amazon__show_seller", "amazon__show_product_questions",
    "spotify__search_songs", "spotify__show_song", "spotify__search_artists", "spotify__show_artist",
    "spotify__show_song_reviews", "gmail__show_inbox_threads", "gmail__show_thread", "gmail__show_email",
    "gmail__search_users", "gmail__show_starred_threads", "gmail__show_category_sizes", "splitwise__search_users",
    "splitwise__show_groups", "phone__search_contacts", "phone__search_text_messages",
    "phone__show_text_message_window", "phone__show_text_message", "phone__show_alarm",
}
WEB = re.compile(r"https?://|\b(search (the )?(web|online|internet)|look (it |them )?up online|latest news|"
                 r"on the web|google|arxiv|github link|websites?)\b", re.IGNORECASE)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PibProfile(_Strict):
    schema_version: Literal["v2"] = Field(description="Schema version.")
    user_id: str = Field(min_length=1, description="Persona id (its folder name).")
    role: str | dict[str, Any] = Field(description="Who the user is (text, or a mapping with role_text).")
    preferences: dict[str, Any] = Field(default_factory=dict, description="Style hints.")
    long_term_goals: list[str] = Field(default_factory=list, description="Stable objectives.")


class PibEpisodeTask(_Strict):
    task_id: str = Field(min_length=1, description="Task id.")
    depends_on: list[str] = Field(default_factory=list, description="Earlier prerequisite task ids.")


class PibEpisode(_Strict):
    schema_version: Literal["v2"] = Field(description="Schema version.")
    episode_id: str = Field(min_length=1, description="Episode id.")
    user_id: str = Field(min_length=1, description="Persona id.")
    tasks: list[PibEpisodeTask] = Field(min_length=1, description="Task order.")
    runtime: dict[str, Any] | None = Field(default=None, description="Runtime binding (docker image).")


class PibHiddenIntent(_Strict):
    content: str = Field(min_length=1, description="The requirement.")
    status: Literal["not_provided", "provided"] = Field(default="not_provided", description="Initial status.")

    @field_validator("content")
    @classmethod
    def _not_blank(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be blank")
        return v.strip()


class PibIntent(_Strict):
    initial_input: str = Field(min_length=1, description="The initial request.")
    hidden_intent: list[PibHiddenIntent] = Field(min_length=1, description="Hidden intents.")


class PibCriterion(_Strict):
    criterion: str = Field(min_length=1, description="Rubric criterion.")
    weight: float = Field(default=1.0, gt=0, description="Weight.")


class PibObjectives(_Strict):
    tools: list[dict[str, dict[str, list[str]] | None]] = Field(
        default_factory=list, description="Tool-trace specs: {tool_name: {call: [...], result: [...]}}.")
    checklist: list[PibCriterion] = Field(default_factory=list, description="Rubric criteria.")
    files_read: list[str] = Field(default_factory=list, description="Files judges see.")
    tools_evaluation_path: str | None = Field(default=None, description="Rule script path (repository-relative).")

    @field_validator("tools")
    @classmethod
    def _one_tool_each(cls, v: list[dict]) -> list[dict]:
        for item in v:
            if len(item) != 1:
                raise ValueError("each tools entry must name exactly one tool")
            (spec,) = item.values()
            if spec is not None and set(spec) - {"call", "result"}:
                raise ValueError(f"unknown keys {sorted(set(spec) - {'call', 'result'})} (expected call, result)")
        return v


class PibTrigger(_Strict):
    type: str = Field(description="user, user_query or environmental_signal.")


class PibTask(_Strict):
    schema_version: Literal["v2"] = Field(description="Schema version.")
    task_id: str = Field(min_length=1, description="Task id (its folder name).")
    user_id: str = Field(min_length=1, description="Persona id.")
    environment_id: str = Field(default="", description="Environment binding.")
    title: str = Field(default="", description="Title.")
    description: str = Field(default="", description="What the task evaluates.")
    task_type: str = Field(default="", description="short_term_independent | short_term_contextual | long_term.")
    trigger: PibTrigger = Field(description="What starts the task.")
    intent: PibIntent = Field(description="Request and hidden intents.")
    objectives: PibObjectives | None = Field(default=None, description="Checklist, tool specs, rule script.")
    metadata: Any = Field(default=None, description="Free-form.")

    def tool_names(self) -> list[str]:
        return [next(iter(t)) for t in (self.objectives.tools if self.objectives else [])]


def _yaml(path: Path, record: str) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError:
        raise DataError(str(path), record, "<file>", "a readable file") from None
    except yaml.YAMLError as e:
        raise DataError(str(path), record, "<root>", f"valid YAML ({' '.join(str(e).split())[:120]})") from None


def _model(cls: type[BaseModel], raw: Any, path: Path, record: str) -> Any:
    if not isinstance(raw, dict):
        raise DataError(str(path), record, "<root>", "a mapping")
    try:
        return cls.model_validate(raw)
    except ValidationError as e:
        err = e.errors()[0]
        raise DataError.from_error(str(path), record, list(err["loc"]), err) from None


def _data_root(path: str) -> tuple[Path, Path]:
    p = Path(path).expanduser().resolve()
    if (p / "data").is_dir():
        return p / "data", p
    if p.is_dir():
        return p, p.parent
    raise DataError(str(p), "<dataset>", "<path>", "an existing π-Bench checkout or data/ folder")


def classify(task: PibTask, has_assets: bool) -> Classification:
    """Runnable offline, or why not. In order: an app or API longview lacks (needs_app); an AppWorld API
    answered from AppWorld's populated database (needs_appworld_db); a URL or a web-search phrase in the
    request or intents (needs_live_web). Otherwise runnable: kind apps, files, or none."""
    names = [n.removeprefix(PREFIX) for n in task.tool_names()]
    text = task.intent.initial_input + "\n" + "\n".join(h.content for h in task.intent.hidden_intent)
    low = text.lower()
    known = _known_tools()
    apps = {n.split("__", 1)[0] for n in names}
    apps |= {app for app, words in APP_WORDS.items() if any(w in low for w in words)}
    missing_apps = sorted(a for a in apps if a not in APPS)
    if missing_apps:
        return Classification(task.task_id, "needs_app", f"longview has no {', '.join(missing_apps)} app")
    lacking = sorted(n for n in names if n not in known and n not in APPWORLD_DB_TOOLS)
    if lacking:
        return Classification(task.task_id, "needs_app", f"longview lacks the API {', '.join(lacking)}")
    db = sorted(n for n in names if n in APPWORLD_DB_TOOLS)
    if db:
        return Classification(task.task_id, "needs_appworld_db", f"reads AppWorld's database via {', '.join(db)}")
    m = WEB.search(text)
    if m:
        return Classification(task.task_id, "needs_live_web", f"needs the live web ('{m.group(0)[:40]}')")
    kind = "apps" if apps else ("files" if has_assets else "none")
    return Classification(task.task_id, "runnable", "runs offline", kind=kind)


_KNOWN: set[str] | None = None


def _known_tools() -> set[str]:
    global _KNOWN
    if _KNOWN is None:
        import tempfile

        from longview.domains.apps.state import AppsState

        with tempfile.TemporaryDirectory() as tmp:
            _KNOWN = {s.name for s in AppsToolkit(AppsState(), Path(tmp)).specs}
    return _KNOWN


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


def load_persona(folder: Path, repo: Path, digest: hashlib._Hash) -> tuple[Episode | None, list[Classification],
                                                                              dict[str, Path], dict[str, list[str]]]:
    prof_path, ep_path = folder / "profile.yaml", folder / "episode.yaml"
    profile: PibProfile = _model(PibProfile, _yaml(prof_path, "profile"), prof_path, "profile")
    episode: PibEpisode = _model(PibEpisode, _yaml(ep_path, "episode"), ep_path, "episode")
    check_id(profile.user_id, str(prof_path), profile.user_id, "user_id")  # names cell folders and traces
    digest.update(prof_path.read_bytes() + ep_path.read_bytes())
    tasks: dict[str, PibTask] = {}
    dirs: dict[str, Path] = {}
    for i, et in enumerate(episode.tasks):
        check_id(et.task_id, str(ep_path), et.task_id, f"tasks.{i}.task_id")  # a folder name and a session id
        tpath = folder / "tasks" / et.task_id / "task.yaml"
        if not tpath.is_file():
            raise DataError(str(ep_path), et.task_id, f"tasks.{i}.task_id", f"a task file at {tpath}")
        digest.update(tpath.read_bytes())
        task: PibTask = _model(PibTask, _yaml(tpath, et.task_id), tpath, et.task_id)
        if task.task_id != et.task_id:
            raise DataError(str(tpath), et.task_id, "task_id", f"'{et.task_id}' (its folder name), got '{task.task_id}'")
        tasks[task.task_id] = task
        dirs[task.task_id] = tpath.parent
        for asset in sorted(tpath.parent.rglob("*")):  # workspace assets are part of the dataset's identity
            if asset.is_file() and asset.name != "task.yaml":
                digest.update(str(asset.relative_to(tpath.parent)).encode() + b"\0" + asset.read_bytes())
    order = [t.task_id for t in episode.tasks]
    deps = {t.task_id: t.depends_on for t in episode.tasks}
    crit = {tid: bool(t.objectives and (t.objectives.checklist or t.objectives.tools_evaluation_path))
            for tid, t in tasks.items()}
    for i, et in enumerate(episode.tasks):
        for d in et.depends_on:
            if d not in order[:i]:
                raise DataError(str(ep_path), et.task_id, f"tasks.{i}.depends_on",
                                f"earlier task ids of this episode, got '{d}'")
            if crit[d]:
                raise DataError(str(ep_path), et.task_id, f"tasks.{i}.depends_on",
                                f"prerequisites without criteria ('{d}' has a checklist)")
        if et.depends_on and not crit[et.task_id]:
            raise DataError(str(folder / "tasks" / et.task_id / "task.yaml"), et.task_id, "objectives.checklist",
                            "a non-empty checklist (the task has depends_on)")
    scripts: dict[str, Path] = {}
    for tid, t in tasks.items():
        rel = t.objectives.tools_evaluation_path if t.objectives else None
        if rel:
            sp = (repo / rel).resolve() if not Path(rel).is_absolute() else Path(rel)
            if sp.suffix != ".py" or not sp.is_file():
                raise DataError(str(dirs[tid] / "task.yaml"), tid, "objectives.tools_evaluation_path",
                                f"an existing .py file, got '{rel}'")
            scripts[tid] = sp
            digest.update(sp.read_bytes())
    verdicts = {tid: classify(t, any(p.name != "task.yaml" for p in dirs[tid].iterdir())) for tid, t in tasks.items()}
    keep: set[str] = set()
    for unit in _units(order, deps):
        if all(verdicts[tid].verdict == "runnable" for tid in unit):
            keep |= unit
        else:
            for tid in unit:
                if verdicts[tid].verdict == "runnable":
                    verdicts[tid].reason = "runs offline, but its dependency unit does not"
                    verdicts[tid].verdict = "excluded_unit"
    rule_keys: dict[str, list[str]] = {}
    sessions = []
    for tid in order:
        if tid not in keep:
            continue
        t = tasks[tid]
        if tid in scripts:
            try:
                rule_keys[tid] = script_keys(scripts[tid])
            except RuleScriptError as e:
                raise DataError(str(scripts[tid]), tid, "score([])", f"a dict of criteria ({e})") from None
        sessions.append(_session(t, deps[tid], scripts.get(tid)))
    cls = [verdicts[t] for t in order]
    if not sessions:
        return None, cls, {}, {}
    role = profile.role if isinstance(profile.role, str) else str(profile.role.get("role_text", ""))
    ep = Episode(persona=Persona(id=profile.user_id, name=profile.user_id, profile=role), sessions=sessions)
    return ep, cls, {s.id: dirs[s.id] for s in sessions}, rule_keys


def _session(t: PibTask, depends_on: list[str], script: Path | None) -> Session:
    names = t.tool_names()
    low = t.intent.initial_input.lower()
    apps = {n.removeprefix(PREFIX).split("__", 1)[0] for n in names}
    apps |= {a for a, words in APP_WORDS.items() if any(w in low for w in words)}
    obj = t.objectives
    return Session(
        id=t.task_id, title=t.title or t.task_id, request=t.intent.initial_input, depends_on=depends_on,
        apps=sorted(apps),
        hidden_intents=[HiddenIntent(id=f"I{k + 1}", content=h.content, recoverable_from="unlabelled",
                                     question=h.content, initially_provided=h.status == "provided")
                        for k, h in enumerate(t.intent.hidden_intent)],
        checklist=[ChecklistItem(id=f"C{k + 1}", text=c.criterion, weight=c.weight)
                   for k, c in enumerate(obj.checklist if obj else [])],
        rule_script=str(script) if script else None, rule_tools=names,
        tool_prefix=PREFIX if any(n.startswith(PREFIX) for n in names) else "",
        files_read=list(obj.files_read) if obj else [], task_type=t.task_type,
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
    folders = sorted(p for p in data.iterdir() if (p / "episode.yaml").is_file())
    if not folders:
        raise DataError(str(data), "<dataset>", "<path>", "persona folders with episode.yaml")
    for folder in folders:
        ep, cls, dirs, keys = load_persona(folder, repo, digest)
        unit = folder.name
        ds.classification[unit] = cls
        if ep is None:
            continue
        if ep.persona.id in episodes:
            raise DataError(str(folder / "profile.yaml"), ep.persona.id, "user_id", "unique persona ids (duplicate)")
        episodes[ep.persona.id] = ep
        for sid, d in dirs.items():
            ds.asset_dirs[(ep.persona.id, sid)] = d
        for sid, k in keys.items():
            ds.rule_keys[(ep.persona.id, sid)] = k
        if (folder / "skills").is_dir():
            ds.skills_dirs[ep.persona.id] = folder / "skills"
    ds.episodes = episodes
    ds.sha256 = digest.hexdigest()
    return ds
