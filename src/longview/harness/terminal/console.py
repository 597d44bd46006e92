"""What every command prints through: one console for tables, one for errors, one way to fail."""

from __future__ import annotations

import sys
from typing import NoReturn

from rich.console import Console
from rich.text import Text

from longview.kernel.errors import printable

# Tables need room: outside a terminal (pipes, CI logs) rich would wrap at 80 columns.
console = Console(width=None if sys.stdout.isatty() else 180)
err = Console(stderr=True, soft_wrap=True)  # never break a file path across lines


def fail(e: Exception) -> NoReturn:
    """One clear message and exit code 2: the user's input or configuration is wrong (an error
    that says otherwise, e.g. :class:`~longview.kernel.errors.RunInterrupted`, carries its own)."""
    # printable(): a hostile id in the message must not drive the terminal or break the line
    err.print(Text.assemble(("error: ", "bold red"), printable(e, 2000)), highlight=False)
    raise SystemExit(getattr(e, "exit_code", 2))
