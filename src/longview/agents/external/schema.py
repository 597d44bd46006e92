"""The JSON-lines protocol between longview and an agent process (``--agent 'cmd:COMMAND'``), version 1.

longview writes one :class:`ObservationLine` per assistant turn to the process's stdin, one JSON
object per line; the process writes back one :class:`TurnLine` on stdout. Anything else the
process wants to say goes to stderr (its last lines are kept in the trace when something goes
wrong). docs/agents.md shows the protocol with an example agent.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from longview.kernel.agent import Message, Observation, ToolCall, Usage

SCHEMA: Literal["longview.agent/1"] = "longview.agent/1"


class ObservationLine(BaseModel):
    """longview -> agent: everything the agent may see when it acts (one line per turn)."""

    schema_: Literal["longview.agent/1"] = Field(default=SCHEMA, alias="schema", description="Protocol name and version.")
    type: Literal["observation"] = Field(default="observation", description="Always 'observation' in version 1.")
    session_id: str = Field(description="The session this turn belongs to (a process serves one session).")
    phase: str = Field(description="Suite-defined phase label (learning, test, task, event...).")
    system: str = Field(description="System prompt of the session.")
    messages: list[Message] = Field(description="The conversation so far, oldest first (OpenAI-style roles).")
    tools: list[dict[str, Any]] = Field(description="Function-calling schemas of the tools the agent may call now.")

    model_config = ConfigDict(populate_by_name=True)

    @classmethod
    def of(cls, obs: Observation) -> ObservationLine:
        return cls(session_id=obs.session_id, phase=obs.phase, system=obs.system, messages=obs.messages,
                   tools=obs.tools)


class HelloLine(BaseModel):
    """agent -> longview, optional, before its first turn: who the agent is. Recorded with the run;
    a resume under another name or version of the agent is refused (its cells abort)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    type: Literal["hello"] = Field(description="Always 'hello'.")
    schema_: Literal["longview.agent/1"] | None = Field(default=None, alias="schema",
                                                        description="Protocol name and version, if the agent says.")
    name: str = Field(min_length=1, max_length=200, description="The agent's (harness's) name.")
    version: str = Field(default="", max_length=200, description="Its version.")


class TurnLine(BaseModel):
    """agent -> longview: one assistant turn (text, a batch of tool calls, or both)."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = Field(default=None, description="What the agent says (a text turn; how a suite reads it is "
                                                      "the suite's protocol).")
    tool_calls: list[ToolCall] = Field(default_factory=list, description="Tool calls, run in this order; each id "
                                                                         "unique within the session.")
    usage: Usage = Field(default_factory=Usage, description="Model usage of this turn, if the agent counts it itself "
                                                            "(its calls through longview's endpoint are counted there).")
