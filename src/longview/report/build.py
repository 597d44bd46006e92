"""`longview report`: load run directories, pair comparable runs, render one HTML file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from longview.harness.runstore import atomic_write
from longview.report.compare import Comparison, compare
from longview.report.data import RunData, load_run, unique_labels
from longview.report.render import render


def load_runs(paths: list[Path]) -> list[RunData]:
    return [load_run(p, label) for p, label in zip(paths, unique_labels(paths), strict=True)]


def auto_comparisons(runs: list[RunData], seed: int = 0) -> list[Comparison]:
    """Exactly two runs of one suite on one dataset are compared, paired over their units."""
    by_key: dict[tuple[str, str], list[RunData]] = {}
    for r in runs:
        by_key.setdefault((r.suite_name, r.scorecard.get("dataset", {}).get("sha256", "")), []).append(r)
    out = []
    for group in by_key.values():
        if len(group) == 2:
            c = compare(group[0], group[1], seed)
            if c.diffs:
                out.append(c)
    return out


def write_report(runs: list[RunData], out: Path, *, title: str | None = None, comparisons: list[Comparison] | None = None,
                 profile: dict[str, Any] | None = None) -> Path:
    if title is None:
        title = "longview report · " + ", ".join(dict.fromkeys(r.suite_name for r in runs))
    text = render(runs, title=title, comparisons=comparisons if comparisons is not None else auto_comparisons(runs),
                  profile=profile)
    # No secret redaction pass here: every text in it comes from files that were redacted when written.
    atomic_write(out, text, redact_secrets=False)
    return out



