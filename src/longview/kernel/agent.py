"""The agent contract: an observation (messages + tool schemas) in, an assistant turn out.

The shapes follow native function calling so an LLM agent, a scripted reference agent and an
external harness all fit the same protocol.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field, SkipValidation


class ToolCall(BaseModel):
    """One tool call inside an assistant turn."""

    id: str = Field(description="Call id, unique within the session; pairs the call with its result.")
    name: str = Field(description="Tool name.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Arguments as a JSON object.")


class Message(BaseModel):
    """One chat message in function-calling form."""

    role: Literal["system", "user", "assistant", "tool"] = Field(description="Who speaks.")
    content: str | None = Field(default=None, description="Text content, if any.")
    tool_calls: list[ToolCall] = Field(default_factory=list, description="Assistant tool calls.")
    tool_call_id: str | None = Field(default=None, description="For role=tool: the call answered.")
    name: str | None = Field(default=None, description="For role=tool: the tool's name.")


class Usage(BaseModel):
    """Token accounting for one model call (zero for scripted agents)."""

    input_tokens: int = Field(default=0, description="Prompt tokens billed.")
    cached_tokens: int = Field(default=0, description="Prompt tokens served from provider cache.")
    output_tokens: int = Field(default=0, description="Completion tokens.")
    cost_usd: float = Field(default=0.0, description="Cost estimate in US dollars, 0 if unknown.")


class AssistantTurn(BaseModel):
    """What the agent emits on one turn: text and/or a batch of parallel tool calls."""

    text: str | None = Field(default=None, description="Free-form content.")
    tool_calls: list[ToolCall] = Field(default_factory=list, description="The batch, in order.")
    usage: Usage = Field(default_factory=Usage, description="Model usage for this turn.")


class Observation(BaseModel):
    """Everything the agent may see when it acts."""

    system: str = Field(description="System prompt.")
    messages: list[Message] = Field(description="Conversation so far, oldest first.")
    # Not re-validated: the schemas are shared, read-only dicts (built once per tool), and keeping
    # their identity lets the model layer reuse their JSON encoding across calls.
    tools: SkipValidation[list[dict[str, Any]]] = Field(description="Function-calling schemas of available tools.")
    session_id: str = Field(description="Id of the current session.")
    phase: str = Field(default="", description="Suite-defined phase label, e.g. learning or test.")


@runtime_checkable
class Agent(Protocol):
    """Anything that maps an observation to an assistant turn."""

    name: str

    async def act(self, obs: Observation) -> AssistantTurn: ...
