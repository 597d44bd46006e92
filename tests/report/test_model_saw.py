"""The report's trace viewer shows what the model saw in a session: its system prompt, every tool schema
and the generation parameters, all as text (headless Chromium, offline)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from browserkit import MISSING, open_page

from longview.report.build import load_runs, write_report
from longview.testing.loopback import LoopbackServer, finish_or_send

pytestmark = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")


def test_trace_viewer_shows_system_prompt_tools_and_parameters(browser, tmp_path: Path):
    run = tmp_path / "run"
    # In a process of its own: Playwright's sync API keeps an event loop running in this thread.
    with LoopbackServer(agent=finish_or_send).in_thread() as server:
        r = subprocess.run([sys.executable, "-m", "longview", "run", "intents", "--model", "hosted_vllm/probe",
                            "--api-base", server.url, "--personas", "1", "--out", str(run), "--no-cache",
                            "--temperature", "0.3"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    trace = sorted((run / "cells").glob("hosted_vllm*/*.jsonl"))[0]
    start = json.loads(trace.read_text().splitlines()[0])
    prompt = json.loads((trace.parent / "prompts" / f"{start['data']['prompt']}.json").read_text())
    out = write_report(load_runs([run]), tmp_path / "report.html")
    page, problems, outside = open_page(browser, out)
    page.fill("#q", trace.stem)
    page.locator("#list tr.srow", has_text="hosted_vllm/probe").first.click()
    page.wait_for_selector("#transcript details.saw")
    page.locator("#transcript details.saw > summary").click()
    saw = page.locator("#transcript details.saw")
    assert saw.locator("pre.system").inner_text().strip() == prompt["system"].strip()
    names = saw.locator(".tool-schema .tool").all_inner_texts()
    assert names == [t["function"]["name"] for t in prompt["tools"]] and names
    params = json.loads(saw.locator("pre.params").inner_text())
    assert params["model"] == "hosted_vllm/probe" and params["temperature"] == 0.3
    page.locator("#transcript").screenshot(path=str(tmp_path / "saw.png"))
    assert not problems and not outside
