"""-S rubric_turns=each: the rubric judge grades the session as it stood after each reply and an item
is met when any grading says so (π-Bench's checklist evaluator), instead of one grading at the end."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from longview.cli import app
from longview.harness import run as harness
from longview.harness.options import RunConfig
from longview.suites.intents.judge import Verdicts, merge_turns
from longview.testing.loopback import LoopbackServer, text_message

FIXTURE = Path(__file__).parents[2] / "fixtures" / "pibench"


def test_merge_is_yes_if_any_turn_and_counts_what_no_turn_read():
    t1 = Verdicts(labels={"a": False, "b": False, "c": False}, reasons={"a": "not yet"}, missing=["c"])
    t2 = Verdicts(labels={"a": True, "b": False, "c": False}, reasons={"a": "drafted"}, missing=["b"])
    t3 = Verdicts(labels={"a": False, "b": False, "c": True}, reasons={"a": "draft replaced"})
    m = merge_turns([t1, t2, t3])
    assert m.labels == {"a": True, "b": False, "c": True}  # met mid-session and undone later still counts
    assert m.reasons["a"] == "turn 2: drafted"
    assert m.missing == ["b"]  # c was left out once but met later: not missing
    assert merge_turns([Verdicts(labels={"a": False})]).missing == []


def judge_agent(seen: list[dict[str, Any]]):
    """The agent under test gives one plain reply each time; the judge says yes to a rubric item
    only while the conversation holds a single reply (so only a grading of the first turn meets it)."""

    def agent(body: dict[str, Any]) -> dict[str, Any]:
        if body["model"] == "agent":
            return text_message("I have looked at it and will take care of it.")
        payload = json.loads(body["messages"][-1]["content"])
        if "criteria" in payload:
            seen.append(payload)
            early = sum(m["role"] == "assistant" for m in payload["conversation"]) == 1
            return text_message(json.dumps({"decisions": [{"id": c["id"], "yes": early} for c in payload["criteria"]]}))
        ids = [i["id"] for i in payload.get("requirements") or []]
        return text_message(json.dumps({"decisions": [{"id": i, "yes": False} for i in ids]}))

    return agent


def _run(out: Path, turns: str, seen: list[dict[str, Any]]) -> Path:
    with LoopbackServer(agent=judge_agent(seen)).in_thread() as srv:
        cfg = RunConfig(suite="intents", dataset=f"pibench:{FIXTURE}", agents=[], models=["hosted_vllm/agent"],
                        role_models={"judge": "hosted_vllm/judge"}, api_base=srv.url, no_cache=True, out=out,
                        max_concurrency=1, retry_base_delay=0.01, suite_options={"rubric_turns": turns})
        harness.run(cfg)
    return out


def _sessions(run: Path) -> list[dict[str, Any]]:
    return [s for p in (run / "cells").glob("*/result.json") for s in json.loads(p.read_text())["sessions"]]


def _rubric(run: Path) -> list[bool | None]:
    return [c["met"] for s in _sessions(run) for c in s["criteria"].values() if c["kind"] == "rubric"]


def test_each_turn_grades_every_reply_and_keeps_an_early_yes(tmp_path: Path):
    seen_end: list[dict[str, Any]] = []
    seen_each: list[dict[str, Any]] = []
    end = _run(tmp_path / "end", "end", seen_end)
    each = _run(tmp_path / "each", "each", seen_each)
    sessions = [s for s in _sessions(each) if s["rubric_input"]]
    turns = [s["rubric_input"]["turns"] for s in sessions]
    assert any(len(t) >= 2 for t in turns)  # sessions with several replies, each graded
    assert len(seen_each) == sum(len(t) or 1 for t in turns) and len(seen_end) == len(sessions)
    for t in turns:  # each snapshot ends on the reply it follows, and the conversation only grows
        sizes = [len(p["conversation"]) for p in t]
        assert sizes == sorted(sizes) and all(p["conversation"][-1]["role"] == "assistant" for p in t)
    # only the first turn's grading says yes: met per turn; graded once at the end, met only where the
    # session had a single reply
    replies = {s["session_id"]: len(s["rubric_input"]["turns"]) for s in sessions}

    def met(run: Path) -> dict[str, list[bool | None]]:
        return {s["session_id"]: [c["met"] for c in s["criteria"].values() if c["kind"] == "rubric"]
                for s in _sessions(run) if s["session_id"] in replies}

    by_end, by_each = met(end), met(each)
    assert all(all(v) for v in by_each.values())
    assert all(all(v) == (replies[sid] == 1) for sid, v in by_end.items())
    assert any(n >= 2 for n in replies.values())
    manifest = json.loads((each / "manifest.json").read_text())
    assert manifest["components"]["rubric"] == "llm:hosted_vllm/judge@each-turn"
    assert json.loads((end / "manifest.json").read_text())["components"]["rubric"] == "llm:hosted_vllm/judge"
    # rescore grades the stored turns again, the same way
    with LoopbackServer(agent=judge_agent(seen := [])).in_thread() as srv:
        r = CliRunner().invoke(app, ["rescore", str(each), "--judge-model", "hosted_vllm/judge", "--api-base", srv.url,
                                     "--out", str(tmp_path / "again"), "--no-cache"])
    assert r.exit_code == 0, r.output
    assert len(seen) == len(seen_each)
    assert _rubric(tmp_path / "again") == _rubric(each)


async def test_grade_adds_the_end_only_where_the_session_went_on():
    from longview.suites.intents.judge import RubricJudge

    asked: list[dict[str, Any]] = []

    class Judge(RubricJudge):
        async def ask(self, payload: dict[str, Any]) -> Verdicts:
            asked.append(payload)
            return Verdicts(labels={"a": payload["n"] == 1})

    t1, t2, later = {"n": 1}, {"n": 2}, {"n": 3}
    assert (await Judge(per_turn=True).grade(t2, [t1, t2])).labels == {"a": True} and asked == [t1, t2]
    asked.clear()
    await Judge(per_turn=True).grade(later, [t1, t2])
    assert asked == [t1, t2, later]  # a user message or a change after the last reply is graded too
    asked.clear()
    assert (await Judge(per_turn=True).grade(later, [])).labels == {"a": False} and asked == [later]
    asked.clear()
    assert (await Judge(per_turn=False).grade(t2, [t1, t2])).labels == {"a": False} and asked == [t2]


def test_an_agent_that_only_talks_gains_nothing_from_per_turn_grading(tmp_path: Path):
    """A judge that credits an item only with a successful call in its input: an agent that answers in
    words alone (no call) meets no rubric item in any turn, so YES-if-any-turn adds nothing."""
    graded: list[dict[str, Any]] = []

    def agent(body: dict[str, Any]) -> dict[str, Any]:
        if body["model"] == "agent":
            return text_message("Done: I have taken care of everything you need, exactly as you asked.")
        payload = json.loads(body["messages"][-1]["content"])
        if "criteria" in payload:
            graded.append(payload)
            worked = any(c["ok"] for c in payload["tool_calls"])
            return text_message(json.dumps({"decisions": [{"id": c["id"], "yes": worked} for c in payload["criteria"]]}))
        return text_message(json.dumps({"decisions": [{"id": i["id"], "yes": False} for i in payload["requirements"]]}))

    with LoopbackServer(agent=agent).in_thread() as srv:
        harness.run(RunConfig(suite="intents", dataset=f"pibench:{FIXTURE}", agents=[], models=["hosted_vllm/agent"],
                              role_models={"judge": "hosted_vllm/judge"}, api_base=srv.url, no_cache=True,
                              out=tmp_path / "run", max_concurrency=1, retry_base_delay=0.01,
                              suite_options={"rubric_turns": "each"}))
    assert graded and any(len(s["rubric_input"]["turns"]) >= 2 for s in _sessions(tmp_path / "run") if s["rubric_input"])
    assert _rubric(tmp_path / "run") and not any(_rubric(tmp_path / "run"))
