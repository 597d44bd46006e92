"""Results as data: a run folder's scorecard as typed objects and as one table.

``load_run(PATH)`` reads ``manifest.json`` and ``scorecard.json`` (nothing is re-scored, no suite is
imported) and gives :class:`LoadedRun`; ``.metric_rows()`` flattens it into one
:class:`MetricRow` per (run, agent, model, variant, metric, breakdown) with its interval, and
``.to_pandas()`` makes that a DataFrame (pandas is optional). ``longview export`` writes the same
rows as CSV, JSON lines or Parquet.

Breakdowns come from a row's ``extra["breakdowns"]``: ``{dimension: {level: {metric: value}}}``
(a suite's convention for its per-group means, e.g. intents by task type; keys that are not
scorecard metrics, such as counts, are left out); they carry no interval.
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from longview.harness.runstore import Manifest
from longview.harness.scorecard import Scorecard, fill_models_json, harness_label, upgrade_json
from longview.kernel.errors import DataError, LongviewError
from longview.kernel.ids import read_json


class MetricRow(BaseModel):
    """One number of a run: a metric of one (agent, variant), overall or in one breakdown group."""

    run: str = Field(description="The run folder.")
    suite: str = Field(description="Suite name.")
    dataset: str = Field(description="Dataset name.")
    agent: str = Field(description="Agent: ref:..., a model (provider/model) or your own agent's name.")
    model: str | None = Field(description="The model under test behind the row (the scorecard row's `model`): the "
                              "agent when it is a model, the model a harness was paired with; None for a reference agent.")
    harness: str | None = Field(default=None, description="An external agent's row: the harness as it reported itself, "
                                "'name version (kind)' (the scorecard row's `harness`); None for reference agents and models.")
    variant: str = Field(description="Variant or condition.")
    metric: str = Field(description="Metric name, as in the scorecard JSON and the report.")
    breakdown: str = Field(description="'' for the overall value, else 'dimension=level'.")
    value: float | None = Field(description="The value; None when undefined (nothing to average).")
    ci_low: float | None = Field(description="95% interval, lower end; None without one.")
    ci_high: float | None = Field(description="95% interval, upper end; None without one.")
    n: int | None = Field(description="Units behind the overall value (None for a breakdown group).")
    n_aborted: int = Field(description="Aborted cells of the row, never scored.")
    n_missing: int = Field(description="Planned units of the row with no finished cell.")
    coverage: str | None = Field(description="How much of the metric was judged ('120/150 judged, 9/11 sessions'), "
                                             "where some item can go unjudged.")
    kind: str | None = Field(description="deterministic or judged.")
    judged_by: str | None = Field(description="The judging component, for judged metrics.")
    seed: int | None = Field(description="The run's --seed.")
    config_hash: str = Field(description="The run's configuration hash: rows with one hash come from one run config.")
    package_version: str = Field(description="longview version that made the run.")


COLUMNS = list(MetricRow.model_fields)


class LoadedRun(BaseModel):
    """A run folder's identity and scorecard, typed."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    path: Path = Field(description="The run folder.")
    manifest: Manifest = Field(description="manifest.json: versions, dataset, configuration, usage.")
    scorecard: Scorecard = Field(description="scorecard.json in the common shape.")

    def metric_rows(self) -> list[MetricRow]:
        """One row per (agent, variant, metric, breakdown)."""
        sc, man = self.scorecard, self.manifest
        out: list[MetricRow] = []
        base: dict[str, Any] = dict(run=str(self.path), suite=sc.suite, dataset=sc.dataset.name, seed=man.config.get("seed"),
                    config_hash=man.config_hash, package_version=man.package_version)
        for row in sc.rows:
            common: dict[str, Any] = dict(base, agent=row.agent, model=row.model, harness=harness_label(row.harness),
                                          variant=row.variant, n_aborted=row.n_aborted, n_missing=row.n_missing)
            for metric, value in row.metrics.items():
                info = sc.metrics.get(metric)
                ci = row.ci95.get(metric)
                cov = row.coverage.get(metric)
                out.append(MetricRow(**common, metric=metric, breakdown="", value=_num(value),
                                     ci_low=ci[0] if ci else None, ci_high=ci[1] if ci else None, n=row.n,
                                     coverage=cov.text() if cov else None, kind=info.kind if info else None,
                                     judged_by=(info.by or None) if info and info.kind == "judged" else None))
            for dimension, levels in _breakdowns(row.extra).items():
                for level, metrics in levels.items():
                    for metric, value in metrics.items():
                        if metric not in sc.metrics:  # a count (n, sessions) beside the means
                            continue
                        out.append(MetricRow(**common, metric=metric, breakdown=f"{dimension}={level}",
                                             value=_num(value), ci_low=None, ci_high=None, n=None, coverage=None,
                                             kind=None, judged_by=None))
        return out

    def to_pandas(self) -> Any:
        """:meth:`metric_rows` as a pandas DataFrame (``pip install pandas``)."""
        return to_pandas([self])


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def _breakdowns(extra: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """``extra["breakdowns"]`` where it has the documented shape; anything else is left out."""
    found = extra.get("breakdowns")
    if not isinstance(found, dict):
        return {}
    return {str(d): {str(lv): m for lv, m in levels.items() if isinstance(m, dict)}
            for d, levels in found.items() if isinstance(levels, dict)}


def load_run(path: str | Path) -> LoadedRun:
    """A run folder written by ``longview run`` (after it was scored)."""
    root = Path(path).expanduser()
    for name in ("manifest.json", "scorecard.json"):
        if not (root / name).is_file():
            raise DataError(str(root), "<run>", name, "a scored run folder written by `longview run` "
                                                      "(`longview show` scores one that has none)")
    try:
        manifest = Manifest.model_validate(read_json(root / "manifest.json"))
        # a scorecard written before the common shape, or before rows carried their model, reads as a current one
        scorecard = Scorecard.model_validate(fill_models_json(upgrade_json(read_json(root / "scorecard.json")),
                                                              manifest.config))
    except ValueError as e:  # pydantic's ValidationError: one line naming the first field
        first = " ".join(str(e).split())[:300]
        raise LongviewError(f"{root}: not a longview run folder of this version ({first})") from None
    return LoadedRun(path=root, manifest=manifest, scorecard=scorecard)


def to_pandas(runs: list[LoadedRun]) -> Any:
    """Every run's metric rows as one pandas DataFrame."""
    try:
        import pandas as pd  # type: ignore[import-untyped]
    except ImportError:
        raise LongviewError("to_pandas needs pandas: pip install pandas") from None
    return pd.DataFrame([r.model_dump() for run in runs for r in run.metric_rows()], columns=COLUMNS)


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet reads as the start of a formula


def csv_cell(value: Any) -> Any:
    """A CSV cell that a spreadsheet shows as text: a string starting like a formula (an agent name,
    a breakdown level or a run path someone else chose) gets a leading apostrophe (OWASP's advice).
    A carriage return becomes a newline: the writer quotes cells holding its line terminator (\\n)
    but not a bare \\r, which readers take as the end of a row, so the rest would start a new one."""
    if value is None:
        return ""
    if isinstance(value, str):
        value = value.replace("\r\n", "\n").replace("\r", "\n")
        return "'" + value if value.startswith(FORMULA_START) else value
    return value


def write_csv(rows: list[MetricRow], target: Path | None) -> str:
    """CSV of ``rows`` (to ``target``, or returned as text when None); text cells that would start a
    spreadsheet formula are neutralised (:func:`csv_cell`)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: csv_cell(v) for k, v in r.model_dump().items()})
    return _emit(buf.getvalue(), target)


def write_jsonl(rows: list[MetricRow], target: Path | None) -> str:
    return _emit("".join(json.dumps(r.model_dump(), ensure_ascii=False) + "\n" for r in rows), target)


def write_parquet(runs: list[LoadedRun], target: Path) -> None:
    try:
        to_pandas(runs).to_parquet(target)
    except ImportError as e:  # pandas present, no parquet engine
        raise LongviewError(f"--parquet needs pandas with pyarrow: pip install pandas pyarrow ({e})") from None


def _emit(text: str, target: Path | None) -> str:
    if target is not None:
        from longview.harness.runstore import atomic_write

        atomic_write(target, text, make_parents=False, redact_secrets=False)
    return text
