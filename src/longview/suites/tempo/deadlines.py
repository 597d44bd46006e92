"""Deadlines a scenario states to the agent, read back so QC can check they equal the scored ones.

A deadline phrase is a keyword (due, by, before, until, closes) followed, within the same clause,
by a day (today, tonight, tomorrow, a weekday, in N days) and optionally a time (HH:MM) or a part
of the day (morning, evening). The day is read relative to when the agent is told (the trigger's
time). A stated deadline agrees with a task's due time when it names the same date, the same time
if it gives one, and a matching part of the day (morning: due by 12:00; evening: due from 17:00).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from pydantic import BaseModel, Field

_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_KEY = re.compile(r"\b(due|by|before|until|closes)\b", re.I)
_DAY = re.compile(r"\b(today|tonight|tomorrow|" + "|".join(_DAYS) + r")(?:'s)?\b|\bin (two|three|\d+) days\b", re.I)
_TIME = re.compile(r"\b(\d{1,2}):(\d{2})\b")
_PART = re.compile(r"\b(morning|evening|night)\b", re.I)
_NUM = {"two": 2, "three": 3}


class Stated(BaseModel):
    """One deadline as the text states it."""

    text: str = Field(description="The phrase.")
    day: date = Field(description="The date it names.")
    hhmm: str | None = Field(default=None, description="The time it names, if any.")
    part: str | None = Field(default=None, description="morning / evening / night, if named.")


def stated(text: str, said: datetime) -> list[Stated]:
    out = []
    for k in _KEY.finditer(text):
        clause = re.split(r"[;.,)]\s|[;.,)]$", text[k.end(): k.end() + 48])[0]
        d = _DAY.search(clause)
        if not d:
            continue
        word = (d.group(1) or "").lower()
        day = said.date()
        if word == "tomorrow":
            day += timedelta(days=1)
        elif word in _DAYS:
            day += timedelta(days=(_DAYS.index(word) - said.weekday()) % 7)
        elif d.group(2):
            n = d.group(2).lower()
            day += timedelta(days=_NUM.get(n) or int(n))
        t = _TIME.search(clause)
        p = _PART.search(clause)
        part = "evening" if word == "tonight" else (p.group(1).lower() if p else None)
        out.append(Stated(text=(k.group(0) + clause).strip(), day=day,
                          hhmm=f"{int(t.group(1)):02d}:{t.group(2)}" if t else None, part=part))
    return out


def agrees(s: Stated, due: datetime) -> bool:
    if s.day != due.date():
        return False
    if s.hhmm is not None and s.hhmm != due.strftime("%H:%M"):
        return False
    if s.part == "morning" and due.hour > 12:
        return False
    return not (s.part in ("evening", "night") and due.hour < 17)
