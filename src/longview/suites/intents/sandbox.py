"""Run a dataset's Python (a π-Bench rule script) confined: it is data's code, not longview's.

What the child gets, and nothing more:

* a **fresh interpreter** (``python -I -B``: no user site, no ``PYTHON*`` variables, no bytecode
  written) started in a **new process group**, killed whole when it ends or overruns;
* a **scrubbed environment**: ``PATH`` (system folders only), ``HOME`` and ``TMPDIR`` inside the
  throw-away folder, a UTF-8 locale — no API keys, no proxies, nothing else of the caller's;
* a **throw-away folder** holding a copy of the script, the working folder the release's evaluator
  runs in (``config/nanobot.yaml`` whose ``nanobot.workspace_dir`` is ``~/.nanobot/workspace``)
  and a copy of the session's workspace (regular files only) at that place; the folder is deleted
  afterwards, so nothing the script writes reaches the release or the run folder;
* **limits** set before it starts: wall time, CPU seconds, 1 GiB of address space, 16 MiB per
  file written (its output included), 256 open files, no core dumps.

The answer is the last line of its standard output; anything else it prints is ignored, and an
answer that is not JSON is an error (the caller then judges nothing).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

MEMORY_BYTES = 1 << 30
FILE_BYTES = 16 << 20
OPEN_FILES = 256
WORKSPACE_BYTES = 64 << 20  # the session workspace copied in for the script to read
NANOBOT_CONFIG = "nanobot:\n  workspace_dir: ~/.nanobot/workspace\n"


class SandboxError(Exception):
    """The confined run did not produce an answer: the message says why."""


def scrubbed_env(home: Path) -> dict[str, str]:
    """The only environment the child sees (no keys, proxies or paths of the caller)."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "TMPDIR": str(home / "tmp"),
            "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8"}


def _limits(timeout: float) -> None:  # pragma: no cover - runs in the child between fork and exec
    import resource

    cpu = int(math.ceil(timeout)) + 1
    for what, value in ((resource.RLIMIT_AS, MEMORY_BYTES), (resource.RLIMIT_CPU, cpu),
                        (resource.RLIMIT_FSIZE, FILE_BYTES), (resource.RLIMIT_NOFILE, OPEN_FILES),
                        (resource.RLIMIT_CORE, 0)):
        resource.setrlimit(what, (value, value))


def copy_workspace(src: Path, dst: Path, budget: int = WORKSPACE_BYTES) -> None:
    """Regular files and folders of ``src`` into ``dst``; links, FIFOs and devices are left out
    (they could point out of the workspace or block). More than ``budget`` bytes is an error."""
    dst.mkdir(parents=True, exist_ok=True)
    total = 0
    stack = [(src, dst)]
    while stack:
        s, d = stack.pop()
        with os.scandir(s) as it:
            for e in it:
                st = e.stat(follow_symlinks=False)
                if stat.S_ISDIR(st.st_mode):
                    (d / e.name).mkdir()
                    stack.append((Path(e.path), d / e.name))
                elif stat.S_ISREG(st.st_mode):
                    total += st.st_size
                    if total > budget:
                        raise SandboxError(f"the workspace holds more than {budget >> 20} MiB")
                    shutil.copyfile(e.path, d / e.name, follow_symlinks=False)


def run_confined(runner: str, script: Path, payload: Any, *, workspace: Path | None, timeout: float) -> Any:
    """Run ``runner`` (Python source) with a copy of ``script`` as ``argv[1]`` and ``payload`` as
    JSON on stdin, confined as this module says; its last stdout line parsed as JSON."""
    with tempfile.TemporaryDirectory(prefix="lv-rule-") as tmp:
        root = Path(tmp)
        home, work = root / "home", root / "work"
        (home / "tmp").mkdir(parents=True)
        (work / "config").mkdir(parents=True)
        (work / "config" / "nanobot.yaml").write_text(NANOBOT_CONFIG, encoding="utf-8")
        ws = home / ".nanobot" / "workspace"
        if workspace is not None and workspace.is_dir():
            copy_workspace(workspace, ws)
        else:
            ws.mkdir(parents=True)
        copy = root / "script" / script.name
        copy.parent.mkdir()
        shutil.copyfile(script, copy)
        out_path, err_path = root / "stdout", root / "stderr"
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            try:
                proc = subprocess.Popen(
                    [sys.executable, "-I", "-B", "-c", runner, str(copy)], stdin=subprocess.PIPE, stdout=out,
                    stderr=err, cwd=work, env=scrubbed_env(home), start_new_session=True,
                    preexec_fn=lambda: _limits(timeout), close_fds=True)
            except OSError as e:
                raise SandboxError(f"could not start ({e.strerror or e})") from None
            try:
                proc.communicate(json.dumps(payload, default=str).encode(), timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill(proc)
                raise SandboxError(f"timed out after {timeout:g}s") from None
            except BrokenPipeError:
                proc.wait()
            finally:
                _kill(proc)
        code = proc.returncode
        if max(out_path.stat().st_size, err_path.stat().st_size) >= FILE_BYTES:
            raise SandboxError(f"printed more than {FILE_BYTES >> 20} MiB (a file-size limit)")
        text = _tail(out_path)
        if code != 0:
            if code < 0:
                name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
                raise SandboxError(f"killed by {name} (a time, memory or file-size limit)")
            last = (_tail(err_path).strip().splitlines() or ["no output"])[-1]
            raise SandboxError(last[:300])
        lines = [ln for ln in text.splitlines() if ln.strip()]
        try:
            return json.loads(lines[-1]) if lines else None
        except ValueError:
            raise SandboxError("its answer is not JSON") from None


def _kill(proc: subprocess.Popen) -> None:
    """End the child's whole process group (children it started included)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _tail(path: Path, limit: int = 4 << 20) -> str:
    with open(path, "rb") as f:
        f.seek(max(0, path.stat().st_size - limit))
        return f.read().decode("utf-8", "replace")
