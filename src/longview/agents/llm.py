"""An agent backed by a model client: each observation becomes one ``complete`` call.

The observation's system prompt and tool list are forwarded unchanged on every turn, so within
one session the request prefix (system + tools + earlier messages) is byte-stable and providers
that cache prompt prefixes can serve it from their cache.
"""

from __future__ import annotations

from longview.kernel.agent import AssistantTurn, Observation
from longview.kernel.models import GenParams, ModelClient


class LLMAgent:
    """The agent under test when it is a model: ``act(obs)`` is one model call.

    ``trial`` is passed through to the client (it is part of the response-cache key), so
    repeated trials of the same cell can be sampled independently. Model failures surface as
    :class:`~longview.kernel.models.ModelCallFailed`, which aborts the cell.
    """

    def __init__(
        self, client: ModelClient, params: GenParams, name: str | None = None, trial: int = 0
    ) -> None:
        self.client, self.params, self.trial = client, params, trial
        self.name = name or client.model

    def __repr__(self) -> str:
        return f"LLMAgent({self.name!r}, trial={self.trial})"

    def request_params(self) -> dict:
        """What this agent sends besides the prompt: model, generation parameters, trial (for traces)."""
        return {"model": self.client.model, **self.params.model_dump(exclude_none=True), "trial": self.trial}

    async def act(self, obs: Observation) -> AssistantTurn:
        return await self.client.complete(
            obs.system, obs.messages, obs.tools, self.params, self.trial
        )
