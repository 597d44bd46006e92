"""Suite-independent terminal tables: a scorecard's rows, the dry-run plan, model usage per role."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table
from rich.text import Text

from longview.harness.scorecard import harness_label
from longview.kernel.errors import printable

NA = "–"


def fmt_ci(x: float | None, ci: Any) -> str:
    """'0.97 [0.94, 0.99]', the bare value without an interval, '–' when undefined."""
    if x is None:
        return NA
    return f"{x:.2f}" if not ci else f"{x:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]"


def rows_table(sc: Any) -> Table:
    """Every (agent, variant) row with each metric and its interval."""
    data = sc.to_json_dict()
    rows = data["rows"]
    names = list(dict.fromkeys(k for r in rows for k in r["metrics"]))
    t = Table(title=f"{data['suite']} scorecard · {data['dataset']['name']} ({_count(data['dataset'].get('units'), 'unit')}, unit-macro, 95% CI)")
    # A model column only when some row's model is not its agent name (a harness paired with a model).
    models = any(r.get("model") not in (None, r["agent"]) for r in rows)
    t.add_column("Agent")
    if models:
        t.add_column("Model")
    t.add_column("Variant")
    t.add_column("N", justify="right")
    for n in names:
        t.add_column(n, justify="right")
    for r in rows:
        n = str(r["n"]) + (f" (+{r['n_aborted']} aborted)" if r.get("n_aborted") else "")
        model = [r.get("model") or NA] if models else []
        vals = [fmt_ci(r["metrics"].get(k), (r.get("ci95") or {}).get(k)) + fmt_coverage((r.get("coverage") or {}).get(k))
                for k in names]
        t.add_row(agent_cell(r["agent"], r.get("harness")), *model, r["variant"], n, *vals)
    return t


def agent_cell(agent: str, harness: Mapping[str, str] | None) -> str | Text:
    """A row's agent, with an external agent's harness line under it ('name version (kind)', dim):
    what the process said it is, printed as text, never as markup."""
    if label := harness_label(harness):
        return Text(agent + "\n") + Text(printable(label, 200), style="dim")
    return agent


def fmt_coverage(cov: Any) -> str:
    """'\n(120/150 judged, 9/11 sessions)' for a metric with a coverage record, else ''."""
    if not cov:
        return ""
    return f"\n({cov['judged']}/{cov['total']} judged, {cov['units_covered']}/{cov['units_total']} {cov.get('unit', 'sessions')})"


def metric_line(name: str, info: dict[str, Any]) -> str:
    """One metric in a sentence: what it counts, how it is obtained, its direction."""
    how = f"judged by {info.get('by') or 'a judge'}" if info.get("kind") == "judged" else (
        f"computed ({info['by']})" if info.get("by") else "computed")
    direction = "" if info.get("higher_is_better", True) else "; lower is better"
    return f"{name}: {info.get('description', '')} [{how}{direction}]"


def legend(data: dict[str, Any]) -> list[str]:
    """The lines under a scorecard saying what each metric means (`longview explain METRIC` says more),
    from its JSON (``harness.run.scorecard_json``: judged metrics name the components that judged them)."""
    metrics = data.get("metrics") or {}
    if not metrics:
        return []
    return ["metrics (– = undefined; [lo, hi] = 95% interval over units):",
            *(f"  {metric_line(k, v)}" for k, v in metrics.items()),
            "  longview explain METRIC: the long form"]


def plan_table(suite: str, cells: list[Any], estimate: dict[str, tuple[int, int]], model_roles: bool) -> Table:
    """--dry-run: cells per (agent, variant) and estimated calls and input tokens per role (all models)."""
    units = len({c.unit for c in cells})
    t = Table(title=f"Dry run · {suite}: {_count(len(cells), 'cell')} over {_count(units, 'unit')} (nothing is called)")
    t.add_column("agent")
    t.add_column("variant")
    t.add_column("cells", justify="right")
    counts: dict[tuple[str, str], int] = {}
    for c in cells:
        counts[(c.agent, c.variant)] = counts.get((c.agent, c.variant), 0) + 1
    for (a, v), n in counts.items():
        t.add_row(a, v, str(n))
    for role, (calls, tokens) in estimate.items():
        t.add_row(f"estimate · {role}", f"~{calls} calls", f"~{tokens / 1e6:.2f}M input tokens")
    if not estimate:
        t.add_row("estimate", "no model calls" if not model_roles else "no estimate for this suite", "")
    return t


def cost_table(lines: list[Any]) -> Table:
    """--dry-run: estimated calls, input tokens and dollars per (role, model); unpriced models say so."""
    from longview.harness.costs import total

    t = Table(title="Estimated cost (nothing is called)")
    for col in ("role", "model", "calls", "input tok", "USD", "price from"):
        t.add_column(col, justify="right" if col in ("calls", "input tok", "USD") else "left", overflow="fold")
    for line in lines:
        t.add_row(line.role, line.model, f"~{line.calls}", f"~{line.input_tokens / 1e6:.2f}M",
                  "unpriced" if line.usd is None else f"~{line.usd:.2f}", line.source)
    usd, unpriced = total(lines)
    t.add_row("total", "", "", "", f"~{usd:.2f}" + (" + unpriced" if unpriced else ""), "")
    return t


def usage_table(usage: dict[str, Any]) -> Table:
    """Token, cached-token and cost accounting per role (the manifest's `usage` block)."""
    t = Table(title="Model usage (all invocations of this run)")
    for col in ("role", "calls", "retries", "failed", "cache hits", "input tok", "cached tok", "cached share",
                "output tok", "cost USD"):
        t.add_column(col, justify="left" if col == "role" else "right")
    rows = dict(usage.get("roles", {}))
    if usage.get("total"):
        rows["total"] = usage["total"]
    for role, u in rows.items():
        inp = u.get("input_tokens", 0)
        share = u.get("cached_tokens", 0) / inp if inp else 0.0
        cost = f"{u.get('cost_usd', 0.0):.4f}" + ("" if u.get("cost_known", True) else " (unpriced)")
        t.add_row(role, str(u.get("calls", 0)), str(u.get("retries", 0)), str(u.get("failed_calls", 0)),
                  str(u.get("cache_hits", 0)), str(inp), str(u.get("cached_tokens", 0)),
                  f"{share:.0%}", str(u.get("output_tokens", 0)), cost)
    return t


def _count(n: object, noun: str) -> str:
    """``1 unit``, ``20 units``, ``? units`` when unknown."""
    return f"{n} {noun}" if n == 1 else f"{'?' if n is None else n} {noun}s"
