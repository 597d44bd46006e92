"""Quality control of scenarios: the oracle passes every task it activates (expected depth, full
deterministic TC, TA with a feasible plan), every task and every branch is reached by some probe
run (oracle or passive, each persona), and the timeline is consistent with the user's availability."""

from __future__ import annotations

import asyncio
import re
from itertools import combinations

from longview.kernel.clock import SimClock
from longview.kernel.trace import TraceWriter
from longview.suites.tempo import timing
from longview.suites.tempo.agents import ReferenceAgent
from longview.suites.tempo.deadlines import agrees, stated
from longview.suites.tempo.metrics import score_run
from longview.suites.tempo.runner import ScenarioRun
from longview.suites.tempo.schema import PERSONAS, Scenario
from longview.suites.tempo.world import TempoWorld


def deadline_problems(sc: Scenario) -> list[str]:
    """Deadlines the agent is told (a task's trigger text, its job and form records) that contradict the scored due time."""
    out = []
    records = {r.id: r for r in sc.records} | {r.id: r for e in sc.events for r in e.adds}
    for t in sc.tasks:
        if t.trigger is None:
            continue
        ev = next(e for e in sc.events if e.id == t.trigger)
        # the trigger's words and the task's own work items (a latent need's records state the
        # underlying event's deadline, which the task's change must precede, not the task's due)
        texts = [ev.text, *ev.persona_text.values()] + [f"{records[r].title}. {records[r].body}" for r in t.evidence
                                                        if r in records and records[r].kind in ("job", "form")]
        for text in texts:
            for s in stated(text, ev.at):
                if not agrees(s, t.due):
                    out.append(f"{sc.id}: task {t.id}: the agent is told '{s.text}' ({s.day} {s.hhmm or s.part or ''}) "
                               f"but it is scored due {t.due:%a %Y-%m-%d %H:%M}")
    return out


async def probe(scenario: Scenario, persona: str, mode: str) -> TempoWorld:
    run = ScenarioRun(scenario, persona, ReferenceAgent(mode, scenario, persona), SimClock(scenario.start),
                      lambda sid: TraceWriter(None, sid))
    return await run.run()


def check(scenario: Scenario) -> list[str]:
    """Problems found (empty when the scenario passes)."""
    return asyncio.run(check_async(scenario))


async def check_async(scenario: Scenario) -> list[str]:
    sc, out = scenario, []
    av = sc.availability
    for e in sc.events:
        if e.kind == "user_message" and timing.asleep(av, e.at):
            out.append(f"{sc.id}: event {e.id}: the user writes while asleep")
    for t in sc.tasks:
        start = t.at or next(e.at for e in sc.events if e.id == t.trigger)
        if t.due <= start:
            out.append(f"{sc.id}: task {t.id}: due before it starts")
    for a, b in combinations(sc.tasks, 2):
        sa, sb = (t.at or next(e.at for e in sc.events if e.id == t.trigger) for t in (a, b))
        if sa < b.due and sb < a.due and {k.casefold() for k in a.keys} & {k.casefold() for k in b.keys}:
            out.append(f"{sc.id}: tasks {a.id} and {b.id} share a key while their windows overlap")
    base = {r.id for r in sc.records}
    for t in sc.tasks:  # solvable from what the agent can see: evidence and the change's ids exist by then
        start = t.at or next(e.at for e in sc.events if e.id == t.trigger)
        known = base | {r.id for e in sc.events if e.at <= start for r in e.adds}
        for rid in t.evidence:
            if rid not in known:
                out.append(f"{sc.id}: task {t.id}: evidence {rid} does not exist when the task starts")
        if t.action and t.output == "change":
            for v in sc.action(t.action).args.values():
                if isinstance(v, str) and re.fullmatch(r"[A-Z]+-\d+", v) and v not in known:
                    out.append(f"{sc.id}: task {t.id}: its change names {v}, unknown when the task starts")
    out += deadline_problems(sc)
    reached: set[str] = set()
    fired: set[str] = set()
    for persona in PERSONAS:
        w = await probe(sc, persona, "oracle")
        s = score_run(sc, persona, w)
        for ts in s.tasks:
            if ts.chosen != ts.expected:
                out.append(f"{sc.id}/{persona}: oracle chose {ts.chosen} for {ts.task}, expected {ts.expected}")
            for comp in ("evidence", "outputs", "constraints"):
                v = getattr(ts, comp)
                if v is not None and v < 1:
                    out.append(f"{sc.id}/{persona}: oracle {comp} {v:.2f} on {ts.task}")
        if s.ta is None or s.ta.ta < 1 or s.ta.continuation < 1:
            out.append(f"{sc.id}/{persona}: oracle TA {s.ta}")
        reached |= set(w.active)
        fired |= set(w.fired)
        w2 = await probe(sc, persona, "passive")
        reached |= set(w2.active)
        fired |= set(w2.fired)
    for t in sc.tasks:
        if t.id not in reached:
            out.append(f"{sc.id}: task {t.id} is never activated (unreachable branch)")
    for e in sc.events:
        if e.id not in fired:
            out.append(f"{sc.id}: event {e.id} never fires (unreachable branch)")
    return out
