"""Loading and validating tempo scenarios: the built-in set (package data) or a folder of JSON files."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from pydantic import ValidationError

from longview.kernel.errors import ConfigError, DataError
from longview.kernel.ids import check_id, parse_json, read_text
from longview.suites.tempo.schema import PERSONAS, Scenario

BUILTIN = "builtin"


def builtin_dir() -> Path:
    return Path(str(resources.files("longview.suites.tempo") / "data" / BUILTIN))


@dataclass
class TempoDataset:
    """Scenarios plus the replication units of this run (scenario x persona)."""

    name: str
    sha256: str
    scenarios: list[Scenario]
    personas: tuple[str, ...] = PERSONAS
    by_id: dict[str, Scenario] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.by_id = {s.id: s for s in self.scenarios}

    def unit_ids(self) -> list[str]:
        return [f"{s.id}:{p}" for s in sorted(self.scenarios, key=lambda s: s.id) for p in self.personas]

    def unit(self, unit: str) -> tuple[Scenario, str]:
        sid, _, persona = unit.partition(":")
        if sid not in self.by_id or persona not in PERSONAS:
            raise ConfigError(f"unknown tempo unit {unit!r} (expected SCENARIO:PERSONA)")
        return self.by_id[sid], persona


def load_file(path: Path) -> Scenario:
    return parse_file(path, read_text(path, path.stem))


def parse_file(path: Path, text: str) -> Scenario:
    """A scenario from ``path``'s text (read with :func:`read_text`)."""
    raw = parse_json(text, str(path), path.stem)  # DataError: invalid, too deep, lone surrogates
    try:
        scenario = Scenario.model_validate(raw)
    except ValidationError as e:
        err = e.errors()[0]
        rec = raw.get("id", path.stem) if isinstance(raw, dict) else path.stem
        raise DataError.from_error(str(path), str(rec), list(err["loc"]), dict(err)) from None
    # The scenario id names units (SCENARIO:PERSONA), cell folders and traces.
    check_id(scenario.id, str(path), scenario.id, "id")
    if ":" in scenario.id:
        raise DataError(str(path), scenario.id, "id", "a scenario id without ':' (units are SCENARIO:PERSONA)")
    return scenario


def load(spec: str, persona: str | None = None) -> TempoDataset:
    folder = builtin_dir() if spec == BUILTIN else Path(spec)
    if not folder.is_dir():
        raise ConfigError(f"tempo dataset {spec!r}: not 'builtin' or a folder of scenario JSON files")
    files = sorted(folder.glob("*.json"))
    if not files:
        raise ConfigError(f"tempo dataset {spec!r}: no *.json scenario files in {folder}")
    h = hashlib.sha256()
    scenarios = []
    for f in files:
        text = read_text(f, f.stem)  # DataError: not a regular file, unreadable, too large, not UTF-8
        scenarios.append(parse_file(f, text))
        h.update(f.name.encode() + b"\0" + text.encode("utf-8"))  # the file's bytes, read once
    seen: dict[str, Path] = {}
    for f, s in zip(files, scenarios, strict=True):
        if s.id in seen:
            raise DataError(str(f), s.id, "id", f"unique scenario ids (also in {seen[s.id].name})")
        seen[s.id] = f
    return TempoDataset(name=spec, sha256=h.hexdigest(), scenarios=scenarios,
                        personas=(persona,) if persona else PERSONAS)

