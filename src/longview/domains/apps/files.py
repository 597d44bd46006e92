"""Sandboxed workspace file tools: list, read (text, CSV, PDF), write, edit, delete — never outside
the workspace root (paths are resolved, symlinks included, and must stay under it)."""

from __future__ import annotations

import csv
import errno
import functools
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from longview.domains.apps.pdf import extract_text
from longview.kernel.models.secrets import redact
from longview.kernel.tools import ToolError, ToolKind, tool

R, W = ToolKind.READ, ToolKind.WRITE
MAX_READ = 20000  # characters returned by one read_file call
TEXT_SUFFIXES = {".txt", ".md", ".csv", ".tsv", ".json", ".yaml", ".yml", ".py", ".html", ".xml", ".tex", ".log", ""}


F = TypeVar("F", bound=Callable[..., Any])

# Failures that a path the agent chose can cause: the agent is told, as with any tool error. Others
# (a full or failing disk) are the machine's and stop the cell.
_PATH_ERRNOS = {errno.ENAMETOOLONG, errno.EINVAL, errno.EISDIR, errno.ENOTDIR, errno.EEXIST, errno.ENOENT,
                errno.ELOOP, errno.ENOTEMPTY}


def _path_errors(fn: F) -> F:
    @functools.wraps(fn)
    def wrapper(self: Any, path: Any = ".", *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(self, path, *args, **kwargs)
        except ValueError as e:  # e.g. an embedded NUL byte
            raise ToolError(f"Invalid path {str(path)[:200]!r}: {e}") from None
        except OSError as e:
            if e.errno not in _PATH_ERRNOS:
                raise
            raise ToolError(f"Cannot use path {str(path)[:200]!r}: {e.strerror or e}") from None
    return wrapper  # type: ignore[return-value]


class WorkspaceFiles:
    """File tools over one workspace directory (``self.root``)."""

    root: Path

    def _resolve(self, path: str) -> Path:
        root = self.root.resolve()
        p = (root / path).resolve()
        if p != root and root not in p.parents:
            raise ToolError(f"Path '{path}' is outside the workspace.")
        return p

    def _rel(self, p: Path) -> str:
        return p.relative_to(self.root.resolve()).as_posix() or "."

    @tool(R, tags=("files",))
    @_path_errors
    def list_dir(self, path: str = ".") -> dict[str, Any]:
        """List a workspace directory (names; directories end with /).

        Args:
          path: Directory relative to the workspace root.
        """
        p = self._resolve(path)
        if not p.is_dir():
            raise ToolError(f"Not a directory: {path}")
        entries = sorted(c.name + ("/" if c.is_dir() else "") for c in p.iterdir() if not c.name.startswith("."))
        return {"path": self._rel(p), "entries": entries}

    @tool(R, tags=("files",))
    @_path_errors
    def read_file(self, path: str, offset: int = 0) -> dict[str, Any]:
        """Read a workspace file: text as is, CSV as rows, PDF as extracted text.

        Args:
          path: File relative to the workspace root.
          offset: Character offset to continue a long file from.
        """
        p = self._resolve(path)
        if not p.is_file():
            raise ToolError(f"File not found: {path}")
        suffix = p.suffix.lower()
        data = p.read_bytes()
        if suffix == ".pdf":
            try:
                text = extract_text(data)
            except ValueError as e:
                raise ToolError(f"Cannot read PDF {path}: {e}") from None
        elif suffix in TEXT_SUFFIXES or _looks_text(data):
            text = data.decode("utf-8", "replace")
        else:
            raise ToolError(f"Binary file {path} ({len(data)} bytes) cannot be shown as text.")
        out: dict[str, Any] = {"path": self._rel(p)}
        if suffix in (".csv", ".tsv") and offset == 0:
            rows = list(csv.reader(io.StringIO(text), delimiter="\t" if suffix == ".tsv" else ","))
            out["columns"] = rows[0] if rows else []
            out["row_count"] = max(0, len(rows) - 1)
        chunk = text[offset:offset + MAX_READ]
        out["content"] = chunk
        if offset + MAX_READ < len(text):
            out["next_offset"] = offset + MAX_READ
        return out

    @tool(W, tags=("files",))
    @_path_errors
    def write_file(self, path: str, content: str) -> dict[str, Any]:
        """Create or overwrite a workspace text file (parent folders are created).

        Args:
          path: File relative to the workspace root.
          content: Full text content.
        """
        p = self._resolve(path)
        if p.is_dir():
            raise ToolError(f"{path} is a directory.")
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(redact(content), encoding="utf-8")  # the workspace is kept in the run folder
        return {"message": "File written.", "path": self._rel(p), "chars": len(content)}

    @tool(W, tags=("files",))
    @_path_errors
    def edit_file(self, path: str, old_text: str, new_text: str) -> dict[str, Any]:
        """Replace one exact occurrence of old_text with new_text in a workspace file.

        Args:
          path: File relative to the workspace root.
          old_text: Text to replace (must occur exactly once).
          new_text: Replacement.
        """
        p = self._resolve(path)
        if not p.is_file():
            raise ToolError(f"File not found: {path}")
        text = p.read_text(encoding="utf-8")
        n = text.count(old_text)
        if n != 1:
            raise ToolError(f"old_text occurs {n} times in {path}; it must occur exactly once.")
        p.write_text(redact(text.replace(old_text, new_text)), encoding="utf-8")
        return {"message": "File edited.", "path": self._rel(p)}

    @tool(W, tags=("files",))
    @_path_errors
    def delete_file(self, path: str) -> dict[str, Any]:
        """Delete a workspace file.

        Args:
          path: File relative to the workspace root.
        """
        p = self._resolve(path)
        if not p.is_file():
            raise ToolError(f"File not found: {path}")
        p.unlink()
        return {"message": "File deleted.", "path": self._rel(p)}


def _looks_text(data: bytes) -> bool:
    try:
        data[:4096].decode("utf-8")
    except UnicodeDecodeError:
        return False
    return b"\x00" not in data[:4096]


def snapshot_files(root: Path, limit: int = 200_000, max_bytes: int = 5_000_000) -> dict[str, str]:
    """Text of every readable workspace file (PDF as text), by relative path: the artifacts checks
    and judges look at."""
    out: dict[str, str] = {}
    root = root.resolve()
    if not root.exists():
        return out
    for p in sorted(root.rglob("*")):
        if not p.is_file() or any(part.startswith(".") for part in p.relative_to(root).parts):
            continue
        if not p.resolve().is_relative_to(root):  # a link out of the workspace: never read, as the file tools
            continue
        if p.stat().st_size > max_bytes:  # large data files (archives, datasets) are not artifacts to judge
            continue
        data = p.read_bytes()
        try:
            text = extract_text(data) if p.suffix.lower() == ".pdf" else (
                data.decode("utf-8") if _looks_text(data) else None)
        except ValueError:
            text = None
        if text is not None:
            out[p.relative_to(root).as_posix()] = text[:limit]
    return out
