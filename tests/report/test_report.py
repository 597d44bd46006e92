"""`longview report`: what it reads from run directories, and the one self-contained HTML file."""

from __future__ import annotations

import base64
import gzip
import json
import re
import shutil
from html import unescape
from pathlib import Path

import pytest
from click.testing import CliRunner

from longview.cli import app
from longview.report.build import load_runs, write_report
from longview.report.data import load_run


def _embedded(html: str, element_id: str):
    m = re.search(rf'<script type="application/json" id="{element_id}">(.*?)</script>', html, re.S)
    assert m, element_id
    return json.loads(m.group(1))


def test_every_session_is_indexed_with_its_outcome(atr_run: Path):
    run = load_run(atr_run)
    files = sorted(atr_run.glob("cells/*/*.jsonl"))
    assert len(run.sessions) == len(files) > 50
    passive = [s for s in run.sessions if s.agent == "ref:passive" and s.phase == "test"]
    oracle = [s for s in run.sessions if s.agent == "ref:oracle" and s.phase == "test"]
    # The scripted passive agent never learns a rule; the oracle is told every one.
    assert passive and all(s.outcome == "fail" for s in passive)
    assert oracle and all(s.outcome == "pass" for s in oracle)
    assert all(set(s.labels) == {"domain", "check_type"} for s in passive)
    learning = [s for s in run.sessions if s.phase == "learning"]
    assert learning and all(s.outcome is None for s in learning)
    asker = next(s for s in run.sessions if s.agent == "ref:asker" and s.phase == "learning")
    assert asker.turns >= 1 and asker.first and asker.start.startswith("20")
    aborted = [c for c in run.cells.values() if c.status == "aborted"]
    assert [(c.agent, c.variant) for c in aborted] == [("mock/report-asker", "oracle_target")]
    assert "HTTP 400" in (aborted[0].abort_reason or "")


def test_report_is_one_self_contained_file(atr_run: Path, tmp_path: Path):
    out = tmp_path / "r.html"
    r = CliRunner().invoke(app, ["report", str(atr_run), "-o", str(out)])
    assert r.exit_code == 0, r.output
    html = out.read_text()
    # Nothing is loaded from elsewhere: no external script, style, font, image or frame.
    assert not re.search(r"<(script|img|iframe)[^>]+src=", html)
    assert "<link" not in html and "@import" not in html and "url(http" not in html
    assert "sourceMappingURL" not in html
    assert html.count("<script") == 6  # data, chunks, vega, its expression interpreter, vega-lite, the viewer
    # Tables as the paper prints them, aborted cells with their reason, run identity.
    for text in ("Table 3 · main scorecard", "Table 4 · learning variants", "Breakdowns", "breakdown.by_domain",
                 "Aborted cells", "HTTP 400: the provider refused", "config hash", "embedded:keyword-router",
                 "judged by embedded:keyword-router"):
        assert text in html, text
    data = _embedded(html, "lv-data")
    assert len(data["sessions"]) == len(list(atr_run.glob("cells/*/*.jsonl")))
    assert {p["layer"][1]["encoding"]["x"]["title"] for p in data["plots"].values()} >= {"tsacc", "rule_ask"}


def test_transcripts_round_trip_through_the_compressed_chunks(atr_run: Path, tmp_path: Path):
    run = load_run(atr_run)
    out = write_report([run], tmp_path / "r.html")
    html = out.read_text()
    data, chunks = _embedded(html, "lv-data"), _embedded(html, "lv-chunks")
    ci, cell = next((i, c) for i, c in enumerate(data["cells"]) if c[2] == "ref:asker")
    texts = json.loads(gzip.decompress(base64.b64decode(chunks[str(ci)])))
    texts = {k: v for k, v in texts.items() if not k.startswith("/")}  # "/prompts": what the model saw, beside them
    folder = atr_run / "cells" / cell[1]
    assert texts == {f.stem: f.read_text() for f in folder.glob("*.jsonl")}


def test_failed_sessions_link_to_their_transcripts(atr_run: Path, tmp_path: Path):
    html = write_report(load_runs([atr_run]), tmp_path / "r.html").read_text()
    data = _embedded(html, "lv-data")
    links = re.findall(r'class="chip fail" data-open="(\d+)\|([^"]+)"', html)
    assert links
    failed = {(s[0], s[1]) for s in data["sessions"] if s[3] == "fail"}
    assert {(int(c), sid) for c, sid in links} <= failed
    # breakdown buckets filter to that bucket's failed sessions
    assert '&quot;label&quot;:&quot;commerce&quot;' in html or '&quot;label&quot;:' in html


def test_a_suite_that_is_not_installed_gets_the_generic_report(generic_run: Path, tmp_path: Path):
    run = load_run(generic_run)
    assert run.suite is None and any("not installed" in n for n in run.notes)
    html = write_report([run], tmp_path / "g.html").read_text()
    for text in ("madeup", "helpfulness", "0.50", "provider said no", "extra.by_topic", "llm:mock/judge",
                 "0.5000", "abc123"):
        assert text in html, text
    assert "Table 3" not in html
    # transcripts are escaped as data, never markup
    chunks = _embedded(html, "lv-chunks")
    text = json.loads(gzip.decompress(base64.b64decode(next(iter(chunks.values())))))["s0"]
    assert "<b>station</b>" in text and "<b>station</b>" not in html


def test_two_runs_of_one_suite_are_shown_side_by_side_and_compared(atr_run: Path, generic_run: Path, tmp_path: Path):
    out = tmp_path / "both.html"
    r = CliRunner().invoke(app, ["report", str(atr_run), str(atr_run), str(generic_run), "-o", str(out)])
    assert r.exit_code == 0, r.output
    html = out.read_text()
    assert 'id="suite-atr"' in html and 'id="suite-madeup"' in html
    assert "Comparison · B =" in html  # two runs of atr on one dataset: paired


def test_bad_run_directory_is_one_clear_error(tmp_path: Path):
    r = CliRunner().invoke(app, ["report", str(tmp_path), "-o", str(tmp_path / "x.html")])
    assert r.exit_code == 2 and "manifest.json" in r.output and not (tmp_path / "x.html").exists()


def test_a_run_without_a_scorecard_is_scored_in_memory(atr_run: Path, tmp_path: Path):
    partial = tmp_path / "partial"
    shutil.copytree(atr_run, partial)
    (partial / "scorecard.json").unlink()
    for marker in sorted(partial.glob("cells/ref_asker__*/result.json")):
        marker.unlink()  # an interrupted run: these cells never finished
    run = load_run(partial)
    assert not (partial / "scorecard.json").exists()  # nothing written into the run directory
    assert {r["agent"] for r in run.rows()} == {"ref:passive", "ref:oracle", "mock/report-asker"}
    assert any(c.status == "unfinished" for c in run.cells.values())
    html = write_report([run], tmp_path / "p.html").read_text()
    assert "have not finished" in html


def test_a_suites_own_sections_and_outcomes_win(generic_run: Path, tmp_path: Path):
    from longview.harness.run import cell_outcomes
    from longview.harness.suite import Section, SessionOutcome, Suite

    class Made(Suite):
        name = "madeup"
        summary = "a suite declaring its report hooks"
        load_dataset = reference_agent = run_cell = score = None  # type: ignore[assignment]

        def report_sections(self, scorecard):
            return [Section(title="Table 9 shape", columns=["a", "b"], rows=[[1.25, None]],
                            vega_lite={"mark": "bar", "data": {"values": [{"x": 1}]}, "encoding": {"x": {"field": "x"}}})]

        def session_outcomes(self, result, dataset):
            return {"s0": SessionOutcome(outcome="fail", labels={"topic": "cooking"}, reason="no answer")}

    suite = Made.__new__(Made)
    assert cell_outcomes(suite, "{}", None).sessions["s0"].reason == "no answer"
    run = load_run(generic_run)
    run.suite = suite
    html = write_report([run], tmp_path / "m.html").read_text()
    assert "Table 9 shape" in html and "<td>1.25</td><td>–</td>" in html
    assert any(p.get("mark") == "bar" for p in _embedded(html, "lv-data")["plots"].values())


@pytest.mark.parametrize("command", ["report", "compare"])
def test_an_output_path_that_is_a_folder_is_refused_before_any_work(atr_run: Path, tmp_path: Path, command: str):
    target = tmp_path / "reports"
    target.mkdir()
    runs = [str(atr_run)] if command == "report" else [str(atr_run), str(atr_run)]
    r = CliRunner().invoke(app, [command, *runs, "-o", str(target)])
    assert r.exit_code == 2, r.output
    assert "--out" in r.output and "is a folder" in r.output
    assert "Traceback" not in r.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["reports"]  # no temp file left beside it
    assert list(target.iterdir()) == []


def test_an_output_folder_that_refuses_files_is_refused_before_any_work(atr_run: Path, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch):
    import longview.harness.run as run_mod

    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(run_mod.tempfile, "mkstemp", refuse)  # as /sys refuses root
    r = CliRunner().invoke(app, ["report", str(atr_run), "-o", str(tmp_path / "r.html")])
    assert r.exit_code == 2, r.output
    assert "cannot write in folder" in r.output and "Permission denied" in r.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("damage", ["deep_transcript", "transcript_is_a_folder", "marker_is_a_list", "deep_manifest"])
def test_a_damaged_run_folder_is_a_note_or_one_clear_error_never_a_traceback(atr_run: Path, tmp_path: Path, damage: str):
    run = tmp_path / "run"
    shutil.copytree(atr_run, run)
    cell = sorted((run / "cells").iterdir())[0]
    trace = sorted(cell.glob("*.jsonl"))[0]
    if damage == "deep_transcript":
        trace.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    elif damage == "transcript_is_a_folder":
        trace.unlink()
        trace.mkdir()
    elif damage == "marker_is_a_list":
        (cell / "result.json").write_text("[]")
    else:
        (run / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)
    r = CliRunner().invoke(app, ["report", str(run), "-o", str(tmp_path / "r.html")])
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    if damage == "deep_manifest":
        assert r.exit_code == 2 and "manifest.json" in r.output
    else:
        assert r.exit_code == 0, r.output
        if damage == "transcript_is_a_folder":
            assert "not readable" in (tmp_path / "r.html").read_text()


def test_the_viewer_builds_the_page_from_text_only():
    # Data reaches the page through text nodes: no HTML parsing of strings, no code from strings.
    from importlib import resources

    js = (resources.files("longview.report") / "assets" / "report.js").read_text(encoding="utf-8")
    for api in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "Function(",
                "setAttribute(\"on", "javascript:"):
        assert api not in js, api


def test_embedded_json_cannot_close_its_block_and_the_policy_names_every_inline_script(generic_run: Path, tmp_path: Path):
    from longview.report.render import _sha256

    hostile = "</script><!--<script>x</script>&amp;"
    run = load_run(generic_run)
    run.sessions[0].first = hostile
    html = write_report([run], tmp_path / "r.html").read_text()
    data = _embedded(html, "lv-data")
    assert data["sessions"][0][7] == hostile  # round-trips exactly
    blocks = re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S)
    assert len(blocks) == 6 and all("<!--" not in body and "</" not in body for attrs, body in blocks if "json" in attrs)
    policy = unescape(re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html).group(1))
    assert "unsafe" not in policy and "default-src 'none'" in policy
    for attrs, body in blocks:
        if "json" not in attrs:
            assert _sha256(body) in policy
    style = re.search(r"<style>(.*?)</style>", html, re.S).group(1)
    assert _sha256(style) in policy


def test_a_manifest_naming_another_suite_than_its_scorecard_is_refused(atr_run: Path, tmp_path: Path):
    # `report` rendered it (show and --resume refuse it); a suite that is merely not installed
    # still gets the generic view (test_browser's 'madeup' run).
    run = tmp_path / "run"
    shutil.copytree(atr_run, run)
    m = json.loads((run / "manifest.json").read_text())
    m["suite"] = "no-such-suite"
    (run / "manifest.json").write_text(json.dumps(m))
    r = CliRunner().invoke(app, ["report", str(run), "-o", str(tmp_path / "r.html")])
    assert r.exit_code == 2, r.output
    assert "manifest.json" in r.output and "field 'suite'" in r.output and "no-such-suite" in r.output
    assert not (tmp_path / "r.html").exists()
