"""The user-simulator contract: a deterministic core decides, an optional model only words.

The core holds what the simulated user knows, may reveal and approves; it returns a
:class:`UserIntent` — the decision (what to say in substance, whether to end, what is granted).
A :class:`Wording` turns that decision into text: the embedded one uses the core's own draft; a
model-backed one rewords it and cannot add permissions or reveal hidden state, because the
decision is taken before it runs and is what the suite acts on.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from pydantic import BaseModel, Field

from longview.kernel.agent import Message
from longview.kernel.models.client import GenParams, ModelClient


class UserIntent(BaseModel):
    """A decision of the simulated user's core."""

    draft: str = Field(description="The reply in substance, in the core's own words.")
    end: bool = Field(default=False, description="Whether the user ends the session.")
    grants: list[str] = Field(default_factory=list, description="What this reply permits (suite-defined ids).")
    facts: dict[str, Any] = Field(default_factory=dict, description="Suite-specific decision details.")


class Wording(Protocol):
    name: str

    async def word(self, intent: UserIntent, context: str) -> str: ...


class VerbatimWording:
    """The embedded wording: the core's draft as it is."""

    name = "embedded:verbatim"

    async def word(self, intent: UserIntent, context: str) -> str:
        return intent.draft


class ModelWording:
    """A model rewords the draft in the persona's voice; an empty answer falls back to the draft."""

    def __init__(self, client: ModelClient, params: GenParams, system: str) -> None:
        self.client, self.params, self.system = client, params, system
        self.name = f"llm:{client.model}"

    async def word(self, intent: UserIntent, context: str) -> str:
        payload = json.dumps({"context": context, "draft": intent.draft}, ensure_ascii=False)
        turn = await self.client.complete(self.system, [Message(role="user", content=payload)], [], self.params)
        return (turn.text or "").strip() or intent.draft
