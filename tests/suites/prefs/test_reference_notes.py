"""A reference row that cannot be what its name says is explained in the scorecard."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from longview.cli import app


def test_the_oracle_without_its_oracle_memory_is_said_to_be_habits(tmp_path: Path):
    js = tmp_path / "sc.json"
    r = CliRunner().invoke(app, ["run", "prefs", "--agent", "ref:oracle", "--memory", "file", "--memory", "oracle",
                                 "--personas", "1", "-S", "repeats=1", "--out", str(tmp_path / "r"), "--json", str(js)])
    assert r.exit_code == 0, r.output
    notes = json.loads(js.read_text()).get("notes", [])
    said = [n for n in notes if n.startswith("ref:oracle under")]
    assert len(said) == 1 and "under file " in said[0] and "oracle," not in said[0]
