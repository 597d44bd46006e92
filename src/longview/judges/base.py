"""The judge contract and the LLM-judge plumbing every suite shares.

A judge turns an item (whatever a suite asks about: a reply, a trajectory, an intent) into a
verdict. Deterministic judges come first; a model judge sends one JSON payload, expects one JSON
object back, validates it against a pydantic model, retries once on a malformed answer and then
raises :class:`~longview.kernel.errors.CellAborted` — a missing judgment is never a pass or a fail.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from longview.kernel.agent import Message
from longview.kernel.errors import CellAborted
from longview.kernel.models.client import GenParams, ModelClient

# No judge input longview writes comes near this (the largest, tempo's trust history, is a few hundred
# kB); a bigger one is a forged or damaged run folder on its way to a paid model, never sent.
MAX_INPUT_CHARS = 2_000_000

V = TypeVar("V", bound=BaseModel)
R = TypeVar("R")
Item = TypeVar("Item", contravariant=True)
Verdict = TypeVar("Verdict", covariant=True)


class Judge(Protocol[Item, Verdict]):
    """Anything that judges an item; ``name`` says which implementation (embedded:..., llm:...)."""

    name: str

    async def judge(self, item: Item) -> Verdict: ...


def parse_json(text: str | None) -> Any:
    """The JSON value in a model answer, tolerating one surrounding Markdown code fence.

    Raises :class:`ValueError` when the text is empty or not JSON.
    """
    body = (text or "").strip()
    fence = re.fullmatch(r"```[A-Za-z0-9_-]*\s*\n?(.*?)\n?\s*```", body, re.DOTALL)
    if fence:
        body = fence.group(1).strip()
    if not body:
        raise ValueError("empty answer")
    return json.loads(body)


def brief(text: str | None, limit: int = 120) -> str:
    """A one-line, length-capped repr of a model answer for abort reasons."""
    t = " ".join((text or "").split())
    return repr(t if len(t) <= limit else t[: limit - 1] + "…")


class LLMJudge(Generic[V]):
    """A model that answers one JSON payload with one JSON verdict of type ``schema``.

    ``ask(payload)`` retries once (as a fresh sample, trial 1) when the answer is not valid JSON
    or does not validate, then aborts the cell naming the role and both faults. ``ask_with`` takes
    the suite's own reading of the answer (a semantic check on top of the schema, say): a
    :class:`ValueError` it raises is a fault that earns the retry; anything else propagates.
    """

    def __init__(self, client: ModelClient, params: GenParams, system: str, schema: type[V], role: str) -> None:
        self.client, self.params, self.system, self.schema, self.role = client, params, system, schema, role
        self.name = f"llm:{client.model}"

    def __repr__(self) -> str:
        return f"LLMJudge({self.role!r}, {self.name!r})"

    async def raw(self, payload: dict[str, Any], trial: int = 0) -> str | None:
        """One call with ``payload`` as JSON in a single user message; the answer's text."""
        content = json.dumps(payload, ensure_ascii=False)
        if len(content) > MAX_INPUT_CHARS:
            raise CellAborted(f"{self.role} judge {self.name}: an input of {len(content):,} characters, over the "
                              f"{MAX_INPUT_CHARS:,} no judge input of longview's reaches; not sent")
        messages = [Message(role="user", content=content)]
        turn = await self.client.complete(self.system, messages, [], self.params, trial)
        return turn.text

    async def ask(self, payload: dict[str, Any]) -> V:
        return await self.ask_with(payload, self.validate)

    def validate(self, text: str | None) -> V:
        """The answer as a ``schema`` verdict; a :class:`ValueError` naming the fault otherwise."""
        try:
            return self.schema.model_validate(parse_json(text))
        except (ValueError, ValidationError) as e:  # ValidationError is a ValueError; named for the reader
            raise ValueError(f"{' '.join(str(e).split())[:160]} in {brief(text)}") from None

    async def ask_with(self, payload: dict[str, Any], read: Callable[[str | None], R], about: str = "") -> R:
        faults: list[str] = []
        for trial in range(2):
            text = await self.raw(payload, trial)
            try:
                return read(text)
            except ValueError as e:
                faults.append(str(e))
        raise CellAborted(f"{self.role} judge {self.name}: malformed verdict twice{about}: " + " | ".join(faults))


def agreement(a: dict[str, Any], b: dict[str, Any]) -> dict[str, float | int | None]:
    """Agreement of two judges over the items both judged: raw share and Cohen's kappa.

    ``a`` and ``b`` map item id -> label (bool or category); items only one judged are ignored.
    """
    common = sorted(set(a) & set(b))
    if not common:
        return {"n": 0, "agreement": None, "kappa": None}
    agree = sum(a[k] == b[k] for k in common) / len(common)
    labels = {a[k] for k in common} | {b[k] for k in common}
    expected = sum(
        (sum(a[k] == lab for k in common) / len(common)) * (sum(b[k] == lab for k in common) / len(common))
        for lab in labels
    )
    kappa = None if expected >= 1 else (agree - expected) / (1 - expected)
    return {"n": len(common), "agreement": agree, "kappa": kappa}
