"""Tables that fit the terminal: never a cut number or name.

A table wider than the terminal is split into parts stacked one under the other: each part repeats
the table's key columns (its leading left-aligned columns: agent, variant, suite...) and takes as
many value columns as fit. Numbers and names are never wrapped or cut; only long prose (a notes
column) wraps, at word boundaries.
"""

from __future__ import annotations

import copy

from rich.console import Console
from rich.measure import Measurement
from rich.table import Column, Table

PROSE = 40  # a key column wider than this is prose: it wraps at spaces instead of setting the width
_BORDER = 3  # a column's padding and its border line, as rich draws the default box


def _natural(console: Console, column: Column) -> int:
    """The width a column needs to show its header and every cell on one line."""
    cells = [column.header, *column._cells]
    widths = [Measurement.get(console, console.options, c).maximum for c in cells]
    return max(widths, default=1)


def _keys(table: Table) -> int:
    """Leading left-aligned columns, at most 3: what every stacked part repeats."""
    n = 0
    for c in table.columns[:3]:
        if c.justify in ("right", "center"):
            break
        n += 1
    return n if n < len(table.columns) else 0


def fit(table: Table, width: int, console: Console | None = None) -> list[Table]:
    """``table`` as one or more tables no wider than ``width``, cutting nothing."""
    console = console or Console(width=width)
    natural = [_natural(console, c) for c in table.columns]
    for c, w in zip(table.columns, natural, strict=True):
        if w <= PROSE or c.justify in ("right", "center"):
            c.no_wrap, c.min_width, c.overflow = True, w, "fold"
        else:  # prose: wrap at spaces; a single long word folds rather than being cut with an ellipsis
            c.overflow = "fold"
    total = sum(natural) + _BORDER * len(natural) + 1
    keys = _keys(table)
    if total <= width or not keys:
        return [table]
    key_width = sum(min(w, PROSE) for w in natural[:keys]) + _BORDER * keys + 1
    groups: list[list[int]] = [[]]
    used = key_width
    for i in range(keys, len(table.columns)):
        need = natural[i] + _BORDER
        if groups[-1] and used + need > width:
            groups.append([])
            used = key_width
        groups[-1].append(i)
        used += need
    if len(groups) == 1:
        return [table]
    return [_part(table, list(range(keys)) + g, n + 1, len(groups)) for n, g in enumerate(groups)]


def _part(table: Table, indices: list[int], n: int, of: int) -> Table:
    title = f"{table.title} · part {n}/{of}" if table.title else f"part {n}/{of}"
    part = Table(title=title, box=table.box, show_header=table.show_header, show_lines=table.show_lines,
                 caption=table.caption if n == of else None, title_justify=table.title_justify)
    for i in indices:
        col = copy.copy(table.columns[i])
        col._cells = list(table.columns[i]._cells)
        part.columns.append(col)
        col._index = len(part.columns) - 1
    part.rows = list(table.rows)
    return part


def print_tables(console: Console, *tables: Table) -> None:
    """Print tables fitted to ``console``'s width."""
    for t in tables:
        for part in fit(t, console.width, console):
            console.print(part)
