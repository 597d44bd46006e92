"""Importing π-Bench's format from a checkout: strict loading, classification, running, scoring."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from intents_helpers import run_cells
from typer.testing import CliRunner

from longview.agents.llm import LLMAgent
from longview.harness.roles import Roles
from longview.harness.suite import Cell
from longview.kernel.agent import AssistantTurn, ToolCall
from longview.kernel.errors import DataError
from longview.kernel.models.mock import register_script, unregister_script
from longview.suites.intents.commands import app
from longview.suites.intents.importer import load_pibench
from longview.suites.intents.suite import IntentsOptions, IntentsSuite

FIXTURE = Path(__file__).parents[2] / "fixtures" / "pibench"


def test_loads_and_classifies():
    ds = load_pibench(str(FIXTURE))
    verdicts = {c.task_id: (c.verdict, c.kind) for c in ds.classification["tester"]}
    assert verdicts == {
        "tester_task_001": ("runnable", "files"), "tester_task_002": ("runnable", "apps"),
        "tester_task_003": ("runnable", "none"), "tester_task_004": ("runnable", "none"),
        "tester_task_005": ("needs_live_web", ""), "tester_task_006": ("needs_appworld_db", ""),
        "tester_task_007": ("needs_app", ""),
    }
    ep = ds.episode("tester")
    assert [s.id for s in ep.sessions] == ["tester_task_001", "tester_task_002", "tester_task_003", "tester_task_004"]
    s4 = ep.sessions[3]
    assert s4.depends_on == ["tester_task_003"] and s4.hidden_intents[1].initially_provided
    assert ep.sessions[1].rule_script and ep.sessions[1].rule_script.endswith("tester_task_002_note.py")
    assert ds.allowed_tools["tester"][:2] == ["simple_note__login", "simple_note__create_note"]
    # the data folder itself works too, and the hash is stable
    assert load_pibench(str(FIXTURE / "data")).sha256 == ds.sha256


def test_inspect_command_prints_the_table():
    out = CliRunner().invoke(app, ["inspect", f"pibench:{FIXTURE}"])
    assert out.exit_code == 0, out.output
    assert "needs_appworld_db" in out.output and "runnable offline (4): tester_task_001" in " ".join(out.output.split())


def _copy(tmp_path: Path) -> Path:
    dst = tmp_path / "pb"
    shutil.copytree(FIXTURE, dst)
    return dst


@pytest.mark.parametrize("edit, field", [
    (lambda t: t.replace("    - content: \"Tag the note with 'camping'.\"\n", "    - contnt: x\n"), "intent.hidden_intent.1"),
    (lambda t: t.replace("schema_version: v2", "schema_version: v1"), "schema_version"),
    (lambda t: t.replace("  checklist:\n", "  checklst:\n"), "objectives.checklst"),
])
def test_malformed_task_names_file_task_and_field(tmp_path, edit, field):
    root = _copy(tmp_path)
    f = root / "data/tester/tasks/tester_task_002/task.yaml"
    f.write_text(edit(f.read_text()))
    with pytest.raises(DataError) as e:
        load_pibench(str(root))
    assert e.value.file == str(f) and e.value.record == "tester_task_002" and e.value.field.startswith(field)
    out = CliRunner().invoke(app, ["inspect", f"pibench:{root}"])
    assert out.exit_code == 1 and "tester_task_002" in out.output and str(f) in out.output


def test_dependency_contract_is_enforced(tmp_path):
    root = _copy(tmp_path)
    ep = root / "data/tester/episode.yaml"
    ep.write_text(ep.read_text().replace("depends_on: [tester_task_003]", "depends_on: [tester_task_005]"))
    with pytest.raises(DataError) as e:
        load_pibench(str(root))
    assert e.value.record == "tester_task_004" and "depends_on" in e.value.field


@pytest.mark.parametrize("file, old, new, field", [
    ("profile.yaml", "user_id: tester", "user_id: ../../escape", "user_id"),
    ("episode.yaml", "  - task_id: tester_task_002", "  - task_id: ../tester/tasks/tester_task_002", "tasks.1.task_id"),
])
def test_unsafe_pibench_ids_name_file_and_field(tmp_path, file, old, new, field):
    root = _copy(tmp_path)
    f = root / "data/tester" / file
    assert old in f.read_text()
    f.write_text(f.read_text().replace(old, new))
    with pytest.raises(DataError) as e:
        load_pibench(str(root))
    assert e.value.file == str(f) and e.value.field == field and "separators" in e.value.expected


def test_duplicate_pibench_persona_ids_are_refused(tmp_path):
    root = _copy(tmp_path)
    shutil.copytree(root / "data/tester", root / "data/tester2")
    with pytest.raises(DataError) as e:
        load_pibench(str(root))
    assert e.value.file == str(root / "data/tester2/profile.yaml") and e.value.field == "user_id"


def _note_agent(name: str) -> None:
    """A scripted model that logs in, creates the packing note, checks it and answers."""

    def script(system, messages, tools):
        tool_msgs = [m for m in messages if m.role == "tool"]
        last_user = [m for m in messages if m.role == "user"][0].content or ""
        if "Packing List" not in last_user:
            return AssistantTurn(text="Done: total spend 42 EUR; the tent is the most expensive.")
        n = len(tool_msgs)
        if n == 0:
            return AssistantTurn(tool_calls=[ToolCall(id="c1", name="simple_note__login",
                                                      arguments={"username": "tester@example.org", "password": "pw-test"})])
        if n == 1:
            tok = json.loads(tool_msgs[0].content)["access_token"]
            return AssistantTurn(tool_calls=[ToolCall(id="c2", name="simple_note__create_note", arguments={
                "access_token": tok, "title": "Packing List - Lake Trip", "content": "tent, rope, lamp"})])
        if n == 2:
            tok = json.loads(tool_msgs[0].content)["access_token"]
            nid = json.loads(tool_msgs[1].content)["note_id"]
            return AssistantTurn(tool_calls=[ToolCall(id="c3", name="simple_note__show_note",
                                                      arguments={"access_token": tok, "note_id": nid})])
        return AssistantTurn(text="I created the note 'Packing List - Lake Trip'.")

    register_script(name, script)


@pytest.mark.parametrize("mode", ["reference", "fixed"])
def test_runs_and_scores_with_rule_scripts(tmp_path, mode):
    _note_agent("pib_note")
    suite = IntentsSuite()
    ds = suite.load_dataset(f"pibench:{FIXTURE}", None)
    roles = Roles({})

    def factory(agent, unit, t):
        return LLMAgent(roles.client("agent", model="mock/pib_note"), roles.params("agent"), name=agent)

    res = run_cells(suite, ds, ["mock/pib_note"], ["default"], tmp_path, agent_factory=factory,
                    options=IntentsOptions(rule_mode=mode))
    cell = json.loads(res[0])
    s2 = next(s for s in cell["sessions"] if s["session_id"] == "tester_task_002")
    rules = {k: v["met"] for k, v in s2["criteria"].items() if v["kind"] == "rule"}
    assert rules == {"[tools] note_created_with_title": True, "[tools] note_lists_items": True,
                     "[tools] note_checked_after_create": True, "[tools] note_states_deadline": False,
                     "[tools] note_tagged_camping": False}
    rubric = [v for v in s2["criteria"].values() if v["kind"] == "rubric"]
    assert rubric and all(v["met"] is None and v["by"] == "not judged" for v in rubric)
    sc = suite.score(res, ds, None, 0)
    row = sc.rows[0]
    assert row.metrics["comp"] == 0.6  # only the rule criteria are judged without a judge model
    # the note carries neither hidden intent: both testable by the script's keys, neither completed
    assert row.metrics["proc"] == 0.0 and row.metrics["completed"] == 0.0
    cov = row.coverage["comp"]  # 2 + 1 + 1 rubric items are not judged offline; 3 sessions have criteria
    assert (cov.judged, cov.total, cov.units_covered, cov.units_total) == (5, 9, 1, 3)
    assert "tool calls" in sc.metrics["proc"].description
    unregister_script("pib_note")


def test_rubric_items_judged_with_a_judge_model(tmp_path):
    _note_agent("pib_note2")

    def judge(system, messages, tools):
        payload = json.loads(messages[-1].content)
        items = payload.get("requirements") or payload.get("criteria")
        return json.dumps({"decisions": [{"id": i["id"], "yes": True} for i in items]})

    register_script("pib_judge", judge)
    suite = IntentsSuite()
    ds = suite.load_dataset(f"pibench:{FIXTURE}", None)
    roles = Roles({"judge": "mock/pib_judge"})

    def factory(agent, unit, t):
        return LLMAgent(roles.client("agent", model="mock/pib_note2"), roles.params("agent"), name=agent)

    res = run_cells(suite, ds, ["mock/pib_note2"], ["default"], tmp_path, agent_factory=factory, roles=roles)
    cell = json.loads(res[0])
    assert cell["judge"] == "llm:mock/pib_judge"
    crits = [v for s in cell["sessions"] for v in s["criteria"].values() if v["kind"] == "rubric"]
    assert crits and all(v["met"] is True for v in crits)
    assert all(o["status"] in ("completed", "provided") for s in cell["sessions"] for o in s["intents"].values())
    unregister_script("pib_note2")
    unregister_script("pib_judge")


def test_a_crashing_rule_script_leaves_its_criteria_undefined(tmp_path):
    root = _copy(tmp_path)
    script = root / "data/tester/scripts/tester_task_002_note.py"
    script.write_text(script.read_text().replace("    for item in tools_history or []:",
                                                 "    if tools_history:\n        raise RuntimeError('boom')\n"
                                                 "    for item in tools_history or []:"))
    _note_agent("pib_note3")
    suite = IntentsSuite()
    ds = suite.load_dataset(f"pibench:{root}", None)
    roles = Roles({})

    def factory(agent, unit, t):
        return LLMAgent(roles.client("agent", model="mock/pib_note3"), roles.params("agent"), name=agent)

    res = run_cells(suite, ds, ["mock/pib_note3"], ["default"], tmp_path / "runs", agent_factory=factory)
    unregister_script("pib_note3")
    s2 = next(s for s in json.loads(res[0])["sessions"] if s["session_id"] == "tester_task_002")
    assert s2["rule_errors"] and "boom" in s2["rule_errors"][0]
    assert all(v["met"] is None for v in s2["criteria"].values() if v["kind"] == "rule")


def test_reference_agents_on_imported_data_bound_honestly(tmp_path):
    """ref:literal is the floor, ref:asker shows elicited (never completed), ref:oracle is the
    rule-guided ceiling scored only on rule criteria and the intents they test; ref:recall acts
    from cues imported tasks lack: it runs nothing and says so."""
    suite = IntentsSuite()
    ds = suite.load_dataset(f"pibench:{FIXTURE}", None)
    res = run_cells(suite, ds, ["ref:literal", "ref:asker", "ref:oracle", "ref:recall"], ["default"], tmp_path)
    sc = suite.score(res, ds, None, 0)
    rows = {r.agent: r for r in sc.rows}
    assert rows["ref:literal"].metrics["proc"] == 0.0
    asker = rows["ref:asker"].metrics
    assert asker["elicited"] == 1.0 and asker["completed"] == 0.0 and asker["proc"] == 1.0
    oracle = rows["ref:oracle"]
    assert oracle.metrics["proc"] >= 0.95 and oracle.metrics["comp"] >= 0.95 and oracle.metrics["completed"] >= 0.95
    cell = json.loads(next(r for r in res if '"ref:oracle"' in r))
    kinds = {v["kind"] for s in cell["sessions"] for v in s["criteria"].values() if v["met"] is not None}
    assert kinds == {"rule"}  # scored on what it can be scored on
    assert all(v is None for v in rows["ref:recall"].metrics.values())
    assert "built-in data" in rows["ref:recall"].extra["not_run"]
    notes = suite.notes(sc, {})
    assert any("ref:recall: not run" in n for n in notes) and any("left out items" in n for n in notes)
    assert suite.sessions(Cell(agent="ref:recall", variant="default", unit="tester"), ds, IntentsOptions()) == 0
