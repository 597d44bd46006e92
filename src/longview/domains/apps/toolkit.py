"""One toolkit over the apps' state and a workspace directory; ``only`` exposes a subset."""

from __future__ import annotations

from pathlib import Path

from longview.domains.apps.commerce import AmazonApp, SplitwiseApp, SpotifyApp
from longview.domains.apps.comms import CalendarApp, MailApp, PhoneApp
from longview.domains.apps.files import WorkspaceFiles
from longview.domains.apps.filesystem_app import FileSystemApp
from longview.domains.apps.notes_todo import NotesApp, TodoApp
from longview.domains.apps.state import AppsState
from longview.kernel.tools import Toolkit, ToolSpec, spec_of

FILE_TOOLS = ("list_dir", "read_file", "write_file", "edit_file", "delete_file")


def app_of(tool_name: str) -> str:
    """The app a tool belongs to (``simple_note__create_note`` -> ``simple_note``; file tools -> files)."""
    return tool_name.split("__", 1)[0] if "__" in tool_name else "files"


class AppsToolkit(NotesApp, TodoApp, MailApp, PhoneApp, CalendarApp, SplitwiseApp, SpotifyApp, AmazonApp,
                  FileSystemApp, WorkspaceFiles, Toolkit):
    """Every app tool plus the workspace file tools, bound to ``state`` and ``root``."""

    _specs_cache: dict[str, tuple[str, ToolSpec]] = {}  # tool name -> (attribute, spec), built once

    def __init__(self, state: AppsState, root: Path, only: list[str] | None = None,
                 apps: list[str] | None = None) -> None:
        self.state, self.root = state, Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        cache = type(self)._specs_cache
        if not cache:  # deriving specs from signatures is slow; every instance shares them
            for attr in dir(type(self)):
                fn = getattr(self, attr, None)
                if callable(fn) and hasattr(fn, "__tool_meta__"):
                    cache[fn.__tool_meta__[2]] = (attr, spec_of(fn))
        names = list(cache) if only is None else list(only)
        missing = sorted(set(names) - set(cache))
        if missing:
            raise KeyError(f"unknown tool(s): {', '.join(missing)}")
        self._fns = {n: getattr(self, cache[n][0]) for n in names}
        self._specs = {n: cache[n][1] for n in names}
        if apps is not None:  # keep file tools and the named apps' tools
            keep = set(apps) | {"files"}
            self._fns = {n: f for n, f in self._fns.items() if app_of(n) in keep}
            self._specs = {n: s for n, s in self._specs.items() if n in self._fns}
