"""Probe agents: scores only work earns (issue 21).

Four scripted agents that know every hidden intent of the session (they read the dataset) run on
the built-in episodes and on the imported fixture:

* the **paster** answers with every hidden intent's text and calls no tool;
* the **spammer** calls every tool it is offered with every id it has seen, then says it is done;
* the **asker** asks one targeted question per hidden intent and then does nothing;
* the **worker** does the work through the tools, worded differently from the intents.

Offline, the paster and the spammer stay at the floor, the asker shows up as *elicited* and never
as *completed*, and the worker beats the paster on PROC and COMP.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from intents_helpers import run_cells

from longview.kernel.agent import AssistantTurn, Observation, ToolCall
from longview.suites.intents.agents import ReferenceAgent
from longview.suites.intents.dataset import IntentsDataset
from longview.suites.intents.judge import sentences
from longview.suites.intents.suite import IntentsOptions, IntentsSuite

FIXTURE = Path(__file__).parents[2] / "fixtures" / "pibench"
UNITS = ("researcher", "law_trainee")


class Probe:
    """Base: knows the session's hidden intents; one tool call per turn from ``self.queue``."""

    def __init__(self, kind: str, ds: IntentsDataset, unit: str) -> None:
        self.kind, self.name = kind, f"probe:{kind}"
        self.ep = ds.episode(unit)
        self.sessions = {s.id: s for s in self.ep.sessions}
        self.sid: str | None = None

    async def act(self, obs: Observation) -> AssistantTurn:
        if obs.session_id != self.sid:
            self.sid, self.turn, self.queue, self.ids, self.tokens = obs.session_id, 0, None, set(), {}
        self.turn += 1
        self._absorb(obs)
        return self.step(obs, self.sessions[obs.session_id])

    def _absorb(self, obs: Observation) -> None:
        for m in reversed(obs.messages):
            if m.role != "tool":
                break
            try:
                out = json.loads(m.content or "null")
            except ValueError:
                continue
            for v in _walk(out):
                if isinstance(v, tuple):
                    key, val = v
                    if key == "access_token" and isinstance(val, str):
                        self.tokens[m.tool_call_id or ""] = val
                    elif key.endswith("_id") and isinstance(val, int | str):
                        self.ids.add(val)

    def step(self, obs: Observation, session: Any) -> AssistantTurn:
        raise NotImplementedError


def _walk(v: Any):
    if isinstance(v, dict):
        for k, x in v.items():
            yield (k, x)
            yield from _walk(x)
    elif isinstance(v, list):
        for x in v:
            yield from _walk(x)


class Paster(Probe):
    def step(self, obs, session):
        return AssistantTurn(text="Done - here is what you need:\n" + "\n".join(i.content for i in session.hidden_intents))


class Asker(Probe):
    def step(self, obs, session):
        if self.turn == 1:
            return AssistantTurn(text=" ".join(f"Could you tell me {q.rstrip('?. ')}?"
                                               for i in session.hidden_intents for q in sentences(i.question)))
        return AssistantTurn(text="Thanks, noted.")


class Spammer(Probe):
    """Every offered tool, with every id seen so far in each id-like argument (capped)."""

    CAP = 60

    def step(self, obs, session):
        if self.queue is None:
            self.queue = []
            for app, acc in self.ep.persona.accounts.items():
                if any(t["function"]["name"] == f"{app}__login" for t in obs.tools):
                    self.queue.append((f"{app}__login", {"username": acc.email, "password": acc.password}))
            self.queue.append(("__spam__", {}))
        while self.queue and self.turn < self.CAP:
            name, args = self.queue.pop(0)
            if name == "__spam__":
                token = next(iter(self.tokens.values()), "x")
                for t in obs.tools:
                    props = t["function"].get("parameters", {}).get("properties", {})
                    for i in sorted(self.ids, key=str)[:3] or [1]:
                        a = {}
                        for p, spec in props.items():
                            typ = spec.get("type")
                            a[p] = (token if p == "access_token" else i if p.endswith("_id") else
                                    "x" if typ == "string" else 1 if typ in ("integer", "number") else
                                    [] if typ == "array" else True if typ == "boolean" else "x")
                        self.queue.append((t["function"]["name"], a))
                continue
            return AssistantTurn(tool_calls=[ToolCall(id=f"s{self.turn}", name=name, arguments=args)])
        return AssistantTurn(text="All done.")


class Worker(Probe):
    """Does the work through the tools and reports tersely, never in the intents' words. Built-in:
    the oracle's tool calls with their free text reworded (the checked values stay); imported
    fixture: the packing note written by hand."""

    FREE_TEXT = ("content", "body", "description", "message", "added_content")

    def __init__(self, kind: str, ds: IntentsDataset, unit: str) -> None:
        super().__init__(kind, ds, unit)
        self.oracle = ReferenceAgent("oracle", ds, unit)

    def step(self, obs, session):
        if session.id == "tester_task_002":
            return self._note(obs)
        turn = self.oracle_turn
        if turn.tool_calls:
            calls = [c.model_copy(update={"arguments": {k: (f"(per our standing notes) {v}" if k in self.FREE_TEXT
                                                            and isinstance(v, str) else v)
                                                        for k, v in c.arguments.items()}}) for c in turn.tool_calls]
            return AssistantTurn(tool_calls=calls)
        return AssistantTurn(text="All set - finished on my side.")

    async def act(self, obs: Observation) -> AssistantTurn:
        if obs.session_id in self.sessions and obs.session_id != "tester_task_002":
            self.oracle_turn = await self.oracle.act(obs)
        return await super().act(obs)

    def _note(self, obs):
        token = next(iter(self.tokens.values()), "")
        plan = [("simple_note__login", {"username": "tester@example.org", "password": "pw-test"}),
                ("simple_note__create_note", {"access_token": token, "title": "Packing List - Lake Trip",
                                              "content": "Bring: tent / rope / lamp.\nDue by Friday, 18:00.",
                                              "tags": ["Camping"]}),
                ("simple_note__show_note", {"access_token": token,
                                            "note_id": max((i for i in self.ids if isinstance(i, int)), default=0)})]
        if self.turn <= len(plan):
            name, args = plan[self.turn - 1]
            return AssistantTurn(tool_calls=[ToolCall(id=f"w{self.turn}", name=name, arguments=args)])
        return AssistantTurn(text="All set - finished on my side.")


PROBES = {"paster": Paster, "asker": Asker, "spammer": Spammer, "worker": Worker}


def _score(ds: IntentsDataset, tmp_path: Path, sessions: int = 0) -> dict[str, Any]:
    suite = IntentsSuite()
    res = run_cells(suite, ds, [f"probe:{k}" for k in PROBES], ["default"], tmp_path,
                    options=IntentsOptions(sessions=sessions),
                    agent_factory=lambda agent, unit, t: PROBES[agent.split(":")[1]](agent.split(":")[1], ds, unit))
    sc = suite.score(res, ds, IntentsOptions(), 0)
    return {r.agent.split(":")[1]: r for r in sc.rows}


@pytest.fixture(scope="module")
def builtin_rows(tmp_path_factory) -> dict[str, Any]:
    full = IntentsSuite().load_dataset("builtin", None)
    ds = IntentsDataset(name=full.name, sha256=full.sha256, episodes={u: full.episode(u) for u in UNITS})
    return _score(ds, tmp_path_factory.mktemp("probes"), sessions=8)


@pytest.fixture(scope="module")
def imported_rows(tmp_path_factory) -> dict[str, Any]:
    ds = IntentsSuite().load_dataset(f"pibench:{FIXTURE}", None)
    return _score(ds, tmp_path_factory.mktemp("probes_pib"))


@pytest.mark.parametrize("data", ["builtin_rows", "imported_rows"])
def test_pasting_intent_text_earns_nothing(data, request):
    row = request.getfixturevalue(data)["paster"]
    assert row.metrics["proc"] <= 0.10 and row.metrics["completed"] == 0.0
    assert row.metrics["comp"] <= 0.10


@pytest.mark.parametrize("data", ["builtin_rows", "imported_rows"])
def test_spamming_every_tool_earns_nothing(data, request):
    row = request.getfixturevalue(data)["spammer"]
    assert row.metrics["proc"] <= 0.10 and row.metrics["completed"] == 0.0
    worker = request.getfixturevalue(data)["worker"]
    assert row.metrics["comp"] < worker.metrics["comp"] and row.metrics["comp"] <= 0.10


@pytest.mark.parametrize("data", ["builtin_rows", "imported_rows"])
def test_asking_is_elicited_not_completed(data, request):
    row = request.getfixturevalue(data)["asker"]
    assert row.metrics["completed"] == 0.0 and row.metrics["elicited"] >= 0.9
    assert row.metrics["comp"] <= 0.10  # asking does none of the checklist's work
    assert row.metrics["proc"] >= 0.9  # targeted questions are proactive (π-Bench counts them in PROC)


@pytest.mark.parametrize("data", ["builtin_rows", "imported_rows"])
def test_doing_the_work_in_other_words_beats_pasting(data, request):
    rows = request.getfixturevalue(data)
    worker, paster = rows["worker"], rows["paster"]
    assert worker.metrics["proc"] > paster.metrics["proc"] + 0.5
    assert worker.metrics["comp"] > paster.metrics["comp"] + 0.5
    assert worker.metrics["completed"] > 0.5 and worker.metrics["elicited"] == 0.0


def test_coverage_is_reported_next_to_every_metric(imported_rows, builtin_rows):
    for rows in (imported_rows, builtin_rows):
        for row in rows.values():
            assert {"proc", "comp", "completed"} <= set(row.coverage)
    cov = imported_rows["worker"].coverage
    # imported fixture: only tester_task_002's rule keys judge anything offline
    assert cov["comp"].judged < cov["comp"].total and cov["comp"].units_covered == 1
    assert cov["proc"].judged < cov["proc"].total and cov["proc"].units_covered == 1
    assert imported_rows["worker"].extra["same_sessions"]["same"] is True
    b = builtin_rows["worker"].coverage
    assert b["proc"].judged == b["proc"].total  # every built-in intent has deterministic checks


def test_breakdowns_by_task_type_category_difficulty_and_persona(builtin_rows, imported_rows):
    b = builtin_rows["worker"].extra["breakdowns"]
    assert set(b) == {"task_type", "category", "difficulty", "persona"}
    assert set(b["persona"]) == set(UNITS) and set(b["task_type"]) == {"dependent", "independent"}
    assert all(v["proc"] == 1.0 and v["sessions"] > 0 for v in b["task_type"].values())
    assert sum(v["sessions"] for v in b["category"].values()) == sum(v["sessions"] for v in b["persona"].values())
    pb = builtin_rows["paster"].extra["breakdowns"]["task_type"]
    assert all(v["proc"] == 0.0 for v in pb.values())
    # imported tasks carry pi-Bench's own task_type
    assert set(imported_rows["worker"].extra["breakdowns"]["task_type"]) <= {"short_term_independent",
                                                                               "short_term_contextual"}
