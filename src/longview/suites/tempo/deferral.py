"""The embedded TA judge (App. E.3): now / later / continuation quality from the decision window's acts.

* **now**: some act credited to the urgent task (by what it does, see ``attribution.py``) inside
  the window — a change, a request, a proposal or a draft: attention, not completion.
* **later**: an explicit deferral of the competing task to a concrete feasible time, made once
  the competing task is known (at or after its activation) and inside the window, either by a
  tool (``defer_task`` / ``schedule_wakeup``) or in a message to the user (``send_message``, an
  approval request's message); and no attempted change of the competing task inside the window.
  The deferral must name the competing task (one of its keys) and no more than one other task
  besides the urgent one: a blanket deferral naming many tasks earns nothing. Its time is the
  tool's ``until``/``at``, or a time stated in the message (ISO, or HH:MM / H am with today,
  tonight, tomorrow or a weekday) other than the competing task's due time itself (a restated
  deadline is not a plan); it is concrete and feasible when it lies in [feasible_from, competing due].
* **continuation quality**: 1 for a concrete feasible time, 0.5 for a deferral with no time
  (vague), 0 for an infeasible time or none; 0 when the competing task was done inside the window.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from pydantic import BaseModel, Field

from longview.suites.tempo.schema import Scenario, Task
from longview.suites.tempo.text import about
from longview.suites.tempo.world import LogEntry, TempoWorld

MAX_OTHER_TASKS = 1  # a deferral may also mention one other task (besides urgent and competing)
_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_ISO = re.compile(r"\b(\d{4}-\d{2}-\d{2})[T ](\d{1,2}):(\d{2})")
_CLOCK = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?(?![\d:])", re.I)
_DAYWORD = re.compile(r"\b(today|tonight|tomorrow|overnight|" + "|".join(_DAYS) + r"|" +
                      "|".join(d[:3] for d in _DAYS) + r")\b", re.I)


class Deferral(BaseModel):
    """One act that defers the competing task."""

    index: int = Field(description="World-log index of the act.")
    channel: str = Field(description="tool (defer_task / schedule_wakeup) or message.")
    until: datetime | None = Field(default=None, description="The time it names, if any.")
    feasible: bool = Field(default=False, description="until lies in [feasible_from, competing due].")


def stated_times(text: str, sent: datetime) -> list[datetime]:
    """Times a message states, read on the simulated clock relative to when it was sent."""
    out = [datetime.fromisoformat(f"{m.group(1)}T{int(m.group(2)):02d}:{m.group(3)}") for m in _ISO.finditer(text)]
    rest = _ISO.sub(" ", text)
    for m in _CLOCK.finditer(rest):
        h, mi, ap = int(m.group(1)), int(m.group(2) or 0), (m.group(3) or "").lower().replace(".", "")
        if not m.group(2) and not ap:
            continue  # a bare number is not a time
        if ap == "pm" and h < 12:
            h += 12
        if ap == "am" and h == 12:
            h = 0
        if h > 23 or mi > 59:
            continue
        near = _DAYWORD.findall(rest[max(0, m.start() - 40): m.end() + 40])
        day = sent.date()
        word = near[0].lower() if near else ""
        if word == "tomorrow":
            day += timedelta(days=1)
        elif word[:3] in [d[:3] for d in _DAYS]:
            ahead = ([d[:3] for d in _DAYS].index(word[:3]) - sent.weekday()) % 7
            day += timedelta(days=ahead)
        t = datetime.combine(day, datetime.min.time()).replace(hour=h, minute=mi)
        if word in ("", "tonight", "overnight") and t <= sent:
            t += timedelta(days=1)  # "at 03:30" said at 19:20 is the coming night
        out.append(t)
    return out


def _named_tasks(e: LogEntry, tasks: list[Task]) -> set[str]:
    text = f"{e.args.get('task', '')}\n{e.text}"
    return {t.id for t in tasks if any(about(text, k) for k in t.keys)}


def deferrals(scenario: Scenario, world: TempoWorld) -> list[Deferral]:
    """Acts inside the window, after the competing task became known, that defer it specifically."""
    dw = scenario.decision_window
    if dw.competing not in world.active:
        return []
    competing = scenario.task(dw.competing)
    known_from = max(world.active[dw.competing], dw.start)
    out = []
    for i, e in enumerate(world.log):
        if not known_from <= e.at < dw.end or e.kind not in ("defer", "wakeup", "message", "request"):
            continue
        known = [t for t in scenario.tasks if t.id in world.active and world.active[t.id] <= e.at]
        named = _named_tasks(e, known)
        if dw.competing not in named or len(named - {dw.urgent, dw.competing}) > MAX_OTHER_TASKS:
            continue
        if e.kind in ("defer", "wakeup"):
            times = [e.until] if e.until else []
            channel = "tool"
        else:
            # restating the deadline ("due tomorrow 20:00") is not a time the agent chose
            times = [t for t in stated_times(e.text, e.at) if t > e.at and t != competing.due]
            if not times:
                continue  # a message that names the task without a later time is not a deferral
            channel = "message"
        feasible = any(dw.feasible_from <= t <= competing.due for t in times)
        until = next((t for t in times if dw.feasible_from <= t <= competing.due), times[0] if times else None)
        out.append(Deferral(index=i, channel=channel, until=until, feasible=feasible))
    return out
