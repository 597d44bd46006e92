"""Scripted reference agents: validity bounds that act through exactly the same tools.

* ``ref:oracle`` reads the evidence, acts on each active task at the persona's expected depth with
  every constraint met, defers the competing task of the decision window to when it becomes
  feasible, does idle-time work after bedtime, holds work that would reach a user in a meeting
  until the meeting ends, and carries out changes once approved.
* ``ref:policy`` acts on every task at the depth the persona's *stated* policy implies: it ignores
  feedback (declines, revoked delegation, already-resolved needs) and never defers.
* ``ref:always-suggest`` asks for approval of every task's change (and carries it out if approved).
* ``ref:always-execute`` makes every task's change without asking.
* ``ref:passive`` never acts: the floor of every metric (and, in QC, the branches that follow inaction).
All of them schedule their own wake-ups for time-triggered tasks at the first activation.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from longview.kernel.agent import AssistantTurn, Message, Observation, ToolCall
from longview.suites.tempo import timing
from longview.suites.tempo.approval import _describe
from longview.suites.tempo.schema import Scenario, Task

MODES = ("oracle", "policy", "always-suggest", "always-execute", "passive")
_TAG = re.compile(r"\(ref: (\w+) (.+)\)\s*$")


class ReferenceAgent:
    def __init__(self, mode: str, scenario: Scenario, persona: str) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown reference agent mode {mode!r}")
        self.mode, self.scenario, self.persona = mode, scenario, persona
        self.name = f"ref:{mode}"
        self.step: dict[str, int] = {}
        self.asked: dict[str, list[dict[str, Any]]] = {}  # request id -> proposed actions
        self.started = False
        self.n = 0

    # ---- helpers --------------------------------------------------------------------------------

    def _call(self, name: str, **args: Any) -> ToolCall:
        self.n += 1
        return ToolCall(id=f"r{self.n}", name=name, arguments=args)

    def _depth(self, t: Task) -> str:
        if self.mode == "oracle":
            return t.depth[self.persona]
        if self.mode == "policy":
            return t.stated_depth(self.persona)
        if self.mode == "always-suggest":
            return "suggest"
        if self.mode == "always-execute":
            return "execute"
        return "noop"

    def _actions(self, t: Task) -> list[dict[str, Any]]:
        """The task's change and its joint partners, as complete tool calls."""
        spec = self.scenario.action(t.action)  # type: ignore[arg-type]
        group = [a for a in self.scenario.actions if spec.joint and a.joint == spec.joint] or [spec]
        return [{"tool": a.tool, "args": {**{k: v for k, v in a.args.items() if not isinstance(v, dict)}, **a.fill}} for a in group]

    def _text(self, t: Task) -> str:
        from longview.suites.tempo.attribution import targets

        words = [*t.keys, *(x for x in targets(self.scenario, t) if x not in t.keys)]
        return f"{t.title.split(': ', 1)[-1]}. " + " ".join(words) + (". " + "; ".join(t.include) if t.include else "")

    def _work(self, t: Task) -> list[ToolCall]:
        depth = self._depth(t)
        calls = [self._call("open_record", record_id=r) for r in t.evidence] if self.mode in ("oracle", "policy") else []
        if depth == "prepare":
            calls.append(self._call("save_note", title=t.title, body=self._text(t)))
        elif depth == "suggest":
            calls.append(self._call("request_approval", message=self._text(t), actions=self._actions(t)))
        elif depth == "execute":
            for a in self._actions(t):
                calls.append(self._call(a["tool"], **a["args"]))
            if t.include:
                calls.append(self._call("send_message", text=f"Done: {self._text(t)}"))
        return calls

    def _tells_user(self, t: Task) -> bool:
        """Whether the work at this agent's depth reaches the user (a request or a message)."""
        d = self._depth(t)
        return d == "suggest" or (d == "execute" and bool(t.include))

    def _tasks_for(self, kind: str, ref: str) -> list[Task]:
        sc = self.scenario
        if kind == "event":
            return [t for t in sc.tasks if t.trigger == ref]
        if kind == "wakeup" and ref.startswith("deferred: "):
            dw = sc.decision_window
            return [sc.task(dw.competing)]
        if kind == "wakeup" and ref.startswith(("idle: ", "busy: ")):
            return [t for t in sc.tasks if ref.split(": ", 1)[1] == t.title]
        if kind == "wakeup":
            return [t for t in sc.tasks if t.at is not None and ref == f"scheduled: {t.title}"]
        return []

    # ---- the agent ------------------------------------------------------------------------------

    async def act(self, obs: Observation) -> AssistantTurn:
        step = self.step.get(obs.session_id, 0)
        self.step[obs.session_id] = step + 1
        calls: list[ToolCall] = []
        if self.mode != "passive":
            if step == 0:
                calls = self._first(obs)
            elif step == 1:
                calls = self._after(obs)
        if not calls:
            return AssistantTurn(tool_calls=[self._call("finish")])
        return AssistantTurn(tool_calls=calls)

    def _first(self, obs: Observation) -> list[ToolCall]:
        m = _TAG.search(obs.messages[0].content or "")
        if not m:
            return []
        kind, ref = m.group(1), m.group(2)
        calls: list[ToolCall] = []
        if not self.started:
            self.started = True
            calls += [self._call("schedule_wakeup", at=t.at.isoformat(), note=f"scheduled: {t.title}")
                      for t in self.scenario.tasks if t.at is not None]
        if kind == "decision":
            return calls + self._approved(ref, obs.messages[0].content or "")
        dw = self.scenario.decision_window
        for t in self._tasks_for(kind, ref):
            if self.mode == "oracle" and t.id == dw.competing and kind == "event":
                competing = self.scenario.task(dw.competing)
                calls.append(self._call("defer_task", task=" ".join(competing.keys),
                                        plan=f"{competing.title}: handle it when {dw.resource} is free, before it is due.",
                                        until=dw.feasible_from.isoformat()))
                continue
            now = obs_time(obs)
            back = timing.next_available(self.scenario.availability, now)
            if (self.mode == "oracle" and kind == "event" and timing.status(self.scenario.availability, now) == "busy"
                    and self._tells_user(t) and back < t.due):  # the user is in a meeting: bring it when they are back
                calls.append(self._call("schedule_wakeup", at=back.isoformat(), note=f"busy: {t.title}"))
                continue
            if self.mode == "oracle" and t.idle and kind == "event":  # idle-time work: do it while the user sleeps
                night = timing.next_sleep(self.scenario.availability, obs_time(obs)) + timedelta(minutes=30)
                calls.append(self._call("schedule_wakeup", at=night.isoformat(), note=f"idle: {t.title}"))
                continue
            calls += self._work(t)
        return calls

    def _approved(self, rid: str, body: str) -> list[ToolCall]:
        approved = next((ln.split("Approved:", 1)[1] for ln in body.splitlines() if "Approved:" in ln), "")
        out = []
        for a in self.asked.get(rid, []):
            if _describe_call(a) in approved:
                out.append(self._call(a["tool"], **a["args"]))
        return out

    def _after(self, obs: Observation) -> list[ToolCall]:
        """Record requests made this turn; carry out the ones approved on the spot."""
        import json

        sent = {c.id: c for m in obs.messages if m.role == "assistant" for c in m.tool_calls}
        out = []
        for m in obs.messages:
            if m.role != "tool" or m.name != "request_approval":
                continue
            try:
                res = json.loads(m.content or "{}")
            except ValueError:
                continue
            call = sent.get(m.tool_call_id or "")
            if "request_id" not in res or call is None:
                continue
            self.asked[res["request_id"]] = list(call.arguments.get("actions") or [])
            for d in res.get("decisions") or []:
                if d.get("decision") == "approve":
                    out.append(self._call(d["tool"], **d["args"]))
        return out


def obs_time(obs: Observation) -> datetime:
    """The simulated time the briefing states."""
    m = re.search(r"\((\d{4}-\d{2}-\d{2}T\d{2}:\d{2})\)", obs.messages[0].content or "")
    return datetime.fromisoformat(m.group(1)) if m else datetime.min


def _describe_call(a: dict[str, Any]) -> str:
    from longview.suites.tempo.world import ActionItem

    return _describe(ActionItem(tool=a["tool"], args=a["args"]))


__all__ = ["MODES", "ReferenceAgent", "Message"]
