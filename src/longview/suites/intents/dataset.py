"""A loaded, validated intents dataset: episodes by persona, plus where imported assets live."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from longview.kernel.errors import ConfigError, DataError
from longview.kernel.ids import check_id, parse_json, read_text
from longview.suites.intents.schema import Dataset, Episode

BUILTIN = Path(__file__).parent / "data" / "builtin.json"


@dataclass
class Classification:
    """Whether an imported task can run offline, and why not."""

    task_id: str
    # runnable | excluded_unit | needs_app | needs_appworld_db | needs_live_web | needs_absent_asset | needs_shell
    verdict: str
    reason: str
    kind: str = ""  # runnable tasks: files | apps | none


@dataclass
class IntentsDataset:
    name: str
    sha256: str
    episodes: dict[str, Episode]
    origin: str = "builtin"  # builtin | pibench
    asset_dirs: dict[tuple[str, str], Path] = field(default_factory=dict)  # (unit, session) -> task dir
    skills_dirs: dict[str, Path] = field(default_factory=dict)  # unit -> persona skills dir
    classification: dict[str, list[Classification]] = field(default_factory=dict)  # unit -> all its tasks
    allowed_tools: dict[str, list[str]] = field(default_factory=dict)  # unit -> the persona's tools.yaml allow-list
    task_types: dict[tuple[str, str], str] = field(default_factory=dict)  # (persona folder, task) -> task_type

    def unit_ids(self) -> list[str]:
        return list(self.episodes)

    def episode(self, unit: str) -> Episode:
        return self.episodes[unit]


def _episode_record(ep: object, index: int, loc: list) -> str:
    """'persona/session' for an error inside episode ``ep`` at ``loc`` (relative to the episode)."""
    if not isinstance(ep, dict):
        return f"episode {index}"
    persona = ep.get("persona")
    pid = persona.get("id") if isinstance(persona, dict) else None
    record = pid if isinstance(pid, str) else f"episode {index}"
    if len(loc) >= 2 and loc[0] == "sessions" and isinstance(loc[1], int):
        ss = ep.get("sessions")
        s = ss[loc[1]] if isinstance(ss, list) and loc[1] < len(ss) else None
        sid = s.get("id") if isinstance(s, dict) else None
        record += f"/{sid if isinstance(sid, str) else loc[1]}"
    return record


def validate_dataset(raw: object, file: str) -> Dataset:
    """Validate a dataset JSON value; the first problem becomes a DataError naming the record and field."""
    try:
        return Dataset.model_validate(raw)
    except ValidationError as e:
        err = e.errors()[0]
        loc = list(err["loc"])
        record = "<dataset>"
        if len(loc) >= 2 and loc[0] == "episodes" and isinstance(loc[1], int):
            eps = raw.get("episodes") if isinstance(raw, dict) else None
            ep = eps[loc[1]] if isinstance(eps, list) and loc[1] < len(eps) else None
            record = _episode_record(ep, loc[1], loc[2:])
        raise DataError.from_error(file, record, loc, err) from None


def validate_episode(raw: object, file: str) -> Episode:
    """Validate one episode JSON value (a file of a dataset folder), naming record and field."""
    try:
        return Episode.model_validate(raw)
    except ValidationError as e:
        err = e.errors()[0]
        loc = list(err["loc"])
        raise DataError.from_error(file, _episode_record(raw, 0, loc), loc, err) from None


def check_ids(episodes: list[Episode], files: list[str]) -> dict[str, Episode]:
    """Persona ids name cell folders and session ids name traces: each must be a safe id, and
    unique (persona ids in the dataset, session ids in their episode)."""
    out: dict[str, Episode] = {}
    for ep, file in zip(episodes, files, strict=True):
        pid = check_id(ep.persona.id, file, ep.persona.id, "persona.id")
        if pid in out:
            raise DataError(file, pid, "persona.id", "unique persona ids (duplicate)")
        for i, s in enumerate(ep.sessions):
            check_id(s.id, file, f"{pid}/{s.id}", f"sessions.{i}.id")
        out[pid] = ep
    return out


def load_json_dataset(path: Path, name: str) -> IntentsDataset:
    """A whole dataset in one JSON file (``{"version": 1, "episodes": [...]}``, as the built-in)."""
    text = read_text(path)  # DataError: not a regular file, unreadable, too large, not UTF-8
    raw = parse_json(text, str(path))  # DataError: invalid, nested too deep, lone surrogates
    ds = validate_dataset(raw, str(path))
    episodes = check_ids(ds.episodes, [str(path)] * len(ds.episodes))
    return IntentsDataset(name=name, sha256=hashlib.sha256(text.encode()).hexdigest(), episodes=episodes)


def load_folder_dataset(folder: Path, name: str) -> IntentsDataset:
    """A folder of episode files: every ``*.json`` in it (sorted by name) is one :class:`Episode`."""
    files = sorted(folder.glob("*.json"))  # each must be a regular file: read_json says so otherwise
    if not files:
        raise ConfigError(f"intents dataset {name!r}: no *.json episode files in {folder}")
    h = hashlib.sha256()
    episodes = []
    for f in files:
        text = read_text(f)  # DataError: not a regular file, unreadable, too large, not UTF-8
        raw = parse_json(text, str(f))  # DataError: invalid, too deep, lone surrogates
        h.update(f.name.encode() + b"\0" + text.encode("utf-8"))  # the file's bytes, read once
        episodes.append(validate_episode(raw, str(f)))
    return IntentsDataset(name=name, sha256=h.hexdigest(), episodes=check_ids(episodes, [str(f) for f in files]))


