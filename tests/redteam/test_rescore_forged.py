"""`longview rescore` on a forged run folder: stored judge inputs of the wrong type, a huge one,
a marker or a cell folder that is a link out of the run, a trace that is a link out, a manifest
whose dataset spec names another file (also for show). Each is one clear error with a non-zero
exit, no new folder is left behind, the judge reads nothing from outside the run folder, and no
byte of a file the run did not read is quoted."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from longview.cli import app
from longview.harness import run as harness
from longview.harness.options import RunConfig
from longview.testing.loopback import LoopbackServer, text_message

FIXTURE = Path(__file__).parents[1] / "fixtures" / "pibench"
SECRET = "TOP-SECRET-OUTSIDE-THE-RUN"
runner = CliRunner()


def yes_judge(seen: list[str]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def agent(body: dict[str, Any]) -> dict[str, Any]:
        text = json.dumps(body)
        seen.append(text)
        payload = json.loads(body["messages"][-1]["content"])
        ids = [i["id"] for i in (payload.get("criteria") or payload.get("requirements") or [])
               if isinstance(i, dict) and "id" in i] if isinstance(payload, dict) else []
        if isinstance(payload, dict) and "criteria" not in payload and "requirements" not in payload:
            return text_message(json.dumps({"score": 1, "reason": "ok"}))
        return text_message(json.dumps({"decisions": [{"id": i, "yes": True, "reason": "ok"} for i in ids]}))

    return agent


@pytest.fixture(scope="module")
def intents_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("forged") / "intents"
    harness.run(RunConfig(suite="intents", dataset=f"pibench:{FIXTURE}", agents=["ref:literal"], out=out,
                          no_cache=True, max_concurrency=1))
    return out


def _copy(run: Path, tmp: Path) -> Path:
    dst = tmp / "forged"
    shutil.copytree(run, dst, symlinks=True)
    return dst


def _markers(run: Path) -> list[Path]:
    return sorted((run / "cells").glob("*/result.json"))


def _edit(marker: Path, change: Callable[[dict], None]) -> None:
    cell = json.loads(marker.read_text())
    change(cell)
    marker.write_text(json.dumps(cell))


def _rescore(run: Path, out: Path, seen: list[str]) -> Any:
    with LoopbackServer(agent=yes_judge(seen)).in_thread() as srv:
        return runner.invoke(app, ["rescore", str(run), "--judge-model", "hosted_vllm/j", "--api-base", srv.url,
                                   "--out", str(out), "--no-cache"])


def _refused(r: Any, out: Path, seen: list[str], *words: str) -> None:
    assert r.exit_code == 2, r.output
    assert not out.exists(), "nothing half-written"
    assert "Traceback" not in r.output
    for w in words:
        assert w in r.output, (w, r.output)
    assert not any(SECRET in s for s in seen)


def _sessions_set(key: str, value: Any) -> Callable[[dict], None]:
    def change(cell: dict) -> None:
        for s in cell["sessions"]:
            s[key] = value
    return change


@pytest.mark.parametrize("value", ["a string", [1, 2], {"payload": "x", "proxy": []}, 7],
                         ids=["string", "list", "payload-string", "number"])
def test_intents_rubric_input_of_the_wrong_type(intents_run, tmp_path, value):
    run = _copy(intents_run, tmp_path)
    _edit(_markers(run)[0], _sessions_set("rubric_input", value))
    seen: list[str] = []
    _refused(_rescore(run, tmp_path / "out", seen), tmp_path / "out", seen, "result.json")


def test_a_stored_judge_input_too_big_for_any_judge_is_never_sent(intents_run, tmp_path):
    from longview.judges.base import MAX_INPUT_CHARS

    run = _copy(intents_run, tmp_path)

    def change(cell: dict) -> None:
        for s in cell["sessions"]:
            if s.get("rubric_input"):
                s["rubric_input"]["payload"]["padding"] = "x" * MAX_INPUT_CHARS
    _edit(_markers(run)[0], change)
    seen: list[str] = []
    r = _rescore(run, tmp_path / "out", seen)
    assert r.exit_code != 0 and not (tmp_path / "out").exists(), r.output
    assert "not sent" in r.output and "Traceback" not in r.output
    assert not any("x" * 1000 in s for s in seen)


def test_prefs_brs_input_of_the_wrong_type(prefs_run, tmp_path):
    run = _copy(prefs_run, tmp_path)

    def change(cell: dict) -> None:
        for p in cell["probes"]:
            if p.get("brs_input") is not None:
                p["brs_input"] = ["not", "an", "object"]
    _edit(_markers(run)[0], change)
    seen: list[str] = []
    _refused(_rescore(run, tmp_path / "out", seen), tmp_path / "out", seen, "result.json")


def test_a_marker_that_links_out_of_the_run_is_refused(intents_run, tmp_path):
    run = _copy(intents_run, tmp_path)
    outside = tmp_path / "elsewhere.json"
    marker = _markers(run)[0]
    outside.write_text(marker.read_text().replace("I have", SECRET))
    marker.unlink()
    marker.symlink_to(outside)
    seen: list[str] = []
    _refused(_rescore(run, tmp_path / "out", seen), tmp_path / "out", seen)


def test_a_cell_folder_that_links_out_of_the_run_is_refused(intents_run, tmp_path):
    run = _copy(intents_run, tmp_path)
    cell = _markers(run)[0].parent
    outside = tmp_path / "elsewhere"
    shutil.move(str(cell), outside)
    os.symlink(outside, cell)
    seen: list[str] = []
    _refused(_rescore(run, tmp_path / "out", seen), tmp_path / "out", seen)


def test_a_marker_over_the_run_file_cap_is_refused_unread(intents_run, tmp_path):
    """A sparse file (no disk used) one byte over the cap: refused from its size, never read."""
    from longview.harness.runstore import MAX_RUN_FILE

    run = _copy(intents_run, tmp_path)
    marker = _markers(run)[0]
    with marker.open("r+b") as f:
        f.truncate(MAX_RUN_FILE + 1)
    seen: list[str] = []
    _refused(_rescore(run, tmp_path / "out", seen), tmp_path / "out", seen, "result.json")
    assert not seen


def test_the_wrong_type_is_one_message_naming_file_and_field(intents_run, tmp_path):
    run = _copy(intents_run, tmp_path)
    _edit(_markers(run)[0], _sessions_set("rubric_input", 7))
    r = _rescore(run, tmp_path / "out", [])
    assert r.exit_code == 2 and "rubric_input" in r.output and str(_markers(run)[0]) in r.output.replace("\n", "")
    assert "validation errors" not in r.output and "pydantic.dev" not in r.output


def test_a_judge_that_fails_for_good_stops_the_rescore_with_the_reason(prefs_run, tmp_path):
    """prefs' BRS judge aborts after a malformed verdict twice (intents' rubric counts one NO instead)."""
    out = tmp_path / "out"
    with LoopbackServer(agent=lambda body: text_message("not a verdict")).in_thread() as srv:
        r = runner.invoke(app, ["rescore", str(prefs_run), "--judge-model", "hosted_vllm/j", "--api-base", srv.url,
                                "--out", str(out), "--no-cache"])
    assert r.exit_code == 1 and not out.exists(), r.output
    assert "malformed verdict twice" in r.output and "nothing was written" in r.output
    assert "Traceback" not in r.output


FAKE_KEY = "sk-test-SECRET123"


def _quoting_secret(tmp: Path) -> Path:
    """A file prefs' loader would quote in its error (two users with the same id: the fake key)."""
    from longview.suites.prefs.dataset import generate

    data = json.loads(generate(users=2).model_dump_json())
    for u in data["users"]:
        u["user"]["id"] = FAKE_KEY
    secret = tmp / "credentials.json"
    secret.write_text(json.dumps(data))
    return secret


def _forge_dataset(run: Path, **fields: Any) -> Path:
    manifest = run / "manifest.json"
    data = json.loads(manifest.read_text())
    for k, v in fields.items():
        if v is None:
            data["dataset"].pop(k, None)
        else:
            data["dataset"][k] = v
    manifest.write_text(json.dumps(data))
    return manifest


def _refused_unquoted(r: Any, out: Path, seen: list[str], manifest: Path, *words: str) -> None:
    _refused(r, out, seen, "dataset.spec", *words)
    assert str(manifest) in r.output.replace("\n", "")
    assert FAKE_KEY not in r.output and not seen


def test_a_forged_dataset_spec_is_refused_from_its_hash_before_it_is_parsed(prefs_run, tmp_path):
    run = _copy(prefs_run, tmp_path)
    secret = _quoting_secret(tmp_path)
    manifest = _forge_dataset(run, spec=str(secret), files_sha256="0" * 64)
    seen: list[str] = []
    r = _rescore(run, tmp_path / "out", seen)
    _refused_unquoted(r, tmp_path / "out", seen, manifest, "files_sha256", "000000000000", "none of it was parsed")


def test_a_forged_spec_in_a_manifest_without_the_files_hash_is_not_quoted(prefs_run, tmp_path):
    """A run made before files_sha256 was recorded: loaded, but the loader's message (which would
    quote the file) is not shown."""
    run = _copy(prefs_run, tmp_path)
    manifest = _forge_dataset(run, spec=str(_quoting_secret(tmp_path)), files_sha256=None)
    seen: list[str] = []
    r = _rescore(run, tmp_path / "out", seen)
    _refused_unquoted(r, tmp_path / "out", seen, manifest, "loader's message is not shown")


@pytest.mark.parametrize("kind", ["fifo", "missing"])
def test_a_forged_spec_naming_a_fifo_or_nothing_is_refused_unread(prefs_run, tmp_path, kind):
    run = _copy(prefs_run, tmp_path)
    target = tmp_path / "pipe"
    if kind == "fifo":
        os.mkfifo(target)  # a loader opening it would wait forever
    manifest = _forge_dataset(run, spec=str(target), files_sha256="0" * 64)
    seen: list[str] = []
    r = _rescore(run, tmp_path / "out", seen)
    _refused_unquoted(r, tmp_path / "out", seen, manifest, "regular file or a folder" if kind == "fifo" else "no file")


def test_a_dataset_file_is_checked_byte_for_byte(tmp_path):
    """A run on a dataset file records its bytes' hash: rescore re-judges it as it was, and refuses
    it once a byte changed (even one prefs' own sha256, over the parsed data, would not see)."""
    data = tmp_path / "users.json"
    assert runner.invoke(app, ["prefs", "generate", "--users", "1", "--no-qc", "--out", str(data)]).exit_code == 0
    run = tmp_path / "run"
    r = runner.invoke(app, ["run", "prefs", "--dataset", str(data), "--agent", "ref:habits", "--out", str(run)])
    assert r.exit_code == 0, r.output
    assert json.loads((run / "manifest.json").read_text())["dataset"]["files_sha256"]

    def brs_judge(body: dict[str, Any]) -> dict[str, Any]:
        asked = json.loads(body["messages"][-1]["content"])
        quote = (asked["replies"] or [""])[0][:40] or asked["actions"][0]["tool"]
        return text_message(json.dumps({"score": 2, "rationale": "partly", "evidence": [quote], "flags": []}))

    with LoopbackServer(agent=brs_judge).in_thread() as srv:
        r = runner.invoke(app, ["rescore", str(run), "--judge-model", "hosted_vllm/j", "--api-base", srv.url,
                                "--out", str(tmp_path / "out"), "--no-cache"])
    assert r.exit_code == 0, r.output
    data.write_text(data.read_text() + "\n")
    r = _rescore(run, tmp_path / "again", seen := [])
    _refused(r, tmp_path / "again", seen, "dataset.spec", "changed since the run")


@pytest.mark.parametrize("files_sha256", ["0" * 64, None], ids=["hash", "no-hash"])
def test_show_reads_a_forged_spec_the_same_way(prefs_run, tmp_path, files_sha256):
    """show (and report, for a run without a scorecard) load the dataset from the manifest too."""
    run = _copy(prefs_run, tmp_path)
    manifest = _forge_dataset(run, spec=str(_quoting_secret(tmp_path)), files_sha256=files_sha256)
    before = sorted(p.name for p in run.rglob("*"))
    r = runner.invoke(app, ["show", str(run)])
    assert r.exit_code == 2 and "dataset.spec" in r.output and str(manifest) in r.output.replace("\n", ""), r.output
    assert FAKE_KEY not in r.output and "Traceback" not in r.output
    assert sorted(p.name for p in run.rglob("*")) == before
