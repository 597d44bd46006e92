"""Headless Chromium for the report's browser tests: Debian's chromium driven by Playwright, offline,
with every request that is not a file refused and recorded (``open_page``). ``MISSING`` says why the
browser cannot run here (the tests skip with it, or fail where LONGVIEW_REQUIRE_BROWSER=1)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

CHROMIUM = os.environ.get("LONGVIEW_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]

REQUIRED = os.environ.get("LONGVIEW_REQUIRE_BROWSER") == "1"  # .ci/run sets it: there a skip is a failure


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[report]')"
    if not (Path(CHROMIUM).exists() or shutil.which("chromium")):
        return f"no Chromium at {CHROMIUM} (apt-get install -y chromium)"
    return None


MISSING = _missing()
if MISSING and REQUIRED:
    raise RuntimeError(f"LONGVIEW_REQUIRE_BROWSER=1 but {MISSING}")


def open_page(browser, path: Path, *, init_script: str | None = None, on_dialog=None):
    ctx = browser.new_context(offline=True, viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    if init_script:
        page.add_init_script(init_script)
    if on_dialog:
        page.on("dialog", on_dialog)
    problems: list[str] = []
    outside: list[str] = []

    def route(r):
        if r.request.url.startswith("file://"):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("console", lambda m: problems.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-plots=done]", timeout=30_000)
    return page, problems, outside
