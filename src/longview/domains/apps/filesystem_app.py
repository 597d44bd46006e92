"""AppWorld's file_system app: a per-account virtual file system kept in the app state (not the
workspace folder), with AppWorld's API names, arguments and responses. Paths are absolute; ``~``
is the account's home (``/``); directories end with ``/``."""

from __future__ import annotations

import posixpath
from typing import Any, Literal

from longview.domains.apps.base import AppBase
from longview.kernel.tools import ToolError, ToolKind, tool

R, W = ToolKind.READ, ToolKind.WRITE


def _norm(path: str, directory: bool) -> str:
    p = (path or "").strip()
    if p.startswith("~"):
        p = p[1:]
    p = posixpath.normpath("/" + p.lstrip("/"))
    if p.startswith("/.."):
        raise ToolError(f"Invalid path {path}.")
    if directory:
        return p if p.endswith("/") else p + "/"
    if p == "/":
        raise ToolError("A file path cannot be the root directory.")
    return p


def _parent(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[0] + "/"


class FileSystemApp(AppBase):
    def _fs(self, access_token: str) -> tuple[dict[str, dict[str, Any]], list[str]]:
        me = self._user("file_system", access_token)
        dirs = self.state.vfs_dirs.setdefault(me, ["/"])
        return self.state.vfs_files.setdefault(me, {}), dirs

    def _mkdirs(self, dirs: list[str], path: str) -> None:
        while path not in dirs:
            dirs.append(path)
            path = _parent(path)

    @tool(W, tags=("file_system",), name="file_system__login")
    def fs_login(self, username: str, password: str) -> dict[str, Any]:
        """Login to your file system account; returns an access_token.

        Args:
          username: Your account email.
          password: Your password.
        """
        return self._login("file_system", username, password)

    @tool(R, tags=("file_system",), name="file_system__show_directory")
    def show_directory(self, access_token: str, directory_path: str = "/", substring: str | None = None,
                       entry_type: Literal["all", "files", "directories"] = "all",
                       recursive: bool = True) -> list[str]:
        """List files and/or sub-directories of a directory.

        Args:
          access_token: Token from file_system__login.
          directory_path: Directory path (absolute, or starting with ~).
          substring: Keep entries containing this text (ignoring case).
          entry_type: all, files or directories.
          recursive: Include nested entries.
        """
        files, dirs = self._fs(access_token)
        d = _norm(directory_path, True)
        if d not in dirs:
            raise ToolError(f"Directory with path {d} is not available in your account.")

        def inside(p: str) -> bool:
            if not p.startswith(d) or p == d:
                return False
            rest = p[len(d):].rstrip("/")
            return recursive or "/" not in rest

        out = []
        if entry_type in ("all", "files"):
            out += [p for p in files if inside(p)]
        if entry_type in ("all", "directories"):
            out += [p for p in dirs if inside(p)]
        if substring:
            out = [p for p in out if substring.lower() in p.lower()]
        return sorted(out)

    @tool(W, tags=("file_system",), name="file_system__create_directory")
    def create_directory(self, access_token: str, directory_path: str, recursive: bool = False) -> dict[str, Any]:
        """Create a directory.

        Args:
          access_token: Token from file_system__login.
          directory_path: Directory path.
          recursive: Create missing parents too.
        """
        _, dirs = self._fs(access_token)
        d = _norm(directory_path, True)
        if d in dirs:
            return {"message": "Directory already exists."}
        if not recursive and _parent(d) not in dirs:
            raise ToolError(f"Parent directory with path {_parent(d)} does not exist. Set recursive to True.")
        self._mkdirs(dirs, d)
        return {"message": "Directory created."}

    @tool(W, tags=("file_system",), name="file_system__delete_directory")
    def delete_directory(self, access_token: str, directory_path: str) -> dict[str, Any]:
        """Delete a directory with everything in it.

        Args:
          access_token: Token from file_system__login.
          directory_path: Directory path.
        """
        files, dirs = self._fs(access_token)
        d = _norm(directory_path, True)
        if d not in dirs or d == "/":
            raise ToolError(f"Directory with path {d} is not available in your account.")
        for p in [p for p in files if p.startswith(d)]:
            del files[p]
        dirs[:] = [x for x in dirs if not x.startswith(d)]
        return {"message": "Directory deleted."}

    @tool(R, tags=("file_system",), name="file_system__show_file")
    def show_file(self, access_token: str, file_path: str) -> dict[str, Any]:
        """Show a file's content and details.

        Args:
          access_token: Token from file_system__login.
          file_path: File path.
        """
        files, _ = self._fs(access_token)
        f = _norm(file_path, False)
        if f not in files:
            raise ToolError(f"File with path {f} is not available in your account.")
        return {"path": f, **files[f]}

    @tool(W, tags=("file_system",), name="file_system__create_file")
    def create_file(self, access_token: str, file_path: str, content: str = "", overwrite: bool = False) -> dict[str, Any]:
        """Create a file (parent directories are created).

        Args:
          access_token: Token from file_system__login.
          file_path: File path.
          content: File content.
          overwrite: Replace an existing file.
        """
        files, dirs = self._fs(access_token)
        f = _norm(file_path, False)
        if f in files and not overwrite:
            raise ToolError("A file already exists at the given file_path. Set overwrite to True to overwrite it.")
        self._mkdirs(dirs, _parent(f))
        files[f] = {"file_id": self.state.next_id(), "content": content, "created_at": self.state.now,
                    "updated_at": self.state.now}
        return {"message": "File created.", "file_path": f}

    @tool(W, tags=("file_system",), name="file_system__update_file")
    def update_file(self, access_token: str, file_path: str, content: str) -> dict[str, Any]:
        """Replace a file's content.

        Args:
          access_token: Token from file_system__login.
          file_path: File path.
          content: New content.
        """
        files, _ = self._fs(access_token)
        f = _norm(file_path, False)
        if f not in files:
            raise ToolError(f"File with path {f} is not available in your account.")
        files[f].update(content=content, updated_at=self.state.now)
        return {"message": "File content updated.", "file_path": f}

    @tool(W, tags=("file_system",), name="file_system__delete_file")
    def fs_delete_file(self, access_token: str, file_path: str) -> dict[str, Any]:
        """Delete a file.

        Args:
          access_token: Token from file_system__login.
          file_path: File path.
        """
        files, _ = self._fs(access_token)
        f = _norm(file_path, False)
        if files.pop(f, None) is None:
            raise ToolError(f"File with path {f} is not available in your account.")
        return {"message": "File deleted.", "file_path": f}

    def _transfer_file(self, access_token: str, src: str, dst: str, overwrite: bool, move: bool) -> dict[str, Any]:
        files, dirs = self._fs(access_token)
        s, d = _norm(src, False), _norm(dst, False)
        if s == d:
            raise ToolError("Source and destination file paths cannot be the same.")
        if s not in files:
            raise ToolError(f"Source file with path {s} is not available.")
        if d in files and not overwrite:
            raise ToolError("A file already exists at the given destination_file_path. Set overwrite to True.")
        self._mkdirs(dirs, _parent(d))
        files[d] = {**files[s], "file_id": self.state.next_id(), "updated_at": self.state.now}
        if move:
            del files[s]
        return {"message": "File moved." if move else "File copied.", "destination_file_path": d}

    @tool(W, tags=("file_system",), name="file_system__copy_file")
    def copy_file(self, access_token: str, source_file_path: str, destination_file_path: str,
                  overwrite: bool = False) -> dict[str, Any]:
        """Copy a file.

        Args:
          access_token: Token from file_system__login.
          source_file_path: Source file path.
          destination_file_path: Destination file path.
          overwrite: Replace an existing destination.
        """
        return self._transfer_file(access_token, source_file_path, destination_file_path, overwrite, False)

    @tool(W, tags=("file_system",), name="file_system__move_file")
    def move_file(self, access_token: str, source_file_path: str, destination_file_path: str,
                  overwrite: bool = False) -> dict[str, Any]:
        """Move a file.

        Args:
          access_token: Token from file_system__login.
          source_file_path: Source file path.
          destination_file_path: Destination file path.
          overwrite: Replace an existing destination.
        """
        return self._transfer_file(access_token, source_file_path, destination_file_path, overwrite, True)

    def _transfer_dir(self, access_token: str, src: str, dst: str, move: bool) -> dict[str, Any]:
        files, dirs = self._fs(access_token)
        s, d = _norm(src, True), _norm(dst, True)
        if s not in dirs or s == "/":
            raise ToolError(f"Source directory with path {s} is not available.")
        if d.startswith(s):
            raise ToolError("The destination cannot be inside the source directory.")
        if d in dirs:
            raise ToolError(f"A directory already exists at {d}.")
        for p in [x for x in dirs if x.startswith(s)]:
            self._mkdirs(dirs, d + p[len(s):])
        for p in [x for x in files if x.startswith(s)]:
            files[d + p[len(s):]] = {**files[p], "file_id": self.state.next_id()}
        if move:
            for p in [x for x in files if x.startswith(s)]:
                del files[p]
            dirs[:] = [x for x in dirs if not x.startswith(s)]
        return {"message": "Directory moved." if move else "Directory copied.", "destination_directory_path": d}

    @tool(W, tags=("file_system",), name="file_system__copy_directory")
    def copy_directory(self, access_token: str, source_directory_path: str,
                       destination_directory_path: str) -> dict[str, Any]:
        """Copy a directory with its contents.

        Args:
          access_token: Token from file_system__login.
          source_directory_path: Source directory path.
          destination_directory_path: Destination directory path.
        """
        return self._transfer_dir(access_token, source_directory_path, destination_directory_path, False)

    @tool(W, tags=("file_system",), name="file_system__move_directory")
    def move_directory(self, access_token: str, source_directory_path: str,
                       destination_directory_path: str) -> dict[str, Any]:
        """Move a directory with its contents.

        Args:
          access_token: Token from file_system__login.
          source_directory_path: Source directory path.
          destination_directory_path: Destination directory path.
        """
        return self._transfer_dir(access_token, source_directory_path, destination_directory_path, True)
