"""A π-Bench release is data: nothing of it runs at load, inspect or --dry-run; its rule scripts run
only when scoring, confined; its files may not lead outside it or be FIFOs, devices or loops; a
damaged file is one message naming file and field."""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner as ClickRunner
from intents_helpers import run_cells
from typer.testing import CliRunner

from longview.agents.llm import LLMAgent
from longview.cli import app as cli_app
from longview.harness.roles import Roles
from longview.kernel.agent import AssistantTurn, ToolCall
from longview.kernel.errors import DataError
from longview.kernel.models.mock import register_script, unregister_script
from longview.suites.intents.commands import app
from longview.suites.intents.importer import load_pibench
from longview.suites.intents.suite import IntentsSuite

FIXTURE = Path(__file__).parents[2] / "fixtures" / "pibench"
SCRIPT = "data/tester/scripts/tester_task_002_note.py"

SPY = '''
import json, os
from pathlib import Path
Path({out!r}).write_text(json.dumps(dict(os.environ)))
def score(tools_history):
    return {{"spied": 1}}
'''


def _copy(tmp_path: Path) -> Path:
    dst = tmp_path / "pb"
    shutil.copytree(FIXTURE, dst)
    return dst


def _plant_spy(root: Path, tmp_path: Path) -> Path:
    out = tmp_path / "spy.json"
    (root / SCRIPT).write_text(SPY.format(out=str(out)))
    return out


def test_no_dataset_code_runs_at_load_inspect_or_dry_run(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-planted-secret")
    root = _copy(tmp_path)
    spy = _plant_spy(root, tmp_path)
    load_pibench(str(root))
    assert not spy.exists()
    out = CliRunner().invoke(app, ["inspect", f"pibench:{root}"])
    assert out.exit_code == 0, out.output
    assert not spy.exists()
    out = ClickRunner().invoke(cli_app, ["run", "intents", "--dataset", f"pibench:{root}", "--dry-run",
                                       "--out", str(tmp_path / "run")])
    assert out.exit_code == 0, out.output
    assert not spy.exists()
    assert not list((root / "data/tester/scripts").glob("__pycache__"))


def test_when_scoring_the_script_runs_without_the_users_keys(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-planted-secret")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-planted")
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.example:3128")
    root = _copy(tmp_path)
    spy = _plant_spy(root, tmp_path)
    register_script("pib_quiet", lambda system, messages, tools: AssistantTurn(text="Done."))
    try:
        suite = IntentsSuite()
        ds = suite.load_dataset(f"pibench:{root}", None)
        res = run_cells(suite, ds, ["mock/pib_quiet"], ["default"], tmp_path / "runs",
                        agent_factory=lambda a, u, t: LLMAgent(Roles({}).client("agent", model="mock/pib_quiet"),
                                                               Roles({}).params("agent"), name=a))
    finally:
        unregister_script("pib_quiet")
    # the spy writes to an absolute path outside its sandbox: it ran, but saw none of the caller's env
    seen = json.loads(spy.read_text())
    assert not {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "HTTP_PROXY"} & set(seen)
    assert "sk-planted" not in spy.read_text()
    s2 = next(s for s in json.loads(res[0])["sessions"] if s["session_id"] == "tester_task_002")
    assert s2["criteria"]["[tools] spied"]["met"] is True
    assert not list((root / "data/tester/scripts").glob("__pycache__"))


@pytest.mark.parametrize("value, expected", [
    ("/etc/passwd.py", "relative to the release"),
    ("../outside.py", "without '..'"),
    ("data/../../outside.py", "without '..'"),
    ("data/tester/scripts/missing.py", "missing"),
    ("data/tester/tasks/tester_task_002/task.yaml", ".py"),
])
def test_rule_script_paths_outside_the_release_are_refused_at_load(tmp_path, value, expected):
    root = _copy(tmp_path)
    (tmp_path / "outside.py").write_text("def score(h):\n    return {'x': 1}\n")
    f = root / "data/tester/tasks/tester_task_002/task.yaml"
    f.write_text(f.read_text().replace(f'"{SCRIPT}"', json.dumps(value)))
    with pytest.raises(DataError) as e:
        load_pibench(str(root))
    assert e.value.file == str(f) and e.value.field == "objectives.tools_evaluation_path"
    assert expected in e.value.expected


def test_a_script_symlinked_out_of_the_release_is_refused(tmp_path):
    root = _copy(tmp_path)
    (tmp_path / "evil.py").write_text("def score(h):\n    return {'x': 1}\n")
    (root / SCRIPT).unlink()
    (root / SCRIPT).symlink_to(tmp_path / "evil.py")
    with pytest.raises(DataError) as e:
        load_pibench(str(root))
    assert "inside the release" in e.value.expected


def _asset(root: Path) -> Path:
    return root / "data/tester/tasks/tester_task_001"


@pytest.mark.parametrize("make, expected", [
    (lambda d, tmp: (d / "secret.txt").symlink_to(tmp / "secret.txt"), "inside the release"),
    (lambda d, tmp: (d / "loop.txt").symlink_to(d / "loop.txt"), "resolves"),
    (lambda d, tmp: os.mkfifo(d / "pipe.csv"), "regular file"),
    (lambda d, tmp: (d / "dir").symlink_to(tmp, target_is_directory=True), "inside the release"),
])
def test_hostile_assets_are_refused_before_anything_is_written(tmp_path, make, expected):
    root = _copy(tmp_path)
    (tmp_path / "secret.txt").write_text("user's private file")
    make(_asset(root), tmp_path)
    with pytest.raises(DataError) as e:
        load_pibench(str(root))
    assert e.value.record == "tester_task_001" and expected in e.value.expected
    out = ClickRunner().invoke(cli_app, ["run", "intents", "--dataset", f"pibench:{root}", "--out", str(tmp_path / "r")])
    assert out.exit_code == 2 and not (tmp_path / "r").exists()


def test_a_fifo_profile_is_refused_without_hanging(tmp_path):
    root = _copy(tmp_path)
    prof = root / "data/tester/profile.yaml"
    prof.unlink()
    os.mkfifo(prof)
    result: list[BaseException | None] = []

    def load():
        try:
            load_pibench(str(root))
            result.append(None)
        except BaseException as e:  # noqa: BLE001 - handed to the test thread
            result.append(e)

    t = threading.Thread(target=load, daemon=True)
    t.start()
    t.join(60)
    if t.is_alive():  # unblock the reader before failing
        with open(prof, "w"):
            pass
        pytest.fail("the loader blocked on a FIFO profile.yaml")
    assert isinstance(result[0], DataError) and result[0].file == str(prof) and "regular file" in result[0].expected


@pytest.mark.parametrize("content, expected", [
    ("schema_version: v2\nuser_id: caf\xe9\n".encode("latin-1"), "UTF-8"),
    (bytes(range(256)) * 4, "UTF-8"),
    (b"a: " + b"[" * 100_000 + b"]" * 100_000 + b"\n", "nested"),
    (b"a: b: c\n", "valid YAML"),
])
def test_damaged_yaml_is_one_message_naming_the_file(tmp_path, content, expected):
    root = _copy(tmp_path)
    prof = root / "data/tester/profile.yaml"
    prof.write_bytes(content)
    with pytest.raises(DataError) as e:
        load_pibench(str(root))
    assert e.value.file == str(prof) and expected in e.value.expected
    out = CliRunner().invoke(app, ["inspect", f"pibench:{root}"])
    assert out.exit_code == 1 and str(prof) in " ".join(out.output.split())


def test_a_duplicate_task_id_names_the_episode_file(tmp_path):
    root = _copy(tmp_path)
    ep = root / "data/tester/episode.yaml"
    ep.write_text(ep.read_text().replace("  - task_id: tester_task_005\n", "  - task_id: tester_task_002\n"))
    with pytest.raises(DataError) as e:
        load_pibench(str(root))
    assert e.value.file == str(ep) and e.value.field == "tasks.4.task_id" and "listed twice" in e.value.expected


def test_every_request_offers_the_personas_allow_list_and_nothing_else(tmp_path):
    """Every request of a persona offers the same tools — its tools.yaml allow-list plus the file
    tools, schemas and specs alike — as the release serves one MCP server per user with the whole
    tools.yaml (scripts/entrypoint.sh): a session without apps offers them too, and a tool off the
    allow-list (amazon) is never offered."""
    seen: list[list[str]] = []

    def script(system, messages, tools):
        seen.append(sorted(t["function"]["name"] for t in tools))
        if not any(m.role == "tool" for m in messages) and "Simple Note" in (messages[0].content or ""):
            return AssistantTurn(tool_calls=[ToolCall(id="c1", name="amazon__search_products", arguments={})])
        return AssistantTurn(text="Done.")

    register_script("pib_count", script)
    try:
        suite = IntentsSuite()
        ds = suite.load_dataset(f"pibench:{FIXTURE}", None)
        res = run_cells(suite, ds, ["mock/pib_count"], ["default"], tmp_path,
                        agent_factory=lambda a, u, t: LLMAgent(Roles({}).client("agent", model="mock/pib_count"),
                                                               Roles({}).params("agent"), name=a))
    finally:
        unregister_script("pib_count")
    files = ["delete_file", "edit_file", "list_dir", "read_file", "write_file"]
    note = sorted(files + ["simple_note__create_note", "simple_note__login", "simple_note__search_notes",
                           "simple_note__show_note", "simple_note__update_note"])
    assert len(seen) > 3 and all(s == note for s in seen)  # files-only sessions too; never amazon
    assert json.loads(res[0])["status"] == "complete"
