"""The CLI and run store end to end on the two ATRBench fixture episodes (a plain episode folder)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from longview.cli import app
from longview.harness import run as harness
from longview.harness.options import RunConfig
from longview.harness.roles import parse_role_params
from longview.kernel.errors import ConfigError
from longview.kernel.models.usage import add_summaries

runner = CliRunner()



def test_run_writes_json_and_show_reprints(episodes: Path, tmp_path: Path):
    out, js = tmp_path / "run", tmp_path / "out.json"
    r = runner.invoke(app, ["run", "atr", "--dataset", str(episodes), "--out", str(out), "--json", str(js)])
    assert r.exit_code == 0, r.output
    data = json.loads(js.read_text())
    assert data["suite"] == "atr"
    assert set(data["dataset"]) == {"name", "sha256", "units"} and data["dataset"]["units"] == 2
    assert set(data["metrics"]) == {"tsacc", "rule_ask", "rule_cov", "acq_prec", "applied_rate"}
    assert data["metrics"]["tsacc"]["kind"] == "deterministic" and data["metrics"]["rule_cov"]["kind"] == "judged"
    rows = {(row["agent"], row["variant"]): row for row in data["rows"]}
    assert set(rows) == {("ref:passive", "default"), ("ref:asker", "atr"), ("ref:oracle", "oracle_target")}
    for row in rows.values():
        assert row["n"] == 2 and "n_personas" not in row  # the one common row shape
        assert set(row["metrics"]) == {"tsacc", "rule_ask", "rule_cov", "acq_prec", "applied_rate"}
        for v in row["metrics"].values():
            assert v is None or 0 <= v <= max(1.0, v)  # rule_ask may exceed 1
    assert rows[("ref:oracle", "oracle_target")]["metrics"]["rule_ask"] is None
    assert data["run"]["config_hash"] and data["run"]["seed"] == 0 and data["run"]["package_version"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config_hash"] == data["run"]["config_hash"]
    assert manifest["components"]["router"].startswith("embedded:")
    assert manifest["dataset"]["sha256"] == data["dataset"]["sha256"]
    assert len(list(out.glob("cells/*/result.json"))) == 6
    r = runner.invoke(app, ["show", str(out)])
    assert r.exit_code == 0 and "ref:oracle" in r.output


def _break(path: Path, edit) -> None:
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize(
    "edit, field, words",
    [
        (lambda d: d["rules"][2].pop("canonical_answer"), "canonical_answer", "Field required"),
        (lambda d: d["rules"][1].update(check_type="vibes"), "check_type", "tool_identity"),
        (lambda d: d["learning_sessions"][3]["gold_trajectory"][0].update(tool="teleport"), "gold_trajectory.0.tool", "unknown tool 'teleport'"),
    ],
)
def test_malformed_dataset_names_file_record_field_and_writes_no_run(episodes, tmp_path, edit, field, words):
    bad = sorted(episodes.glob("*.json"))[1]
    _break(bad, edit)
    out = tmp_path / "run"
    r = runner.invoke(app, ["run", "atr", "--dataset", str(episodes), "--out", str(out)])
    assert r.exit_code == 2
    msg = " ".join(r.output.split())
    assert bad.name in msg and f"field '{field}'" in msg and words in msg
    assert "record maximo_esteban_irizarry_seed000/" in msg or "record cassandra" in msg
    assert not out.exists()


def test_resume_redoes_no_finished_cell_and_matches_uninterrupted(episodes, tmp_path):
    full = RunConfig(suite="atr", dataset=str(episodes), out=tmp_path / "full", max_concurrency=1)
    _, reference = harness.run(full)

    class Crash(Exception):
        pass

    done: list[str] = []

    def crash_after_two(cell, record):
        done.append(cell.key)
        if len(done) == 2:
            raise Crash

    opts = RunConfig(suite="atr", dataset=str(episodes), out=tmp_path / "part", max_concurrency=1)
    with pytest.raises(Crash):
        harness.run(opts, on_cell=crash_after_two)
    finished = {p.parent.name for p in (tmp_path / "part").glob("cells/*/result.json")}
    assert len(finished) >= 2 and len(finished) < 6
    rerun: list[str] = []
    _, sc = harness.run(opts.model_copy(update={"resume": True}), on_cell=lambda c, r: rerun.append(c.key))
    assert not set(rerun) & set(done) and len(rerun) == 6 - len(finished)
    assert sc.to_json_dict() == reference.to_json_dict()


def test_existing_run_and_changed_config_are_refused(episodes, tmp_path):
    out = tmp_path / "run"
    base = ["run", "atr", "--dataset", str(episodes), "--out", str(out), "--personas", "1"]
    assert runner.invoke(app, base).exit_code == 0
    r = runner.invoke(app, base)
    assert r.exit_code == 2 and "--resume" in r.output
    r = runner.invoke(app, base + ["--resume", "--seed", "7"])
    assert r.exit_code == 2 and "configuration changed" in " ".join(r.output.split())
    assert runner.invoke(app, base + ["--resume"]).exit_code == 0
    assert runner.invoke(app, base + ["--resume", "--seed", "7", "--force"]).exit_code == 0


def test_unknown_agent_and_variant_fail_cleanly(episodes, tmp_path):
    r = runner.invoke(app, ["run", "atr", "--dataset", str(episodes), "--agent", "ref:nobody", "--out", str(tmp_path / "x")])
    assert r.exit_code == 2 and "unknown agent" in r.output
    r = runner.invoke(app, ["run", "atr", "--dataset", str(episodes), "--variant", "maybe", "--out", str(tmp_path / "x")])
    assert r.exit_code == 2 and "unknown variant" in r.output
    assert not (tmp_path / "x").exists()


def test_dry_run_plans_four_variants_per_model_and_calls_nothing(episodes, tmp_path):
    r = runner.invoke(app, ["run", "atr", "--dataset", str(episodes), "--model", "openai/gpt-x", "--model", "ollama/q",
                            "--router-model", "openai/r", "--dry-run", "--out", str(tmp_path / "x")])
    assert r.exit_code == 0, r.output
    out = " ".join(r.output.split())
    assert "16 cells over 2 units" in out and "oracle_target" in out and "estimate · router" in out
    assert not (tmp_path / "x").exists()


def test_role_params_parse_and_reject():
    roles = ["agent", "user", "router", "classifier"]
    p = parse_role_params(["router.temperature=0", "agent.reasoning_effort=high", "agent.top_p=0.9"], roles)
    assert p["router"].temperature == 0 and p["agent"].reasoning_effort == "high" and p["agent"].extra == {"top_p": 0.9}
    for bad in (["judge.temperature=1"], ["agent.reasoning_effort=extreme"], ["temperature"]):
        with pytest.raises(ConfigError):
            parse_role_params(bad, roles)


def test_usage_adds_up_across_resumed_invocations():
    one = {"roles": {"agent": {"calls": 2, "input_tokens": 100, "cached_tokens": 50, "output_tokens": 3,
                               "cost_usd": 0.1, "cache_hits": 1, "cost_known": True}}}
    one["total"] = one["roles"]["agent"]
    both = add_summaries(one, one)
    assert both["roles"]["agent"]["calls"] == 4 and both["total"]["cached_share"] == 0.5
    assert add_summaries({}, one)["total"]["input_tokens"] == 100


def test_trace_command_prints_a_readable_session(episodes, tmp_path):
    out = tmp_path / "run"
    assert runner.invoke(app, ["run", "atr", "--dataset", str(episodes), "--out", str(out), "--personas", "1",
                               "--agent", "ref:asker"]).exit_code == 0
    cell = next((out / "cells").iterdir())
    r = runner.invoke(app, ["trace", str(next(cell.glob("*_s00.jsonl")))])
    assert r.exit_code == 0 and "assistant to user:" in r.output and "route_decision" in r.output
    assert "end: user_end" in r.output
    assert runner.invoke(app, ["trace", str(tmp_path / "nope.jsonl")]).exit_code == 2


def test_generate_refuses_a_non_empty_folder(tmp_path):
    (tmp_path / "keep.txt").write_text("x")
    r = runner.invoke(app, ["atr", "generate", "--personas", "1", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "not empty" in r.output


def test_bad_model_or_missing_key_fails_before_any_run_is_written(episodes, tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here
    for model, words in (("weird/x", "unknown model provider"), ("openai/gpt-x", "needs an API key: set OPENAI_API_KEY")):
        r = runner.invoke(app, ["run", "atr", "--dataset", str(episodes), "--model", model, "--out", str(tmp_path / "r")])
        assert r.exit_code == 2 and words in " ".join(r.output.split())
        assert not (tmp_path / "r").exists()


def test_a_reference_agent_on_prompt_only_variants_says_its_rows_are_one_behaviour(tmp_path: Path):
    js = tmp_path / "sc.json"
    r = runner.invoke(app, ["run", "atr", "--agent", "ref:asker", "--variant", "atr", "--variant", "always_ask",
                            "--variant", "oracle_target", "--personas", "1", "--out", str(tmp_path / "r"),
                            "--json", str(js)], terminal_width=300)
    assert r.exit_code == 0, r.output
    notes = json.loads(js.read_text()).get("notes", [])
    said = [n for n in notes if n.startswith("ref:asker is scripted")]
    assert len(said) == 1 and "atr, always_ask" in said[0] and "oracle_target" not in said[0]
    assert "does not read the system prompt" in r.output
