"""Bad command-line arguments, for every registered suite: exit code 2, one message, nothing written
(no run folder, no scorecard, nothing in the working folder)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fuzzkit import SUITES, assert_clean_failure, invoke, reference_agent, sample, snapshot

# Each case: extra `run` arguments (placeholders filled per test) and a text the message must hold.
RUN_CASES: dict[str, tuple[list[str], str | None]] = {
    "out_is_file": (["--out", "{file}"], "not a folder"),
    "out_under_file": (["--out", "{file}/sub"], "cannot create"),
    "out_is_cwd_with_user_files": (["--out", "."], "not a longview run"),
    "out_empty_string": (["--out", ""], "not a longview run"),
    "out_foreign_force": (["--out", "{foreign}", "--force"], "not a longview run"),
    "json_is_dir": (["--json", "{dir}"], "--json"),
    "json_missing_folder": (["--json", "{tmp}/missing/x.json"], "does not exist"),
    "json_under_file": (["--json", "{file}/x.json"], "--json"),
    "json_inside_run": (["--json", "{out}/scorecard.json"], "inside the run folder"),
    "json_folder_refuses_files": (["--json", "/sys/x.json"], "cannot write in folder"),  # even for root
    "units_zero": (["--units", "0"], "at least 1"),
    "units_negative": (["--units", "-3"], None),
    "trials_zero": (["--trials", "0"], None),
    "max_turns_zero": (["--max-turns", "0"], "--max-turns"),
    "max_concurrency_zero": (["--max-concurrency", "0"], None),
    "max_attempts_zero": (["--max-attempts", "0"], None),
    "seed_text": (["--seed", "abc"], None),
    "request_timeout_zero": (["--request-timeout", "0"], "--request-timeout"),
    "request_timeout_negative": (["--request-timeout", "-1"], "--request-timeout"),
    "request_timeout_text": (["--request-timeout", "soon"], None),
    "model_no_provider": (["--model", "nope"], "provider/model"),
    "model_unknown_provider": (["--model", "nosuch/x"], "unknown model provider"),
    "model_missing_key": (["--model", "openai/gpt-4o"], "OPENAI_API_KEY"),
    "model_no_endpoint": (["--model", "hosted_vllm/m"], "api_base"),
    "param_malformed": (["--param", "bogus"], "--param"),
    "param_unknown_role": (["--param", "nobody.temperature=0"], "--param"),
    "param_bad_value": (["--param", "agent.temperature=hot"], "--param"),
    "role_unknown": (["--role", "nobody=mock/x"], "nobody"),
    "suite_option_malformed": (["-S", "garbage"], "-S"),
    "suite_option_unknown": (["-S", "no_such_option=1"], None),
    "agent_unknown": (["--agent", "ref:nope"], "ref:nope"),
    "variant_unknown": (["--variant", "nope"], "nope"),
    "dataset_missing": (["--dataset", "{tmp}/nonexistent"], "nonexistent"),
    "dataset_is_file": (["--dataset", "{file}"], None),
    "dataset_empty_folder": (["--dataset", "{dir}"], None),
    "reasoning_effort_bad": (["--reasoning-effort", "extreme"], None),
    "temperature_text": (["--temperature", "hot"], None),
    "temperature_nan": (["--temperature", "nan"], "--temperature"),
    "temperature_negative": (["--temperature", "-1"], "--temperature"),
    "max_tokens_negative": (["--max-tokens", "-5"], "--max-tokens"),
    "request_timeout_infinite": (["--request-timeout", "inf"], "--request-timeout"),
    "param_nan": (["--param", "agent.temperature=nan"], "--param"),
    "json_under_file_says_so": (["--json", "{file}/x.json"], "is not a folder"),
    "control_chars_in_agent": (["--agent", "ref:\x1b[2J\x07"], None),
}

OTHER_CASES: dict[str, tuple[list[str], str | None]] = {
    "show_missing": (["show", "{tmp}/nonexistent"], "nonexistent"),
    "show_file": (["show", "{file}"], None),
    "show_empty_dir": (["show", "{dir}"], "manifest.json"),
    "show_json_is_dir": (["show", "{run}", "--json", "{dir}"], "--json"),
    "show_json_inside_run": (["show", "{run}", "--json", "{run}/x.json"], "inside the run folder"),
    "show_json_missing_folder": (["show", "{run}", "--json", "{tmp}/missing/x.json"], "does not exist"),
    "trace_missing": (["trace", "{tmp}/nonexistent.jsonl"], None),
    "trace_not_a_trace": (["trace", "{file}"], "not a longview transcript"),
    "trace_binary": (["trace", "{binary}"], "not a longview transcript"),
    "trace_deep": (["trace", "{deep}"], "not a longview transcript"),
    "trace_empty_dir": (["trace", "{dir}"], None),
    "run_unknown_suite": (["run", "no-such-suite"], "unknown suite"),
}


@pytest.fixture
def scene(tmp_path, monkeypatch):
    """A working folder with a user file, an empty folder, a binary file and a foreign folder."""
    from longview.kernel.models.client import PROVIDERS

    for spec in PROVIDERS.values():
        for name in spec.secret_envs():
            monkeypatch.delenv(name, raising=False)
    (tmp_path / "user.txt").write_text("the user's own file")
    (tmp_path / "empty").mkdir()
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "thesis.tex").write_text("x")
    (tmp_path / "blob.jsonl").write_bytes(bytes(range(256)))
    (tmp_path / "deep.jsonl").write_text('{"seq": 0, "session_id": "s", "type": "x", "data": {"a": '
                                         + "[" * 100_000 + "]" * 100_000 + "}}\n")
    return tmp_path


def _fill(args: list[str], tmp: Path, out: Path, run: Path | None = None) -> list[str]:
    subs = {"{file}": str(tmp / "user.txt"), "{dir}": str(tmp / "empty"), "{tmp}": str(tmp), "{out}": str(out),
            "{foreign}": str(tmp / "foreign"), "{binary}": str(tmp / "blob.jsonl"), "{run}": str(run or out),
            "{deep}": str(tmp / "deep.jsonl")}
    filled = []
    for a in args:
        for k, v in subs.items():
            a = a.replace(k, v)
        filled.append(a)
    return filled


@pytest.mark.parametrize("suite,case", [(s, c) for s in SUITES for c in RUN_CASES])
def test_bad_run_arguments(suite, case, scene):
    data = sample(suite, scene / "data")
    if data is None:
        data = "builtin"
    out = scene / "run"
    extra, needle = RUN_CASES[case]
    args = ["run", suite, "--dataset", data, "--out", out, "--agent", reference_agent(suite), "--units", "1",
            "--max-turns", "3", *_fill(extra, scene, out)]
    if case == "json_inside_run":  # the run folder exists from an earlier run
        assert invoke(args[: args.index("--json")], scene).code == 0
    before = snapshot(scene)
    r = invoke(args, scene)
    assert_clean_failure(r, names=needle)
    assert snapshot(scene) == before


@pytest.mark.parametrize("suite,case", [(s, c) for s in SUITES for c in OTHER_CASES])
def test_bad_show_and_trace_arguments(suite, case, scene):
    run = scene / "run"
    if "{run}" in " ".join(OTHER_CASES[case][0]):
        data = sample(suite, scene / "data") or "builtin"
        r = invoke(["run", suite, "--dataset", data, "--out", run, "--agent", reference_agent(suite), "--units", "1",
                    "--max-turns", "3"], scene)
        assert r.code == 0, r.text[-2000:]
    args, needle = OTHER_CASES[case]
    before = snapshot(scene)
    r = invoke(_fill(args, scene, run, run), scene)
    assert_clean_failure(r, names=needle)
    assert snapshot(scene) == before


def test_the_fuzz_suite_is_broad():
    """At least 100 generated malformed or hostile inputs per suite over datasets, run folders and
    arguments (the issue's bar), counted from the parametrizations themselves."""
    import test_datasets
    import test_run_folders

    for suite in test_datasets.SAMPLES:  # suites that provide a sample dataset get the whole set
        n = (sum(1 for s, _ in test_datasets._cases("invalid") + test_datasets._cases("hostile") if s == suite)
             + sum(1 for s, _, _ in test_run_folders.cases() if s == suite)
             + len(RUN_CASES) + len(OTHER_CASES))
        assert n >= 100, (suite, n)


def test_transcripts_cannot_drive_the_terminal(scene):
    """Model or dataset text with control characters and lone surrogates is shown escaped."""
    import json

    ev = {"seq": 0, "session_id": "s", "type": "assistant_turn", "data": {"text": "\x1b[2Jboom HOLE"}}
    (scene / "t.jsonl").write_text(json.dumps(ev).replace("HOLE", "\\ud800") + "\n")
    r = invoke(["trace", scene / "t.jsonl"], scene)
    assert r.code == 0 and r.result.exception is None, r.text[-2000:]
    assert "\x1b" not in r.result.stdout and "\\x1b[2Jboom" in r.result.stdout and "\\ud800" in r.result.stdout


ATR_COMMANDS = {
    "generate_out_is_file": (["atr", "generate", "--out", "{file}", "--personas", "1"], "not a folder"),
    "generate_out_under_file": (["atr", "generate", "--out", "{file}/x", "--personas", "1"], "cannot create"),
    "generate_zero_personas": (["atr", "generate", "--out", "{tmp}/new", "--personas", "0"], "at least 1"),
    "calibrate_set_deep": (["atr", "calibrate", "router", "--set", "{deep}"], "nested"),
    "calibrate_set_binary": (["atr", "calibrate", "router", "--set", "{binary}"], "blob.jsonl"),
    "calibrate_set_dir": (["atr", "calibrate", "router", "--set", "{dir}"], None),
    "calibrate_unknown_role": (["atr", "calibrate", "judge"], "router or classifier"),
}


@pytest.mark.skipif("atr" not in SUITES, reason="atr is not installed")
@pytest.mark.parametrize("case", ATR_COMMANDS)
def test_bad_atr_command_arguments(case, scene):
    args, needle = ATR_COMMANDS[case]
    before = snapshot(scene)
    r = invoke(_fill(args, scene, scene / "run"), scene)
    assert_clean_failure(r, names=needle)
    assert snapshot(scene) == before


@pytest.mark.parametrize("command", [["run", "atr", "--units", "0"], ["profile", "--model", "mock/echo", "--units", "0"],
                                     ["profile", "--model", "mock/echo", "--units", "-3", "--dry-run"]])
def test_zero_units_is_refused_by_run_and_profile_alike(command, tmp_path):
    before = snapshot(tmp_path)
    r = invoke(command, tmp_path)
    assert_clean_failure(r, names="at least 1")
    assert snapshot(tmp_path) == before  # profile planned nothing, ran nothing
