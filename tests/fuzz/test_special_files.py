"""Files of a run folder are what they claim, for every registered suite and every reader: a trace,
manifest, scorecard, marker or usage journal that is a FIFO, a device, a loop of links or a link
leaving the run folder is refused with one message naming it — by `show`, `report`, `compare` and
`run --resume` alike — before anything is written, and no reader hangs (a FIFO blocked `report`
forever) or follows a cell folder linked outside the run."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from fuzzkit import SUITES, assert_clean_failure, assert_no_traceback, invoke, run_args, snapshot

Plant = Callable[[Path, Path], Path]  # (run folder, a folder outside it) -> the file made special


def _trace(run: Path) -> Path:
    return sorted(run.glob("cells/*/*.jsonl"))[0]


def _marker(run: Path) -> Path:
    return sorted(run.glob("cells/*/result.json"))[0]


def _fifo(where: Callable[[Path], Path]) -> Plant:
    def plant(run: Path, outside: Path) -> Path:
        p = where(run)
        p.unlink()
        os.mkfifo(p)
        return p
    return plant


def _device(where: Callable[[Path], Path]) -> Plant:
    def plant(run: Path, outside: Path) -> Path:
        p = where(run)
        p.unlink()
        p.symlink_to("/dev/zero")
        return p
    return plant


def _link_out(where: Callable[[Path], Path]) -> Plant:
    def plant(run: Path, outside: Path) -> Path:
        p = where(run)
        shutil.copy(p, outside / p.name)
        p.unlink()
        p.symlink_to(outside / p.name)
        return p
    return plant


def _loop(where: Callable[[Path], Path]) -> Plant:
    def plant(run: Path, outside: Path) -> Path:
        p = where(run)
        p.unlink()
        p.symlink_to(p.name)  # a link to itself
        return p
    return plant


def _cell_out(run: Path, outside: Path) -> Path:
    cell = _marker(run).parent
    shutil.copytree(cell, outside / cell.name)
    shutil.rmtree(cell)
    cell.symlink_to(outside / cell.name)
    return cell


PLANTS: dict[str, Plant] = {
    "trace_fifo": _fifo(_trace),
    "trace_device": _device(_trace),
    "trace_link_out": _link_out(_trace),
    "trace_loop": _loop(_trace),
    "marker_fifo": _fifo(_marker),
    "marker_link_out": _link_out(_marker),
    "marker_loop": _loop(_marker),
    "manifest_fifo": _fifo(lambda r: r / "manifest.json"),
    "manifest_device": _device(lambda r: r / "manifest.json"),
    "scorecard_fifo": _fifo(lambda r: r / "scorecard.json"),
    "journal_fifo": _fifo(lambda r: r / "usage.jsonl"),
    "cell_link_out": _cell_out,
}
# What each command reads: a refusal (exit 2) is required where it reads the file; elsewhere it
# may also pass (exit 0), but never hang, trace back, write or follow a link out.
READS = {
    "show": {"marker", "manifest", "cell"},
    "report": {"trace", "marker", "manifest", "scorecard", "cell"},
    "compare": {"trace", "marker", "manifest", "scorecard", "cell"},
    "resume": {"trace", "marker", "manifest", "journal", "cell"},
}


def _unblock_later(fifo: Path, done: threading.Event) -> threading.Thread:
    """A regression must fail, not hang the suite: after a while, open the FIFO's other end once
    so a blocked reader sees end-of-file."""
    def unblock() -> None:
        if not done.wait(30) and fifo.exists():
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
    t = threading.Thread(target=unblock, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("command", sorted(READS))
@pytest.mark.parametrize("plant", sorted(PLANTS))
@pytest.mark.parametrize("suite", SUITES)
def test_a_special_file_in_a_run_folder_is_refused_by_every_reader(suite, plant, command, finished_runs, tmp_path):
    if suite not in finished_runs:
        pytest.skip(f"suite {suite} provides no sample dataset")
    base, data = finished_runs[suite]
    run, outside, clean = tmp_path / "run", tmp_path / "outside", tmp_path / "clean"
    shutil.copytree(base / "run", run, symlinks=True)
    shutil.copytree(base / "run", clean, symlinks=True)
    outside.mkdir()
    if not (run / "usage.jsonl").exists():
        (run / "usage.jsonl").write_text("")
    if plant.startswith("scorecard") and not (run / "scorecard.json").exists():
        pytest.skip("the run wrote no scorecard.json")
    special = PLANTS[plant](run, outside)
    before_run, before_outside, before_cwd = snapshot(run), snapshot(outside), set(os.listdir(tmp_path))
    args = {"show": ["show", run],
            "report": ["report", run, "-o", tmp_path / "r.html"],
            "compare": ["compare", clean, run],
            "resume": [*run_args(suite, data, run), "--resume"]}[command]
    done = threading.Event()
    if not special.is_symlink() and special.is_fifo():
        _unblock_later(special, done)
    try:
        r = invoke(args, tmp_path)
    finally:
        done.set()
    assert_no_traceback(r)
    kind = plant.split("_")[0]
    if kind in READS[command]:
        assert r.code == 2, f"{command} did not refuse {plant}: exit {r.code}\n{r.text[-2000:]}"
    assert r.code in (0, 2), r.text[-2000:]
    assert snapshot(outside) == before_outside  # never written through a link
    if r.code == 2:
        assert_clean_failure(r)
        assert special.name in r.error_lines()[0] or "cells" in r.error_lines()[0], r.error_lines()[0]
        assert snapshot(run) == before_run, "a refused command changed the run folder"
        assert set(os.listdir(tmp_path)) == before_cwd  # no report half-written
