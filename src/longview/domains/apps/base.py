"""Shared helpers of the app tools: authentication, lookups and lenient text search."""

from __future__ import annotations

from typing import Any, TypeVar

from longview.domains.apps.state import AppsState
from longview.kernel.tools import ToolError
from longview.text import content_words

T = TypeVar("T")


class AppBase:
    """Mixin base: every app tool reads and writes ``self.state``."""

    state: AppsState

    def _login(self, app: str, username: str, password: str) -> dict[str, Any]:
        accounts = self.state.accounts.get(app, [])
        ok = any(a.email == username and a.password == password for a in accounts)
        if not ok and not (self.state.open_login and not accounts):
            raise ToolError("Invalid credentials")
        token = f"{app}-token-{self.state.next_id()}"
        self.state.tokens[token] = [app, username]
        return {"access_token": token, "token_type": "Bearer"}

    def _user(self, app: str, access_token: str) -> str:
        entry = self.state.tokens.get(access_token)
        if not entry or entry[0] != app:
            raise ToolError(f"Invalid or expired access_token for {app}; call {app}__login first.")
        return entry[1]

    def _logout(self, app: str, access_token: str) -> dict[str, Any]:
        self._user(app, access_token)
        del self.state.tokens[access_token]
        return {"message": "Successfully logged out."}


def find(items: list[T], key: str, value: Any, owner: str | None = None, what: str = "record") -> T:
    """The item whose ``key`` equals ``value`` (and belongs to ``owner`` when the item has one)."""
    for it in items:
        if getattr(it, key) == value and (owner is None or getattr(it, "owner", owner) == owner):
            return it
    raise ToolError(f"{what} with {key}={value} not found.")


def matches(query: str, *fields: Any) -> bool:
    """Lenient search: an empty query matches; otherwise any query content word (or the exact
    lower-cased query) appears in the fields."""
    q = (query or "").strip().lower()
    if not q:
        return True
    text = " ".join(str(f) for f in fields).lower()
    if q in text:
        return True
    words = content_words(q)
    return bool(words) and bool(words & content_words(text))


def page(records: list[Any], page_index: int, page_limit: int) -> list[Any]:
    if page_index < 0 or page_limit < 1:
        raise ToolError("page_index must be >= 0 and page_limit >= 1.")
    return records[page_index * page_limit:(page_index + 1) * page_limit]
