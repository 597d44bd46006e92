"""One self-contained HTML file from loaded runs: tables are rendered here, plots are Vega-Lite
specs drawn in the browser by the vendored vega/vega-lite, and transcripts travel gzip-compressed
per cell (base64) and are decompressed only when opened (DecompressionStream).

Nothing is fetched: scripts, styles and data are inline, and the page uses no font but the system's.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import html
import json
import re
from importlib import resources
from typing import Any

from longview._version import __version__
from longview.harness.harnesses import describe
from longview.report import plots
from longview.report.compare import Comparison
from longview.report.data import RunData, per_unit
from longview.report.hooks import report_sections

NA = "–"


def esc(x: Any) -> str:
    return html.escape("" if x is None else str(x), quote=True)


def fnum(x: Any, digits: int = 2) -> str:
    if x is None:
        return NA
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return esc(x)
    return f"{x:.{digits}f}" if isinstance(x, float) else str(x)


def _real(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def fci(x: Any, ci: Any) -> str:
    """A value and its interval; what is not a number (a damaged scorecard) is shown as text."""
    if not _real(x):
        return fnum(x)
    if not (isinstance(ci, (list, tuple)) and len(ci) == 2 and all(_real(c) for c in ci)):
        return f"{x:.2f}"
    return f'{x:.2f} <span class="ci">[{ci[0]:.2f}, {ci[1]:.2f}]</span>'


def attr_json(obj: Any) -> str:
    return esc(json.dumps(obj, separators=(",", ":")))


def table(columns: list[str], rows: list[list[str]], cls: str = "", titles: list[str] | None = None) -> str:
    """Cells are HTML already (escape text with esc())."""
    head = "".join(f'<th title="{esc(titles[i])}">{esc(c)}</th>' if titles and titles[i] else f"<th>{esc(c)}</th>"
                   for i, c in enumerate(columns))
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _script_json(obj: Any) -> str:
    """JSON for a ``<script type="application/json">`` block: ``<``, ``>`` and ``&`` only ever occur
    inside JSON strings, where their ``\\u`` escapes parse to the same text, so no value can close
    the block (``</script>``) or open an HTML comment (``<!--``)."""
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _asset(name: str) -> str:
    text = (resources.files("longview.report") / "assets" / name).read_text(encoding="utf-8")
    text = re.sub(r"//# sourceMappingURL=\S+", "", text)
    return text.replace("</script", "<\\/script")


class Page:
    """Accumulates the page's sections, plots and the session index while rendering."""

    def __init__(self, runs: list[RunData]) -> None:
        self.runs = runs
        self.plots: dict[str, Any] = {}
        self.cells: list[list[Any]] = []
        self.cell_index: dict[tuple[int, str], int] = {}
        self.sessions: list[list[Any]] = []
        self.tools: dict[str, int] = {}
        self.chunks: dict[str, str] = {}
        for ri, run in enumerate(runs):
            for name, c in run.cells.items():
                self.cell_index[(ri, name)] = len(self.cells)
                self.cells.append([ri, name, c.agent, c.variant, c.unit, c.status, c.abort_reason])
            for s in run.sessions:
                ci = self.cell_index[(ri, s.cell)]
                tools = [self.tools.setdefault(t, len(self.tools)) for t in s.tools]
                self.sessions.append([ci, s.sid, s.phase, s.outcome, s.turns, s.end, tools, s.first, s.start, s.stop,
                                      s.labels, s.reason])
            for name, texts in run.texts.items():
                raw = json.dumps(texts, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
                blob = gzip.compress(raw, compresslevel=6, mtime=0)
                self.chunks[str(self.cell_index[(ri, name)])] = base64.b64encode(blob).decode("ascii")

    def plot(self, spec: dict[str, Any]) -> str:
        pid = f"p{len(self.plots)}"
        self.plots[pid] = spec
        return f'<div class="plot" data-plot="{pid}"></div>'


def open_link(text: str, filt: dict[str, Any], cls: str = "flt") -> str:
    return f'<a href="#sessions" class="{cls}" data-filter="{attr_json(filt)}">{text}</a>'


def session_link(page: Page, ri: int, cell: str, sid: str, text: str, cls: str = "chip fail") -> str:
    ci = page.cell_index.get((ri, cell))
    if ci is None:
        return esc(text)
    return f'<a href="#sessions" class="{cls}" data-open="{ci}|{esc(sid)}">{esc(text)}</a>'


# ---------------------------------------------------------------- per-suite sections


def _row_label(run: RunData, row: dict[str, Any], multi: bool) -> str:
    base = f"{row['agent']} · {row['variant']}"
    return f"{base} ({run.label})" if multi else base


def _extra(row: dict[str, Any]) -> dict[str, Any]:
    extra = row.get("extra")
    return extra if isinstance(extra, dict) else {}


def _scalar_extras(rows: list[dict[str, Any]]) -> list[str]:
    """Suite-specific numeric row fields (``extra``) shown beside the metrics (e.g. atr's gap, gap_rec)."""
    keys: dict[str, None] = {}
    for r in rows:
        for k, v in _extra(r).items():
            if v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)):
                keys[k] = None
    return [k for k in keys if any(_extra(r).get(k) is not None for r in rows)]


def _numeric_maps(obj: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], dict, dict | None]]:
    """(path, name -> number, name -> count) for every mapping of numbers nested in a row's own
    fields (atr: breakdown.by_domain with breakdown.n_by_domain; tsacc_pass_k)."""
    out: list[tuple[tuple[str, ...], dict, dict | None]] = []
    if not isinstance(obj, dict):
        return out
    for k, v in obj.items():
        if not isinstance(v, dict) or not v or k.startswith("n_"):
            continue
        if all(x is None or (isinstance(x, (int, float)) and not isinstance(x, bool)) for x in v.values()):
            counts = obj.get(f"n_{k}")
            out.append(((*path, k), v, counts if isinstance(counts, dict) else None))
        else:
            out += _numeric_maps(v, (*path, k))
    return out


def _row_maps(row: dict[str, Any]) -> list[tuple[tuple[str, ...], dict, dict | None]]:
    return _numeric_maps(_extra(row), ("extra",))


def suite_section(page: Page, suite: str, members: list[int], comparisons: list[Comparison]) -> str:
    runs = [page.runs[i] for i in members]
    multi = len(runs) > 1
    entries = [(ri, page.runs[ri], row) for ri in members for row in page.runs[ri].rows()]
    sc0 = runs[0].scorecard
    metrics_info: dict[str, Any] = {}
    for r in runs:
        metrics_info.update(r.scorecard.get("metrics") or {})
    names = list(dict.fromkeys([*metrics_info, *(k for _, _, row in entries for k in row.get("metrics", {}))]))
    suite_obj = next((r.suite for r in runs if r.suite is not None), None)
    summary = getattr(suite_obj, "summary", "") if suite_obj else "(suite not installed here: generic view)"
    out = [f'<section class="suite" id="suite-{esc(suite)}"><h2>{esc(suite)}</h2><p class="note">{esc(summary)}</p>']
    ds = sc0.get("dataset", {})
    out.append(f'<p class="note">Dataset <b>{esc(ds.get("name"))}</b> · sha256 <code>{esc(str(ds.get("sha256", ""))[:12])}</code> · '
               f'{esc(ds.get("units", "?"))} units · runs: {esc(", ".join(r.label for r in runs))}. '
               'Unit-macro means with cluster-bootstrap 95% intervals over units.</p>')

    # scorecard
    extras = _scalar_extras([row for _, _, row in entries])
    cols = (["Run"] if multi else []) + ["Agent", "Variant", "N"] + names + extras
    titles = ([""] if multi else []) + ["", "", "units scored (+aborted cells, −units missing)"]
    for n in names:
        info = metrics_info.get(n, {})
        judged_by = f" · judged by {info.get('by')}" if info.get("kind") == "judged" else ""
        titles.append(f"{info.get('description', '')}{judged_by}")
    titles += [""] * len(extras)
    body = []
    for ri, run, row in entries:
        filt = {"run": ri, "agent": row["agent"], "variant": row["variant"]}
        n = esc(row.get("n", 0))
        if row.get("n_aborted"):
            n += f' <span class="bad">+{esc(row["n_aborted"])} aborted</span>'
        if row.get("n_missing"):
            n += f' <span class="note">−{esc(row["n_missing"])} missing</span>'
        who = open_link(esc(row["agent"]), filt)
        if isinstance(row.get("harness"), dict):  # an external agent: what it said it is
            who += f'<br><span class="note">harness: {esc(describe(row["harness"]))}</span>'
        cells = ([esc(run.label)] if multi else []) + [who, esc(row["variant"]), n]
        cells += [fci(row.get("metrics", {}).get(k), (row.get("ci95") or {}).get(k))
                  + _coverage_note((row.get("coverage") or {}).get(k)) for k in names]
        cells += [fnum(_extra(row).get(k)) for k in extras]
        body.append(cells)
    out.append("<h3>Scorecard</h3>" + table(cols, body, "score", titles))
    judged = [k for k in names if metrics_info.get(k, {}).get("kind") == "judged"]
    if judged:
        who = ", ".join(f"{k} (by {metrics_info[k].get('by') or '?'})" for k in judged)
        out.append(f'<p class="note">Judged metrics: {esc(who)}; the others are computed deterministically from the records.</p>')

    # forest plots
    declared = list(getattr(suite_obj, "variants", {}) or {})
    seen = list(dict.fromkeys(row["variant"] for _, _, row in entries))
    suite_variants = [v for v in declared if v in seen] + [v for v in seen if v not in declared]
    figs = []
    for k in names:
        pts = []
        for _, run, row in entries:
            v = row.get("metrics", {}).get(k)
            ci = (row.get("ci95") or {}).get(k)
            pts.append({"label": _row_label(run, row, multi), "variant": row["variant"], "agent": row["agent"],
                        "value": v, "lo": ci[0] if ci else v, "hi": ci[1] if ci else v,
                        "n": row.get("n", 0), "ref": row["agent"].startswith("ref:")})
        if any(p["value"] is not None for p in pts):
            hib = metrics_info.get(k, {}).get("higher_is_better", True)
            figs.append(page.plot(plots.forest(k, pts, higher_is_better=hib, variants=suite_variants)))
    if figs:
        out.append('<h3>Metrics with 95% intervals</h3><p class="note">Squares are reference agents, circles models; '
                   'dashed rules mark the reference floor and ceiling of each metric.</p><div class="plots">'
                   + "".join(figs) + "</div>")

    # suite sections (the paper's tables) or a generic model × variant pivot
    extra_sections = report_sections(suite_obj, sc0) if len(runs) == 1 else report_sections(
        suite_obj, {**sc0, "rows": [row for _, _, row in entries]})
    for s in extra_sections:
        # Numbers as the suite rounded them (a paper prints 33.8 and 0.19 side by side).
        rows = [[esc(round(c, 4)) if isinstance(c, float) else esc(NA if c is None else c) for c in r] for r in s.rows]
        block = f'<h3>{esc(s.title)}</h3><p class="note">{esc(s.note)}</p>'
        if s.columns:
            block += table(s.columns, rows, "paper")
        if s.vega_lite:
            block += page.plot(s.vega_lite)
        out.append(block)
    variants = list(dict.fromkeys(row["variant"] for _, _, row in entries))
    if not extra_sections and len(variants) > 1:
        out.append(_pivot(entries, names, variants, multi))

    # breakdowns
    out.append(_breakdowns(page, entries, multi))
    # per unit
    out.append(_per_unit(page, entries, names, multi))
    # comparisons of this suite
    for c in comparisons:
        out.append(comparison_section(page, c))
    # aborted, identity, usage
    out.append(_aborted(page, members))
    for ri in members:
        out.append(_identity(page.runs[ri], metrics_info))
    out.append("</section>")
    return "".join(out)


def _pivot(entries: list, names: list[str], variants: list[str], multi: bool) -> str:
    groups: dict[str, dict[str, dict]] = {}
    for _, run, row in entries:
        g = row.get("group") or row["agent"]
        groups.setdefault(f"{g} ({run.label})" if multi else g, {})[row["variant"]] = row
    cols = [(k, v) for k in names for v in variants if any(k in (g.get(v) or {}).get("metrics", {}) and
                                                          (g.get(v) or {})["metrics"].get(k) is not None
                                                          for g in groups.values())]
    body = [[esc(g)] + [fnum(((rows.get(v) or {}).get("metrics") or {}).get(k)) for k, v in cols]
            for g, rows in groups.items()]
    return ('<h3>By agent and variant</h3><p class="note">One line per agent (or group); one column per metric and variant.</p>'
            + table(["Agent"] + [f"{k} · {v}" for k, v in cols], body, "paper"))


def _breakdowns(page: Page, entries: list, multi: bool) -> str:
    maps: dict[tuple[str, ...], list] = {}
    for ri, run, row in entries:
        for path, values, counts in _row_maps(row):
            maps.setdefault(path, []).append((ri, run, row, values, counts))
    if not maps:
        return ""
    out = ['<h3>Breakdowns</h3><p class="note">Suite-specific breakdowns from the scorecard (n in parentheses where '
           'given). Click a value to list that bucket\'s failed sessions and open the first transcript.</p>']
    labelled = {(s.agent, s.variant, v) for run in page.runs for s in run.sessions for v in s.labels.values()}
    for path, items in maps.items():
        keys = list(dict.fromkeys(k for *_, values, _ in items for k in values))
        body = []
        for ri, run, row, values, counts in items:
            cells = [esc(_row_label(run, row, multi))]
            for k in keys:
                v = values.get(k)
                text = fnum(v) + (f' <span class="note">({esc(counts.get(k, 0))})</span>' if counts else "")
                if v is not None and (row["agent"], row["variant"], k) in labelled:
                    text = open_link(text, {"run": ri, "agent": row["agent"], "variant": row["variant"], "label": k,
                                            "outcome": "fail", "open": True})
                cells.append(text)
            body.append(cells)
        out.append(f'<h4>{esc(".".join(path))}</h4>' + table(["Row", *keys], body, "breakdown"))
    return "".join(out)


def _per_unit(page: Page, entries: list, names: list[str], multi: bool) -> str:
    by_key: dict[tuple, list] = {}
    for ri, run in enumerate(page.runs):
        for s in run.sessions:
            by_key.setdefault((ri, s.agent, s.variant, s.unit), []).append(s)
    out = ['<h3>Per unit</h3><p class="note">Each unit\'s metrics (trials averaged); red chips are failed sessions — '
           'click one to read its transcript.</p>']
    for ri, run, row in entries:
        units = per_unit(row)
        if not units:
            continue
        body = []
        for unit, m in units.items():
            sess = by_key.get((ri, row["agent"], row["variant"], unit), [])
            failed = [s for s in sess if s.outcome == "fail"]
            chips = " ".join(session_link(page, ri, s.cell, s.sid, s.sid) for s in failed[:30])
            if len(failed) > 30:
                chips += f' <span class="note">+{len(failed) - 30} more</span>'
            every = open_link(f"{len(sess)} sessions", {"run": ri, "agent": row["agent"], "variant": row["variant"],
                                                        "unit": unit}) if sess else NA
            body.append([esc(unit), *[fnum((m or {}).get(k)) for k in names], every, chips or NA])
        out.append(f'<details><summary>{esc(_row_label(run, row, multi))} · {len(units)} units</summary>'
                   + table(["Unit", *names, "Sessions", "Failed sessions"], body, "units") + "</details>")
    return "".join(out)


def _aborted(page: Page, members: list[int]) -> str:
    body = []
    for ri in members:
        run = page.runs[ri]
        for c in run.cells.values():
            if c.status == "aborted":
                body.append([esc(run.label), esc(c.agent), esc(c.variant), esc(c.unit), esc(c.trial),
                             f'<span class="bad">{esc(c.abort_reason or "unknown")}</span>'])
        if not any(c.status == "aborted" for c in run.cells.values()):
            for row in run.rows():
                for unit, reason in (row.get("abort_reasons") or {}).items():
                    body.append([esc(run.label), esc(row["agent"]), esc(row["variant"]), esc(unit), "", esc(reason)])
    unfinished = sum(1 for ri in members for c in page.runs[ri].cells.values() if c.status == "unfinished")
    text = "<h3>Aborted cells</h3>"
    if not body:
        text += '<p class="note">None: every cell finished and was scored.</p>'
    else:
        text += ('<p class="note">Aborted cells are recorded with their reason and excluded from every mean.</p>'
                 + table(["Run", "Agent", "Variant", "Unit", "Trial", "Reason"], body, "aborted"))
    if unfinished:
        text += f'<p class="bad">{unfinished} cell(s) have not finished (no completion marker); they are not scored.</p>'
    return text


def _kv(items: list[tuple[str, Any]]) -> str:
    return table(["", ""], [[esc(k), esc(v)] for k, v in items], "kv")


def _identity(run: RunData, metrics_info: dict[str, Any]) -> str:
    m, card = run.manifest, run.scorecard.get("run", {})
    cfg = m.get("config", {})
    items: list[tuple[str, Any]] = [
        ("run directory", str(run.path)), ("suite", run.suite_name),
        ("longview version", m.get("package_version") or card.get("package_version")),
        ("git commit", m.get("git_commit") or card.get("git_commit") or "unknown"),
        ("created (UTC)", m.get("created")),
        ("dataset", f"{m.get('dataset', {}).get('name')} · sha256 {m.get('dataset', {}).get('sha256')}"),
        ("config hash", m.get("config_hash") or card.get("config_hash")),
        ("seed", cfg.get("seed", card.get("seed"))), ("max turns", cfg.get("max_turns")),
        ("cells", f"{len(run.cells)} ({sum(c.status == 'complete' for c in run.cells.values())} complete, "
                  f"{sum(c.status == 'aborted' for c in run.cells.values())} aborted) · {len(run.sessions)} sessions"),
        ("models", json.dumps(cfg.get("models", {}), sort_keys=True)),
        ("generation parameters", json.dumps(cfg.get("role_params", {}), sort_keys=True)),
        ("suite options", json.dumps(cfg.get("options", {}), sort_keys=True)),
        ("prompts sha256", card.get("prompts_sha256") or ""),
    ]
    items += [(f"component · {k}", v) for k, v in (m.get("components") or card.get("components") or {}).items()]
    metric_rows = [[esc(k), esc(v.get("description", "")), esc(v.get("kind", "")), esc(v.get("by", "")),
                    "higher" if v.get("higher_is_better", True) else "lower"] for k, v in metrics_info.items()]
    usage = m.get("usage") or {}
    urows = []
    for role, u in {**usage.get("roles", {}), **({"total": usage["total"]} if usage.get("total") else {})}.items():
        inp = u.get("input_tokens", 0)
        share = f"{u.get('cached_tokens', 0) / inp:.0%}" if inp else NA
        cost = f"{u.get('cost_usd', 0.0):.4f}" + ("" if u.get("cost_known", True) else " (unpriced)")
        urows.append([esc(role), esc(u.get("calls", 0)), esc(u.get("cache_hits", 0)), esc(inp),
                      esc(u.get("cached_tokens", 0)), share, esc(u.get("output_tokens", 0)), esc(cost)])
    notes = "".join(f'<p class="note">Note: {esc(n)}</p>' for n in run.notes[:5])
    return (f'<details class="identity"><summary>Run identity, metrics and usage · {esc(run.label)}</summary>'
            + _kv(items)
            + ("<h4>Metrics</h4>" + table(["Metric", "What it counts", "Kind", "Judged by", "Better"], metric_rows, "metrics")
               if metric_rows else "")
            + "<h4>Model usage per role</h4>"
            + (table(["Role", "Calls", "Cache hits", "Input tok", "Cached tok", "Cached share", "Output tok", "Cost USD"],
                     urows, "usage") if urows else '<p class="note">No model was called (scripted agents and embedded components only).</p>')
            + notes + "</details>")


# ---------------------------------------------------------------- comparison and profile


def comparison_section(page: Page, c: Comparison) -> str:
    def f(x: float | None, sign: bool = False) -> str:
        return NA if x is None else (f"{x:+.3f}" if sign else f"{x:.3f}")

    body = []
    for d in c.diffs:
        ci = NA if d.ci95 is None else f"[{d.ci95[0]:+.3f}, {d.ci95[1]:+.3f}]"
        cls = "" if d.ci95 is None or d.ci95[0] <= 0 <= d.ci95[1] else ' class="sig"'
        body.append([esc(d.a), esc(d.b), esc(d.metric), esc(d.n), f(d.mean_a), f(d.mean_b),
                     f"<span{cls}>{f(d.diff, True)}</span>", ci])
    pts = [{"label": f"{d.metric} · {d.b}", "diff": d.diff, "lo": d.ci95[0] if d.ci95 else d.diff,
            "hi": d.ci95[1] if d.ci95 else d.diff, "n": d.n} for d in c.diffs]
    warn = "" if c.same_dataset else '<p class="bad">The two runs evaluated different datasets; only units with the same id are paired.</p>'
    unp = f'<p class="note">Unpaired rows: {esc(", ".join(c.unpaired))}</p>' if c.unpaired else ""
    return (f'<div class="compare" id="compare-{esc(c.suite)}"><h3>Comparison · B = {esc(c.b)} minus A = {esc(c.a)}</h3>'
            '<p class="note">Paired over the units defined in both rows; 95% interval from a paired bootstrap '
            '(units resampled, mean difference recomputed). Bold: the interval excludes 0.</p>' + warn
            + table(["A row", "B row", "Metric", "Units", "A", "B", "B − A", "95% CI"], body, "diffs")
            + (page.plot(plots.differences("Paired differences", pts)) if any(p["diff"] is not None for p in pts) else "")
            + unp + "</div>")


def profile_section(page: Page, profile: dict[str, Any]) -> str:
    rows, pts = [], []
    for line in profile["lines"]:
        v, ci = line.get("value"), line.get("ci95")
        fl, ce = line.get("floor"), line.get("ceiling")
        pos = line.get("pos")
        rows.append([f'<a href="#suite-{esc(line["suite"])}">{esc(line["label"])}</a>', esc(line["metric"]),
                     fci(v, ci), f'{fnum(fl)} <span class="note">{esc(line.get("floor_agent") or "")}</span>',
                     f'{fnum(ce)} <span class="note">{esc(line.get("ceiling_agent") or "")}</span>',
                     NA if pos is None else f"{pos:.0%}", esc(line.get("reading", ""))])
        if pos is not None:
            pts.append({"label": line["label"], "metric": line["metric"], "value": v, "floor": fl, "ceiling": ce,
                        "pos": pos, "pos_lo": line.get("pos_lo", pos), "pos_hi": line.get("pos_hi", pos)})
    quick = (f'<p class="note">Quick mode: {esc(profile.get("quick_note", ""))}. Numbers from quick runs have wide '
             'intervals; run without --quick for the full protocols.</p>' if profile.get("quick") else "")
    return (f'<section id="profile"><h2>Proactivity profile · {esc(profile["model"])}</h2>'
            '<p class="note">Each suite\'s headline metric for the model, with its 95% interval, between that suite\'s '
            'reference floor and ceiling (scripted agents run alongside, same units).</p>' + quick
            + table(["Suite", "Metric", "Value [95% CI]", "Floor", "Ceiling", "Of the way", "Reading"], rows, "profile")
            + (page.plot(plots.profile_strip(pts)) if pts else "") + "</section>")


# ---------------------------------------------------------------- the page


def sessions_section() -> str:
    return """<section id="sessions"><h2>Sessions</h2>
<div class="filters">
 <input id="q" type="search" placeholder="search id, unit, agent, tool, first message…" aria-label="search">
 <label class="note"><input id="deep" type="checkbox"> in transcripts too</label>
 <select id="f-cell" aria-label="cell"><option value="">every cell</option></select>
 <select id="f-phase" aria-label="phase"><option value="">every phase</option></select>
 <select id="f-outcome" aria-label="outcome"><option value="">any outcome</option><option value="fail">failed</option>
  <option value="pass">passed</option><option value="none">not scored alone</option></select>
 <select id="f-tool" aria-label="tool"><option value="">any tool</option></select>
 <button id="f-clear" type="button">clear</button> <span id="count" class="note"></span>
</div>
<div class="viewer"><div id="list"></div><div id="transcript"><p class="note">Pick a session to read its transcript.</p></div></div>
</section>"""


CSS_FILE, JS_FILE = "report.css", "report.js"
VENDOR = ("vendor/vega.min.js", "vendor/vega-interpreter.js", "vendor/vega-lite.min.js")


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(scripts: list[str], styles: list[str]) -> str:
    """The page's policy: nothing loads or connects, and only the report's own inline scripts and
    styles run, named by their sha256 — a script or style that data smuggled in has another hash.
    (JSON data blocks are not scripts and need no hash; Vega's SVG sets styles through the DOM.)"""
    return ("default-src 'none'; script-src " + " ".join(_sha256(s) for s in scripts)
            + "; style-src " + " ".join(_sha256(s) for s in styles)
            + "; img-src data:; base-uri 'none'; form-action 'none'")


def render(runs: list[RunData], *, title: str = "longview report", comparisons: list[Comparison] | None = None,
           profile: dict[str, Any] | None = None) -> str:
    """The whole report as one HTML string."""
    comparisons = comparisons or []
    page = Page(runs)
    suites: dict[str, list[int]] = {}
    for i, r in enumerate(runs):
        suites.setdefault(r.suite_name, []).append(i)
    nav = [('<a href="#profile">Profile</a>' if profile else "")]
    nav += [f'<a href="#suite-{esc(s)}">{esc(s)}</a>' for s in suites]
    if comparisons:
        nav.append(f'<a href="#compare-{esc(comparisons[0].suite)}">Comparison</a>')
    nav.append('<a href="#sessions">Sessions</a>')
    body = [profile_section(page, profile) if profile else ""]
    for s, members in suites.items():
        body.append(suite_section(page, s, members, [c for c in comparisons if c.suite == s]))
    body.append(sessions_section())
    data = {"runs": [{"label": r.label, "suite": r.suite_name} for r in runs], "cells": page.cells,
            "sessions": page.sessions, "tools": list(page.tools), "plots": page.plots}
    codes = [_asset(v) for v in (*VENDOR, JS_FILE)]
    css = _asset(CSS_FILE)
    scripts = "".join(f"<script>{c}</script>" for c in codes)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{esc(content_security_policy(codes, [css]))}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="longview {esc(__version__)}">
<title>{esc(title)}</title><style>{css}</style></head>
<body><header><h1>{esc(title)}</h1><nav>{"".join(nav)}</nav></header>
<main>{"".join(body)}</main>
<footer class="note">longview {esc(__version__)} · self-contained: no request leaves this page · plots: Vega {VEGA_VERSION} and Vega-Lite {VEGA_LITE_VERSION} (BSD-3-Clause), inlined</footer>
<script type="application/json" id="lv-data">{_script_json(data)}</script>
<script type="application/json" id="lv-chunks">{_script_json(page.chunks)}</script>
{scripts}</body></html>"""


VEGA_VERSION, VEGA_LITE_VERSION = "6.4.0", "6.5.0"


def _coverage_note(cov: Any) -> str:
    """A metric's coverage under its value: items judged / total and sessions covered."""
    if not cov:
        return ""
    return (f'<br><span class="note">{esc(cov["judged"])}/{esc(cov["total"])} judged, '
            f'{esc(cov["units_covered"])}/{esc(cov["units_total"])} {esc(cov.get("unit", "sessions"))}</span>')
