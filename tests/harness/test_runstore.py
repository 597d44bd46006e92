"""The run store: never writes outside its root, --force removes only what longview wrote,
damaged files are explained (a truncated marker is not "done"), and usage survives a kill."""

from __future__ import annotations

import json
import os

import pytest
from pydantic import BaseModel

from longview.harness.runstore import DatasetInfo, Manifest, RunStore, config_hash
from longview.kernel.agent import Usage
from longview.kernel.errors import ConfigError, LongviewError, RunFolderError
from longview.kernel.models.usage import UsageLedger


class Result(BaseModel):
    status: str
    abort_reason: str | None = None


def manifest(**config) -> Manifest:
    config = {"seed": 0, **config}
    return Manifest(suite="t", dataset=DatasetInfo(name="d", sha256="0" * 64, units=1), config=config,
                    config_hash=config_hash(config))


def listing(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def finished(store: RunStore, cell: str) -> None:
    store.start_cell(cell)
    store.session_path(cell, "s1").write_text("{}\n")
    store.finish_cell(cell, Result(status="complete"))


# --- paths -------------------------------------------------------------------------------------


@pytest.mark.parametrize("session", ["../x", "/tmp/evil", "a/../../b", "..", "a\x00b", "\ud800", "a" * 500, ""])
def test_hostile_session_ids_are_refused(tmp_path, session):
    store = RunStore(tmp_path / "run")
    store.open(manifest(), resume=False, force=False)
    store.start_cell("c")
    with pytest.raises(ConfigError):
        store.session_path("c", session)
    assert not (tmp_path / "x").exists() and not (tmp_path / "evil").exists()


@pytest.mark.parametrize("cell", ["../../x", "/abs/olute", "openai/gpt-4o__atr__p1", "..", "a\\..\\b"])
def test_cell_keys_with_separators_stay_inside(tmp_path, cell):
    store = RunStore(tmp_path / "run")
    store.open(manifest(), resume=False, force=False)
    d = store.start_cell(cell)
    assert d.parent == tmp_path / "run" / "cells"
    store.finish_cell(cell, Result(status="complete"))
    assert store.is_done(cell)
    assert all(p.is_relative_to(tmp_path / "run") for p in tmp_path.rglob("*"))


def test_cell_folders_are_injective(tmp_path):
    store = RunStore(tmp_path / "run")
    store.open(manifest(), resume=False, force=False)
    keys = ["a__v__p 1", "a__v__p_1", "a__v__p1", "a__v__P1", "a:v:p1", "a/v/p1", "a_v_p1"]
    assert len({store.cell_dir(k) for k in keys}) == len(keys)
    assert len({str(store.cell_dir(k)).lower() for k in keys}) == len(keys)


def test_symlink_planted_in_run_folder_is_not_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    store = RunStore(tmp_path / "run")
    store.open(manifest(), resume=False, force=False)
    (tmp_path / "run" / "cells").mkdir(exist_ok=True)
    os.symlink(outside, tmp_path / "run" / "cells" / store.cell_dir("c").name)
    with pytest.raises(ConfigError, match="outside the run folder"):
        store.start_cell("c")
    assert list(outside.iterdir()) == []


def test_symlink_planted_at_a_session_file_is_refused(tmp_path):
    outside = tmp_path / "outside.jsonl"
    store = RunStore(tmp_path / "run")
    store.open(manifest(), resume=False, force=False)
    store.start_cell("c")
    assert store.session_path("c", "s1").parent == store.cell_dir("c")  # the folder is now cached
    os.symlink(outside, store.cell_dir("c") / "s2.jsonl")
    from longview.kernel.trace import TraceWriter

    # The trace writer's open refuses the link itself (O_NOFOLLOW): no check-then-write race.
    with pytest.raises(ConfigError, match="symbolic link"):
        TraceWriter(store.session_path("c", "s2"), "s2").close()
    assert not outside.exists()


def test_a_manifest_written_before_units_was_the_field_name_still_reads(tmp_path):
    data = json.loads(manifest().model_dump_json())
    data["dataset"] = {"name": "d", "sha256": "0" * 64, "personas": 3}
    assert Manifest.model_validate(data).dataset.units == 3


def test_symlinked_cells_folder_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "run").mkdir()
    store = RunStore(tmp_path / "run")
    store.open(manifest(), resume=False, force=False)
    os.symlink(outside, tmp_path / "run" / "cells")
    with pytest.raises(ConfigError, match="outside"):
        store.start_cell("c")
    with pytest.raises(ConfigError):
        RunStore(tmp_path / "run").open(manifest(), resume=False, force=True)  # a symlink is not ours
    assert (tmp_path / "run" / "cells").is_symlink() and outside.is_dir()


# --- --force -----------------------------------------------------------------------------------


def test_force_replaces_only_longview_files(tmp_path):
    root = tmp_path / "run"
    store = RunStore(root)
    store.open(manifest(), resume=False, force=False)
    finished(store, "c1")
    store.write_json("scorecard.json", {"x": 1})
    store.write_json("extra.json", {"y": 1})
    store.journal_usage({"role": "agent", "calls": 1})
    RunStore(root).open(manifest(seed=1), resume=False, force=True)
    assert listing(root) == ["manifest.json"]


def test_force_refuses_when_user_files_are_present(tmp_path):
    root = tmp_path / "run"
    store = RunStore(root)
    store.open(manifest(), resume=False, force=False)
    finished(store, "c1")
    (root / "notes.txt").write_text("mine")
    before = listing(root)
    with pytest.raises(ConfigError, match="notes.txt") as e:
        RunStore(root).open(manifest(seed=1), resume=False, force=True)
    assert "nothing was removed" in str(e.value)
    assert listing(root) == before


def test_out_dot_force_never_empties_a_working_directory(tmp_path, monkeypatch):
    (tmp_path / "src.py").write_text("print(1)")
    (tmp_path / "manifest.json").write_text(manifest().model_dump_json())  # a run beside user files
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match="src.py"):
        RunStore(type(tmp_path)(".")).open(manifest(seed=2), resume=False, force=True)
    assert (tmp_path / "src.py").read_text() == "print(1)"


@pytest.mark.parametrize("force", [False, True])
def test_non_empty_foreign_folder_is_refused(tmp_path, force):
    (tmp_path / "report.docx").write_text("x")
    with pytest.raises(ConfigError, match="not a longview run"):
        RunStore(tmp_path).open(manifest(), resume=False, force=force)
    assert listing(tmp_path) == ["report.docx"]


def test_run_folder_that_is_a_file(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(ConfigError, match="not a folder"):
        RunStore(tmp_path / "f").open(manifest(), resume=False, force=True)


def test_existing_run_needs_resume_or_force(tmp_path):
    RunStore(tmp_path / "r").open(manifest(), resume=False, force=False)
    with pytest.raises(ConfigError, match="--resume"):
        RunStore(tmp_path / "r").open(manifest(), resume=False, force=False)
    with pytest.raises(ConfigError, match="configuration changed"):
        RunStore(tmp_path / "r").open(manifest(seed=9), resume=True, force=False)


# --- damaged files -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "content",
    [b"", b'{"suite": "t", "dataset": {"na', b"\xff\xfe", b"[]", b'{"suite": "t"}', b"[" * 10000],
)
def test_damaged_manifest_is_explained(tmp_path, content):
    root = tmp_path / "run"
    root.mkdir()
    (root / "manifest.json").write_bytes(content)
    with pytest.raises(RunFolderError) as e:
        RunStore(root).manifest()
    assert str(e.value).startswith(f"{root / 'manifest.json'}: record <manifest>: field")
    with pytest.raises(RunFolderError, match="--force"):
        RunStore(root).open(manifest(), resume=True, force=False)
    assert (root / "manifest.json").read_bytes() == content  # nothing rewritten
    RunStore(root).open(manifest(), resume=True, force=True)  # --force starts it over
    assert RunStore(root).manifest().config_hash == manifest().config_hash


def test_missing_run_folder_or_manifest(tmp_path):
    with pytest.raises(LongviewError, match="no such folder"):
        RunStore(tmp_path / "nope").manifest()
    with pytest.raises(LongviewError, match="no manifest"):
        RunStore(tmp_path).manifest()
    assert listing(tmp_path) == []


@pytest.mark.parametrize("marker", ['{"status": "compl', "", "null", "[1]", '{"other": 1}', "\xff"])
def test_damaged_marker_is_not_done_and_is_noted(tmp_path, marker):
    root = tmp_path / "run"
    store = RunStore(root, result_model=Result)
    store.open(manifest(), resume=False, force=False)
    finished(store, "good")
    finished(store, "bad")
    (store.cell_dir("bad") / "result.json").write_text(marker, encoding="utf-8", errors="surrogateescape")
    again = RunStore(root, result_model=Result)
    again.open(manifest(), resume=True, force=False)
    assert again.is_done("good") and not again.is_done("bad")
    assert "runs it again" in again.notes[again.cell_dir("bad").name]
    assert len(again.results()) == 1
    again.start_cell("bad")  # the resume redoes it from scratch
    again.finish_cell("bad", Result(status="complete"))
    assert again.is_done("bad") and len(again.results()) == 2


def test_run_files_without_manifest(tmp_path):
    root = tmp_path / "run"
    (root / "cells" / "c").mkdir(parents=True)
    with pytest.raises(RunFolderError, match="no manifest"):
        RunStore(root).open(manifest(), resume=True, force=False)
    RunStore(root).open(manifest(), resume=True, force=True)
    assert listing(root) == ["manifest.json"]


# --- usage journal -----------------------------------------------------------------------------


def test_usage_of_a_killed_invocation_is_recovered(tmp_path):
    root = tmp_path / "run"
    store = RunStore(root)
    store.open(manifest(), resume=False, force=False)
    ledger = UsageLedger(journal=store.journal_usage)
    ledger.record("agent", Usage(input_tokens=100, output_tokens=10, cost_usd=0.5), attempts=3)
    ledger.record_cache_hit("agent")
    ledger.record_failure("judge", attempts=6)
    # killed here: the manifest never got this usage, and the last journal line is half-written
    with open(root / "usage.jsonl", "a") as f:
        f.write('{"role": "agent", "calls"')
    again = RunStore(root)
    again.open(manifest(), resume=True, force=False)
    usage = again.previous_usage
    assert usage["roles"]["agent"]["calls"] == 1
    assert usage["roles"]["agent"]["input_tokens"] == 100
    assert usage["roles"]["agent"]["cache_hits"] == 1
    assert usage["roles"]["agent"]["retries"] == 2
    assert usage["roles"]["judge"] == {**usage["roles"]["judge"], "failed_calls": 1, "retries": 5, "calls": 0}
    assert usage["total"]["cost_usd"] == pytest.approx(0.5)
    assert "incomplete" in again.notes["usage.jsonl"]


def test_resume_without_journal_uses_manifest_usage(tmp_path):
    root = tmp_path / "run"
    m = manifest()
    m.usage = {"roles": {}, "total": {"calls": 7}}
    RunStore(root).open(m, resume=False, force=False)
    again = RunStore(root)
    again.open(manifest(), resume=True, force=False)
    assert again.previous_usage["total"]["calls"] == 7


def test_write_json_names_are_plain(tmp_path):
    store = RunStore(tmp_path / "run")
    store.open(manifest(), resume=False, force=False)
    for bad in ["../x.json", "/tmp/x.json", "manifest.json", "x.txt", "a/b.json"]:
        with pytest.raises(ConfigError):
            store.write_json(bad, {})
    assert json.loads(store.write_json("scorecard.json", {"a": 1}).read_text()) == {"a": 1}

