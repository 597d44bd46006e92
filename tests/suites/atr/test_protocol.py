"""ATR learning/test protocol on the real ATRBench fixture episode: channel, hook, events, context."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from longview.domains.personal import all_tool_names, make_env
from longview.kernel.agent import AssistantTurn, Message, Observation, ToolCall
from longview.kernel.errors import CellAborted
from longview.kernel.session import TerminationReason, run_session
from longview.kernel.trace import TraceWriter
from longview.suites.atr.context import render_session
from longview.suites.atr.dataset import load_episode
from longview.suites.atr.protocol import CARRY_ON_NOTE, DEFLECTION, LearningProtocol, TestProtocol
from longview.suites.atr.records import LearningRecord
from longview.suites.atr.scaffold import KeywordRouter, RouteVerdict, TopicClassifier
from longview.suites.atr.user import ScriptedUser, UserReply

FIX = Path(__file__).parents[2] / "fixtures/atrbench/data/personas/cassandra_tovar/episodes/cassandra_tovar_seed000.json"
EP = load_episode(FIX, all_tool_names())
S = EP.learning_sessions[0]  # communication: search, priority, archive, draft
RULE = EP.rule("cassandra_tovar_communication_01")  # draft before sending


class Script:
    name = "script"

    def __init__(self, turns):
        self.turns = list(turns)
        self.seen: list[Observation] = []

    async def act(self, obs):
        self.seen.append(obs)
        t = self.turns.pop(0) if self.turns else AssistantTurn(text="")
        return t


def stu(i, output, reason="r"):
    return ToolCall(id=f"s{i}", name="send_to_user", arguments={"output": output, "reason": reason})


def gold_calls():
    return [AssistantTurn(tool_calls=[ToolCall(id=f"g{i}", name=st.tool, arguments=st.arguments)])
            for i, st in enumerate(S.gold_trajectory)]


def learn(agent, user=None, router=None, classifier=None):
    rec = LearningRecord(session_id=S.session_id, domain=S.domain, termination="", turns=0)
    proto = LearningProtocol(S, EP.rules, router or KeywordRouter(), classifier or TopicClassifier(),
                             user or ScriptedUser(), rec)
    trace = TraceWriter(None, S.session_id)
    env = make_env(S.domain, S.local_env.references, EP.structured_persona, S.local_env.tools)
    out = asyncio.run(run_session(agent, env, proto, system="sys", opening=[Message(role="user", content="hi")],
                                  session_id=S.session_id, phase="learning", trace=trace))
    return out, rec, trace


def types(trace):
    return [e.type for e in trace.events]


ASK = "Also, going forward, should I always draft message replies for your review before anything is sent?"


def test_rule_ask_hit_delivers_canonical_answer_and_keeps_session_open():
    agent = Script(gold_calls() + [AssistantTurn(tool_calls=[stu(0, "Done. " + ASK, reason="SECRET-REASON")]),
                                   AssistantTurn(tool_calls=[stu(1, "Thanks!")])])
    out, rec, trace = learn(agent)
    assert [(a.rule_id, a.span) for a in rec.asks] == [(RULE.rule_id, ASK)]
    replies = [m.content for m in out.messages if m.role == "user"]
    assert RULE.canonical_answer in replies[1]
    assert "<RULE_ANSWER>" not in replies[1]
    # The task was done at the ask, but a hit overrides the end so the answer reaches the agent.
    assert out.termination is TerminationReason.USER_END and out.turns == len(S.gold_trajectory) + 2
    assert {"send_event", "route_decision", "cls_verdict", "hook_appended"} <= set(types(trace))
    # reason reaches the trace (send_event) but never the user, the context or the agent's transcript.
    assert "SECRET-REASON" not in json.dumps([m.content for m in out.messages if m.role == "user"])
    assert "SECRET-REASON" not in render_session(1, out.messages)
    ctx = render_session(1, out.messages)
    assert "[assistant to user]: Done. " + ASK in ctx and "[tool call]: search_messages(" in ctx


def test_miss_gets_deflection_and_task_question_is_not_an_ask():
    agent = Script([AssistantTurn(tool_calls=[stu(0, "In the future, do you want a standing rule about fonts?")])]
                   + gold_calls() + [AssistantTurn(tool_calls=[stu(1, "All done. Which font did you want?")]),
                                     AssistantTurn(tool_calls=[stu(2, "Glad to help. Anything else I can do?")])])
    out, rec, trace = learn(agent)
    assert [a.rule_id for a in rec.asks] == [None]
    assert DEFLECTION in out.messages[3].content
    users = [m.content for m in out.messages if m.role == "user"]
    # A task question the task does not answer is deflected, not answered with a list of parameters;
    # the done task opens the closing exchange, and a generic offer of help closes it.
    assert users[-1] == f"{DEFLECTION} That's everything I needed, thanks."
    assert out.termination is TerminationReason.USER_END and out.turns == len(S.gold_trajectory) + 3


def test_duplicate_send_dropped_mixed_recorded_and_text_turn_rescued():
    first = S.gold_trajectory[0]
    agent = Script([
        AssistantTurn(text="Let me look at your inbox."),  # off-protocol text turn
        AssistantTurn(tool_calls=[ToolCall(id="g", name=first.tool, arguments=first.arguments),
                                  stu(0, "Looking now."), stu(1, "dup")]),
    ])
    out, rec, trace = learn(agent)
    t = types(trace)
    assert t.count("scaffolding_note") == 1 and "rescued" in t
    assert "stu_duplicate_same_turn" in t and "stu_mixed_with_tools" in t
    assistant = [m for m in out.messages if m.role == "assistant"]
    assert [c.id for c in assistant[0].tool_calls] == ["g", "s0"]
    assert all(m.content != "Let me look at your inbox." for m in assistant)


def test_unrescued_text_is_routed_as_sent():
    agent = Script([AssistantTurn(text=ASK)] * 4 + [AssistantTurn()])
    out, rec, trace = learn(agent)
    assert types(trace).count("scaffolding_note") == 3
    assert "off_protocol_ask" in types(trace)
    assert [a.rule_id for a in rec.asks] == [RULE.rule_id]
    assert RULE.canonical_answer in out.messages[2].content


class DropToken(ScriptedUser):
    async def reply(self, session, state, agent_message, directive):
        r = await super().reply(session, state, agent_message, directive)
        return UserReply(text=r.text.replace("<RULE_ANSWER>", "").strip(), end=r.end)


def test_token_missing_retried_then_guaranteed_delivery():
    agent = Script([AssistantTurn(tool_calls=[stu(0, ASK)]), AssistantTurn()])
    out, rec, trace = learn(agent, user=DropToken())
    t = types(trace)
    assert t.count("hook_appended") == 3  # first try + two retries
    assert t.count("rule_hook_token_missing") == 3  # two retries + fallback
    assert out.messages[3].content.endswith(RULE.canonical_answer)


class SpanlessRouter:
    name = "bad"

    async def route(self, output, reason):
        return RouteVerdict(is_rule_question=True, span=None)


class WrongClassifier:
    name = "bad"

    async def classify(self, span, rules):
        return "not_a_rule"


@pytest.mark.parametrize("kw", [{"router": SpanlessRouter()}, {"classifier": WrongClassifier()}])
def test_scaffold_faults_abort_the_cell(kw):
    with pytest.raises(CellAborted):
        learn(Script([AssistantTurn(tool_calls=[stu(0, ASK)])]), **kw)


def test_test_protocol_finish_and_text_only():
    t = EP.test_sessions[0]
    env = make_env(t.domain, t.local_env.references, EP.structured_persona, t.local_env.tools)
    agent = Script([AssistantTurn(tool_calls=[ToolCall(id="f", name="finish_session")])])
    out = asyncio.run(run_session(agent, env, TestProtocol(), system="s", opening=[], session_id=t.session_id,
                                  phase="test", trace=TraceWriter(None, "t")))
    assert out.termination is TerminationReason.AGENT_FINISH
    assert "send_to_user" not in [s["function"]["name"] for s in agent.seen[0].tools]
    # Narration never ends a test session and gets no answer: the next turn sees its own text, then
    # only the user-role carry-on marker (never a request ending on an assistant message).
    narrate = Script([AssistantTurn(text="Let me look."), AssistantTurn(text="Still looking."),
                      AssistantTurn(tool_calls=[ToolCall(id="f", name="finish_session")])])
    out = asyncio.run(run_session(narrate, env, TestProtocol(), system="s", opening=[], session_id="t", phase="test",
                                  trace=TraceWriter(None, "t")))
    assert out.termination is TerminationReason.AGENT_FINISH and out.turns == 3
    tail = narrate.seen[2].messages[-4:]
    assert [(m.role, m.content) for m in tail] == [("assistant", "Let me look."), ("user", CARRY_ON_NOTE),
                                                   ("assistant", "Still looking."), ("user", CARRY_ON_NOTE)]
    out = asyncio.run(run_session(Script([AssistantTurn(text="I would buy it")] * 30), env, TestProtocol(), system="s",
                                  opening=[], session_id="t", phase="test", trace=TraceWriter(None, "t")))
    assert out.termination is TerminationReason.TURN_CAP and out.turns == 20
    # Empty responses are asked again twice; a third empty one ends the session.
    empty = Script([AssistantTurn(), AssistantTurn(), AssistantTurn(tool_calls=[ToolCall(id="f", name="finish_session")])])
    out = asyncio.run(run_session(empty, env, TestProtocol(), system="s", opening=[], session_id="t", phase="test",
                                  trace=TraceWriter(None, "t")))
    assert out.termination is TerminationReason.AGENT_FINISH and out.turns == 1
    out = asyncio.run(run_session(Script([AssistantTurn()] * 3), env, TestProtocol(), system="s", opening=[],
                                  session_id="t", phase="test", trace=TraceWriter(None, "t")))
    assert out.termination is TerminationReason.AGENT_EMPTY


def test_user_leaves_a_stuck_agent_after_three_idle_messages():
    agent = Script([AssistantTurn(tool_calls=[stu(i, "Working on it.")]) for i in range(10)])
    out, rec, trace = learn(agent)
    assert out.termination is TerminationReason.USER_END and out.turns == 3
    # The user's parting words are dropped (the release stamps an end marker nobody reads).
    assert out.messages[-1].role == "tool"


def test_context_lines_are_cut_as_the_release_cuts_them():
    long_text, long_arg = "x" * 700, "y" * 400
    msgs = [
        Message(role="user", content=long_text),
        Message(role="assistant", tool_calls=[ToolCall(id="a", name="draft_message", arguments={"body": long_arg, "b": 1})]),
        Message(role="tool", content=long_text, tool_call_id="a", name="draft_message"),
        Message(role="assistant", tool_calls=[stu(0, long_text), stu(1, "dropped")]),
        Message(role="tool", content='{"delivered": true}', tool_call_id="s0", name="send_to_user"),
        Message(role="assistant", content=long_text),
    ]
    lines = render_session(1, msgs).splitlines()
    assert lines[1] == "[user]: " + "x" * 500 + "..."
    args = json.dumps({"body": long_arg, "b": 1})
    assert lines[2] == "[tool call]: draft_message(" + args[:300] + "...)"
    assert lines[3] == "[tool result]: " + "x" * 500 + "..."
    assert lines[4] == "[assistant to user]: " + "x" * 500 + "..."
    assert lines[5] == "[assistant to user]: " + "x" * 500 + "..."
    assert len(lines) == 6 and "dropped" not in render_session(1, msgs)
