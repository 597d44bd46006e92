"""Results as data: load_run, metric rows with intervals, export to CSV / JSON lines / Parquet."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import longview
from longview.cli import app
from longview.results import COLUMNS, load_run

runner = CliRunner()


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("res") / "run"
    r = runner.invoke(app, ["run", "intents", "--personas", "2", "--out", str(out)])
    assert r.exit_code == 0, r.output
    return out


def _overall(rows: list[dict]) -> list[dict]:
    return [r for r in rows if not r["breakdown"]]


def test_one_row_per_metric_with_its_interval(run_dir: Path):
    sc = json.loads((run_dir / "scorecard.json").read_text())
    rows = [r.model_dump() for r in longview.load_run(run_dir).metric_rows()]
    overall = _overall(rows)
    assert len(overall) == sum(len(row["metrics"]) for row in sc["rows"])
    for srow in sc["rows"]:
        for metric, value in srow["metrics"].items():
            (got,) = [r for r in overall if (r["agent"], r["variant"], r["metric"]) == (srow["agent"], srow["variant"], metric)]
            assert got["value"] == value
            ci = srow["ci95"].get(metric)
            assert (got["ci_low"], got["ci_high"]) == ((ci[0], ci[1]) if ci else (None, None))
            assert got["n"] == srow["n"] and got["kind"] == sc["metrics"][metric]["kind"]
    assert any(r["coverage"] for r in overall)  # intents says how much was judged
    assert all(r["config_hash"] and r["suite"] == "intents" for r in rows)


def test_to_pandas_gives_the_same_rows(run_dir: Path):
    pd = pytest.importorskip("pandas")
    df = load_run(run_dir).to_pandas()
    assert isinstance(df, pd.DataFrame) and list(df.columns) == COLUMNS
    assert len(df) == len(load_run(run_dir).metric_rows())
    overall = df[df["breakdown"] == ""]
    assert overall["ci_low"].notna().any() and (overall["ci_low"] <= overall["value"]).all()


def test_export_csv_jsonl_parquet_agree(run_dir: Path, tmp_path: Path):
    c, j, p = tmp_path / "x.csv", tmp_path / "x.jsonl", tmp_path / "x.parquet"
    r = runner.invoke(app, ["export", str(run_dir), str(run_dir), "--csv", str(c), "--jsonl", str(j), "--parquet", str(p)])
    assert r.exit_code == 0, r.output
    with c.open() as fh:
        from_csv = list(csv.DictReader(fh))
    from_jsonl = [json.loads(line) for line in j.read_text().splitlines()]
    assert len(from_csv) == len(from_jsonl) == 2 * len(load_run(run_dir).metric_rows())
    assert [r["metric"] for r in from_csv] == [r["metric"] for r in from_jsonl]
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    assert len(pd.read_parquet(p)) == len(from_jsonl)


def test_export_without_a_file_prints_csv(run_dir: Path):
    r = runner.invoke(app, ["export", str(run_dir)])
    assert r.exit_code == 0 and r.output.splitlines()[0].split(",") == COLUMNS


def test_export_of_a_folder_that_is_no_run_is_one_message(tmp_path: Path):
    r = runner.invoke(app, ["export", str(tmp_path)])
    assert r.exit_code == 2 and "manifest.json" in r.output and "Traceback" not in r.output
    (tmp_path / "manifest.json").write_text("{}")
    (tmp_path / "scorecard.json").write_text("[1]")
    r = runner.invoke(app, ["export", str(tmp_path)])
    assert r.exit_code == 2 and str(tmp_path) in r.output and "Traceback" not in r.output


def test_breakdowns_become_rows(run_dir: Path):
    rows = load_run(run_dir).metric_rows()
    sc = json.loads((run_dir / "scorecard.json").read_text())
    expected = sum(len([m for m in metrics if m in sc["metrics"]]) for row in sc["rows"]
                   for levels in (row["extra"].get("breakdowns") or {}).values() for metrics in levels.values())
    assert expected > 0 and len([r for r in rows if r.breakdown]) == expected
