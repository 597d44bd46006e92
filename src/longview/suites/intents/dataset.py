"""A loaded, validated intents dataset: episodes by persona, plus where imported assets live."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from longview.kernel.errors import DataError
from longview.kernel.ids import parse_json
from longview.suites.intents.schema import Dataset, Episode

BUILTIN = Path(__file__).parent / "data" / "builtin.json"


@dataclass
class Classification:
    """Whether an imported task can run offline, and why not."""

    task_id: str
    verdict: str  # runnable | needs_app | needs_live_web | needs_appworld_db
    reason: str
    kind: str = ""  # files | apps | none


@dataclass
class IntentsDataset:
    name: str
    sha256: str
    episodes: dict[str, Episode]
    origin: str = "builtin"  # builtin | pibench
    asset_dirs: dict[tuple[str, str], Path] = field(default_factory=dict)  # (unit, session) -> task dir
    skills_dirs: dict[str, Path] = field(default_factory=dict)  # unit -> persona skills dir
    classification: dict[str, list[Classification]] = field(default_factory=dict)  # unit -> all its tasks
    rule_keys: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (unit, session) -> script keys

    def unit_ids(self) -> list[str]:
        return list(self.episodes)

    def episode(self, unit: str) -> Episode:
        return self.episodes[unit]


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
            ep = eps[loc[1]] if isinstance(eps, list) and loc[1] < len(eps) else {}
            record = str((ep.get("persona") or {}).get("id", f"episode {loc[1]}")) if isinstance(ep, dict) else f"episode {loc[1]}"
            if len(loc) >= 4 and loc[2] == "sessions" and isinstance(loc[3], int) and isinstance(ep, dict):
                ss = ep.get("sessions") or []
                s = ss[loc[3]] if loc[3] < len(ss) else {}
                record += f"/{s.get('id', loc[3]) if isinstance(s, dict) else loc[3]}"
        raise DataError.from_error(file, record, loc, err) from None


def load_json_dataset(path: Path, name: str) -> IntentsDataset:
    try:
        text = path.read_text(encoding="utf-8")
        raw = parse_json(text, str(path))  # DataError: invalid, nested too deep, lone surrogates
    except OSError as e:
        raise DataError(str(path), "<file>", "<root>", f"a readable file ({e.strerror})") from None
    except ValueError as e:
        raise DataError(str(path), "<file>", "<root>", f"valid JSON ({e})") from None
    ds = validate_dataset(raw, str(path))
    episodes = {ep.persona.id: ep for ep in ds.episodes}
    if len(episodes) != len(ds.episodes):
        raise DataError(str(path), "<dataset>", "episodes.persona.id", "unique persona ids")
    return IntentsDataset(name=name, sha256=hashlib.sha256(text.encode()).hexdigest(), episodes=episodes)
