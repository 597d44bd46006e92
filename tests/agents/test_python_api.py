"""The Python API (longview.run / arun) and `--agent module:attr`: an agent object or factory runs any
suite through the same harness as the CLI, with the same numbers, and its identity is the run's."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

import longview
from longview.cli import app
from longview.kernel.errors import ConfigError

HERE = Path(__file__).parent


@pytest.fixture(autouse=True)
def _importable(monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))


def _metrics(scorecard: dict, agent: str, variant: str) -> dict:
    (row,) = [r for r in scorecard["rows"] if r["agent"] == agent and r["variant"] == variant]
    return row["metrics"]


def test_a_factory_mirroring_a_reference_agent_scores_as_it_through_the_api_and_the_cli(tmp_path):
    import ext_agents

    api = longview.run("atr", agent=ext_agents.atr_asker, name="mirror", agents=["ref:asker"], variants=["atr"],
                       units=2, out=tmp_path / "api", no_cache=True)
    assert api.folder == tmp_path / "api" and api.planned == 4 and not api.aborted
    mine, ref = _metrics(api.scorecard, "mirror", "atr"), _metrics(api.scorecard, "ref:asker", "atr")
    assert mine == ref and mine["rule_ask"] > 0  # not a vacuous equality: the asker asks
    r = CliRunner().invoke(app, ["run", "atr", "--agent", "ext_agents:atr_asker", "--variant", "atr", "--personas", "2",
                                 "--out", str(tmp_path / "cli"), "--json", str(tmp_path / "cli.json")])
    assert r.exit_code == 0, r.output
    cli = json.loads((tmp_path / "cli.json").read_text())
    assert _metrics(cli, "ext_agents:atr_asker", "atr") == mine
    manifest = json.loads((tmp_path / "cli" / "manifest.json").read_text())
    assert manifest["config"]["external_agents"]["ext_agents:atr_asker"] == {
        "kind": "python", "spec": "ext_agents:atr_asker", "source_sha256": manifest["config"]["external_agents"][
            "ext_agents:atr_asker"]["source_sha256"]}


async def test_arun_inside_a_running_loop(tmp_path):
    from examples_path import EchoAgent

    result = await longview.arun("atr", agent=EchoAgent(), units=1, variants=["default"], out=tmp_path / "r")
    assert result.metrics("echo", "default")["tsacc"] == 0.0  # an echo does no work: the floor
    assert (tmp_path / "r" / "scorecard.json").is_file()


def test_run_called_inside_a_running_loop_uses_a_thread(tmp_path):
    import asyncio

    from examples_path import EchoAgent

    async def main():
        return longview.run("atr", agent=EchoAgent(), units=1, variants=["default"], out=tmp_path / "r")

    assert asyncio.run(main()).planned == 1


def test_resume_refuses_a_different_agent(tmp_path):
    import ext_agents
    from examples_path import EchoAgent

    longview.run("atr", agent=EchoAgent(), name="mine", units=1, variants=["atr"], out=tmp_path / "r")
    with pytest.raises(Exception, match="config"):
        longview.run("atr", agent=ext_agents.atr_asker, name="mine", units=1, variants=["atr"], out=tmp_path / "r",
                     resume=True)


def test_a_failing_factory_aborts_its_cells_with_the_reason(tmp_path):
    import ext_agents

    result = longview.run("atr", agent=ext_agents.Broken, units=1, variants=["atr"], out=tmp_path / "r")
    assert result.aborted and "no model configured" in result.aborted[0][1]


def test_bad_options_and_agents_are_one_clear_error(tmp_path):
    from examples_path import EchoAgent

    with pytest.raises(ConfigError, match="unknown option 'unit'"):
        longview.run("atr", agent=EchoAgent(), unit=1)
    with pytest.raises(ConfigError, match="neither an agent"):
        longview.run("atr", agent=42, name="x")
    with pytest.raises(ConfigError, match="local executor and one worker"):
        longview.run("atr", agent=EchoAgent(), workers=2)
    r = CliRunner().invoke(app, ["run", "atr", "--agent", "no_such_module:Agent", "--personas", "1",
                                 "--out", str(tmp_path / "x")])
    assert r.exit_code == 2 and "cannot import module 'no_such_module'" in r.output
    assert not (tmp_path / "x").exists()


def test_import_longview_stays_light():
    import subprocess

    code = "import longview, sys; print('longview.harness.run' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_a_notebook_awaits_arun_and_gets_the_scorecard_the_cli_gives(tmp_path):
    """A real Jupyter kernel (its event loop already runs) executes `await longview.arun(...)`."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    cells = [
        f"import sys; sys.path.insert(0, {str(HERE)!r})\nimport longview\nfrom examples_path import EchoAgent",
        "import ext_agents\n"
        f"result = await longview.arun('atr', agent=ext_agents.atr_asker, name='mine', units=2, variants=['atr'], "
        f"out={str(tmp_path / 'nb')!r})\n"
        "import json; print(json.dumps(result.metrics('mine', 'atr')))",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3").execute()
    out = nb.cells[1].outputs
    assert [o.get("output_type") for o in out] == ["stream"], out
    from_notebook = json.loads(out[0]["text"].strip().splitlines()[-1])
    r = CliRunner().invoke(app, ["run", "atr", "--agent", "ext_agents:atr_asker", "--variant", "atr", "--personas", "2",
                                 "--out", str(tmp_path / "cli"), "--json", str(tmp_path / "cli.json")])
    assert r.exit_code == 0, r.output
    assert _metrics(json.loads((tmp_path / "cli.json").read_text()), "ext_agents:atr_asker", "atr") == from_notebook
    assert from_notebook["rule_ask"] > 0


def test_a_registered_agent_is_listed_and_runs_by_name(tmp_path, monkeypatch):
    from importlib.metadata import EntryPoint

    from longview.agents.external import specs

    # As installed by a package: the entry point knows its distribution (name and version).
    ep = EntryPoint(name="mirror", value="ext_agents:atr_asker", group=specs.GROUP)._for(
        SimpleNamespace(name="mirror-agents", version="2.1.0"))
    monkeypatch.setattr(specs, "registered", lambda: {"mirror": ep})
    listed = CliRunner().invoke(app, ["list"])
    assert listed.exit_code == 0 and "mirror" in listed.output and "longview.agents" in listed.output
    r = CliRunner().invoke(app, ["run", "atr", "--agent", "mirror", "--variant", "atr", "--personas", "1",
                                 "--out", str(tmp_path / "r"), "--json", str(tmp_path / "r.json")])
    assert r.exit_code == 0, r.output
    assert _metrics(json.loads((tmp_path / "r.json").read_text()), "mirror", "atr")["rule_ask"] > 0
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["config"]["external_agents"]["mirror"]["value"] == "ext_agents:atr_asker"
    assert manifest["config"]["external_agents"]["mirror"]["distribution"] == "mirror-agents 2.1.0"
    (row,) = json.loads((tmp_path / "r.json").read_text())["rows"]
    assert row["harness"] == {"kind": "entry_point", "name": "mirror-agents", "version": "2.1.0"}
