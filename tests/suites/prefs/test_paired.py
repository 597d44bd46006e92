"""The paper's aggregation: clusters (probe cells, differing pairs, changed cells), 5,000 draws, and
memory − No Memory paired within a run and across runs (`longview compare`)."""

import json

from click.testing import CliRunner

from longview.cli import app
from longview.suites.prefs.metrics import cluster_values
from longview.suites.prefs.runner import ProbeRecord


def P(kind, ctx, attr, target, other, selected, rep=0):
    return ProbeRecord(sid=f"{kind}-{ctx}-{attr}", kind=kind, context=ctx, attribute=attr, dimension="d",
                       attr_kind="reply", target=target, other_target=other, selected=selected, observed=selected,
                       capability_failure=False, brs_embedded=5, prs=5 if kind == "final" else None, repeat=rep)


def test_clusters_keep_repeats_together():
    probes = [P("final", "work", "v", "terse", "detailed", "terse", rep=0),
              P("final", "work", "v", "terse", "detailed", "detailed", rep=1),
              P("final", "personal", "v", "detailed", "terse", "detailed", rep=0),
              P("final", "personal", "v", "detailed", "terse", "detailed", rep=1),
              P("pre", "work", "v", "detailed", "detailed", "detailed", rep=0),
              P("pre", "work", "v", "detailed", "detailed", "detailed", rep=1)]
    c = cluster_values({"u": [probes]})
    assert c["u|final|work|v"] == {"psa": 0.5, "brs": 5.0, "prs": 5.0}
    assert c["u|pair|v"] == {"cs": 0.5, "carry_over": 0.0}
    assert c["u|change|work|v"] == {"pet": 0.5}
    assert c["u|pre|work|v"] == {"psa": 1.0}


def test_compare_pairs_a_none_run_with_a_file_run(tmp_path):
    runner = CliRunner()
    for mem in ("none", "file"):
        r = runner.invoke(app, ["run", "prefs", "--agent", "ref:reader", "--memory", mem, "--personas", "1",
                                "-S", "trace=false", "--out", str(tmp_path / mem), "--json", str(tmp_path / f"{mem}.json")])
        assert r.exit_code == 0, r.output
    sc = json.loads((tmp_path / "file.json").read_text())
    row = sc["rows"][0]
    kinds = [k.split("|")[1] for k in row["clusters"]]
    assert row["n_boot"] == 5000
    assert (kinds.count("final"), kinds.count("pre"), kinds.count("change")) == (28, 5, 5) and kinds.count("pair") >= 4
    r = runner.invoke(app, ["compare", str(tmp_path / "none"), str(tmp_path / "file")], env={"COLUMNS": "250"})
    assert r.exit_code == 0, r.output
    assert "paired over clusters" in r.output
    line = next(ln for ln in r.output.splitlines() if "│ psa" in ln)
    assert "ref:reader · none" in line and "ref:reader · file" in line and "33" in line
    assert "[+" in line  # file memory beats none on the same probes, interval above zero


def test_within_run_memory_minus_none(tmp_path):
    from .conftest import run_cells

    sc = run_cells(tmp_path, [("ref:reader", "none"), ("ref:reader", "file")])
    vs = sc.row("ref:reader", "file").extra["vs_none"]
    assert vs["psa"]["n"] == 33 and vs["psa"]["diff"] > 0 and vs["psa"]["ci95"][0] > 0
    assert "vs_none" not in sc.row("ref:reader", "none").extra
