"""At 80 columns nothing is cut: `run`, `show`, `compare` and `list` print every number and name whole."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console
from rich.table import Table

import longview.cli as cli
import longview.report.commands as report_commands
from longview.cli import listing, printing, run, show
from longview.harness.terminal.fit import fit

runner = CliRunner()
WIDTH = 80


@pytest.fixture
def narrow(monkeypatch) -> io.StringIO:
    """The commands' console, as a terminal 80 columns wide."""
    buf = io.StringIO()
    console = Console(file=buf, width=WIDTH, force_terminal=False, color_system=None)
    for module in (run, show, listing, printing, report_commands):
        monkeypatch.setattr(module, "console", console)
    return buf


def _invoke(buf: io.StringIO, args: list[str]) -> str:
    buf.seek(0)
    buf.truncate()
    r = runner.invoke(cli.app, args)
    assert r.exit_code == 0, r.output
    return buf.getvalue()


def _tokens(text: str) -> set[str]:
    """Whatever sits in a table cell, split at the box characters."""
    return {t.strip() for line in text.splitlines() for t in re.split(r"[│┃]", line) if t.strip()}


def _assert_fits(text: str) -> None:
    long = [line for line in text.splitlines() if len(line) > WIDTH]
    assert not long, "\n".join(long)
    assert "…" not in text  # rich's mark for a cut value


def _values(scorecard: dict) -> set[str]:
    """Every number and name a scorecard row shows."""
    out: set[str] = set()
    for row in scorecard["rows"]:
        out |= {row["agent"], row["variant"]}
        for k, v in row["metrics"].items():
            ci = (row.get("ci95") or {}).get(k)
            if v is not None:
                out.add(f"{v:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else f"{v:.2f}")
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("narrow")
    a, b = base / "a", base / "b"
    for out, seed in ((a, "0"), (b, "1")):
        r = runner.invoke(cli.app, ["run", "atr", "--personas", "3", "--out", str(out), "--seed", seed])
        assert r.exit_code == 0, r.output
    return a, b


def test_run_and_show_print_every_value_whole_at_80_columns(narrow, runs, tmp_path: Path):
    a, _ = runs
    out = _invoke(narrow, ["run", "atr", "--personas", "3", "--out", str(tmp_path / "r")])
    _assert_fits(out)
    shown = _invoke(narrow, ["show", str(a)])
    _assert_fits(shown)
    scorecard = json.loads((a / "scorecard.json").read_text())
    cells = _tokens(shown)
    missing = [v for v in _values(scorecard) if v not in cells]
    assert not missing, missing
    assert "metrics (" in shown and "tsacc:" in shown  # the legend


def test_compare_prints_every_difference_whole_at_80_columns(narrow, runs):
    a, b = runs
    out = _invoke(narrow, ["compare", str(a), str(b)])
    _assert_fits(out)
    cells = _tokens(out)
    assert "[+0.000, +0.000]" in cells and "ref:oracle · oracle_target" in cells and "applied_rate" in cells


@pytest.mark.parametrize("args", [["list"], ["list", "atr"], ["list", "tempo"], ["list", "prefs"], ["list", "intents"]])
def test_list_prints_every_name_whole_at_80_columns(narrow, args):
    out = _invoke(narrow, args)
    _assert_fits(out)
    if len(args) == 2:
        from longview.harness import registry

        suite = registry.load(args[1])
        cells = _tokens(out)
        names = [*suite.reference_agents, *suite.variants]
        assert all(n in cells for n in names), [n for n in names if n not in cells]


def test_fit_splits_a_wide_table_and_keeps_every_value():
    t = Table(title="wide")
    t.add_column("agent")
    t.add_column("variant")
    for i in range(12):
        t.add_column(f"metric_{i}", justify="right")
    t.add_row("ref:always-suggest", "oracle_target", *[f"0.{i:02d} [0.00, 1.00]" for i in range(12)])
    parts = fit(t, WIDTH, Console(width=WIDTH))
    assert len(parts) > 1
    buf = io.StringIO()
    c = Console(file=buf, width=WIDTH, color_system=None)
    for p in parts:
        c.print(p)
    text = buf.getvalue()
    _assert_fits(text)
    cells = _tokens(text)
    assert all(f"0.{i:02d} [0.00, 1.00]" in cells for i in range(12))
    assert "ref:always-suggest" in cells and text.count("ref:always-suggest") == len(parts)
