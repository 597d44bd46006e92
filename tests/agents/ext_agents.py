"""Agents from outside longview for the tests of docs/agents.md: a Python factory that behaves like a
suite's scripted reference agent (so its scores must equal that agent's), and probes."""

from __future__ import annotations

from functools import cache
from typing import Any

from longview.harness import registry
from longview.kernel.agent import AssistantTurn, Observation


@cache
def _dataset(suite: str) -> Any:
    s = registry.load(suite)
    return s.load_dataset("builtin", s.Options())


class Mirror:
    """Acts exactly as ``ref`` of ``suite`` would, through the Agent protocol only."""

    version = "1"

    def __init__(self, suite: str, ref: str, cell: Any) -> None:
        self.name = f"mirror-{ref}"
        self.inner = registry.load(suite).reference_agent(ref, _dataset(suite), cell.unit)

    async def act(self, obs: Observation) -> AssistantTurn:
        return await self.inner.act(obs)

    def fork(self) -> Mirror:  # prefs' probes branch the agent
        twin = object.__new__(Mirror)
        twin.name, twin.inner = self.name, self.inner.fork() if hasattr(self.inner, "fork") else self.inner
        return twin


def atr_asker(cell: Any) -> Mirror:
    return Mirror("atr", "ref:asker", cell)


class Broken:
    """A factory that fails: its cells abort with the reason."""

    name = "broken"

    def __init__(self) -> None:
        raise RuntimeError("no model configured")
