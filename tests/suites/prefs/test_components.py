"""Model-backed roles (judge, user wording), capability failures, plugins, dataset files, CLI."""

import asyncio
import json
import subprocess
import sys

import pytest

from longview.harness.roles import Roles
from longview.kernel.errors import CellAborted, DataError
from longview.kernel.models.mock import register_script
from longview.memory import registry
from longview.suites.prefs.dataset import builtin, generate, load_file
from longview.suites.prefs.suite import PrefsOptions, PrefsSuite

from .conftest import make_ctx

SUITE = PrefsSuite()


def _run(tmp_path, agent, memory, roles_models=None, agent_obj=None):
    roles = Roles(roles_models or {})
    comps = SUITE.components(roles, PrefsOptions())
    ctx = make_ctx(tmp_path, agent, memory, components=comps, agent=agent_obj)
    return asyncio.run(SUITE.run_cell(ctx)), comps


def test_judge_model_scores_brs_with_agreement(tmp_path):
    def judge4(system, messages, tools):
        p = json.loads(messages[-1].content)
        assert p["rubric"]["look_at"] and len(p["rubric"]["settings"]) >= 2  # the aspect's rubric
        ev = [p["replies"][0][:30]] if p["replies"] else [p["actions"][0]["tool"]]
        return json.dumps({"score": 4, "rationale": "ok", "evidence": ev})

    register_script("prefs-judge-4", judge4)
    res, comps = _run(tmp_path, "ref:oracle", "oracle", {"judge": "mock/prefs-judge-4"})
    assert SUITE.component_names(comps)["judge"] == "llm:mock/prefs-judge-4"
    finals = [p for p in res.probes if p.kind == "final"]
    assert all(p.brs_judged == 4 for p in finals) and all(p.brs_judged is None for p in res.probes if p.kind == "pre")
    sc = SUITE.score([res.model_dump_json()], builtin(), PrefsOptions(), seed=0)
    row = sc.rows[0]
    assert row.metrics["brs"] == 4.0 and sc.metrics["brs"].kind == "judged"
    assert row.extra["brs_embedded"] == pytest.approx(sum(p.brs_embedded for p in finals) / 28)
    assert row.extra["brs_agreement"]["n"] == 28 and row.extra["brs_agreement"]["within_one"] == 1.0


def test_a_verdict_whose_evidence_is_not_in_the_replies_aborts_the_cell(tmp_path):
    register_script("prefs-judge-invented", lambda system, messages, tools: json.dumps(
        {"score": 5, "rationale": "ok", "evidence": ["a sentence the assistant never wrote"]}))
    with pytest.raises(CellAborted, match="evidence not found"):
        _run(tmp_path, "ref:oracle", "oracle", {"judge": "mock/prefs-judge-invented"})


def test_malformed_judge_aborts_the_cell(tmp_path):
    register_script("prefs-judge-bad", lambda system, messages, tools: "not json")
    with pytest.raises(CellAborted, match="malformed verdict twice"):
        _run(tmp_path, "ref:oracle", "oracle", {"judge": "mock/prefs-judge-bad"})


def test_user_model_only_rewords_and_is_audited(tmp_path):
    def reword(system, messages, tools):
        payload = json.loads(messages[-1].content)
        if "how_you_like_it" in payload:  # the user model's own PRS rating of a final probe
            return json.dumps({"rating": 4, "why": "fine"})
        assert payload["persona"] and payload["beat"] and payload["situation"]  # persona-grounded
        draft = payload["draft"]
        return draft.replace("Thanks", "Cheers, the verbosity was fine")

    register_script("prefs-user-reword", reword)
    res, comps = _run(tmp_path, "ref:habits", "none", {"user": "mock/prefs-user-reword"})
    assert SUITE.component_names(comps)["user"] == "llm:mock/prefs-user-reword"
    # decisions are the core's: the same probes come out as with the verbatim user
    plain, _ = _run(tmp_path / "plain", "ref:habits", "none")
    assert [p.selected for p in res.probes] == [p.selected for p in plain.probes]
    # the model slipped benchmark vocabulary in: the checker rejects those rewordings before the
    # assistant sees them (the draft goes instead), counts them, and nothing leaks
    assert plain.audit["leaks"] == 0 and res.audit["leaks"] == 0
    assert res.audit["reworded_rejected"] > 0 and res.audit["reworded_checked"] > res.audit["reworded_rejected"]
    assert res.audit["rejections"][0]["why"] == "benchmark vocabulary"
    assert res.audit["messages"] == plain.audit["messages"]
    # PRS is the model user's rating, labelled so; the core's rating without it
    finals = [p for p in res.probes if p.kind == "final"]
    assert all(p.prs == 4 and p.prs_by == "llm:mock/prefs-user-reword" for p in finals)
    sc = SUITE.score([res.model_dump_json()], builtin(), PrefsOptions(), seed=0)
    assert sc.metrics["prs"].kind == "judged" and sc.metrics["prs"].by == "llm:mock/prefs-user-reword"
    assert all(p.prs_by == "core" for p in plain.probes if p.kind == "final")


def test_capability_failure_scores_psa0_brs1(tmp_path):
    register_script("prefs-silent", lambda system, messages, tools: "I'm not sure.")
    from longview.agents.llm import LLMAgent

    roles = Roles({})
    agent = LLMAgent(roles.client("agent", "mock/prefs-silent"), roles.params("agent"), name="mock/prefs-silent")
    res, _ = _run(tmp_path, "mock/prefs-silent", "none", agent_obj=agent)
    assert all(p.capability_failure and p.brs_embedded == 1 and p.prs == (1 if p.kind == "final" else None)
               for p in res.probes)
    m = SUITE.score([res.model_dump_json()], builtin(), PrefsOptions(), seed=0).rows[0]
    assert m.metrics["psa"] == 0.0 and m.metrics["brs"] == 1.0 and m.extra["counts"]["capability_failures"] == 33


def test_memory_plugins_by_entry_point(monkeypatch):
    class EP:
        name, value = "mine", "x:y"

        def load(self):
            return lambda **kw: {"made": kw}

    monkeypatch.setattr(registry, "entry_points", lambda group: [EP()] if group == registry.GROUP else [])
    assert registry.available()["mine"].startswith("plugin")
    assert registry.create("mine", a=1) == {"made": {"a": 1}}


def test_dataset_file_roundtrip_and_errors(tmp_path):
    ds = generate(3, users=1)
    p = tmp_path / "ds.json"
    p.write_text(ds.model_dump_json())
    back = load_file(str(p))
    assert back.sha256 == ds.sha256 and back.name == str(p)
    bad = json.loads(p.read_text())
    bad["users"][0]["user"]["matrix"] = "oops"
    p.write_text(json.dumps(bad))
    with pytest.raises(DataError, match="matrix"):
        load_file(str(p))


def test_cli_run_and_generate(tmp_path):
    out = subprocess.run([sys.executable, "-m", "longview", "run", "prefs", "--agent", "ref:oracle", "--units", "1",
                          "-S", "trace=false", "--json", str(tmp_path / "o.json"), "--out", str(tmp_path / "run")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    sc = json.loads((tmp_path / "o.json").read_text())
    assert [(r["agent"], r["variant"]) for r in sc["rows"]] == [("ref:oracle", "oracle")]
    assert set(sc["rows"][0]["metrics"]) == {"psa", "cs", "pet", "carry_over", "brs", "prs"}
    gen = subprocess.run([sys.executable, "-m", "longview", "prefs", "generate", "--seed", "7", "--users", "1"],
                         capture_output=True, text=True, timeout=300)
    assert gen.returncode == 0 and "QC passed" in gen.stdout


def test_plan_memory_option_and_reader_default(ds):
    from longview.harness.options import RunConfig
    from longview.harness.run import plan
    from longview.kernel.errors import ConfigError

    cells = plan(SUITE, RunConfig(suite="prefs"), ds, PrefsOptions())
    by_agent = {}
    for c in cells:
        by_agent.setdefault(c.agent, set()).add(c.variant)
    assert by_agent["ref:reader"] == {"none", "rag", "file", "oracle"}
    assert by_agent["ref:oracle"] == {"oracle"} and by_agent["ref:habits"] == {"none"}
    assert len(cells) == 9 * 4  # 5 single-memory agents + ref:reader on 4 memories, x 4 users
    only_rag = plan(SUITE, RunConfig(suite="prefs", agents=["ref:reader"]), ds, PrefsOptions(memory="rag,none"))
    assert sorted({c.variant for c in only_rag}) == ["none", "rag"]
    with pytest.raises(ConfigError, match="unknown memory system"):
        plan(SUITE, RunConfig(suite="prefs"), ds, PrefsOptions(memory=["nope"]))


def test_dataset_file_semantic_errors(tmp_path):
    ds = generate(3, users=1)
    data = json.loads(ds.model_dump_json())
    data["users"][0]["user"]["matrix"]["work"]["verbosity"] = "chatty"
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(data))
    with pytest.raises(DataError, match="matrix/work/verbosity"):
        load_file(str(p))


@pytest.mark.parametrize("where", ["session", "change"])
def test_a_day_that_is_not_a_calendar_date_is_refused_at_load(tmp_path, where):
    data = json.loads(generate(3, users=1).model_dump_json())
    if where == "session":
        data["users"][0]["sessions"][0]["day"] = "2026-13-45"
    else:
        data["users"][0]["user"]["changes"][0]["day"] = "someday"
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(data))
    with pytest.raises(DataError, match="day"):
        load_file(str(p))


@pytest.mark.parametrize("where", ["top", "user", "scene"])
def test_a_misspelt_field_in_a_dataset_file_is_refused(tmp_path, where):
    data = json.loads(generate(3, users=1).model_dump_json())
    target = {"top": data, "user": data["users"][0]["user"], "scene": data["users"][0]["sessions"][0]}[where]
    target["prefernce"] = "x"
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(data))
    with pytest.raises(DataError, match="prefernce"):
        load_file(str(p))


def test_repeats_run_every_probe_k_times(tmp_path):
    suite = PrefsSuite()
    ctx = make_ctx(tmp_path, "ref:oracle", "oracle")
    ctx.options = PrefsOptions(trace=False, repeats=2)
    res = asyncio.run(suite.run_cell(ctx))
    assert len(res.probes) == 2 * 33 and {p.repeat for p in res.probes} == {0, 1}
    row = suite.score([res.model_dump_json()], builtin(), ctx.options, seed=0).rows[0]
    assert row.metrics["psa"] == 1.0 and row.extra["prs_brs_agreement"]["exact"] == 1.0


def test_transcript_and_tables(tmp_path):
    from rich.console import Console

    from longview.kernel.trace import read_trace

    ctx = make_ctx(tmp_path, "ref:oracle", "oracle", trace=True)
    res = asyncio.run(SUITE.run_cell(ctx))
    lines = SUITE.transcript(read_trace(next(tmp_path.glob("user_a-s000.jsonl"))))
    assert any("to_user=" in ln for ln in lines) and any("selection" in ln for ln in lines)
    sc = SUITE.score([res.model_dump_json()], builtin(), PrefsOptions(), seed=0)
    console = Console(record=True, width=200)
    for t in SUITE.tables(sc):
        console.print(t)
    out = console.export_text()
    assert "ref:oracle" in out and "Init&Aut" in out


def test_report_sections_and_session_outcomes(tmp_path):
    ctx = make_ctx(tmp_path, "ref:habits", "none")
    res = asyncio.run(SUITE.run_cell(ctx))
    sc = SUITE.score([res.model_dump_json()], builtin(), PrefsOptions(), seed=0).to_json_dict()
    sections = SUITE.report_sections(sc)
    assert [s.title for s in sections] == ["PSA by dimension and kind", "Context and change"]
    assert sections[1].rows[0][:2] == ["ref:habits", "none"]
    outcomes = SUITE.session_outcomes(res.model_dump_json(), builtin())
    assert len(outcomes) == 33
    assert sum(o.outcome == "pass" for o in outcomes.values()) == sum(
        p.selected == p.target for p in res.probes)


@pytest.mark.parametrize("raw", ["rag,file", ["rag,file"], ["rag", " file "], "rag, file,"])
def test_memory_option_takes_a_comma_list_in_every_form(raw):
    from longview.suites.prefs.suite import PrefsOptions

    assert PrefsOptions(memory=raw).memory == ["rag", "file"]


def test_memory_option_with_a_non_text_item_is_a_validation_error():
    from pydantic import ValidationError

    from longview.suites.prefs.suite import PrefsOptions

    with pytest.raises(ValidationError):
        PrefsOptions(memory=[3])


def test_list_shows_what_each_reference_agent_runs_by_default():
    from click.testing import CliRunner

    from longview.cli import app

    r = CliRunner().invoke(app, ["list", "prefs"], terminal_width=250)
    assert r.exit_code == 0, r.output
    line = next(x for x in r.output.splitlines() if "ref:reader" in x)
    assert "default variants: none, rag, file, oracle" in line
