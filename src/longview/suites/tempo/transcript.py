"""`longview trace` for tempo sessions: the generic view, with each act labelled by its
intervention depth (PREPARE / SUGGEST / EXECUTE), deferrals and wake-ups spelled out."""

from __future__ import annotations

import json
from typing import Any

from longview.harness.transcript import trace_lines
from longview.kernel.trace import TraceEvent

_PREPARE = {"save_note"}
_READ = {"list_records", "open_record", "check_resources", "check_user_status"}


def _s(v: Any, n: int = 120) -> str:
    t = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, sort_keys=True, default=str)
    t = " ".join(t.split())
    return t if len(t) <= n else t[: n - 1] + "…"


def tempo_lines(events: list[TraceEvent]) -> list[str]:
    out: list[str] = []
    for e in events:
        t = f"[{e.clock[11:16]}] " if e.clock else ""
        d = e.data
        if e.type == "tool_call" and d.get("name") not in _READ:
            label = "PREPARE" if d.get("name") in _PREPARE else "EXECUTE"
            mark = "done" if d.get("ok") else f"refused: {d.get('error')}"
            out.append(f"{t}  {label} {d.get('name')}({_s(d.get('arguments'), 100)}) {mark}")
        elif e.type == "control":
            name, args = d.get("name"), d.get("arguments") or {}
            if name == "send_message":
                out.append(f"{t}  SUGGEST message: {_s(args.get('text'))}")
            elif name == "request_approval":
                acts = ", ".join(f"{a.get('tool')}({_s(a.get('args'), 40)})" for a in args.get("actions") or [] if isinstance(a, dict))
                state = (d.get("output") or {}).get("state", "?") if d.get("ok") else f"error: {d.get('error')}"
                out.append(f"{t}  SUGGEST approval request [{acts}] -> {state}: {_s(args.get('message'), 80)}")
            elif name == "defer_task":
                out.append(f"{t}  DEFER {_s(args.get('task'), 60)} until {args.get('until') or '(no time)'}: {_s(args.get('plan'), 60)}")
            elif name == "schedule_wakeup":
                out.append(f"{t}  wake-up scheduled for {args.get('at')}: {_s(args.get('note'), 60)}")
            elif name == "finish":
                continue
            else:
                out += trace_lines([e])
        else:
            out += trace_lines([e])
    return out
