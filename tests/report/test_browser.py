"""The report in a real browser: Debian's headless Chromium driven by Playwright, offline, with
every request that is not the file itself refused and recorded. Tables and plots render, a failed
session's transcript opens from the numbers, search and filters narrow the list, and the console
stays free of errors. Screenshots are saved in the test's temporary folder.

Skipped (with the reason) when /usr/bin/chromium or the playwright package is missing; .ci/run
installs both."""

from __future__ import annotations

from pathlib import Path

import pytest
from browserkit import MISSING, open_page

from longview.report.build import load_runs, write_report

pytestmark = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")


def test_report_renders_and_navigates_offline(browser, atr_run: Path, generic_run: Path, tmp_path: Path):
    out = write_report(load_runs([atr_run, generic_run]), tmp_path / "report.html")
    page, problems, outside = open_page(browser, out)

    # tables and plots
    assert page.locator("#suite-atr table.score tbody tr").count() == 7
    assert page.locator("#suite-madeup table.score tbody tr").count() == 3
    assert page.locator("table.paper").count() >= 2  # Table 3 and Table 4
    plots = page.locator(".plot")
    assert plots.count() >= 6
    assert page.locator(".plot[data-rendered='1'] svg").count() == plots.count()
    assert page.locator(".plot svg .mark-symbol path").count() > 5  # points were drawn
    page.screenshot(path=str(tmp_path / "top.png"))

    # a failed session's transcript opens from the per-unit breakdown
    page.eval_on_selector_all("details", "els => els.forEach(e => e.open = true)")
    chip = page.locator("#suite-atr a.chip.fail").first
    sid = chip.inner_text()
    chip.click()
    page.wait_for_selector("#transcript .ev.assistant")
    assert page.locator("#transcript .thead h3").inner_text().startswith(sid)
    assert page.locator("#transcript .thead .badge.fail").count() == 1
    assert page.locator("#transcript .ev.user").count() >= 1
    page.locator("#transcript").screenshot(path=str(tmp_path / "transcript.png"))

    # a breakdown bucket lists that bucket's failed sessions and opens the first
    page.locator("#suite-atr table.breakdown a.flt").last.click()
    page.wait_for_function("() => document.querySelector('#transcript').dataset.sid === "
                           "document.querySelector('#list tr.srow .sid').textContent")
    rows = page.locator("#list tr.srow")
    assert rows.count() >= 1
    assert page.locator("#list tr.srow .badge.fail").count() == rows.count()

    # search and filters
    page.click("#f-clear")
    total = page.locator("#list tr.srow").count()
    assert total > 20
    page.fill("#q", sid)
    page.wait_for_function(f"() => document.querySelectorAll('#list tr.srow').length < {total}")
    found = page.locator("#list tr.srow .sid").all_inner_texts()
    assert found and set(found) == {sid}  # the same session in every cell of that unit
    page.fill("#q", "")
    page.select_option("#f-outcome", "pass")
    page.wait_for_function(f"() => document.querySelectorAll('#list tr.srow').length < {total}")
    n_pass = page.locator("#list tr.srow").count()
    assert n_pass > 0 and page.locator("#list tr.srow .badge.pass").count() == n_pass
    page.select_option("#f-outcome", "")
    page.select_option("#f-tool", label="send_to_user")
    page.wait_for_function(f"() => document.querySelectorAll('#list tr.srow').length < {total}")
    page.locator("#list tr.srow").first.click()
    page.wait_for_selector("#transcript .msg.to-user")

    # the generic suite: its transcript (a failed tool call, a protocol event) renders too
    page.click("#f-clear")
    page.fill("#q", "station")
    page.wait_for_function("() => document.querySelectorAll('#list tr.srow').length === 1")
    page.locator("#list tr.srow").first.click()
    page.wait_for_selector("#transcript .ev.event")
    text = page.locator("#transcript").inner_text()
    assert "judge_verdict" in text and "failed: no such place" in text and "Where is the <b>station</b>?" in text
    page.screenshot(path=str(tmp_path / "sessions.png"), full_page=False)

    # words only inside a transcript (a tool's error) are found once "in transcripts too" is ticked
    page.fill("#q", "such place")
    page.wait_for_function("() => document.querySelectorAll('#list tr.srow').length === 0")
    page.check("#deep")
    page.wait_for_function("() => document.querySelectorAll('#list tr.srow').length === 1")
    assert page.locator("#list tr.srow .sid").inner_text() == "s0"

    assert problems == [], problems
    assert outside == [], outside
    assert (tmp_path / "top.png").stat().st_size > 10_000
