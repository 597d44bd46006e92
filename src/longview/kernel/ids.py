"""Ids that become file or folder names, and hostile-input checks for loaded JSON.

Every suite's dataset loader calls :func:`check_id` on each id that may end up in a path
(unit/persona, episode, session, trial...) and :func:`read_json` (or :func:`check_tree`) on each
file, so a dataset can neither write outside a run folder nor crash longview with a traceback.
:func:`path_component` maps any checked text to a folder-safe name *injectively*: two different
ids never share a folder, even on a case-insensitive file system.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import stat
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from longview.kernel.errors import DataError

if TYPE_CHECKING:
    from pydantic import BaseModel

MAX_ID_LEN = 128  # characters; leaves room for a suffix and a hash under the 255-byte name limit
MAX_DEPTH = 64  # nesting of JSON containers a dataset file may use
MAX_FILE_BYTES = 256 << 20  # one dataset JSON file; the released benchmarks are far below it
_SEPARATORS = ("/", "\\")
# Names kept verbatim: lowercase ASCII letters, digits, '_', '.', '-', not starting with '.'.
_PLAIN = re.compile(r"[a-z0-9_-][a-z0-9_.-]{0,95}")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_WINDOWS_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))}
# The id alphabet: letters and digits of any script, inner spaces, and this punctuation. Ids name
# folders and files and are shown in reports; markup and shell characters (< > & " ' ` = ; ...)
# have no place in them, so a hostile dataset cannot even hand the report a tag to escape.
ID_PUNCTUATION = "_-.:+@#(),~ "


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot be written as UTF-8 text safely (lone surrogate, NUL), or None."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        return f"valid UTF-8 text (lone surrogate at character {e.start})"
    if "\x00" in value:
        return "text without NUL characters"
    return None


def id_problem(value: Any, *, max_len: int = MAX_ID_LEN, separators: bool = False, alphabet: bool = True) -> str | None:
    """What is wrong with ``value`` as an id that names a file or folder, or None if it is fine.

    Ids use the id alphabet (letters and digits of any script, inner spaces, ``ID_PUNCTUATION``).
    ``separators=True`` is for composite keys such as a cell key holding ``provider/model`` (the
    user's own flags, which :func:`path_component` hashes into one name anyway): it allows ``/``
    and ``\\`` and any printable character. ``alphabet=False`` keeps only the path-safety checks
    (for names that are file names by nature, e.g. a workspace file).
    """
    if not isinstance(value, str):
        return f"a string id (got {type(value).__name__})"
    if not value:
        return "a non-empty id"
    if len(value) > max_len:
        return f"an id of at most {max_len} characters (got {len(value)})"
    bad = text_problem(value)
    if bad:
        return f"an id in {bad}"
    if not (value.isascii() and value.isprintable()):  # printable ASCII has none of these categories
        for ch in value:
            if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
                return f"an id without control or format characters (found U+{ord(ch):04X})"
    if not separators:
        if any(s in value for s in _SEPARATORS):
            return "an id without path separators ('/' or '\\')"
        if value in (".", ".."):
            return "an id other than '.' or '..'"
    if value != value.strip():
        return "an id without leading or trailing whitespace"
    if alphabet and not separators:
        bad_chars = sorted({ch for ch in value if not (ch.isalnum() or ch in ID_PUNCTUATION)})
        if bad_chars:
            return (f"an id of letters, digits, spaces and {' '.join(ID_PUNCTUATION.strip())} only "
                    f"(found {' '.join(repr(c) for c in bad_chars[:5])})")
    return None


def check_id(value: Any, file: str, record: str, field: str, *, max_len: int = MAX_ID_LEN) -> str:
    """``value`` if it is a safe id, else :class:`DataError` naming file, record and field."""
    problem = id_problem(value, max_len=max_len)
    if problem:
        raise DataError(file, record, field, f"{problem}; got {_show(value)}")
    return value


def _show(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return repr(text[:60] + ("..." if len(text) > 60 else ""))


def path_component(text: str) -> str:
    """A folder/file name for ``text``: ``text`` itself when it is plain (lowercase ASCII letters,
    digits, ``_.-``, not starting with a dot, ≤ 96 chars), otherwise a readable slug plus ``+`` and
    a hash of the exact text. Plain names never contain ``+`` and hashed ones always do, so the map
    is injective; hashed names differ by hash, so it stays injective on case-insensitive disks."""
    if _PLAIN.fullmatch(text) and text.lower() not in _WINDOWS_RESERVED:
        return text
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    slug = _UNSAFE.sub("_", text).lstrip(".")[:64] or "_"
    return f"{slug}+{digest}"


# --- JSON files -------------------------------------------------------------------------------


def check_tree(value: Any, file: str, record: str, *, max_depth: int = MAX_DEPTH, strings: bool = True) -> None:
    """Reject nesting deeper than ``max_depth`` and strings (keys too) that are not valid UTF-8
    text, naming the field path (``strings=False``: depth only). Iterative, so hostile depth
    cannot exhaust the stack."""
    if strings or not _shallow(value, max_depth):
        _check_tree(value, file, record, max_depth, strings)


def _shallow(value: Any, max_depth: int) -> bool:
    """Whether ``value`` nests at most ``max_depth`` levels: the common case, checked without
    building field paths (only a failure needs them)."""
    stack: list[tuple[Any, int]] = [(value, 0)] if isinstance(value, (dict, list)) else []
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            return False
        children = node.values() if isinstance(node, dict) else node
        stack.extend((v, depth + 1) for v in children if isinstance(v, (dict, list)))
    return True


def _check_tree(value: Any, file: str, record: str, max_depth: int, strings: bool) -> None:
    walked = (dict, list, str) if strings else (dict, list)  # nodes worth a visit
    stack: list[tuple[Any, list[str]]] = [(value, [])]
    while stack:
        node, path = stack.pop()
        if len(path) > max_depth:
            raise DataError(file, record, _dotted(path[:max_depth]) or "<root>",
                            f"JSON nested at most {max_depth} levels deep")
        if isinstance(node, str):  # below the root, visited only when strings are checked
            bad = text_problem(node)
            if bad and bad.startswith("valid"):  # NUL is legal inside JSON text
                raise DataError(file, record, _dotted(path) or "<root>", bad)
        elif isinstance(node, dict):
            for k, v in node.items():
                bad = text_problem(k) if strings and isinstance(k, str) else None
                if bad and bad.startswith("valid"):
                    raise DataError(file, record, _dotted([*path, _show(k)]), f"a key in {bad}")
                if isinstance(v, walked):
                    stack.append((v, [*path, str(k)]))
        elif isinstance(node, list):
            stack.extend((v, [*path, str(i)]) for i, v in enumerate(node) if isinstance(v, walked))


def _dotted(path: list[str]) -> str:
    return ".".join(path)


def read_json(path: Path, record: str = "<file>") -> Any:
    """Parse one JSON file strictly: readable, UTF-8, valid JSON, bounded depth, clean text.

    Every failure is a :class:`DataError` naming the file (never a traceback).
    """
    return parse_json(read_text(path, record), str(path), record)


def read_text(path: Path, record: str = "<file>") -> str:
    """A dataset file's text: a regular file of bounded size, UTF-8; else a :class:`DataError`."""
    file = str(path)
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):  # a FIFO would block, a device (/dev/zero) never end
            raise DataError(file, record, "<root>", "a regular file")
        if st.st_size > MAX_FILE_BYTES:
            raise DataError(file, record, "<root>", f"a JSON file of at most {MAX_FILE_BYTES >> 20} MiB "
                                                    f"({st.st_size >> 20} MiB)")
        raw = path.read_bytes()
    except OSError as e:
        raise DataError(file, record, "<root>", f"a readable file ({e.strerror or e})") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise DataError(file, record, "<root>", f"UTF-8 text (invalid byte at offset {e.start})") from None


def _finite(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):  # 1e400 parses as infinity
        raise ValueError(f"finite numbers only (found {literal[:40]})")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"finite numbers only (found {name})")  # Python's json would accept NaN and Infinity


def parse_json(text: str, file: str, record: str = "<file>") -> Any:
    """:func:`read_json` for text already in hand (one JSONL line, say). Numbers must be finite."""
    try:
        value = json.loads(text, parse_float=_finite, parse_constant=_no_constant)
    except RecursionError:
        raise DataError(file, record, "<root>", f"JSON nested at most {MAX_DEPTH} levels deep") from None
    except json.JSONDecodeError as e:
        raise DataError(file, record, "<root>", f"valid JSON ({e.msg} at line {e.lineno})") from None
    except ValueError as e:  # e.g. an integer literal too long to convert
        raise DataError(file, record, "<root>", f"valid JSON ({' '.join(str(e).split())[:120]})") from None
    check_tree(value, file, record, strings=_may_hold_surrogates(text))
    return value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _may_hold_surrogates(text: str) -> bool:
    """Whether parsing ``text`` can have produced a lone surrogate: only from a ``\\uD800``–``\\uDFFF``
    escape or from one already in the text (then every string is checked; else depth only)."""
    if _SURROGATE_ESCAPE.search(text):
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def write_models(folder: Path, named: Iterable[tuple[str, BaseModel]]) -> list[Path]:
    """Write each model as ``<folder>/<name>.json`` (the name through :func:`path_component`), fields
    at their defaults left out: the one-file-per-unit folder layout that dataset loaders read."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, model in named:
        path = folder / f"{path_component(name)}.json"
        path.write_text(model.model_dump_json(indent=1, exclude_defaults=True) + "\n", encoding="utf-8")
        out.append(path)
    return out
