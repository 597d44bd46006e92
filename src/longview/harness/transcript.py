"""Readable session transcripts (`longview trace`), for any suite: kernel events by name, suite
protocol events shown generically."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field

from longview.kernel.agent import Message, ToolCall
from longview.kernel.errors import LongviewError
from longview.kernel.tools import ToolResult
from longview.kernel.trace import TraceEvent


def _short(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def trace_lines(events: list[TraceEvent], width: int = 160, to_user: frozenset[str] = frozenset()) -> list[str]:
    """A session transcript as readable lines: who said what, every tool call and its outcome,
    and protocol events (suite-specific ones shown generically).

    Domain calls are shown with their result (their ``tool_call`` event); a suite's control calls
    (those with no result event) are shown where the assistant made them; ``to_user`` names the
    control tools whose ``output`` argument is text delivered to the user.
    """
    executed = {e.data.get("call_id") for e in events if e.type == "tool_call"}
    out: list[str] = []
    for e in events:
        t = f"[{e.clock[11:16]}] " if e.clock else ""
        d = e.data
        if e.type == "session_start":
            out.append(f"{t}session {e.session_id} · phase {d.get('phase')} · agent {d.get('agent')}")
        elif e.type == "activation":
            out.append(f"{t}woken by {d.get('trigger')}: {_short(d.get('text'), width)}")
        elif e.type == "user_message":
            out.append(f"{t}user: {_short(d.get('text'), width)}")
        elif e.type == "assistant_turn":
            if d.get("text"):
                out.append(f"{t}assistant (turn {e.turn}): {_short(d['text'], width)}")
            for c in d.get("tool_calls", []):
                if c.get("id") in executed:
                    continue  # a domain call: shown with its result below
                if c["name"] in to_user:
                    out.append(f"{t}assistant to user: {_short(c['arguments'].get('output'), width)}")
                else:
                    args = _short(c.get("arguments") or {}, 100) if c.get("arguments") else ""
                    out.append(f"{t}assistant: {c['name']}({args})")
        elif e.type == "tool_call":
            mark = "ok" if d.get("ok") else f"FAILED: {d.get('error')}"
            out.append(f"{t}  tool {d.get('name')}({_short(d.get('arguments'), 100)}) [{d.get('kind')}] {mark}")
        elif e.type == "session_end":
            out.append(f"{t}end: {d.get('reason')} after {d.get('turns')} turns")
        elif e.type == "context_message":
            m = d.get("message") or {}
            calls = ", ".join(str(c.get("name")) for c in m.get("tool_calls") or [] if isinstance(c, dict))
            shown = _short(m.get("content"), width) if m.get("content") else f"[calls {calls}]" if calls else ""
            out.append(f"{t}earlier ({m.get('role')}): {shown}")
        elif e.type == "control_result":
            continue  # what a control tool answered the agent: `longview trace --raw` shows it
        else:
            fields = ", ".join(f"{k}={_short(v, 80)}" for k, v in d.items())
            out.append(f"{t}  · {e.type}: {fields}")
    return out


class ModelRequest(BaseModel):
    """One call the agent made (``act``), rebuilt from a session's trace and its cell's prompt store."""

    index: int = Field(description="Position among the session's calls, from 0.")
    turn: int = Field(description="Assistant turn the call was for.")
    kind: str = Field(description="first (the turn's call), empty-retry (the previous answer was empty), "
                                  "or rescue (re-prompted after an off-protocol text answer).")
    system: str | None = Field(description="System prompt; None when the run folder did not keep it.")
    tools: list[dict[str, Any]] | None = Field(description="Tool schemas offered; None when not kept.")
    messages: list[Message] = Field(description="Conversation the agent was shown, oldest first.")
    params: dict[str, Any] = Field(default_factory=dict, description="Model, generation parameters and trial, "
                                                                     "for a model agent.")


def model_requests(events: list[TraceEvent], prompt: dict[str, Any] | None) -> list[ModelRequest]:
    """Every request of a session, as the agent received it (see :func:`longview.kernel.session.run_session`:
    this replays how it grows the message list). ``prompt`` is the session's ``{"system", "tools"}``."""
    system = prompt.get("system") if prompt else None
    tools = prompt.get("tools") if prompt else None
    params: dict[str, Any] = {}
    messages: list[Message] = []
    out: list[ModelRequest] = []
    opened: set[int] = set()  # turns whose first request is recorded

    def request(turn: int, kind: str, extra: list[Message] | None = None) -> None:
        out.append(ModelRequest(index=len(out), turn=turn, kind=kind, system=system, tools=tools,
                                messages=[*messages, *(extra or [])], params=params))

    def open_turn(turn: int) -> None:
        # A turn's first call saw the messages as they stood before any of the turn's events.
        if turn not in opened:
            opened.add(turn)
            request(turn, "first")

    next_turn = 0
    for e in events:
        d = e.data
        if e.type == "session_start":
            params = d.get("params") or {}
        elif e.type in ("user_message", "activation"):
            messages.append(Message(role="user", content=d.get("text")))
        elif e.type == "context_message":
            messages.append(Message.model_validate(d.get("message") or {}))
        elif e.type == "agent_empty_response":
            open_turn(e.turn or 0)
            request(e.turn or 0, "empty-retry")
        elif e.type == "scaffolding_note":
            open_turn(e.turn or 0)
            request(e.turn or 0, "rescue", [Message(role="assistant", content=d.get("text")),
                                            Message(role="user", content=d.get("note"))])
        elif e.type == "assistant_turn":
            turn = e.turn if e.turn is not None else next_turn
            open_turn(turn)
            next_turn = turn + 1
            calls = [ToolCall.model_validate(c) for c in d.get("tool_calls") or []]
            messages.append(Message(role="assistant", content=d.get("text"), tool_calls=calls))
        elif e.type == "tool_call":
            result = ToolResult(ok=bool(d.get("ok")), output=d.get("output"), error=d.get("error"))
            messages.append(Message(role="tool", content=result.content(), tool_call_id=d.get("call_id"),
                                    name=d.get("name")))
        elif e.type == "control_result":
            messages.append(Message(role="tool", content=d.get("content"), tool_call_id=d.get("call_id"),
                                    name=d.get("name")))
        elif e.type == "protocol_note":
            messages.append(Message(role="user", content=d.get("text")))
    return out


def wire_body(req: ModelRequest) -> dict[str, Any]:
    """The request as an OpenAI-compatible provider is sent it (longview's own body builder); a
    provider-neutral form for other providers and for agents that are not models."""
    from longview.kernel.models import GenParams
    from longview.kernel.models.openai_compat import OpenAICompatClient
    from longview.kernel.models.providers import split_model

    model = str(req.params.get("model") or "")
    gen = GenParams.model_validate({k: v for k, v in req.params.items() if k in GenParams.model_fields})
    try:
        spec, name = split_model(model)
        if spec.backend not in ("mock", "litellm"):
            client = OpenAICompatClient(model, spec, name, api_base=spec.api_base or "http://127.0.0.1")
            return client.request_body(req.system, req.messages, req.tools or [], gen)
    except LongviewError:
        pass
    return {"model": model or None, "system": req.system, "messages": [m.model_dump(exclude_none=True) for m in req.messages],
            "tools": req.tools, "params": {k: v for k, v in req.params.items() if k != "model"}}
