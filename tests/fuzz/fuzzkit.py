"""Shared machinery of the fuzz suite: invoke the CLI in-process, snapshot folders, and check the
promise every failure keeps — no traceback, exit code 2, one message naming what was wrong, and
nothing written (in the working folder, the run folder, or anywhere outside it).

Every suite registered with the harness is fuzzed: tests parametrize over ``registry.available()``
and take data from ``Suite.sample_dataset``.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner, Result

from longview.cli import app
from longview.harness import registry

SUITES = sorted(registry.available())
ESCAPE = "/tmp/longview-fuzz-escape"  # hostile ids point here; it must never appear


def snapshot(root: Path) -> dict[str, str]:
    """relative path -> content hash (or 'dir' / 'link -> target'), symlinks not followed."""
    out: dict[str, str] = {}
    if not root.exists():
        return out
    for dirpath, dirs, files in os.walk(root, followlinks=False):
        for name in dirs + files:
            p = Path(dirpath) / name
            rel = str(p.relative_to(root))
            if p.is_symlink():
                out[rel] = f"link -> {os.readlink(p)}"
            elif p.is_dir():
                out[rel] = "dir"
            elif not p.is_file():  # a FIFO or device: reading it would block or never end
                out[rel] = "special"
            else:
                out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def escaped() -> list[str]:
    parent = Path(ESCAPE).parent
    return [str(p) for p in parent.glob(Path(ESCAPE).name + "*")]


@dataclass
class Run:
    result: Result

    @property
    def code(self) -> int:
        return self.result.exit_code

    @property
    def stderr(self) -> str:
        return self.result.stderr

    @property
    def text(self) -> str:
        return self.result.stdout + self.result.stderr

    def error_lines(self) -> list[str]:
        return [ln for ln in self.stderr.splitlines() if ln.lower().startswith("error")]


def invoke(args: list[str], cwd: Path) -> Run:
    """``longview ARGS`` in ``cwd`` (so a relative path lands in the test's folder)."""
    runner = CliRunner()
    old = Path.cwd()
    os.chdir(cwd)
    try:
        result = runner.invoke(app, [str(a) for a in args], catch_exceptions=True)
    finally:
        os.chdir(old)
    return Run(result)


def assert_no_traceback(run: Run) -> None:
    exc = run.result.exception
    assert exc is None or isinstance(exc, SystemExit), (
        f"uncaught {type(exc).__name__}: {exc}\n{run.text[-2000:]}"
    )
    assert "Traceback" not in run.text, run.text[-2000:]
    assert not escaped(), f"wrote outside the run folder: {escaped()}"


def assert_clean_failure(run: Run, *, names: str | None = None) -> None:
    """Exit 2, one error line (naming ``names`` when given), no traceback."""
    assert_no_traceback(run)
    assert run.code == 2, f"exit {run.code}\n{run.text[-2000:]}"
    lines = run.error_lines()
    assert len(lines) == 1, run.stderr
    if names is not None:
        assert names in lines[0], lines[0]


def reference_agent(suite_name: str) -> str:
    return next(iter(registry.load(suite_name).reference_agents))


def sample(suite_name: str, folder: Path) -> str | None:
    return registry.load(suite_name).sample_dataset(folder)


def run_args(suite: str, data: str, out: Path) -> list:
    """A small run of ``suite`` on ``data``: its first reference agent, one unit, three turns."""
    return ["run", suite, "--dataset", data, "--out", out, "--agent", reference_agent(suite), "--units", "1",
            "--max-turns", "3"]
