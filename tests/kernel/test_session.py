"""The kernel session loop: batches, tool errors as results, rescue, caps, trace."""

from __future__ import annotations

import asyncio
from typing import Literal

from longview.kernel.agent import AssistantTurn, Observation, ToolCall
from longview.kernel.session import ControlResult, TerminationReason, UserTurn, run_session
from longview.kernel.tools import ToolError, ToolKind, Toolkit, ToolSpec, tool
from longview.kernel.trace import TraceWriter, read_trace


class Shelf(Toolkit):
    def __init__(self) -> None:
        self.items: list[str] = []
        super().__init__()

    @tool(ToolKind.WRITE)
    def put(self, item: str, size: Literal["s", "m"] = "s") -> dict:
        """Put an item on the shelf.

        Args:
          item: What to put.
          size: How big it is.
        """
        if item == "bomb":
            raise ToolError("refused: bomb")
        self.items.append(item)
        return {"count": len(self.items)}


FINISH = ToolSpec(name="finish", description="End.", kind=ToolKind.WRITE)


class Proto:
    control_specs = [FINISH]

    def __init__(self, max_rescues: int = 0, user_ends: bool = False) -> None:
        self.max_rescues = max_rescues
        self.user_ends = user_ends
        self.seen: list[tuple[str, bool]] = []

    def filter_batch(self, calls, turn, trace):
        return calls

    def rescue_note(self, text, attempt):
        return "use a tool"

    async def on_control(self, call, turn, trace):
        return ControlResult(end=TerminationReason.AGENT_FINISH)

    async def on_text(self, text, turn, trace):
        return ControlResult(to_user=text)

    async def on_tool_result(self, call, ok, turn):
        self.seen.append((call.name, ok))

    async def user_reply(self, delivered, turn, trace):
        return UserTurn(text=f"heard: {delivered}", end=self.user_ends)


class Script:
    name = "script"

    def __init__(self, turns: list[AssistantTurn]) -> None:
        self.turns = list(turns)
        self.observations: list[Observation] = []

    async def act(self, obs: Observation) -> AssistantTurn:
        self.observations.append(obs)
        return self.turns.pop(0) if self.turns else AssistantTurn(text="...")


def call(name: str, i: int = 0, **args) -> ToolCall:
    return ToolCall(id=f"c{i}", name=name, arguments=args)


def run(agent, proto, tmp_path=None, max_turns=20):
    trace = TraceWriter(tmp_path / "s.jsonl" if tmp_path else None, "s1")
    out = asyncio.run(run_session(agent, Shelf(), proto, system="sys", opening=[], session_id="s1",
                                  phase="test", trace=trace, max_turns=max_turns))
    trace.close()
    return out, trace


def test_batch_runs_in_order_and_errors_come_back_as_results(tmp_path):
    agent = Script([
        AssistantTurn(tool_calls=[call("put", 0, item="a"), call("put", 1, item="bomb"), call("nope", 2), call("put", 3, size="xl", item="b")]),
        AssistantTurn(tool_calls=[call("finish", 4)]),
    ])
    out, trace = run(agent, Proto(), tmp_path)
    assert out.termination is TerminationReason.AGENT_FINISH
    assert out.turns == 2
    tool_msgs = [m for m in out.messages if m.role == "tool"]
    assert [m.tool_call_id for m in tool_msgs] == ["c0", "c1", "c2", "c3", "c4"]
    assert '"count": 1' in tool_msgs[0].content
    assert "refused: bomb" in tool_msgs[1].content
    assert "Unknown tool: nope" in tool_msgs[2].content
    assert "must be enum[s|m]" in tool_msgs[3].content
    assert [len(b) for b in out.batches] == [4]  # control calls are not domain calls
    events = read_trace(tmp_path / "s.jsonl")
    logged = [e for e in events if e.type == "tool_call"]
    assert [(e.turn, e.data["batch_pos"], e.data["ok"], e.data["kind"]) for e in logged] == [
        (0, 0, True, "write"), (0, 1, False, "write"), (0, 2, False, "read"), (0, 3, False, "write")]
    assert events[-1].type == "session_end" and events[-1].data["reason"] == "agent_finish"


def test_turn_cap_and_no_progress():
    loop = Script([AssistantTurn(tool_calls=[call("put", i, item=str(i))]) for i in range(50)])
    out, _ = run(loop, Proto(), max_turns=5)
    assert out.termination is TerminationReason.TURN_CAP and out.turns == 5
    out, _ = run(Script([AssistantTurn()]), Proto())
    assert out.termination is TerminationReason.NO_PROGRESS


def test_rescue_replaces_text_turn_and_user_can_end():
    agent = Script([AssistantTurn(text="hello?"), AssistantTurn(tool_calls=[call("put", 0, item="x")]),
                    AssistantTurn(text="done")])
    proto = Proto(max_rescues=3, user_ends=True)
    out, trace = run(agent, proto)
    # The rescued turn took the text turn's slot: no assistant message carries "hello?".
    assert all(m.content != "hello?" for m in out.messages if m.role == "assistant")
    assert agent.observations[1].messages[-1].content == "use a tool"  # transient note
    assert not any(m.content == "use a tool" for m in out.messages)
    assert [e.type for e in trace.events].count("rescued") == 1
    # "done" is text again: three failed rescues, then routed to the user who ends the session.
    assert out.termination is TerminationReason.USER_END
    assert out.messages[-1].content == "heard: done"


def test_unparseable_arguments_come_back_as_a_clear_error():
    agent = Script([AssistantTurn(tool_calls=[ToolCall(id="r", name="put", arguments={"__raw__": "{item: oops"})]),
                    AssistantTurn(tool_calls=[call("finish", 1)])])
    out, _ = run(agent, Proto())
    assert "not valid JSON: {item: oops" in out.messages[1].content


def test_a_session_can_start_from_an_event_not_a_user_message(tmp_path):
    from datetime import datetime

    from longview.kernel.agent import Message
    from longview.kernel.clock import SimClock

    agent = Script([AssistantTurn(tool_calls=[call("finish", 0)])])
    trace = TraceWriter(tmp_path / "s.jsonl", "s1")
    wake = Message(role="user", content="[wake-up 07:00] check the overnight job")
    out = asyncio.run(run_session(agent, Shelf(), Proto(), system="sys", opening=[wake], session_id="s1", phase="day",
                                  trace=trace, clock=SimClock(datetime(2026, 3, 1, 7, 0)), trigger="wakeup"))
    trace.close()
    events = read_trace(tmp_path / "s.jsonl")
    assert [e.type for e in events][:2] == ["session_start", "activation"]
    assert events[1].data == {"trigger": "wakeup", "text": wake.content} and events[1].clock == "2026-03-01T07:00:00"
    assert not any(e.type == "user_message" for e in events)  # nobody said anything
    assert agent.observations[0].messages == [wake] and out.termination is TerminationReason.AGENT_FINISH


class PatientProto(Proto):
    """Text-only turns carry on without a note; empty answers are re-asked twice; only a retry
    that uses the control tool counts as a rescue."""

    empty_retries = 2

    async def on_text(self, text, turn, trace):
        return ControlResult(carry_on=True)

    def accepts_rescue(self, turn):
        return any(c.name == "finish" for c in turn.tool_calls)


def test_empty_answers_are_retried_then_end_the_session():
    agent = Script([AssistantTurn(), AssistantTurn(text="  "), AssistantTurn(tool_calls=[call("put", 0, item="a")]),
                    AssistantTurn(tool_calls=[call("finish", 1)])])
    out, trace = run(agent, PatientProto())
    assert out.termination is TerminationReason.AGENT_FINISH and out.turns == 2
    assert [e.type for e in trace.events].count("agent_empty_response") == 2
    assert len(agent.observations[0].messages) == len(agent.observations[2].messages)  # same input re-asked
    out, _ = run(Script([AssistantTurn()] * 3), PatientProto())
    assert out.termination is TerminationReason.AGENT_EMPTY and out.turns == 1
    # Without empty_retries an empty turn still ends at once (no progress).
    out, _ = run(Script([AssistantTurn()]), Proto())
    assert out.termination is TerminationReason.NO_PROGRESS


def test_text_turns_can_carry_on_without_a_note():
    agent = Script([AssistantTurn(text="thinking"), AssistantTurn(text="still thinking"),
                    AssistantTurn(tool_calls=[call("finish", 0)])])
    out, trace = run(agent, PatientProto())
    assert out.termination is TerminationReason.AGENT_FINISH and out.turns == 3
    assert [m.role for m in out.messages] == ["assistant", "assistant", "assistant", "tool"]
    assert "protocol_note" not in [e.type for e in trace.events]


def test_a_rescue_counts_only_when_the_protocol_accepts_the_retry():
    proto = PatientProto()
    proto.max_rescues = 2
    agent = Script([AssistantTurn(text="hello?"), AssistantTurn(tool_calls=[call("put", 0, item="x")]),
                    AssistantTurn(tool_calls=[call("finish", 1)])])
    out, trace = run(agent, proto)
    # The domain-call retry was discarded; the finish retry replaced the text turn.
    assert [e.type for e in trace.events].count("scaffolding_note") == 2
    assert out.batches == [] and out.termination is TerminationReason.AGENT_FINISH and out.turns == 1


def test_trace_lines_are_byte_identical_to_the_event_models_dump(tmp_path):
    from longview.kernel.agent import ToolCall, Usage
    from longview.kernel.trace import TraceEvent, TraceWriter

    path = tmp_path / "s.jsonl"
    payload = {"calls": [ToolCall(id="c1", name="t", arguments={"x": [1, 2.5, None], "é": "ü"})], "usage": Usage()}
    with TraceWriter(path, "s", clock=lambda: "2026-01-05T09:00:00") as tw:
        tw.emit("assistant_turn", turn=0, text="hi", **payload)
        tw.emit("session_end", reason="user_end")
    expected = [
        TraceEvent(seq=0, session_id="s", turn=0, type="assistant_turn", clock="2026-01-05T09:00:00",
                   data={"text": "hi", **payload}).model_dump_json(),
        TraceEvent(seq=1, session_id="s", type="session_end", clock="2026-01-05T09:00:00",
                   data={"reason": "user_end"}).model_dump_json(),
    ]
    assert path.read_text(encoding="utf-8").splitlines() == expected
