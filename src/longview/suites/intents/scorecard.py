"""The intents scorecard: PROC and COMP per (agent, variant), persona-macro with cluster CIs, trial
mean and std, intent-status distribution, judge agreement, what each metric could judge (coverage,
next to every number), and the paper's breakdowns by task type, category, persona and difficulty."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Mapping

from longview.harness.scorecard import Coverage as RowCoverage
from longview.harness.scorecard import DatasetInfo, MetricInfo, Scorecard, build_row, row_order
from longview.judges.base import agreement
from longview.kernel.stats import macro_mean
from longview.suites.intents.metrics import STATUSES, Coverage, coverage, persona_metrics, scored_sessions
from longview.suites.intents.records import CellRecord

BREAKDOWNS = ("task_type", "category", "difficulty")

NAMES = ["proc", "comp", *STATUSES]


def metric_info(judge: str, rubric: str, origin: str) -> dict[str, MetricInfo]:
    offline = judge.startswith("embedded")
    how = (" Offline, an intent counts as completed only on evidence in the session's tool calls and state: "
           "its deterministic checks, or (imported tasks) a rule-script key that tests it; other intents are not "
           "judged and left out (see coverage)") if offline else ""
    return {
        "proc": MetricInfo(description="Share of hidden intents completed or elicited (not provided), pooled with "
                           "direct prerequisites; persona mean weighted by dependency-closure size." + how,
                           kind="judged", by=judge),
        "comp": MetricInfo(description="Weighted share of checklist criteria met in any turn (criteria nobody could "
                           "judge left out, see coverage); persona mean weighted by dependency-closure size",
                           kind="judged" if not rubric.startswith("embedded") else "deterministic",
                           by=f"checks+rules+{rubric}"),
        **{s: MetricInfo(description=f"Share of the judged hidden intents whose terminal status is {s}", kind="judged",
                         by=judge, higher_is_better=s in ("completed", "elicited")) for s in STATUSES},
    }


def _row_coverage(covs: list[dict[str, Coverage]]) -> dict[str, RowCoverage]:
    out: dict[str, RowCoverage] = {}
    for name in ("proc", "comp", *STATUSES):
        total = Coverage()
        for c in covs:
            total.add(c[name])
        out[name] = RowCoverage(judged=total.judged, total=total.total, units_covered=len(total.sessions),
                                units_total=total.of_sessions)
    return out


def _breakdowns(cells: list[CellRecord]) -> dict[str, dict[str, dict[str, float | int | None]]]:
    """key (task_type, category, difficulty, persona) -> value -> PROC, COMP (persona-macro over the
    cells that have sessions of that value) and how many scored sessions it holds."""
    out: dict[str, dict[str, dict[str, float | int | None]]] = {}
    for key in (*BREAKDOWNS, "persona"):
        groups: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        for c in cells:
            for r in scored_sessions(c):
                value = c.unit if key == "persona" else r.tags.get(key, "") or "unlabelled"
                groups[value][f"{c.unit}#{c.trial}"].add(r.session_id)
        table: dict[str, dict[str, float | int | None]] = {}
        for value, members in sorted(groups.items()):
            per_unit: dict[str, list[dict[str, float | None]]] = defaultdict(list)
            for c in cells:
                ids = members.get(f"{c.unit}#{c.trial}")
                if ids:
                    per_unit[c.unit].append(persona_metrics(c, only=ids))
            row: dict[str, float | int | None] = {"sessions": sum(len(v) for v in members.values())}
            for m in ("proc", "comp"):
                row[m] = macro_mean({u: macro_mean({str(i): x[m] for i, x in enumerate(xs)})
                                     for u, xs in per_unit.items()})
            table[value] = row
        out[key] = table
    return out


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
        covs: list[dict[str, Coverage]] = []
        complete: list[CellRecord] = []
        missing = rule_errors = 0
        not_run = sorted({c.not_run for c in cs if c.not_run})
        for c in sorted(cs, key=lambda c: (c.unit, c.trial)):
            if c.not_run:
                continue
            if c.status != "complete":
                aborted[f"{c.unit}#{c.trial}" if c.trial else c.unit] = c.abort_reason or "aborted"
                continue
            m = persona_metrics(c)
            complete.append(c)
            covs.append(coverage(c))
            missing += sum(s.judge_missing for s in c.sessions)
            rule_errors += sum(len(s.rule_errors) for s in c.sessions)
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
        row.coverage = _row_coverage(covs) if covs else {}
        row.extra["judge_missing"] = missing
        row.extra["rule_errors"] = rule_errors
        row.extra["same_sessions"] = same_sessions(covs)
        row.extra["breakdowns"] = _breakdowns(complete)
        if not_run:
            row.extra["not_run"] = not_run[0]
        if pairs:
            emb = {k: e for k, e, _ in pairs}
            mod = {k: mo for k, _, mo in pairs}
            row.extra["judge_agreement"] = agreement(emb, mod)
        rows.append(row)
    rows.sort(key=lambda r: row_order(r.agent, r.variant, variants))
    return Scorecard(suite="intents", dataset=DatasetInfo(name=ds_name, sha256=ds_sha, units=len(units)),
                     metrics=metric_info(judge, rubric, origin), rows=rows)


def same_sessions(covs: list[dict[str, Coverage]]) -> dict[str, object]:
    """Whether PROC and COMP average over the same sessions, and if not, which each covers alone."""
    proc = {s for c in covs for s in c["proc"].sessions}
    comp = {s for c in covs for s in c["comp"].sessions}
    return {"same": proc == comp, "proc_only": sorted(proc - comp), "comp_only": sorted(comp - proc)}


def scorecard_notes(sc: Scorecard) -> list[str]:
    """What a reader must know next to the numbers: unjudged items, judge omissions, bounds."""
    notes: list[str] = []
    for r in sc.rows:
        if r.extra.get("not_run"):
            notes.append(f"{r.agent}: not run — {r.extra['not_run']}.")
    if sc.dataset.name.startswith("pibench:") and sc.row("ref:oracle", "default") is not None:
        notes.append("ref:oracle on imported tasks is the rule-guided ceiling: it makes the calls the task's rule "
                     "script rewards (searched offline) and is scored only on rule criteria and the intents they "
                     "test; tasks without a rule script, and tasks whose rule keys its search does not all reach on "
                     "rehearsal ('no ceiling found'), have no ceiling here (built-in data bounds them).")
    partial = [k for k in ("proc", "comp") if any(
        (c := r.coverage.get(k)) is not None and (c.judged < c.total or c.units_covered < c.units_total)
        for r in sc.rows)]
    if partial:
        notes.append(f"{' and '.join(m.upper() for m in partial)} left out items nothing here could judge (no "
                     "deterministic check, no rule-script key that tests them, no judge model): each number is "
                     "over the items and sessions its coverage names; run with --judge-model to judge the rest.")
    if any(not r.extra.get("same_sessions", {}).get("same", True) for r in sc.rows):
        notes.append("PROC and COMP average over different sessions in some rows (extra.same_sessions lists them).")
    missing = sum(int(r.extra.get("judge_missing", 0)) for r in sc.rows)
    if missing:
        notes.append(f"The judge model left out or garbled {missing} item verdict(s); each counted NO, as π-Bench's "
                     "evaluator does (extra.judge_missing per row; reasons on each criterion).")
    return notes


def breakdown_table(sc: Scorecard):
    """PROC / COMP by task type, category, difficulty and persona for the model rows (reference
    rows' breakdowns are in the JSON); None when there is no model row."""
    from rich.table import Table

    from longview.harness.terminal.tables import NA

    rows = [r for r in sc.rows if not r.agent.startswith("ref:") and r.extra.get("breakdowns")]
    if not rows:
        return None
    t = Table(title="intents breakdowns (π-Bench F.3): PROC / COMP by task type, category, difficulty, persona")
    for col in ("agent", "variant", "by", "value", "sessions", "PROC", "COMP"):
        t.add_column(col)
    for r in rows:
        for key, table in r.extra["breakdowns"].items():
            for value, m in table.items():
                t.add_row(r.agent, r.variant, key, value, str(m.get("sessions", 0)),
                          *(NA if m.get(k) is None else f"{m[k]:.2f}" for k in ("proc", "comp")))
    return t
