"""Probe agents for atr (the four 'done when' probes): factories taking the cell, acting only through
the Agent protocol (the observation's messages and tool schemas). Only the rephrasing oracle reads
the episode, to know what the real work is; the others know nothing a real agent would not see."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from longview.harness import registry
from longview.kernel.agent import AssistantTurn, Observation, ToolCall
from longview.suites.atr.agents import OracleAgent, targeted_question
from longview.suites.atr.protocol import FINISH_SESSION, SEND_TO_USER

LEARNING = "learning"


@cache
def _dataset() -> Any:
    s = registry.load("atr")
    return s.load_dataset("builtin", s.Options())


def _turns(obs: Observation) -> int:
    return sum(1 for m in obs.messages if m.role == "assistant")


def _call(obs: Observation, i: int, name: str, args: dict) -> ToolCall:
    return ToolCall(id=f"{obs.session_id}-{_turns(obs)}-{i}", name=name, arguments=args)


def _learning(obs: Observation) -> bool:
    return any(t["function"]["name"] == SEND_TO_USER.name for t in obs.tools)


def _domain_tools(obs: Observation) -> list[dict]:
    return [t["function"] for t in obs.tools if t["function"]["name"] not in (SEND_TO_USER.name, FINISH_SESSION.name)]


def _ids(obs: Observation) -> list[str]:
    """Every string under a key named id/*_id in any tool result so far, first sighting first."""
    seen: dict[str, None] = {}

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            for k, v in x.items():
                if isinstance(v, str) and (k == "id" or k.endswith("_id")):
                    seen.setdefault(v)
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    for m in obs.messages:
        if m.role == "tool" and m.content:
            try:
                walk(json.loads(m.content))
            except ValueError:
                continue
    return list(seen)


def _filler(name: str, spec: dict, ident: str | None) -> Any:
    if "enum" in spec:
        return spec["enum"][0]
    kind = spec.get("type")
    if kind == "integer" or kind == "number":
        return 1
    if kind == "boolean":
        return True
    if kind == "array":
        return [ident] if ident else []
    if kind == "object":
        return {}
    return ident if (ident and (name == "id" or name.endswith("_id"))) else "anything"


def _args(fn: dict, ident: str | None) -> dict:
    props = fn.get("parameters", {}).get("properties", {})
    return {k: _filler(k, v, ident) for k, v in props.items()}


class PasteBack:
    """Pastes the user's last message back (to the user in learning, as plain text in tests)."""

    name = "probe:paste"

    def __init__(self, cell: Any = None) -> None:
        pass

    async def act(self, obs: Observation) -> AssistantTurn:
        last = next((m.content for m in reversed(obs.messages) if m.role == "user" and m.content), "") or "Noted."
        if _learning(obs):
            return AssistantTurn(tool_calls=[_call(obs, 0, SEND_TO_USER.name, {"output": last, "reason": "echo"})])
        if _turns(obs) == 0:
            return AssistantTurn(text=last)
        return AssistantTurn(tool_calls=[_call(obs, 0, FINISH_SESSION.name, {})])


class ToolSpammer:
    """Calls every offered domain tool with every id seen so far (READ tools first so ids appear),
    one batch per turn, then reports / finishes."""

    name = "probe:spam"
    ROUNDS = 3

    def __init__(self, cell: Any = None) -> None:
        pass

    async def act(self, obs: Observation) -> AssistantTurn:
        n = _turns(obs)
        if n < self.ROUNDS:
            ids = _ids(obs) or [None]
            calls = [_call(obs, i, fn["name"], _args(fn, ident))
                     for i, (fn, ident) in enumerate((fn, ident) for fn in _domain_tools(obs) for ident in ids)]
            return AssistantTurn(tool_calls=calls)
        if _learning(obs):
            return AssistantTurn(tool_calls=[_call(obs, 0, SEND_TO_USER.name, {"output": "Done.", "reason": "report"})])
        return AssistantTurn(tool_calls=[_call(obs, 0, FINISH_SESSION.name, {})])


class AskEverything:
    """In learning, asks a default-choice question about every offered tool at once, every turn;
    in tests it finishes without acting (it only asked)."""

    name = "probe:ask-all"

    def __init__(self, cell: Any = None) -> None:
        pass

    async def act(self, obs: Observation) -> AssistantTurn:
        if not _learning(obs):
            return AssistantTurn(tool_calls=[_call(obs, 0, FINISH_SESSION.name, {})])
        domain = obs.session_id.split("_")[0]
        qs = " ".join(targeted_question(domain, fn["name"]) for fn in _domain_tools(obs))
        return AssistantTurn(tool_calls=[_call(obs, 0, SEND_TO_USER.name, {"output": qs, "reason": "ask"})])


class RephrasedOracle:
    """ref:oracle's decisions delivered in another form: a narration with every batch and its own
    call ids. The matcher reads decisions, not words, so it must keep the oracle's TSAcc."""

    name = "probe:rephrased-oracle"

    def __init__(self, cell: Any) -> None:
        self.inner = OracleAgent(_dataset().episode(cell.unit))

    async def act(self, obs: Observation) -> AssistantTurn:
        turn = await self.inner.act(obs)
        n = _turns(obs)
        calls = [ToolCall(id=f"mine-{n}-{i}", name=c.name, arguments=c.arguments) for i, c in enumerate(turn.tool_calls)]
        return AssistantTurn(text=f"Right, handling part {n + 1} of this for you now.", tool_calls=calls)


class ParaphrasedAsker:
    """ref:asker's work (the gold task, then one question per learning session about the decision
    it made, applying what it heard) with the question worded in its own way."""

    name = "probe:paraphrased-asker"

    def __init__(self, cell: Any) -> None:
        from longview.suites.atr.agents import AskerAgent

        self.inner = AskerAgent(_dataset().episode(cell.unit))
        self.inner.question = self._question  # type: ignore[method-assign]

    def _question(self, obs: Observation, session: Any) -> str | None:
        from longview.domains.personal import tool_spec

        writes = [s.tool for s in session.gold_trajectory if not s.tool.startswith(("search_", "list_"))]
        fresh = [t for t in writes if t.replace("_", " ") not in obs.system]
        if not writes:
            return None
        tool = (fresh or writes)[-1]
        act = tool.replace("_", " ")
        for p in tool_spec(tool).parameters:
            if p.type.startswith("enum[") and not p.name.startswith(("sort", "update_scope")):
                opts = [o.replace("_", " ") for o in p.type[5:-1].split("|")]
                return (f"Quick one so I needn't check with you each time from now on: whenever I {act}, should the "
                        f"{p.name.replace('_', ' ')} be {', '.join(opts[:-1])} or {opts[-1]}?")
        return (f"Quick one so I needn't check with you each time from now on: whenever I {act}, what sort of option "
                f"should I go for, and should I just {act} or run it past you first?")

    async def act(self, obs: Observation) -> AssistantTurn:
        return await self.inner.act(obs)
