"""A readable day-by-day view of a tempo run: when the agent woke and why, what it did at which
depth, when the user slept, what was deferred and when it was picked up, and how trust moved."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any


def _t(s: str) -> datetime:
    return datetime.fromisoformat(s)


def _short(text: str, n: int = 90) -> str:
    t = " ".join(text.split())
    return t if len(t) <= n else t[: n - 1] + "…"


def _items(run: dict[str, Any]) -> list[tuple[datetime, int, str]]:
    w = run["world"]
    out: list[tuple[datetime, int, str]] = []
    for a in run["activations"]:
        why = {"event": f"event {a['ref']}", "wakeup": f"own wake-up ({_short(a['ref'], 60)})",
               "decision": f"user's answer to {a['ref']}",
               "feedback": f"user's feedback: {_short(a['ref'], 70)}"}.get(a["kind"], a["ref"])
        pick = "  <- picks up deferred work" if a["kind"] == "wakeup" and a["ref"].startswith("deferred:") else ""
        out.append((_t(a["at"]), 0, f"woken by {why}; user {a['user']}{pick}"))
    deliveries = {(d["sent"], d["text"]): d["delivered"] for d in w["deliveries"]}
    for e in w["log"]:
        at, k = _t(e["at"]), e["kind"]
        if k == "read":
            continue
        if k == "note":
            line = f"PREPARE  note: {_short(e['text'])}"
        elif k == "message":
            line = f"SUGGEST  message: {_short(e['text'])}"
        elif k == "request":
            items = ", ".join(f"{i['tool']}→{i['decision'] or 'pending'}" for i in e["items"])
            line = f"SUGGEST  approval request {e['request']} [{items}]"
        elif k == "execute":
            how = e["authorised_by"] or "unauthorised"
            res = "done" if e["ok"] else f"refused: {e['error']}"
            line = f"EXECUTE  {e['tool']}({_short(json.dumps(e['args'], ensure_ascii=False), 50)}) [{how}] {res}"
        elif k == "defer":
            line = f"DEFER    {_short(e['args'].get('task', ''), 40)} until {e['until'] or '(no time)'}"
        else:
            line = f"wake-up  scheduled for {e['until']}: {_short(e['text'], 50)}"
        sent = deliveries.get((e["at"], e["text"])) if k in ("message", "request") else None
        if sent and sent != e["at"]:
            line += f"  (user asleep: delivered {_t(sent).strftime('%a %H:%M')})"
        out.append((at, 1, line))
    for r in w["requests"]:
        if r["state"] == "decided" and r["decide_at"] != r["at"]:
            out.append((_t(r["decide_at"]), 0, f"user decides {r['id']} (held since {_t(r['at']).strftime('%a %H:%M')}): "
                        + _short(r["reply"].replace("\n", " / "), 100)))
    for p in w["trust"]["history"]:
        tasks = ", ".join(p.get("tasks") or []) or "none"
        out.append((_t(p["at"]), 2, f"trust checkpoint ({tasks}; badness {p.get('badness', 0):.2f}, "
                    f"{'aligned' if p['label'] == 'A' else 'MISALIGNED'}): trust -> {p['value']:.2f}"))
    for ev, at in w["skipped"].items():
        out.append((_t(at), 2, f"branch not taken: event {ev}"))
    return sorted(out, key=lambda x: (x[0], x[1]))


def run_lines(run: dict[str, Any]) -> list[str]:
    start, days = _t(run["start"]), run["days"]
    av = run["availability"]
    items = _items(run)
    dw = run["decision_window"]
    lines = [f"{run['scenario']} / {run['persona']} / {run['agent']}  "
             f"(sleeps {str(av.get('sleep', '23:00'))[:5]}-{str(av.get('wake', '07:00'))[:5]}; TA window {dw['start']}..{dw['end']})"]
    for d in range(days):
        day0 = start + timedelta(days=d)
        busy = [f"{_t(b['start']).strftime('%H:%M')}-{_t(b['end']).strftime('%H:%M')} {b['label']}"
                for b in av.get("busy", []) if day0 <= _t(b["start"]) < day0 + timedelta(days=1)]
        lines.append(f"Day {d + 1} {day0.strftime('%a %d %b')}: asleep until {str(av.get('wake', '07:00'))[:5]}, "
                     f"from {str(av.get('sleep', '23:00'))[:5]}" + (f"; busy {', '.join(busy)}" if busy else ""))
        for at, _, text in items:
            if day0 <= at < day0 + timedelta(days=1):
                lines.append(f"  {at.strftime('%H:%M')}  {text}")
    s = run["score"]
    ta = s.get("ta") or {}
    def f(key: str, digits: int = 3) -> str:
        v = s.get(key)
        return "-" if v is None else f"{v:.{digits}f}"

    lines.append(f"scores: tc_rules={f('tc_rules')} tc={f('tc')} tr_d={f('tr_d')} tr_j={f('tr_j', 2)} "
                 f"trust_sim={f('trust_sim', 2)} interruptions={s.get('interruptions', 0)} "
                 f"ta={ta.get('ta')} (now={ta.get('now')}, later={ta.get('later')}, continuation={ta.get('continuation')})")
    if run.get("conflicts"):
        lines.append("resource conflicts: " + "; ".join(f"{c['resource']} at {c['at']} ({c['label']})" for c in run["conflicts"]))
    return lines


def timeline_lines(cell_folder: Path | str) -> list[str]:
    """The timeline of every run in a tempo cell folder (``run.json`` or ``r<k>-run.json``)."""
    folder = Path(cell_folder)
    files = sorted(folder.glob("*run.json"))
    if not files:
        return [f"{folder}: no tempo run record (run.json) here"]
    out: list[str] = []
    for f in files:
        out += run_lines(json.loads(f.read_text(encoding="utf-8")))
    return out
