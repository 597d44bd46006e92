"""A child process longview starts for an external agent: stdin/stdout pipes, the last lines of its
stderr kept for the trace, and a stop that never leaves it running."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import signal
from collections.abc import Mapping

from longview.kernel.errors import CellAborted, printable

STDERR_TAIL_LINES = 40
LINE_LIMIT = 32 * 1024 * 1024  # one JSON line from the agent (a turn) may be this long


class AgentFailed(CellAborted):
    """An external agent broke the protocol (crashed, hung, wrote garbage): its cell aborts with the
    reason; ``detail`` (its stderr tail) goes into the session's trace."""

    def __init__(self, reason: str, detail: str | None = None) -> None:
        super().__init__(reason)
        self.detail = detail


class AgentProcess:
    """One running agent process (started by :meth:`start`, ended by :meth:`stop`)."""

    def __init__(self, argv: list[str], *, env: Mapping[str, str] | None = None, what: str = "agent process") -> None:
        self.argv, self.what = argv, what
        self.env = {**os.environ, **(env or {})}
        self.proc: asyncio.subprocess.Process | None = None
        self._stderr: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._drain: asyncio.Task[None] | None = None
        self.greeted = False  # its first line was read (a cmd: agent may say hello there)

    async def start(self, *, stdin: bool = True, stdout: bool = True) -> asyncio.subprocess.Process:
        pipe, null = asyncio.subprocess.PIPE, asyncio.subprocess.DEVNULL
        try:
            self.proc = await asyncio.create_subprocess_exec(
                *self.argv, stdin=pipe if stdin else null, stdout=pipe if stdout else null, stderr=pipe,
                env=self.env, limit=LINE_LIMIT, start_new_session=True)  # its own group: stop() ends its children too
        except OSError as e:
            raise AgentFailed(f"{self.what} could not start: {printable(self.argv[0], 80)}: {e.strerror or e}") from None
        self._drain = asyncio.create_task(self._read_stderr())
        return self.proc

    async def _read_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        with contextlib.suppress(Exception):
            while line := await self.proc.stderr.readline():
                self._stderr.append(line.decode("utf-8", "replace").rstrip("\n")[:2000])

    def stderr_tail(self) -> str:
        return "\n".join(self._stderr)

    async def exit_status(self, wait: float = 2.0) -> str:
        """'exited with code N' once the process is gone (waiting up to ``wait`` s), else 'is still running'."""
        if self.proc is None:
            return "never started"
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.proc.wait(), wait)
        if self.proc.returncode is None:
            return "is still running"
        if self._drain is not None:  # its last words are on stderr: read them before reporting
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._drain), 1.0)
        rc = self.proc.returncode
        return f"was killed by signal {-rc}" if rc < 0 else f"exited with code {rc}"

    def fail(self, reason: str) -> AgentFailed:
        tail = self.stderr_tail()
        last = tail.strip().splitlines()[-1] if tail.strip() else ""
        return AgentFailed(f"{self.what}: {reason}" + (f" (stderr: {printable(last, 160)})" if last else ""),
                           detail=tail or None)

    async def stop(self, grace: float = 2.0) -> None:
        """Close its stdin, give it ``grace`` seconds to leave, then end its whole process group."""
        proc = self.proc
        if proc is None:
            return
        if proc.stdin is not None and not proc.stdin.is_closing():
            with contextlib.suppress(Exception):
                proc.stdin.close()
        if proc.returncode is None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(proc.wait(), grace)
        if proc.returncode is None:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, sig)
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(proc.wait(), grace)
                if proc.returncode is not None:
                    break
        if self._drain is not None:
            self._drain.cancel()
            with contextlib.suppress(BaseException):
                await self._drain
        self.proc = None
