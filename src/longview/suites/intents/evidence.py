"""What checks and judges look at: replies, tool calls, workspace files and app state, and the
deterministic evaluation of a :class:`~longview.suites.intents.schema.Check` over them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from longview.domains.apps.state import AppsState
from longview.suites.intents.schema import Check


@dataclass
class CallRecord:
    """One executed tool call as judges and rule scripts see it."""

    name: str
    arguments: dict[str, Any]
    ok: bool
    output: Any
    turn: int  # assistant turn index within the session
    segment: int  # user-turn segment: 0 until the first user reply, then +1 per user reply


@dataclass
class Evidence:
    """A view of one moment of a session."""

    replies: list[str]  # agent replies in scope
    calls: list[CallRecord]  # tool calls in scope
    files: dict[str, str]  # workspace path -> text
    state: AppsState
    written: set[str] = field(default_factory=set)  # files written in scope
    context_files: list[str] = field(default_factory=list)  # files judges also see (π-Bench files_read)

    def artifacts_text(self) -> str:
        """Text of what the agent produced in scope: call arguments and the files it wrote."""
        parts = [json.dumps(c.arguments, ensure_ascii=False) for c in self.calls if c.ok]
        parts += [self.files.get(p, "") for p in sorted(self.written)]
        return "\n".join(parts)


def _has(text: str, wanted: list[str]) -> bool:
    low = text.lower()
    return all(w.lower() in low for w in wanted)


def _lacks(text: str, unwanted: list[str]) -> bool:
    low = text.lower()
    return not any(w.lower() in low for w in unwanted)


def _field_ok(value: Any, want: Any) -> bool:
    if isinstance(want, str) and isinstance(value, str):
        return value.strip().lower() == want.strip().lower()
    if isinstance(want, str) and isinstance(value, list):
        return any(isinstance(v, str) and v.lower() == want.lower() for v in value)
    return value == want


def _arg_ok(value: Any, want: Any) -> bool:
    if isinstance(want, str):
        return want.lower() in json.dumps(value, ensure_ascii=False).lower()
    return value == want


COLLECTIONS = ("notes", "tasks", "projects", "emails", "texts", "contacts", "alarms", "events", "groups",
               "expenses", "orders", "liked_songs")


def records(state: AppsState, collection: str) -> list[dict[str, Any]]:
    if collection == "any":
        return [r for c in COLLECTIONS for r in records(state, c)]
    if collection == "liked_songs":
        ids = {i for v in state.liked_songs.values() for i in v}
        return [s.model_dump() for s in state.songs if s.song_id in ids]
    return [r.model_dump() for r in getattr(state, collection)]


def run_check(check: Check, ev: Evidence) -> bool:
    """Whether ``check`` passes on ``ev``."""
    if check.kind == "reply_contains":
        return any(_has(r, check.all) and _lacks(r, check.none) for r in ev.replies)
    if check.kind == "file_contains":
        text = ev.files.get(check.path or "")
        return text is not None and _has(text, check.all) and _lacks(text, check.none)
    if check.kind == "record_contains":
        for rec in records(ev.state, check.collection or ""):
            if all(_field_ok(rec.get(k), v) for k, v in check.where.items()):
                blob = json.dumps(rec, ensure_ascii=False)
                if _has(blob, check.all) and _lacks(blob, check.none):
                    return True
        return False
    if check.kind == "tool_called":
        return any(c.ok and c.name == check.tool and all(_arg_ok(c.arguments.get(k), v) for k, v in check.args.items())
                   for c in ev.calls)
    raise ValueError(f"unknown check kind {check.kind}")
