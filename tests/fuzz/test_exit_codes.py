"""A run whose model cells all abort exits non-zero and says why (reasons, retries); with
--allow-aborts it exits 0 and still says so. Unsafe unit ids are refused by the harness itself,
whatever a suite's loader checked."""

from __future__ import annotations

import json
import socket
from types import SimpleNamespace

import pytest
from fuzzkit import SUITES, invoke, sample

from longview.harness.run import check_units
from longview.kernel.errors import DataError
from longview.testing.loopback import Fault, LoopbackServer


def _dead_endpoint() -> str:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


@pytest.mark.parametrize("suite", SUITES)
@pytest.mark.parametrize("allow", [False, True])
def test_all_cells_aborted_exits_nonzero_and_prints_why(suite, allow, tmp_path):
    data = sample(suite, tmp_path / "data")
    if data is None:
        pytest.skip(f"suite {suite} provides no sample dataset")
    args = ["run", suite, "--dataset", data, "--out", tmp_path / "run", "--model", "hosted_vllm/m",
            "--api-base", _dead_endpoint(), "--units", "1", "--max-attempts", "2", "--no-cache",
            "--request-timeout", "2"] + (["--allow-aborts"] if allow else [])
    r = invoke(args, tmp_path)
    assert r.result.exception is None or isinstance(r.result.exception, SystemExit), r.text[-2000:]
    assert r.code == (0 if allow else 1), r.text[-2000:]
    assert "cells aborted" in r.stderr and "connection error" in r.stderr
    assert "model retries: agent" in r.stderr  # 2 attempts per call: one retry each
    if not allow:
        assert "--allow-aborts" in r.error_lines()[0]


@pytest.mark.parametrize("units", [["p1", "../x"], ["p1", "p1"], ["a\x00"], ["x" * 500], ["ok", "\x1b[2J"]])
def test_harness_refuses_unsafe_unit_ids(units):
    ds = SimpleNamespace(name="ds", unit_ids=lambda: units)
    with pytest.raises(DataError, match="unit id") as e:
        check_units(ds)
    assert "\x1b" not in str(e.value) and "\x00" not in str(e.value)


@pytest.mark.parametrize("suite", SUITES)
def test_resume_retries_aborted_cells(suite, tmp_path):
    from test_kill_resume import finish_or_send

    data = sample(suite, tmp_path / "data")
    if data is None:
        pytest.skip(f"suite {suite} provides no sample dataset")
    down = [True]  # every request fails with a server error while set

    def faults(index: int, body: dict) -> Fault | None:
        return Fault.SERVER_ERROR if down[0] else None

    with LoopbackServer(agent=finish_or_send, faults=faults).in_thread() as srv:
        args = ["run", suite, "--dataset", data, "--out", tmp_path / "run", "--model", "hosted_vllm/m",
                "--api-base", srv.url, "--units", "1", "--max-attempts", "1", "--no-cache", "--max-turns", "3"]
        assert invoke(args, tmp_path).code == 1
        down[0] = False
        r = invoke([*args, "--resume"], tmp_path)
    assert r.code == 0, r.text[-2000:]
    card = json.loads((tmp_path / "run" / "scorecard.json").read_text())
    assert card["run"]["cells"]["aborted"] == 0 and not card["run"]["cells"]["partial"]


@pytest.mark.parametrize("exc", [TypeError("can't compare offset-naive and offset-aware datetimes"),
                                 RecursionError(), OverflowError("int too large"), KeyError("x")])
def test_a_loader_that_misses_a_check_still_ends_in_a_data_error(exc):
    from longview.harness.run import load_dataset

    def boom(spec, options):
        raise exc

    suite = SimpleNamespace(name="s", load_dataset=boom)
    with pytest.raises(DataError, match="loader") as e:
        load_dataset(suite, "some/path", None)
    assert str(e.value).startswith("some/path: record <dataset>")


def test_a_run_that_could_not_finish_is_not_bad_input(capsys):
    # A dead --workers process (RunInterrupted) exits 1; 2 stays "the input is wrong".
    from longview.harness.terminal.console import fail
    from longview.kernel.errors import ConfigError, RunInterrupted

    with pytest.raises(SystemExit) as e:
        fail(RunInterrupted("worker process 0 died"))
    assert e.value.code == 1
    with pytest.raises(SystemExit) as e:
        fail(ConfigError("bad flag"))
    assert e.value.code == 2


@pytest.mark.parametrize("suite", SUITES)
def test_resume_after_aborts_accepts_a_corrected_endpoint(suite, tmp_path):
    """The abort message says to fix the cause and resume: a fixed --api-base is how to reach the
    model, not what is measured, so the run resumes (and the manifest records both endpoints)."""
    from test_kill_resume import finish_or_send

    data = sample(suite, tmp_path / "data")
    if data is None:
        pytest.skip(f"suite {suite} provides no sample dataset")
    dead = _dead_endpoint()
    args = ["run", suite, "--dataset", data, "--out", tmp_path / "run", "--model", "hosted_vllm/m", "--units", "1",
            "--max-attempts", "1", "--no-cache", "--max-turns", "3", "--request-timeout", "2"]
    assert invoke([*args, "--api-base", dead], tmp_path).code == 1  # every model cell aborted
    with LoopbackServer(agent=finish_or_send).in_thread() as srv:
        r = invoke([*args, "--api-base", srv.url, "--resume"], tmp_path)
    assert r.code == 0, r.text[-2000:]
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["api_base"] == srv.url and manifest["endpoints"] == [dead, srv.url]
    assert "api_base" not in manifest["config"]
    card = json.loads((tmp_path / "run" / "scorecard.json").read_text())
    assert card["run"]["cells"]["aborted"] == 0 and not card["run"]["cells"]["partial"]
