"""The intents scorecard: PROC and COMP per (agent, variant), persona-macro with cluster CIs, trial
mean and std, intent-status distribution and judge agreement."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Mapping

from longview.harness.scorecard import DatasetInfo, MetricInfo, Scorecard, build_row, row_order
from longview.judges.base import agreement
from longview.suites.intents.metrics import STATUSES, persona_metrics
from longview.suites.intents.records import CellRecord

NAMES = ["proc", "comp", *STATUSES]


def metric_info(judge: str, rubric: str, origin: str) -> dict[str, MetricInfo]:
    proxy = origin != "builtin" and judge.startswith("embedded")
    return {
        "proc": MetricInfo(description="Share of hidden intents completed or elicited (not provided), pooled with "
                           "direct prerequisites; persona mean weighted by dependency-closure size"
                           + (" [imported intents: lexical proxy judge]" if proxy else ""),
                           kind="judged", by=judge),
        "comp": MetricInfo(description="Weighted share of checklist criteria met in any turn (undefined criteria "
                           "left out); persona mean weighted by dependency-closure size",
                           kind="judged" if not rubric.startswith("embedded") else "deterministic",
                           by=f"checks+{rubric}"),
        **{s: MetricInfo(description=f"Share of all hidden intents whose terminal status is {s}", kind="judged",
                         by=judge, higher_is_better=s in ("completed", "elicited")) for s in STATUSES},
    }


def score_cells(results: list[str], ds_name: str, ds_sha: str, units: list[str], seed: int, variants: list[str],
                judge: str, rubric: str, origin: str) -> Scorecard:
    cells = [CellRecord.model_validate_json(r) for r in results]
    groups: dict[tuple[str, str], list[CellRecord]] = defaultdict(list)
    for c in cells:
        groups[(c.agent, c.variant)].append(c)
    rows = []
    for (agent, variant), cs in groups.items():
        scored: dict[str, list[Mapping[str, float | None]]] = defaultdict(list)
        by_trial: dict[int, dict[str, dict]] = defaultdict(dict)
        aborted: dict[str, str] = {}
        pairs: list[tuple[str, bool, bool]] = []
        for c in sorted(cs, key=lambda c: (c.unit, c.trial)):
            if c.status != "complete":
                aborted[f"{c.unit}#{c.trial}" if c.trial else c.unit] = c.abort_reason or "aborted"
                continue
            m = persona_metrics(c)
            scored[c.unit].append(m)
            by_trial[c.trial][c.unit] = m
            for s in c.sessions:
                pairs += [(f"{c.unit}#{c.trial}:{k}", e, mo) for k, e, mo in s.agreement]
        trials = max((len(v) for v in scored.values()), default=0)
        row = build_row(agent, variant, NAMES, scored, aborted=aborted, units_in_dataset=len(units), seed=seed,
                        trials=trials)
        std: dict[str, float | None] = {}
        trial_means: dict[str, list[float]] = {}
        for k in ("proc", "comp"):
            means = []
            for _trial, per_unit in sorted(by_trial.items()):
                vals = [m[k] for m in per_unit.values() if m.get(k) is not None]
                if vals:
                    means.append(sum(vals) / len(vals))
            trial_means[k] = means
            std[k] = statistics.stdev(means) if len(means) >= 2 else None
        row.extra["trial_means"] = trial_means
        row.extra["trial_std"] = std
        if pairs:
            emb = {k: e for k, e, _ in pairs}
            mod = {k: mo for k, _, mo in pairs}
            row.extra["judge_agreement"] = agreement(emb, mod)
        rows.append(row)
    rows.sort(key=lambda r: row_order(r.agent, r.variant, variants))
    return Scorecard(suite="intents", dataset=DatasetInfo(name=ds_name, sha256=ds_sha, units=len(units)),
                     metrics=metric_info(judge, rubric, origin), rows=rows)
