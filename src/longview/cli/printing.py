"""What `run`, `show` and `rescore` print after a run: the scorecard, its legend and notes, usage,
damaged files and aborted cells."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from longview.harness.terminal.console import console, err
from longview.kernel.errors import printable


def print_outcome(result: Any, usage: dict) -> None:
    """Damaged files found, aborted cells grouped by reason, retries per role: never silent."""
    for where, note in result.notes.items():
        err.print(Text(f"note: {printable(where)}: {printable(note, 300)}"), highlight=False)
    if result.aborted:
        reasons: dict[str, list[str]] = {}
        for cell, reason in result.aborted:
            reasons.setdefault(reason, []).append(cell)
        err.print(Text(f"{len(result.aborted)} of {result.planned} cells aborted:"), highlight=False)
        for reason, cells in sorted(reasons.items(), key=lambda kv: -len(kv[1])):
            err.print(Text(f"  {len(cells)} × {printable(reason, 300)} (e.g. {printable(cells[0])})"), highlight=False)
    retries = {r: u.get("retries", 0) for r, u in (usage.get("roles") or {}).items() if u.get("retries")}
    failed = {r: u.get("failed_calls", 0) for r, u in (usage.get("roles") or {}).items() if u.get("failed_calls")}
    parts = [f"{label}: " + ", ".join(f"{r} {n}" for r, n in counts.items())
             for label, counts in (("model retries", retries), ("calls failed for good", failed)) if counts]
    if parts:
        err.print(Text("; ".join(parts)), highlight=False)
    from longview.kernel.models.usage import usage_notes

    for note in usage_notes(usage):
        err.print(Text(f"note: {note}"), highlight=False)


def print_scorecard(suite: Any, sc: Any, manifest: Any) -> None:
    from longview.harness.run import scorecard_json
    from longview.harness.terminal.fit import print_tables
    from longview.harness.terminal.tables import legend, usage_table

    print_tables(console, *suite.tables(sc))
    for line in legend(scorecard_json(sc, manifest)):
        console.print(line, highlight=False, markup=False)
    for note in suite.notes(sc, manifest.components):
        console.print(f"note: {note}", highlight=False, markup=False)
    if manifest.usage.get("roles"):
        print_tables(console, usage_table(manifest.usage))
