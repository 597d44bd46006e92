"""The π-Bench release's own task files (excerpts, tests/fixtures/pibench_shapes/NOTICE.md): the
shapes that broke the importer load, and the tasks issue 21 names are classified precisely."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from longview.suites.intents.commands import app
from longview.suites.intents.importer import load_pibench

RELEASE = Path(__file__).parents[2] / "fixtures" / "pibench_shapes"


@pytest.fixture(scope="module")
def ds():
    return load_pibench(str(RELEASE))


def verdicts(ds) -> dict[str, tuple[str, str]]:
    return {c.task_id: (c.verdict, c.reason) for items in ds.classification.values() for c in items}


@pytest.mark.parametrize("task", ["Financier_task_005", "pharmacist_task_001", "Financier_task_011"])
def test_app_tasks_whose_apis_are_implemented_run(ds, task):
    """They read back the threads and texts they themselves sent: no AppWorld database needed."""
    assert verdicts(ds)[task][0] == "runnable"


@pytest.mark.parametrize("task, phrase", [
    ("marketer_task_001", "internet search"),
    ("researcher_task_005", "recently released"),
    ("Financier_task_016", "latest daily"),
])
def test_live_web_tasks_are_refused_with_the_phrase(ds, task, phrase):
    verdict, reason = verdicts(ds)[task]
    assert verdict == "needs_live_web" and phrase in reason


def test_a_prompt_named_asset_the_release_lacks_is_named(ds):
    verdict, reason = verdicts(ds)["Financier_task_009"]
    assert verdict == "needs_absent_asset" and "w4871.pdf" in reason and "w1594.pdf" not in reason


def test_release_shapes_load(ds):
    # an empty `checklist:` beside a rule script, an `environment` trigger whose request is an event,
    # tool names without the mcp_appworld_ prefix, a goal YAML reads as a mapping
    r14 = next(s for s in ds.episode("researcher").sessions if s.id == "researcher_task_014")
    assert r14.checklist == [] and r14.rule_script and verdicts(ds)["researcher_task_014"][0] == "runnable"
    law = ds.episode("law_trainee").sessions[0]
    assert law.id == "law_trainee_task_017" and law.request.startswith("{")
    m20 = next(s for s in ds.episode("marketer").sessions if s.id == "marketer_task_020")
    assert m20.rule_tools == ["todoist__create_task", "todoist__create_sub_task"] and m20.apps == ["todoist"]
    assert "Dissertation goal: a reproducible" in ds.episode("researcher").persona.profile


def test_inspect_prints_per_persona_and_total_and_writes_json(tmp_path):
    out = tmp_path / "table.json"
    res = CliRunner().invoke(app, ["inspect", f"pibench:{RELEASE}", "--json", str(out)])
    assert res.exit_code == 0, res.output
    assert "needs live web" in res.output and "total" in res.output and "marketer_task_001" in res.output
    data = json.loads(out.read_text())
    assert len(data["total"]["loaded"]) == 10
    assert sorted(data["total"]["needs_live_web"]) == ["Financier_task_016", "marketer_task_001", "researcher_task_005"]
    assert data["personas"]["Financier"]["needs_absent_asset"] == ["Financier_task_009"]
    assert {t["task_id"] for t in data["tasks"]} == set(data["total"]["loaded"])


def test_a_bare_trigger_beside_an_environment_block_loads(tmp_path):
    import shutil

    root = tmp_path / "rel"
    shutil.copytree(RELEASE, root)
    f = root / "data/researcher/tasks/researcher_task_005/task.yaml"
    text = f.read_text()
    assert "trigger:\n  type: user\n" in text
    f.write_text(text.replace("trigger:\n  type: user\n",
                              "trigger: env\nenvironment:\n  events:\n    - {source: feed, text: a new paper}\n"))
    got = load_pibench(str(root))
    assert "researcher_task_005" in verdicts(got)
