"""The bytes of a run's dataset files, hashed without parsing them.

A run records the hash (``Manifest.dataset.files_sha256``); ``rescore`` checks it before the suite's
loader reads the files. A run folder is data anyone can hand over: a forged manifest whose spec names
``~/.aws/credentials`` must be refused from its hash, not parsed and echoed by a loader's error.
The suite's own ``sha256`` cannot serve: a suite may hash what it parsed (prefs does).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from longview.harness.runstore import MAX_RUN_FILE

MAX_FILES = 100_000  # entries below a dataset folder that are hashed; more is not a dataset (spec "/")
MAX_BYTES = MAX_RUN_FILE  # bytes hashed in all
CHUNK = 1 << 20


class Unhashable(Exception):
    """The spec's path is not a dataset that can be hashed: the reason, with no file content."""


def spec_path(spec: str, named: Mapping[str, str]) -> Path | None:
    """The file or folder a dataset spec reads (``PATH`` or ``PREFIX:PATH``), as
    :func:`~longview.harness.suite.resolve_spec` finds it; None for a named dataset (package data)
    or a spec that names nothing on disk."""
    if spec in named:
        return None
    for candidate in (spec, spec.partition(":")[2]):
        path = os.path.expanduser(candidate)
        if candidate and os.path.lexists(path):
            return Path(path)
    return None


def files_sha256(top: Path) -> str:
    """sha256 over (relative name, kind, bytes) of ``top`` (a file) or of every entry below it (a
    folder, in name order; hidden names skipped: a dataset's ``.git`` is not its data). Only regular
    files are opened (a FIFO would block the reader); links to folders, devices and the like count by
    name only. Raises :class:`Unhashable` for a ``top`` that is neither a regular file nor a folder,
    and past :data:`MAX_FILES` entries or :data:`MAX_BYTES` bytes (from their sizes, before reading)."""
    listed: list[tuple[str, Path, int | None]] = []
    total = 0
    for entry in _entries(top):  # sizes first: a huge spec is refused before a byte is read
        listed.append(entry)
        total += entry[2] or 0
        if len(listed) > MAX_FILES:
            raise Unhashable(f"more than {MAX_FILES} files")
        if total > MAX_BYTES:
            raise Unhashable(f"at most {MAX_BYTES >> 20} MiB of files")
    h = hashlib.sha256()
    budget = MAX_BYTES
    for name, path, size in listed:
        h.update(name.encode("utf-8", "surrogateescape") + (b"\0special\0" if size is None else b"\0file\0"))
        if size is not None:
            budget = _hash_file(path, h.update, budget)
    return h.hexdigest()


def _entries(top: Path) -> Iterator[tuple[str, Path, int | None]]:
    """(relative name, path, size) of ``top`` or of each entry below it; size None for what is not a
    regular file (a link to a folder is not followed)."""
    try:
        st = os.stat(top)
    except OSError as e:
        raise Unhashable(f"a file or folder that can be read ({e.strerror or e})") from None
    if stat.S_ISREG(st.st_mode):
        yield "", top, st.st_size
        return
    if not stat.S_ISDIR(st.st_mode):  # a FIFO or a device would block or never end the loader after us
        raise Unhashable("a regular file or a folder")
    folders = [(top, "")]
    while folders:
        folder, prefix = folders.pop()
        try:
            children = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as e:
            raise Unhashable(f"a folder that can be listed ({e.strerror or e})") from None
        below = []
        for child in children:
            if child.name.startswith("."):
                continue
            name = prefix + child.name
            try:
                if child.is_dir(follow_symlinks=False):
                    below.append((Path(child.path), name + "/"))
                elif child.is_file():
                    yield name, Path(child.path), child.stat().st_size
                else:
                    yield name, Path(child.path), None
            except OSError:  # gone or unreadable since listed
                yield name, Path(child.path), None
        folders.extend(reversed(below))  # a folder's files, then its subfolders, each in name order


def _hash_file(path: Path, update: Callable[[bytes], None], budget: int) -> int:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise Unhashable(f"a readable file at {path} ({e.strerror or e})") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):  # swapped since it was listed
            raise Unhashable(f"a regular file at {path}")
        if st.st_size > budget:
            raise Unhashable(f"at most {MAX_BYTES >> 20} MiB of files")
        update(st.st_size.to_bytes(8, "big"))
        while chunk := f.read(CHUNK):
            budget -= len(chunk)
            if budget < 0:  # grew while read
                raise Unhashable(f"at most {MAX_BYTES >> 20} MiB of files")
            update(chunk)
    return budget


def recorded_sha256(spec: str, named: Mapping[str, str]) -> str | None:
    """What a run records for its resolved ``spec``: None for a named dataset or one too big to hash."""
    path = spec_path(spec, named)
    try:
        return None if path is None else files_sha256(path)
    except Unhashable:
        return None
