"""Errors the CLI turns into one clear message and a non-zero exit."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def printable(text: object, limit: int = 160) -> str:
    """``text`` safe to print on one terminal line: control characters and lone surrogates
    escaped (a hostile id must not drive the terminal), cut at ``limit`` characters."""
    s = str(text)
    s = "".join(ch if ch.isprintable() or ch == " " else repr(ch)[1:-1] for ch in s)
    s = s.encode("utf-8", "backslashreplace").decode("utf-8")
    return s if len(s) <= limit else s[: limit - 3] + "..."


def terminal_safe(text: object) -> str:
    """Like :func:`printable` but keeps line breaks and tabs and does not cut: for transcripts,
    whose text comes from models and datasets and must not drive the terminal."""
    s = str(text)
    s = "".join(ch if ch.isprintable() or ch in " \n\t" else repr(ch)[1:-1] for ch in s)
    return s.encode("utf-8", "backslashreplace").decode("utf-8")


class LongviewError(Exception):
    """Base for errors that are the user's to fix (bad input, bad config)."""


class DataError(LongviewError):
    """A dataset file is malformed: names the file, the record and the field."""

    def __init__(self, file: str, record: str, field: str, expected: str) -> None:
        self.file, self.record, self.field, self.expected = file, record, field, expected
        super().__init__(
            f"{printable(file, 300)}: record {printable(record)}: field '{printable(field)}': {printable(expected, 600)}"
        )

    @classmethod
    def from_error(cls, file: str, record: str, loc: Sequence[Any], err: Mapping[str, Any]) -> DataError:
        """Build from one pydantic error dict, rendering ``loc`` as a dotted field path."""
        field = ".".join(str(x) for x in loc) or "<root>"
        got = "" if err["type"] == "missing" else f" (got {str(err.get('input'))[:80]!r})"
        return cls(file, record, field, f"{err['msg']}{got}")


class RunFolderError(DataError):
    """A file of a run folder is damaged or foreign: names the file, the record and the field."""


class RunInterrupted(LongviewError):
    """The run could not finish for a reason that is not the input's (a worker process died): the
    command exits 1, not 2 (bad input); finished cells keep their markers, --resume goes on."""

    exit_code = 1


class ConfigError(LongviewError):
    """An option or configuration value is invalid."""


class CellAborted(Exception):
    """A cell cannot finish (model or scaffold fault after retries); recorded, never scored."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)
