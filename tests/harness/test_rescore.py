"""`longview rescore`: judges applied again to a finished run's stored results, the agent never called."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from longview.cli import app
from longview.testing.loopback import LoopbackServer, text_message

runner = CliRunner()


def test_rescore_calls_only_the_judge_and_writes_a_new_scorecard(prefs_run: Path, tmp_path: Path):
    seen: list[dict[str, Any]] = []

    def judge(body: dict[str, Any]) -> dict[str, Any]:
        seen.append(body)
        asked = json.loads(next(m["content"] for m in body["messages"] if m["role"] == "user"))
        quote = (asked["replies"] or [""])[0][:40] or asked["actions"][0]["tool"]
        return text_message(json.dumps({"score": 2, "rationale": "partly", "evidence": [quote], "flags": []}))

    before = (prefs_run / "scorecard.json").read_text()
    out = tmp_path / "rescored"
    with LoopbackServer(agent=judge).in_thread() as server:
        r = runner.invoke(app, ["rescore", str(prefs_run), "--judge-model", "hosted_vllm/judge", "--api-base",
                                server.url, "--out", str(out), "--no-cache"])
    assert r.exit_code == 0, r.output
    assert seen and all(b["model"] == "judge" for b in seen)
    system = [m["content"] for b in seen for m in b["messages"] if m["role"] == "system"]
    assert all("interaction setting" in s for s in system)  # BRS judge requests, nothing else
    finals = sum(1 for p in json.loads(next((prefs_run / "cells").glob("*/result.json")).read_text())["probes"]
                 if p["kind"] == "final" and not p["capability_failure"])
    assert len(seen) == finals
    assert (prefs_run / "scorecard.json").read_text() == before  # the original is kept
    new = json.loads((out / "scorecard.json").read_text())
    assert new["metrics"]["brs"]["kind"] == "judged"
    (row,) = new["rows"]
    assert row["metrics"]["brs"] < json.loads(before)["rows"][0]["metrics"]["brs"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["rescored"]["from"] == str(prefs_run.resolve())
    assert manifest["components"]["judge"] == "llm:hosted_vllm/judge"
    assert manifest["usage"]["roles"]["judge"]["calls"] == len(seen)
    assert list((out / "cells").glob("*/*.jsonl"))  # transcripts travel with it


def test_a_suite_whose_judges_steer_sessions_cannot_be_rescored(tmp_path: Path):
    run = tmp_path / "atr"
    assert runner.invoke(app, ["run", "atr", "--agent", "ref:asker", "--personas", "1", "--out", str(run)]).exit_code == 0
    r = runner.invoke(app, ["rescore", str(run), "--judge-model", "hosted_vllm/judge", "--api-base", "http://127.0.0.1:9"])
    assert r.exit_code == 2 and "can re-judge: none" in r.output
    assert not list(tmp_path.glob("atr-rescored-*"))


def test_rescore_never_replaces_a_folder_it_did_not_make(prefs_run: Path, tmp_path: Path):
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep")
    r = runner.invoke(app, ["rescore", str(prefs_run), "--judge-model", "hosted_vllm/j", "--api-base",
                            "http://127.0.0.1:9", "--out", str(other), "--force"])
    assert r.exit_code == 2 and "not a rescored run" in r.output
    assert (other / "notes.txt").read_text() == "keep"
