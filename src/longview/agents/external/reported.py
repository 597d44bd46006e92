"""What an external harness says it is: its name and version, from a ``cmd:`` agent's hello line or
an MCP client's ``clientInfo``.

A process is started only for a session, so this is learnt while the run goes: the first report
a cell makes is kept in the cell folder (``agent.json``, written by the harness's executor), the
run keeps the first one of each agent label (the manifest's ``harnesses``), and a session whose
process reports something else aborts its cell with the reason — a resume under another version
of the harness is another run, as for a plugin suite whose version changed.
"""

from __future__ import annotations

from longview.agents.external.process import AgentFailed
from longview.kernel.errors import printable

MAX_FIELD = 200  # characters kept of a reported name or version


def mismatch(what: str, got: dict[str, str], want: dict[str, str]) -> str:
    """The reason a cell aborts when its harness is not the one the run's other cells ran."""
    return (f"{what} reports {label(got)}, but this run's cells were made by {label(want)}: another harness "
            "version is another run (use a new --out, or --force to start this run folder over)")


def label(ident: dict[str, str]) -> str:
    return " ".join(x for x in (ident.get("name"), ident.get("version")) if x) or "no name"


class Reports:
    """Mixin for agents whose process introduces itself (:class:`~.stdio.CommandAgent`, :class:`~.mcp.MCPHarnessAgent`)."""

    reported: dict[str, str] | None = None  # what this cell's processes said they are (the first one)
    expected: dict[str, str] | None = None  # what the run's earlier cells recorded (set by the harness)

    def introduce(self, name: object, version: object, what: str) -> None:
        """Record a process's name and version; a different one than the run's (or the cell's first)
        aborts the cell."""
        ident = {"name": printable(str(name or ""), MAX_FIELD), "version": printable(str(version or ""), MAX_FIELD)}
        for want in (self.reported, self.expected):
            if want is not None and want != ident:
                raise AgentFailed(mismatch(what, ident, want))
        self.reported = self.reported or ident
