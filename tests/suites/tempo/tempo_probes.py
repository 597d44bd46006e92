"""Probe agents for the tempo metrics: agents that do no real work must score at the floor, and
agents that do the work in another form must keep their score."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from longview.kernel.agent import AssistantTurn, Observation, ToolCall
from longview.suites.tempo.agents import ReferenceAgent
from longview.suites.tempo.schema import Scenario


def run_world(scenario: Scenario, persona: str, agent: Any) -> Any:
    """One run of ``agent`` on the scenario; the world it leaves."""
    import asyncio

    from longview.kernel.clock import SimClock
    from longview.kernel.trace import TraceWriter
    from longview.suites.tempo.runner import ScenarioRun

    run = ScenarioRun(scenario, persona, agent, SimClock(scenario.start), lambda sid: TraceWriter(None, sid))
    return asyncio.run(run.run())


_NOW = re.compile(r"\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2})\)")


def _now(obs: Observation) -> datetime:
    m = _NOW.search(obs.messages[0].content or "")
    assert m, "briefing without a time"
    return datetime.fromisoformat(m.group(1))


class Spammer:
    """Content-free: in every activation it (optionally) opens every record, sends one message
    naming every record id, and defers 'everything' (every record id) 8 hours later."""

    def __init__(self, scenario: Scenario, persona: str, open_all: bool = True) -> None:
        self.scenario, self.open_all, self.name, self.n = scenario, open_all, "probe:spammer", 0
        self.ids = [r.id for r in scenario.records] + [r.id for e in scenario.events for r in e.adds]
        self.done: set[str] = set()

    def _call(self, name: str, **args: Any) -> ToolCall:
        self.n += 1
        return ToolCall(id=f"s{self.n}", name=name, arguments=args)

    async def act(self, obs: Observation) -> AssistantTurn:
        if obs.session_id in self.done:
            return AssistantTurn(tool_calls=[self._call("finish")])
        self.done.add(obs.session_id)
        everything = " ".join(self.ids)
        calls = [self._call("open_record", record_id=r) for r in self.ids] if self.open_all else []
        until = (_now(obs) + timedelta(hours=8)).isoformat()
        calls += [self._call("send_message", text=f"Update on {everything}: I'm on it."),
                  self._call("defer_task", task=everything, plan="I'll get to all of it later.", until=until)]
        return AssistantTurn(tool_calls=calls)


class MessageDeferralOracle(ReferenceAgent):
    """The oracle, except that it defers the competing task by telling the user in a message (with
    a time in words, not ISO) instead of calling defer_task; its wake-up note does not name the task."""

    def __init__(self, scenario: Scenario, persona: str) -> None:
        super().__init__("oracle", scenario, persona)

    def _first(self, obs: Observation) -> list[ToolCall]:
        m = re.search(r"\(ref: (\w+) (.+)\)\s*$", obs.messages[0].content or "")
        dw = self.scenario.decision_window
        if m and m.group(1) == "event" and any(t.id == dw.competing for t in self._tasks_for("event", m.group(2))):
            competing = self.scenario.task(dw.competing)
            when = dw.feasible_from
            said = f"{when:%A} at {when:%H:%M}"
            return [self._call("send_message", text=(
                        f"Heads-up: the {competing.keys[0]} work ({competing.title}) has to wait so your own work keeps "
                        f"the {dw.resource}; I'll do it on {said}, well before it is due.")),
                    self._call("schedule_wakeup", at=when.isoformat(), note="deferred: pick this up")]
        return super()._first(obs)


class SummarisingOracle(ReferenceAgent):
    """The oracle, but every activation ends with a message summarising the records it touched."""

    def __init__(self, scenario: Scenario, persona: str) -> None:
        super().__init__("oracle", scenario, persona)
        self.touched: dict[str, list[str]] = {}
        self.summarised: set[str] = set()

    async def act(self, obs: Observation) -> AssistantTurn:
        turn = await super().act(obs)
        ids = self.touched.setdefault(obs.session_id, [])
        for c in turn.tool_calls:
            for v in c.arguments.values():
                if isinstance(v, str) and re.fullmatch(r"[A-Z]+-\d+", v):
                    ids.append(v)
        if [c.name for c in turn.tool_calls] == ["finish"] and ids and obs.session_id not in self.summarised:
            self.summarised.add(obs.session_id)
            return AssistantTurn(tool_calls=[self._call("send_message", text="Summary of what I just looked at and did: "
                                                        + ", ".join(dict.fromkeys(ids)) + ".")])
        return turn


WRITE_TOOLS = {"place_order": "item_id", "book": "option_id", "cancel": "record_id", "submit_form": "form_id",
               "save_to_collection": "item_id", "run_job": "job_id"}


class ToolSpammer(Spammer):
    """Content-free: every activation tries every write tool on every record id ('spams every tool
    with every id'), or (ask=True) asks approval for each such change one request at a time."""

    def __init__(self, scenario: Scenario, persona: str, ask: bool = False) -> None:
        super().__init__(scenario, persona, open_all=True)
        self.ask, self.name = ask, "probe:tool-spammer"

    async def act(self, obs: Observation) -> AssistantTurn:
        if obs.session_id in self.done:
            return AssistantTurn(tool_calls=[self._call("finish")])
        self.done.add(obs.session_id)
        calls = [self._call("open_record", record_id=r) for r in self.ids]
        for tool, key in WRITE_TOOLS.items():
            for rid in self.ids:
                args = {key: rid, **({"details": rid} if tool == "submit_form" else {}),
                        **({"collection": "plans"} if tool == "save_to_collection" else {})}
                calls.append(self._call("request_approval", message=f"May I {tool} {rid}?",
                                        actions=[{"tool": tool, "args": args}]) if self.ask else self._call(tool, **args))
        return AssistantTurn(tool_calls=calls)


class PasteBack(Spammer):
    """Content-free: in every activation it pastes what it was told (the briefing) back to the user."""

    def __init__(self, scenario: Scenario, persona: str) -> None:
        super().__init__(scenario, persona, open_all=False)
        self.name = "probe:paste-back"

    async def act(self, obs: Observation) -> AssistantTurn:
        if obs.session_id in self.done:
            return AssistantTurn(tool_calls=[self._call("finish")])
        self.done.add(obs.session_id)
        return AssistantTurn(tool_calls=[self._call("send_message", text=obs.messages[0].content or "")])


class AskEverything(Spammer):
    """Content-free: in every activation it asks the user about every record, one question each
    (whether to go ahead, by when, who should get it, what it should say), and does nothing else."""

    def __init__(self, scenario: Scenario, persona: str) -> None:
        super().__init__(scenario, persona, open_all=False)
        self.name = "probe:ask-everything"
        self.answers: list[str] = []

    async def act(self, obs: Observation) -> AssistantTurn:
        self.answers += [m.content or "" for m in obs.messages if m.role == "tool" and m.name == "send_message"]
        if obs.session_id in self.done:
            return AssistantTurn(tool_calls=[self._call("finish")])
        self.done.add(obs.session_id)
        return AssistantTurn(tool_calls=[self._call("send_message", text=(
            f"About {rid}: should I just go ahead or ask you first, when do you need it by, who should get it, "
            "and what should it include?")) for rid in self.ids])
