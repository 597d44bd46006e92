"""The ATRBench importer on the two released episodes (release layout), strictness included."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from longview.harness import run as harness
from longview.harness.options import RunConfig
from longview.kernel.errors import DataError
from longview.kernel.trace import iter_trace
from longview.suites.atr.importer import load_atrbench

ROOT = Path(__file__).parents[2] / "fixtures/atrbench"


def test_loads_release_layout():
    ds = load_atrbench(ROOT)
    assert ds.name == f"atrbench:{ROOT}"
    assert sorted(e.persona_id for e in ds.episodes) == ["cassandra_tovar", "maximo_esteban_irizarry"]
    assert sum(len(e.rules) for e in ds.episodes) == 22 and len(ds.sha256) == 64


def test_reference_bounds_on_released_episodes(tmp_path):
    store, sc = harness.run(RunConfig(suite="atr", dataset=f"atrbench:{ROOT}", agents=["reference"], out=tmp_path / "run"))
    tsacc = {r.agent: r.metrics["tsacc"] for r in sc.rows}
    assert tsacc["ref:oracle"] >= 0.95 and tsacc["ref:passive"] <= 0.35
    # Every tool call either succeeded or failed with a stated reason.
    for f in (store.root / "cells").glob("*/*.jsonl"):
        for e in iter_trace(f):
            if e.type == "tool_call":
                assert e.data["ok"] or (isinstance(e.data["error"], str) and e.data["error"].strip()), (f, e)


def copy_root(tmp_path: Path) -> Path:
    dst = tmp_path / "release"
    shutil.copytree(ROOT, dst)
    return dst


def test_ontology_disagreement_is_named(tmp_path):
    root = copy_root(tmp_path)
    onto = root / "ontology/tools.yaml"
    data = yaml.safe_load(onto.read_text())
    data["domains"]["commerce"]["tools"][0]["parameters"][0]["type"] = "integer"
    onto.write_text(yaml.safe_dump(data))
    with pytest.raises(DataError) as e:
        load_atrbench(root)
    assert "tools.yaml" in str(e.value) and "search_products" in str(e.value) and "parameters" in str(e.value)


def test_missing_ontology_and_bad_episode(tmp_path):
    root = copy_root(tmp_path)
    (root / "ontology/tools.yaml").unlink()
    with pytest.raises(DataError, match="ontology/tools.yaml"):
        load_atrbench(root)
    root = copy_root(tmp_path / "b")
    ep = next(root.glob("data/personas/*/episodes/*.json"))
    data = json.loads(ep.read_text())
    data["test_sessions"][0]["labels"]["task_success"]["required_actions"] = []
    ep.write_text(json.dumps(data))
    with pytest.raises(DataError) as e:
        load_atrbench(root)
    assert ep.name in str(e.value) and "test_sessions[0]" in str(e.value) and "required_actions" in str(e.value)


def test_a_duplicate_rule_id_is_refused(tmp_path):
    root = copy_root(tmp_path)
    ep = next(root.glob("data/personas/*/episodes/*.json"))
    data = json.loads(ep.read_text())
    twin = dict(data["rules"][1], rule_id=data["rules"][0]["rule_id"])
    data["rules"].append(twin)
    ep.write_text(json.dumps(data))
    with pytest.raises(DataError) as e:
        load_atrbench(root)
    assert ep.name in str(e.value) and "rule_id" in str(e.value) and "duplicate" in str(e.value)
