"""`--dry-run` with external agents: an agent on its own costs no model call through longview (it is
neither estimated nor priced as one), a harness routed with --model is estimated as a native agent's
turns and priced under its model (said to be an assumption), and the dry run says what it will
start; nothing is started or written."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from click.testing import CliRunner

from longview.cli import app
from longview.harness.costs import estimate_lines, plan_estimate
from longview.harness.options import RunConfig
from longview.harness.plan import prepare

ROOT = Path(__file__).parents[2]
AGENT = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(ROOT / 'examples' / 'stdio_agent.py'))}"


def _prepared(**kw):
    p = prepare(RunConfig(suite="atr", variants=["atr"], units=2, **kw), dry_run=True)
    return p, plan_estimate(p.suite, p), estimate_lines(p.suite, p)


def test_an_agent_on_its_own_is_not_priced_as_a_model():
    _, est, lines = _prepared(agents=[AGENT, "ref:asker"])
    assert "agent" not in est and lines == []
    # A Python agent beside a model under test: only the model's cells are estimated and priced.
    sys.path.insert(0, str(Path(__file__).parent))
    _, est_mixed, lines_mixed = _prepared(agents=["ext_agents:atr_asker"], models=["openai/gpt-5.4"])
    _, est_model, lines_model = _prepared(models=["openai/gpt-5.4"])
    assert est_model["agent"][0] > 0 and est_mixed["agent"] == est_model["agent"]
    assert [(x.role, x.model, x.calls) for x in lines_mixed] == [(x.role, x.model, x.calls) for x in lines_model]


def test_a_routed_harness_is_estimated_as_native_turns_under_its_model():
    _, est_model, lines_model = _prepared(models=["openai/gpt-5.4"])
    _, est_harness, lines_harness = _prepared(agents=[AGENT], models=["openai/gpt-5.4"])
    assert est_harness["agent"] == est_model["agent"]  # the same cells, one call per turn assumed
    (line,) = lines_harness
    assert line.role == "agent (harness)" and line.model == "openai/gpt-5.4" and "assumed" in line.source
    assert (line.calls, line.usd) == (lines_model[0].calls, lines_model[0].usd)


def test_the_dry_run_says_what_it_will_start_and_starts_nothing(tmp_path):
    marker = tmp_path / "started"
    script = tmp_path / "agent.py"
    script.write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    agent = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    r = CliRunner().invoke(app, ["run", "atr", "--agent", agent, "--variant", "atr", "--personas", "1", "--dry-run",
                                 "--agent-process", "cell", "--out", str(tmp_path / "r")])
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())
    assert f"launches · {agent}: starts" in text and "once per cell" in text
    assert "longview calls no model for it" in text and "Estimated cost" not in text
    assert "no model requests through longview (reference agents and agents on their own)" in text
    assert not marker.exists() and not (tmp_path / "r").exists()
