"""On-disk response cache: identical requests (same trial index) replay the stored turn.

The key is a sha256 over canonical JSON of everything that determines the answer — model,
system prompt, messages, tools, generation params and trial index — so repeated trials stay
independent samples while a re-run of the same trial is free. Only the assistant turn is
stored (never request headers, so never a key), written atomically so a crash or a parallel
writer cannot leave a truncated entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from longview.kernel.agent import AssistantTurn, Message

from .contracts import GenParams
from .secrets import redact


def canonical_json(obj: Any) -> str:
    """Deterministic JSON: sorted keys, no whitespace, unicode kept."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class ResponseCache:
    """A directory of ``<key[:2]>/<key>.json`` entries holding assistant turns."""

    def __init__(self, dir: str | Path) -> None:
        self.dir = Path(dir)
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(
        model: str,
        system: str | None,
        messages: list[Message],
        tools: list[dict],
        params: GenParams,
        trial: int = 0,
        api_base: str | None = None,
    ) -> str:
        """The sha256 hex digest identifying one request (``api_base``: the endpoint, when not the
        provider's default — answers from another server are never replayed)."""
        payload: dict[str, Any] = {
            "model": model,
            "system": system,
            "messages": [m.model_dump(mode="json") for m in messages],
            "tools": tools,
            "params": params.answer_fields(),
            "trial": trial,
        }
        if api_base:
            payload["api_base"] = api_base.rstrip("/")
        return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()

    def path(self, key: str) -> Path:
        """Where the entry for ``key`` lives (sharded to keep directories small)."""
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str) -> AssistantTurn | None:
        """The stored turn, marked as a cache hit by a zero cost; None on a miss."""
        try:
            entry = json.loads(self.path(key).read_text(encoding="utf-8"))
            turn = AssistantTurn.model_validate(entry["turn"])
        except (OSError, ValueError, KeyError, TypeError, ValidationError):
            # Missing or unreadable (e.g. from an older format): treat as a miss and overwrite.
            self.misses += 1
            return None
        self.hits += 1
        # A replayed turn costs nothing; token counts stay as a record of the original call.
        turn.usage = turn.usage.model_copy(update={"cost_usd": 0.0})
        return turn

    def put(self, key: str, turn: AssistantTurn, *, model: str = "") -> None:
        """Store ``turn`` under ``key`` atomically (temp file in the same dir, then rename)."""
        target = self.path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        entry = {"key": key, "model": model, "turn": turn.model_dump(mode="json")}
        # Redaction is a safety net: a model that echoes a key must not persist it.
        text = redact(canonical_json(entry))
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
