"""Run directories: a manifest, one folder per cell with its session traces, and a completion
marker per finished cell.

Layout::

    RUN_DIR/manifest.json            what ran (versions, dataset hash, config + hash, commit, components)
    RUN_DIR/cells/<cell>/<session>.jsonl
    RUN_DIR/cells/<cell>/result.json  completion marker: written last, atomically
    RUN_DIR/scorecard.json           written when the run finishes

Resume skips cells that have a marker and redoes the others from scratch; it refuses a manifest
whose config hash differs unless forced.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from longview import __version__
from longview.kernel.errors import ConfigError
from longview.kernel.models.secrets import redact

MARKER = "result.json"


def config_hash(config: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of a run's configuration."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()


def git_commit() -> str | None:
    """Commit of the longview source tree, when it is a git checkout."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=Path(__file__).parent, capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


class DatasetInfo(BaseModel):
    name: str = Field(description="Dataset name (builtin, a path, atrbench:PATH).")
    sha256: str = Field(description="Hash of the dataset files.")
    personas: int = Field(description="Personas in this run.")


class Manifest(BaseModel):
    """What a run is: enough to reproduce it and to refuse resuming a different one."""

    suite: str = Field(description="Suite name.")
    package_version: str = Field(default=__version__, description="longview version.")
    git_commit: str | None = Field(default_factory=git_commit, description="Source commit, if known.")
    created: str = Field(
        default_factory=lambda: datetime.now(timezone.utc).isoformat(timespec="seconds"),
        description="UTC creation time of the run directory (wall clock; never used inside episodes).",
    )
    dataset: DatasetInfo = Field(description="Dataset identity.")
    config: dict[str, Any] = Field(description="Everything that determines results.")
    config_hash: str = Field(description="sha256 of `config`.")
    components: dict[str, str] = Field(default_factory=dict, description="Which implementation ran each role.")
    prompts: dict[str, str] = Field(default_factory=dict, description="Prompt file -> sha256.")
    usage: dict[str, Any] = Field(default_factory=dict, description="Token/cost accounting per role.")
    executor: dict[str, Any] = Field(
        default_factory=dict,
        description="What ran the cells of the latest invocation: name (local, ray), nodes, cpus, workers; "
        "never part of the config hash, so a local and a Ray run of one configuration resume each other.",
    )


def atomic_write(path: Path, text: str) -> None:
    """Write via a temp file and rename, so a crash never leaves half a file; secrets are masked."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(redact(text), encoding="utf-8")
    os.replace(tmp, path)


def safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text)


class RunStore:
    """One run directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.previous_usage: dict[str, Any] = {}  # usage recorded by earlier invocations of a resumed run

    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest.json"

    def open(self, manifest: Manifest, *, resume: bool, force: bool) -> None:
        """Create the run, or reopen it for resume; refuse what would mix two configurations."""
        if self.manifest_path.exists():
            old = Manifest.model_validate_json(self.manifest_path.read_text())
            if resume and old.config_hash == manifest.config_hash:
                manifest.created = old.created
                self.previous_usage = old.usage
            elif resume and not force:
                raise ConfigError(
                    f"{self.root}: cannot resume, the configuration changed (hash {old.config_hash[:12]} -> "
                    f"{manifest.config_hash[:12]}); pass --force to start this run directory over"
                )
            elif not resume and not force:
                raise ConfigError(f"{self.root}: a run already exists here; pass --resume to continue it or --force to replace it")
            else:
                shutil.rmtree(self.root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.write_manifest(manifest)

    def write_manifest(self, manifest: Manifest) -> None:
        atomic_write(self.manifest_path, manifest.model_dump_json(indent=2))

    def manifest(self) -> Manifest:
        if not self.manifest_path.exists():
            raise ConfigError(f"{self.root}: not a run directory (no manifest.json)")
        return Manifest.model_validate_json(self.manifest_path.read_text())

    def cell_dir(self, cell: str) -> Path:
        return self.root / "cells" / safe_name(cell)

    def is_done(self, cell: str) -> bool:
        return (self.cell_dir(cell) / MARKER).exists()

    def start_cell(self, cell: str) -> Path:
        """Fresh folder for a cell that has no marker (a half-written one is discarded)."""
        d = self.cell_dir(cell)
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
        return d

    def finish_cell(self, cell: str, result: BaseModel) -> None:
        atomic_write(self.cell_dir(cell) / MARKER, result.model_dump_json(indent=1))

    def results(self) -> list[str]:
        """JSON text of every finished cell's result, in cell-name order."""
        return [p.read_text() for p in sorted((self.root / "cells").glob(f"*/{MARKER}"))]

    def write_json(self, name: str, data: Any) -> Path:
        path = self.root / name
        atomic_write(path, json.dumps(data, indent=2, sort_keys=False))
        return path
