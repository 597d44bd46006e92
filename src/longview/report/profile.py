"""`longview profile --model M`: every registered suite on one model, with the suite's reference
agents beside it on the same units, read as one proactivity profile — each suite's headline metric
with its interval, placed between that suite's reference floor and ceiling, with a one-line reading.

What a suite contributes is its ``profile`` (a :class:`~longview.harness.suite.ProfileSpec`):
headline metric and variant, how many units ``--quick`` runs, and the reading. Suites that declare
nothing get the defaults (the scorecard's first metric, the first model variant, 3 units).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from longview.harness import registry
from longview.harness.options import RunConfig
from longview.harness.runstore import safe_name
from longview.harness.suite import AnySuite, ProfileSpec
from longview.kernel.errors import LongviewError
from longview.report.data import RunData
from longview.report.hooks import profile_spec
from longview.report.plots import bounds


@dataclass
class Planned:
    suite: AnySuite
    spec: ProfileSpec
    cfg: RunConfig


def default_out(model: str, quick: bool) -> Path:
    return Path("runs") / f"profile-{safe_name(model)}{'-quick' if quick else ''}"


def plan(model: str, *, quick: bool, out: Path, suites: list[str] | None = None, seed: int = 0,
         max_concurrency: int = 4, api_base: str | None = None, no_cache: bool = False, force: bool = False,
         max_turns: int | None = None, units: int | None = None) -> tuple[list[Planned], list[tuple[str, str]]]:
    """One run config per suite (reference agents + the model, defaults, quick units if asked),
    and the suites that could not be loaded, with why."""
    if "/" not in model:
        raise LongviewError(f"--model '{model}': expected provider/model, e.g. openai/gpt-5.4 or mock/echo")
    if units is not None and units < 1:  # as `run --units`: 0 must not mean "every unit"
        raise LongviewError(f"--units must be at least 1, got {units}")
    names = suites or list(registry.available())
    planned, skipped = [], []
    for name in names:
        try:
            suite = registry.load(name)
        except LongviewError as e:
            if suites:  # asked for by name: an error, not a skip
                raise
            skipped.append((name, str(e)))
            continue
        spec = profile_spec(suite)
        extra: dict[str, Any] = {"max_turns": suite.default_max_turns if max_turns is None else max_turns}
        cfg = RunConfig(suite=name, agents=["reference"] if suite.reference_agents else [], models=[model],
                        units=units or (spec.quick_units if quick else None),
                        suite_options=dict(spec.quick_options) if quick else {}, out=out / name, resume=True,
                        force=force, seed=seed, max_concurrency=max_concurrency, api_base=api_base,
                        no_cache=no_cache, **extra)
        planned.append(Planned(suite, spec, cfg))
    return planned, skipped


def _num(x: Any) -> float | None:
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def headline(run: RunData | None, suite: AnySuite, spec: ProfileSpec, model: str, note: str = "") -> dict[str, Any]:
    """The profile line of one suite: the model's headline value and where it sits between the
    reference floor and ceiling."""
    label = spec.label or suite.name
    line: dict[str, Any] = {"suite": suite.name, "label": label, "metric": spec.metric or "?", "reading": note}
    if run is None:
        return line
    sc = run.scorecard
    metric = spec.metric or next(iter(sc.get("metrics") or {}), None) or next(
        (k for r in sc.get("rows", []) for k in r.get("metrics", {})), "?")
    variant = spec.variant or (suite.model_variants[0] if suite.model_variants else None)
    line["metric"] = f"{metric} · {variant}" if variant else metric
    rows = sc.get("rows", [])
    mine = [r for r in rows if r["agent"] == model]
    row = next((r for r in mine if r["variant"] == variant), mine[0] if mine else None)
    if row is not None and row["variant"] != variant:  # the model ran another variant: name the one read
        line["metric"] = f"{metric} · {row['variant']}"
    hib = (sc.get("metrics") or {}).get(metric, {}).get("higher_is_better", True)
    refs = [{"value": _num(r["metrics"].get(metric)), "agent": f"{r['agent']} · {r['variant']}", "ref": True}
            for r in rows if r["agent"] in suite.reference_agents or r["agent"].startswith("ref:")]
    floor, ceiling = bounds(refs, hib)
    line.update(floor=floor and floor["value"], ceiling=ceiling and ceiling["value"],
                floor_agent=floor and floor["agent"], ceiling_agent=ceiling and ceiling["agent"])
    value = _num(row["metrics"].get(metric)) if row else None
    if value is None or row is None:  # row is None implies value is None; spelled out for the type checker
        why = "no scored cell"
        if row and row.get("abort_reasons"):
            why = f"{row.get('n_aborted', 0)} cell(s) aborted: {next(iter(row['abort_reasons'].values()))[:160]}"
        line["reading"] = f"{spec.reading + '. ' if spec.reading else ''}No value for {model}: {why}."
        return line
    ci = (row.get("ci95") or {}).get(metric)
    line.update(value=value, ci95=ci)
    text = spec.reading or f"{metric}: {(sc.get('metrics') or {}).get(metric, {}).get('description', '')}"
    if floor is not None and ceiling is not None:
        span = ceiling["value"] - floor["value"]
        pos = (value - floor["value"]) / span
        line["pos"] = pos
        if ci:
            a, b = (ci[0] - floor["value"]) / span, (ci[1] - floor["value"]) / span
            line["pos_lo"], line["pos_hi"] = min(a, b), max(a, b)
        text += f" — {value:.2f}, {pos:.0%} of the way from the reference floor ({floor['value']:.2f}) to the ceiling ({ceiling['value']:.2f})."
    else:
        text += f" — {value:.2f} (the reference agents do not bound this metric)."
    quoted = []
    for k in spec.also:
        x = _num(row["metrics"].get(k))
        if x is not None:
            c = (row.get("ci95") or {}).get(k)
            quoted.append(f"{k} {x:.2f}" + (f" [{c[0]:.2f}, {c[1]:.2f}]" if c else ""))
    if quoted:
        text += " Also: " + "; ".join(quoted) + "."
    line["reading"] = text
    return line


def profile_data(model: str, planned: list[Planned], runs: dict[str, RunData], skipped: list[tuple[str, str]],
                 quick: bool) -> dict[str, Any]:
    lines = [headline(runs.get(p.suite.name), p.suite, p.spec, model) for p in planned]
    for name, why in skipped:
        lines.append({"suite": name, "label": name, "metric": "–", "reading": f"not run: {why}"})
    units = ", ".join(f"{p.suite.name} {p.cfg.units}" for p in planned if p.cfg.units)
    return {"model": model, "lines": lines, "quick": quick, "quick_note": f"units per suite: {units}"}
