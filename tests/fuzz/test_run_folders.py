"""Damaged and tampered run folders, for every registered suite, under `show`, `run --resume` and
`run --force`: a clear message and nothing changed, or a correct recovery (a truncated marker is
redone, never counted as done) — and never a write outside the run folder."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from fuzzkit import SUITES, assert_clean_failure, assert_no_traceback, invoke, run_args, snapshot

Damage = Callable[[Path, Path], None]  # (run folder, a folder outside it)


def _manifest(run: Path) -> Path:
    return run / "manifest.json"


def _marker(run: Path) -> Path:
    return sorted((run / "cells").glob("*/result.json"))[0]


def _edit_manifest(fn: Callable[[dict], None]) -> Damage:
    def damage(run: Path, outside: Path) -> None:
        data = json.loads(_manifest(run).read_text())
        fn(data)
        _manifest(run).write_text(json.dumps(data))

    return damage


def _replace_with_dir(path_of: Callable[[Path], Path]) -> Damage:
    def damage(run: Path, outside: Path) -> None:
        p = path_of(run)
        p.unlink()
        p.mkdir()
        (p / "x").write_text("x")

    return damage


def _write(path_of: Callable[[Path], Path], data: bytes | Callable[[bytes], bytes]) -> Damage:
    def damage(run: Path, outside: Path) -> None:
        p = path_of(run)
        p.write_bytes(data(p.read_bytes()) if callable(data) else data)

    return damage


def _symlink_manifest(run: Path, outside: Path) -> None:
    shutil.copy(_manifest(run), outside / "manifest.json")
    _manifest(run).unlink()
    os.symlink(outside / "manifest.json", _manifest(run))


def _symlink_cells(run: Path, outside: Path) -> None:
    shutil.copytree(run / "cells", outside / "cells")
    shutil.rmtree(run / "cells")
    os.symlink(outside / "cells", run / "cells")


def _symlink_cell(run: Path, outside: Path) -> None:
    cell = _marker(run).parent
    shutil.copytree(cell, outside / cell.name)
    shutil.rmtree(cell)
    os.symlink(outside / cell.name, cell)


def _cells_file(run: Path, outside: Path) -> None:
    shutil.rmtree(run / "cells")
    (run / "cells").write_text("not a folder")


# damage -> allowed exit codes for (show, --resume, --force); 2 always means "nothing changed".
OK, ERR = {0}, {2}
DAMAGES: dict[str, tuple[Damage, set[int], set[int], set[int]]] = {
    "manifest_empty": (_write(_manifest, b""), ERR, ERR, OK),
    "manifest_truncated": (_write(_manifest, lambda b: b[: len(b) // 2]), ERR, ERR, OK),
    "manifest_not_utf8": (_write(_manifest, lambda b: b"\xff" + b), ERR, ERR, OK),
    "manifest_list": (_write(_manifest, b"[]"), ERR, ERR, OK),
    "manifest_deep": (_write(_manifest, b"[" * 50_000 + b"]" * 50_000), ERR, ERR, OK),
    "manifest_no_hash": (_edit_manifest(lambda d: d.pop("config_hash")), ERR, ERR, OK),
    "manifest_bad_config": (_edit_manifest(lambda d: d.__setitem__("config", "x")), ERR, ERR, OK),
    "manifest_bad_dataset": (_edit_manifest(lambda d: d.__setitem__("dataset", {"name": 1})), ERR, ERR, OK),
    "manifest_unknown_suite": (_edit_manifest(lambda d: d.__setitem__("suite", "no-such-suite")), ERR, {0, 2}, OK),
    "manifest_is_dir": (_replace_with_dir(_manifest), ERR, ERR, ERR),
    "manifest_symlink": (_symlink_manifest, {0, 2}, ERR, ERR),
    "manifest_deleted": (lambda run, out: _manifest(run).unlink(), ERR, ERR, OK),
    "marker_truncated": (_write(_marker, lambda b: b[: len(b) // 2]), OK, OK, OK),
    "marker_empty": (_write(_marker, b""), OK, OK, OK),
    "marker_null": (_write(_marker, b"null"), OK, OK, OK),
    "marker_garbage": (_write(_marker, bytes(range(256))), OK, OK, OK),
    "marker_is_dir": (_replace_with_dir(_marker), OK, OK, OK),
    "marker_weird_status": (_write(_marker, lambda b: json.dumps({**json.loads(b), "status": "weird"}).encode()),
                            OK, OK, OK),
    "marker_deleted": (lambda run, out: _marker(run).unlink(), OK, OK, OK),
    "cells_is_file": (_cells_file, OK, ERR, ERR),
    "cells_symlink": (_symlink_cells, ERR, ERR, ERR),
    "cell_symlink": (_symlink_cell, ERR, ERR, ERR),
    "usage_garbage": (_write(lambda r: r / "usage.jsonl", b'{"role": "agent", "calls": \n\xff\xfe\n[]\n'), OK, OK, OK),
    "user_file_beside": (lambda run, out: (run / "notes.txt").write_text("mine"), OK, OK, ERR),
    "scorecard_is_dir": (_replace_with_dir(lambda r: r / "scorecard.json"), ERR, ERR, ERR),
}
DAMAGED_MARKER = {k for k in DAMAGES if k.startswith("marker_") and k != "marker_deleted"}
COMMANDS = ("show", "resume", "force")


def cases() -> list[tuple[str, str, str]]:
    return [(s, d, c) for s in SUITES for d in DAMAGES for c in COMMANDS]


@pytest.mark.parametrize("suite,damage,command", cases())
def test_damaged_run_folder(suite, damage, command, finished_runs, tmp_path):
    if suite not in finished_runs:
        pytest.skip(f"suite {suite} provides no sample dataset")
    base, data = finished_runs[suite]
    run, outside = tmp_path / "run", tmp_path / "outside"
    shutil.copytree(base / "run", run, symlinks=True)
    outside.mkdir()
    fn, *allowed = DAMAGES[damage]
    fn(run, outside)
    before_run, before_outside = snapshot(run), snapshot(outside)
    args = {"show": ["show", run],
            "resume": [*run_args(suite, data, run), "--resume"],
            "force": [*run_args(suite, data, run), "--force"]}[command]
    r = invoke(args, tmp_path)
    assert_no_traceback(r)
    assert r.code in allowed[COMMANDS.index(command)], f"exit {r.code}\n{r.text[-2000:]}"
    assert snapshot(outside) == before_outside  # never touched through a link
    if r.code == 2:
        assert_clean_failure(r)
        assert snapshot(run) == before_run, "a refused command changed the run folder"
        return
    if command == "show" and damage.startswith("marker_"):
        assert "PARTIAL RUN" in r.stderr
        if damage in DAMAGED_MARKER:
            assert "note:" in r.stderr and "result.json" in r.stderr
    if command in ("resume", "force"):
        card = json.loads((run / "scorecard.json").read_text())
        assert card["run"]["cells"]["partial"] is False  # the damaged cell was redone
        assert "notes.txt" not in os.listdir(run) or damage == "user_file_beside"
        if damage == "user_file_beside":
            assert (run / "notes.txt").read_text() == "mine"
