"""The ``mock`` provider: scripted assistant turns for offline tests and demos.

* ``mock/<name>`` replays a script registered with :func:`register_script`;
* ``mock/file:<path>`` replays a JSON file (a list of turns, or ``{"turns": [...]}``);
* ``mock/echo`` answers with the text of the last user message.

A script is a list of turn-like items (an :class:`AssistantTurn`, a dict with ``text`` and/or
``tool_calls``, or a plain string for text) replayed in order, one per call on a client, or a
callable ``(system, messages, tools) -> turn-like`` (sync or async) for reactive agents.
Usage reports ~4 characters per token so accounting can be tested without a provider.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from longview.kernel.agent import AssistantTurn, Message, Usage
from longview.kernel.errors import ConfigError, DataError, LongviewError

from .contracts import GenParams

TurnLike = AssistantTurn | dict[str, Any] | str
ScriptFn = Callable[[str | None, list[Message], list[dict]], TurnLike | Awaitable[TurnLike]]
Script = list[TurnLike] | ScriptFn


class MockScriptError(LongviewError):
    """A mock script cannot answer (exhausted, or the callable returned garbage)."""


_SCRIPTS: dict[str, list[AssistantTurn] | ScriptFn] = {}


def to_turn(item: TurnLike, index: int = 0) -> AssistantTurn:
    """Coerce a turn-like item; tool calls without an id get ``call_<index>_<j>``."""
    if isinstance(item, AssistantTurn):
        return item.model_copy(deep=True)
    if isinstance(item, str):
        return AssistantTurn(text=item)
    if not isinstance(item, dict):
        raise TypeError(
            f"a mock turn must be an AssistantTurn, dict or str, got {type(item).__name__}"
        )
    data = dict(item)
    calls = []
    for j, call in enumerate(data.get("tool_calls") or []):
        if isinstance(call, dict) and not call.get("id"):
            call = {**call, "id": f"call_{index}_{j}"}
        calls.append(call)
    data["tool_calls"] = calls
    return AssistantTurn.model_validate(data)


def register_script(name: str, script: Script) -> None:
    """Make ``mock/<name>`` replay ``script``; re-registering a name replaces it."""
    if not name or name == "echo" or name.startswith("file:"):
        raise ValueError(f"mock script name {name!r} is reserved or empty")
    _SCRIPTS[name] = script if callable(script) else [to_turn(t, i) for i, t in enumerate(script)]


def unregister_script(name: str) -> None:
    """Forget a registered script (no error if absent)."""
    _SCRIPTS.pop(name, None)


def load_script_file(path: str | Path) -> list[AssistantTurn]:
    """Read a JSON script file; malformed turns raise :class:`DataError` naming the turn."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as err:
        raise ConfigError(f"mock script file {str(p)!r} cannot be read: {err.strerror}") from None
    except ValueError as err:
        raise DataError(str(p), "<file>", "<root>", f"valid JSON ({err})") from None
    items = data.get("turns") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise DataError(str(p), "<file>", "turns", "a list of turns")
    turns = []
    for i, item in enumerate(items):
        try:
            turns.append(to_turn(item, i))
        except ValidationError as err:
            e = err.errors()[0]
            raise DataError.from_error(str(p), f"turn {i}", list(e["loc"]), e) from None
        except TypeError as err:
            raise DataError(str(p), f"turn {i}", "<root>", str(err)) from None
    return turns


def _echo(system: str | None, messages: list[Message], tools: list[dict]) -> AssistantTurn:
    last = next((m.content for m in reversed(messages) if m.role == "user"), None)
    return AssistantTurn(text=last or "")


def _tokens(*parts: Any) -> int:
    chars = sum(len(p) if isinstance(p, str) else len(json.dumps(p, default=str)) for p in parts)
    return max(1, chars // 4)


def estimate_usage(
    system: str | None, messages: list[Message], tools: list[dict], turn: AssistantTurn
) -> Usage:
    """Plausible token counts (4 characters per token) for a mock call."""
    prompt = [system or "", tools, *(m.model_dump(exclude_defaults=True) for m in messages)]
    calls = [c.model_dump() for c in turn.tool_calls]
    return Usage(input_tokens=_tokens(*prompt), output_tokens=_tokens(turn.text or "", calls))


class MockClient:
    """Replays one script; each client keeps its own position in a list script."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.name = model.split("/", 1)[1]
        self._pos = 0
        if self.name == "echo":
            self._script: list[AssistantTurn] | ScriptFn = _echo
        elif self.name.startswith("file:"):
            self._script = load_script_file(self.name[len("file:") :])
        elif self.name in _SCRIPTS:
            self._script = _SCRIPTS[self.name]
        else:
            known = ", ".join(sorted(_SCRIPTS)) or "none registered"
            raise ConfigError(
                f"no mock script named {self.name!r} for model {model!r}: use mock/echo, "
                f"mock/file:<path.json>, or register_script() first (registered: {known})"
            )

    def __repr__(self) -> str:
        return f"MockClient({self.model!r})"

    async def complete(
        self,
        system: str | None,
        messages: list[Message],
        tools: list[dict],
        params: GenParams,
        trial: int = 0,
    ) -> AssistantTurn:
        """The next scripted turn (or the callable's answer), with estimated usage."""
        if callable(self._script):
            out = self._script(system, messages, tools)
            if inspect.isawaitable(out):
                out = await out
            try:
                turn = to_turn(out, len(messages))
            except (TypeError, ValidationError) as err:
                raise MockScriptError(
                    f"mock script {self.name!r} returned an invalid turn: {err}"
                ) from None
        else:
            if self._pos >= len(self._script):
                raise MockScriptError(
                    f"mock script {self.name!r} is exhausted: all {len(self._script)} scripted "
                    f"turn(s) were used, but the agent asked for turn {self._pos + 1}"
                )
            turn = self._script[self._pos].model_copy(deep=True)
            self._pos += 1
        if turn.usage == Usage():
            turn.usage = estimate_usage(system, messages, tools, turn)
        return turn
