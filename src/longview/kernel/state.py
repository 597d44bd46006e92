"""A typed world-state base: what an environment knows, copyable and hashable.

Environments keep everything that tools read or change in one pydantic model so a run can be
snapshotted (``copy``) and two runs compared cheaply (``digest``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Self

from pydantic import BaseModel, ConfigDict


class WorldState(BaseModel):
    """Base class for an environment's mutable state; subclasses add typed fields."""

    model_config = ConfigDict(validate_assignment=False)

    def copy(self, **_: Any) -> Self:  # type: ignore[override]
        """An independent deep copy: mutating it never touches the original."""
        return self.model_copy(deep=True)

    def canonical_json(self) -> str:
        """The state as JSON with sorted keys and no insignificant whitespace."""
        return json.dumps(
            self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )

    def digest(self) -> str:
        """sha256 of the canonical JSON: equal states give equal digests."""
        return hashlib.sha256(self.canonical_json().encode("utf-8")).hexdigest()
