"""One toolkit over the apps' state and a workspace directory; ``only`` exposes a subset."""

from __future__ import annotations

from pathlib import Path

from longview.domains.apps.commerce import AmazonApp, SplitwiseApp, SpotifyApp
from longview.domains.apps.comms import CalendarApp, MailApp, PhoneApp
from longview.domains.apps.files import WorkspaceFiles
from longview.domains.apps.filesystem_app import FileSystemApp
from longview.domains.apps.more_apis import (
    MailThreadApis,
    SongApis,
    SplitwiseExpenseApis,
    TodoSubTaskApis,
    WishListApis,
)
from longview.domains.apps.notes_todo import NotesApp, TodoApp
from longview.domains.apps.state import AppsState
from longview.kernel.tools import Toolkit, tool_table

FILE_TOOLS = ("list_dir", "read_file", "write_file", "edit_file", "delete_file")


def app_of(tool_name: str) -> str:
    """The app a tool belongs to (``simple_note__create_note`` -> ``simple_note``; file tools -> files)."""
    return tool_name.split("__", 1)[0] if "__" in tool_name else "files"


class AppsToolkit(NotesApp, TodoApp, TodoSubTaskApis, MailApp, MailThreadApis, PhoneApp, CalendarApp, SplitwiseApp,
                  SplitwiseExpenseApis, SpotifyApp, SongApis, AmazonApp, WishListApis, FileSystemApp, WorkspaceFiles,
                  Toolkit):
    """Every app tool plus the workspace file tools, bound to ``state`` and ``root``.

    ``apps`` keeps the file tools and the named apps' tools; ``allow`` (a persona's allow-list of
    app APIs) keeps, of those, only the named ones. The selection governs the specs *and* the
    schemas a model request carries, so a request offers exactly the selection."""

    def __init__(self, state: AppsState, root: Path, only: list[str] | None = None,
                 apps: list[str] | None = None, allow: list[str] | None = None) -> None:
        self.state, self.root = state, Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        super().__init__(only if only is not None else self.selection(apps, allow))

    @classmethod
    def tool_names(cls) -> list[str]:
        """Every tool this toolkit implements."""
        return list(tool_table(cls))

    @classmethod
    def selection(cls, apps: list[str] | None, allow: list[str] | None) -> list[str] | None:
        """The tool names a session with these apps and allow-list offers (None: every tool)."""
        if apps is None and allow is None:
            return None
        keep = None if apps is None else set(apps) | {"files"}
        allowed = None if allow is None else set(allow)
        names = [n for n in tool_table(cls) if (keep is None or app_of(n) in keep)
                 and (allowed is None or app_of(n) == "files" or n in allowed)]
        # The workspace file tools, which every session offers, first: sessions with other apps then
        # share the start of the tool block, the part of a request prompt caches serve first.
        return sorted(names, key=lambda n: app_of(n) != "files")
