"""The dataset files' hash a run records and rescore checks before any loader parses them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from longview.harness import datafiles
from longview.harness.datafiles import Unhashable, files_sha256, recorded_sha256, spec_path


def _folder(tmp_path: Path) -> Path:
    top = tmp_path / "data"
    (top / "sub").mkdir(parents=True)
    (top / "a.json").write_text("{}")
    (top / "sub" / "b.json").write_text("[1]")
    return top


def test_the_hash_follows_names_and_bytes_not_hidden_files(tmp_path):
    top = _folder(tmp_path)
    before = files_sha256(top)
    assert files_sha256(top) == before
    (top / ".git").mkdir()
    (top / ".git" / "HEAD").write_text("ref")
    assert files_sha256(top) == before  # a dataset's .git is not its data
    (top / "sub" / "b.json").write_text("[1] ")
    assert files_sha256(top) != before
    (top / "sub" / "b.json").write_text("[1]")
    (top / "sub" / "b.json").rename(top / "sub" / "c.json")
    assert files_sha256(top) != before
    assert files_sha256(top / "a.json") != files_sha256(top)


def test_a_fifo_is_never_opened(tmp_path):
    top = _folder(tmp_path)
    os.mkfifo(top / "pipe.json")  # opening it to read would block
    assert len(files_sha256(top)) == 64
    with pytest.raises(Unhashable, match="regular file or a folder"):
        files_sha256(top / "pipe.json")


def test_too_many_files_or_bytes_are_refused_before_reading(tmp_path, monkeypatch):
    top = _folder(tmp_path)
    monkeypatch.setattr(datafiles, "MAX_FILES", 1)
    with pytest.raises(Unhashable, match="more than 1 files"):
        files_sha256(top)
    monkeypatch.setattr(datafiles, "MAX_FILES", 10)
    monkeypatch.setattr(datafiles, "MAX_BYTES", 4)
    with pytest.raises(Unhashable, match="MiB"):
        files_sha256(top)
    assert recorded_sha256(str(top), {}) is None  # a run records nothing it could not hash


def test_spec_path_finds_what_resolve_spec_finds(tmp_path):
    top = _folder(tmp_path)
    assert spec_path("builtin", {"builtin": "the built-in dataset"}) is None
    assert spec_path(str(top), {}) == top
    assert spec_path(f"pibench:{top}", {}) == top
    assert spec_path("pibench:/no/such/place", {}) is None
    assert recorded_sha256(str(top / "a.json"), {}) == files_sha256(top / "a.json")


def test_show_reads_a_dataset_folder_whose_other_files_changed(tmp_path):
    """A file the loader does not read added to the dataset folder changes the files' hash: show
    (not strict) loads it and compares the dataset's own sha256, rescore would refuse it unread."""
    import shutil

    from click.testing import CliRunner

    from longview.cli import app

    data = tmp_path / "atrbench"
    shutil.copytree(Path(__file__).parents[1] / "fixtures" / "atrbench", data)
    run = tmp_path / "run"
    r = CliRunner().invoke(app, ["run", "atr", "--dataset", f"atrbench:{data}", "--agent", "ref:passive",
                                 "--personas", "1", "--out", str(run)])
    assert r.exit_code == 0, r.output
    (data / "NOTES.txt").write_text("not data")
    r = CliRunner().invoke(app, ["show", str(run)])
    assert r.exit_code == 0, r.output
