"""The intents dataset folder format (one episode per JSON file) and what its loader refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from longview.cli import app
from longview.kernel.errors import ConfigError, DataError
from longview.suites.intents.dataset import BUILTIN, load_folder_dataset, load_json_dataset
from longview.suites.intents.suite import IntentsOptions, IntentsSuite

ESCAPE = "/tmp/longview-intents-escape"


@pytest.fixture()
def sample(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    assert IntentsSuite().sample_dataset(folder) == str(folder)
    return folder


def _edit(folder: Path, fn) -> Path:
    f = sorted(folder.glob("*.json"))[0]
    raw = json.loads(f.read_text())
    fn(raw)
    f.write_text(json.dumps(raw))
    return f


def test_sample_is_three_personas_with_a_prerequisite_and_its_dependent(sample: Path):
    ds = IntentsSuite().load_dataset(str(sample), IntentsOptions())
    builtin = load_json_dataset(BUILTIN, "builtin")
    assert sorted(ds.unit_ids()) == sorted(builtin.unit_ids()[:3])
    for unit in ds.unit_ids():
        pre, dep = ds.episode(unit).sessions
        assert dep.depends_on == [pre.id] and not pre.checklist and dep.checklist
        assert dep == next(s for s in builtin.episode(unit).sessions if s.id == dep.id)
    assert len(ds.sha256) == 64


def test_folder_runs_through_the_cli(sample: Path, tmp_path: Path):
    js = tmp_path / "out.json"
    r = CliRunner().invoke(app, ["run", "intents", "--dataset", str(sample), "--agent", "ref:oracle",
                                 "--out", str(tmp_path / "run"), "--json", str(js)])
    assert r.exit_code == 0, r.output
    row = json.loads(js.read_text())["rows"][0]
    assert row["n"] == 3 and row["metrics"]["proc"] == 1.0 and row["metrics"]["comp"] == 1.0


def _files(i):
    def fn(raw):
        raw["files"][0]["path"] = i
    return fn


def _asset(path):
    def fn(raw):
        raw["sessions"][1]["assets"] = {path: "x"}
    return fn


BAD_PATHS = {"traversal": "../../../../../../.." + ESCAPE, "absolute": ESCAPE, "dot": "a/./b", "empty_part": "a//b",
             "backslash": "a\\b", "control": "a\x1b[2J", "nul": "a\x00b", "long": "x" * 600, "empty": ""}


@pytest.mark.parametrize("case", sorted(BAD_PATHS))
def test_unsafe_workspace_file_path_is_refused(sample: Path, case: str):
    f = _edit(sample, _files(BAD_PATHS[case]))
    with pytest.raises(DataError) as e:
        load_folder_dataset(sample, str(sample))
    assert e.value.file == str(f) and e.value.record == f.stem and e.value.field == "files.0.path"
    assert "workspace" in e.value.expected


@pytest.mark.parametrize("case", ["traversal", "absolute", "dot"])
def test_unsafe_asset_path_is_refused(sample: Path, case: str):
    f = _edit(sample, _asset(BAD_PATHS[case]))
    with pytest.raises(DataError) as e:
        load_folder_dataset(sample, str(sample))
    sid = json.loads(f.read_text())["sessions"][1]["id"]
    assert e.value.record == f"{f.stem}/{sid}" and e.value.field == "sessions.1.assets"


def test_a_path_that_is_both_file_and_folder_is_refused(sample: Path):
    def fn(raw):
        raw["sessions"][1]["assets"] = {raw["files"][0]["path"] + "/inner.txt": "x"}
    _edit(sample, fn)
    with pytest.raises(DataError, match="both a file and a folder"):
        load_folder_dataset(sample, str(sample))


@pytest.mark.parametrize("field,value", [("persona", "../x"), ("persona", "x" * 200), ("persona", "a\x1b"),
                                         ("session", "../s"), ("session", " s")])
def test_unsafe_ids_name_file_record_and_field(sample: Path, field: str, value: str):
    def fn(raw):
        if field == "persona":
            raw["persona"]["id"] = value
        else:
            dep = raw["sessions"][1]
            dep["depends_on"] = [value]
            raw["sessions"][0]["id"] = value
    f = _edit(sample, fn)
    with pytest.raises(DataError) as e:
        load_folder_dataset(sample, str(sample))
    assert e.value.file == str(f)
    assert e.value.field == ("persona.id" if field == "persona" else "sessions.0.id")


def test_duplicate_persona_ids_name_the_second_file(sample: Path):
    first, second = sorted(sample.glob("*.json"))[:2]
    raw = json.loads(second.read_text())
    raw["persona"]["id"] = json.loads(first.read_text())["persona"]["id"]
    second.write_text(json.dumps(raw))
    with pytest.raises(DataError) as e:
        load_folder_dataset(sample, str(sample))
    assert e.value.file == str(second) and e.value.field == "persona.id"


def test_a_folder_without_episode_files_is_a_config_error(tmp_path: Path):
    with pytest.raises(ConfigError):
        IntentsSuite().load_dataset(str(tmp_path), IntentsOptions())


def test_traversal_path_through_the_cli_is_exit_2_and_writes_nothing(sample: Path, tmp_path: Path):
    _edit(sample, _files(BAD_PATHS["traversal"]))
    r = CliRunner().invoke(app, ["run", "intents", "--dataset", str(sample), "--agent", "ref:oracle",
                                 "--out", str(tmp_path / "run")])
    assert r.exit_code == 2, r.output
    assert "files.0.path" in r.output
    assert not (tmp_path / "run").exists() and not Path(ESCAPE).exists()


SEED_CASES = {  # each failed mid-run (AppsState ValidationError, IndexError) before the loader checked it
    "record_missing_field": (lambda raw: raw["seed"]["songs"][0].pop("title"), "seed.songs.0.title"),
    "record_wrong_type": (lambda raw: raw["seed"]["products"][1].__setitem__("price", "cheap"),
                          "seed.products.1.price"),
    "not_a_record_list": (lambda raw: raw["seed"].__setitem__("accounts", []), "seed.accounts"),
    "unknown_list": (lambda raw: raw["seed"].__setitem__("bogus", [{}]), "seed.bogus"),
    "blank_name": (lambda raw: raw["persona"].__setitem__("name", "  "), "persona.name"),
}


@pytest.mark.parametrize("case", sorted(SEED_CASES))
def test_seed_records_and_name_are_checked_at_load(sample: Path, case: str):
    fn, field = SEED_CASES[case]
    f = _edit(sample, fn)
    with pytest.raises(DataError) as e:
        load_folder_dataset(sample, str(sample))
    assert e.value.file == str(f) and e.value.record == f.stem and e.value.field == field


def test_staging_an_asset_replaces_what_the_agent_left_in_its_way(tmp_path: Path):
    from longview.suites.intents.runner import stage_assets
    from longview.suites.intents.schema import Session

    root = tmp_path / "ws"
    (root / "plan").mkdir(parents=True)
    (root / "plan" / "agent.txt").write_text("agent")  # a folder where the asset file goes
    (root / "notes").write_text("agent")  # a file where the asset's folder goes
    s = Session.model_validate({"id": "s1", "title": "t", "request": "r", "assets": {"plan": "A", "notes/x.md": "B"},
                                "hidden_intents": [{"id": "I1", "content": "c", "recoverable_from": "ask",
                                                    "question": "q?"}]})
    stage_assets(s, root, None, None)
    assert (root / "plan").read_text() == "A" and (root / "notes" / "x.md").read_text() == "B"


def _dup_intent(raw):
    s = raw["sessions"][1]
    s["hidden_intents"].append(dict(s["hidden_intents"][0]))


def _dup_item(raw):
    s = raw["sessions"][1]
    s["checklist"].append(dict(s["checklist"][0]))


@pytest.mark.parametrize("edit,needle", [
    (lambda raw: raw["sessions"][1].__setitem__("apps", ["nope"]), "unknown app 'nope'"),
    (_dup_intent, "duplicate hidden intent id"),
    (_dup_item, "duplicate checklist item id"),
    (lambda raw: raw["sessions"][1]["base_actions"].append({"tool": "gmail__teleport"}), "unknown tool 'gmail__teleport'"),
])
def test_references_inside_an_episode_are_checked_at_load(sample: Path, edit, needle: str):
    _edit(sample, edit)
    with pytest.raises(DataError, match=needle):
        load_folder_dataset(sample, str(sample))


def test_an_unknown_format_version_is_refused(tmp_path: Path):
    data = json.loads(BUILTIN.read_text())
    data["version"] = 9
    p = tmp_path / "d.json"
    p.write_text(json.dumps(data))
    with pytest.raises(DataError, match="version"):
        load_json_dataset(p, str(p))


@pytest.mark.parametrize("weight,expected", [("1e400", "finite numbers only"), ("1e7", "less than or equal"),
                                             ("NaN", "finite numbers only")])
def test_a_non_finite_or_absurd_checklist_weight_is_refused_at_load(sample: Path, weight: str, expected: str):
    # weight: 1e400 loaded as infinity, the run completed, and scoring, show and --resume then raised.
    def fn(raw):
        item = next(c for s in raw["sessions"] for c in s.get("checklist", []))
        item["weight"] = "__W__"

    f = _edit(sample, fn)
    f.write_text(f.read_text().replace('"__W__"', weight))
    with pytest.raises(DataError, match=expected) as e:
        load_folder_dataset(sample, str(sample))
    assert e.value.file == str(f)


def test_every_session_of_a_persona_offers_the_same_tools():
    """As π-Bench's release (one tool server per user for the whole run): a persona's every session
    gets the apps it has accounts in or any session uses — each built-in persona all eight, file
    tools first — never only the session's own app."""
    from longview.domains.apps import AppsToolkit
    from longview.suites.intents.runner import persona_tools

    ds = load_json_dataset(BUILTIN, "builtin")
    for ep in ds.episodes.values():
        apps, allow = persona_tools(ep, None)
        assert allow is None and apps == sorted(ep.persona.accounts) and len(apps) == 8
        assert {a for s in ep.sessions for a in s.apps} <= set(apps)
        names = AppsToolkit.selection(apps, allow)
        assert names is not None and len(names) == 86
        assert set(names[:5]) == {"list_dir", "read_file", "write_file", "edit_file", "delete_file"}
    assert persona_tools(ep, ["simple_note__login"]) == (None, ["simple_note__login"])  # tools.yaml: all of it
