"""Reading a π-Bench release's files safely: data, never code, never outside the release.

Every path is checked before it is opened: it must resolve (symlinks followed) to a place inside
the release's ``data/`` folder, and be a regular file (a FIFO would block, a device never end) of
bounded size. YAML is parsed with the safe loader and its nesting depth bounded; a file that is not
UTF-8, not YAML, too deep or too large is one :class:`DataError` naming it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import yaml

from longview.kernel.errors import DataError
from longview.kernel.ids import MAX_DEPTH, check_tree, read_text

ASSET_BYTES = 256 << 20  # one workspace asset
ASSETS_PER_TASK = 2000


def inside(path: Path, root: Path, file: str, record: str, field: str) -> Path:
    """``path`` resolved, if it stays inside ``root`` (the release's data folder); symlink loops
    and links that leave the release are errors naming ``file`` and ``field``."""
    try:
        real = path.resolve(strict=True)
    except FileNotFoundError:
        raise DataError(file, record, field, f"an existing file ({path} is missing)") from None
    except (RuntimeError, OSError) as e:  # a symlink loop, a name too long...
        raise DataError(file, record, field, f"a file that resolves ({path}: {getattr(e, 'strerror', None) or e})") from None
    if not real.is_relative_to(root):
        raise DataError(file, record, field, f"a file inside the release's data folder ({path} leads to {real})")
    return real


def load_yaml(path: Path, root: Path, record: str) -> Any:
    """One YAML file of the release, parsed as data (see the module's docstring)."""
    real = inside(path, root, str(path), record, "<file>")
    text = read_text(real, record)  # not a regular file, too large, not UTF-8: one DataError
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise DataError(str(path), record, "<root>", f"valid YAML ({' '.join(str(e).split())[:160]})") from None
    except RecursionError:
        raise DataError(str(path), record, "<root>", f"YAML nested at most {MAX_DEPTH} levels deep") from None
    check_tree(value, str(path), record, strings=False)
    return value


def task_assets(task_dir: Path, root: Path, file: str, record: str) -> list[Path]:
    """The workspace assets of a task folder (everything but ``task.yaml`` and the release's own
    bookkeeping), each a regular file or folder inside the release; anything else — a link that
    leaves the release or loops, a FIFO, a device, a socket — is refused before anything runs."""
    out: list[Path] = []
    stack = [task_dir]
    while stack:
        folder = stack.pop()
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
        for e in entries:
            if folder == task_dir and e.name in SKIPPED:
                continue
            p = Path(e.path)
            field = f"assets/{p.relative_to(task_dir)}"
            real = inside(p, root, file, record, field) if e.is_symlink() else p
            st = real.stat()
            if stat.S_ISDIR(st.st_mode):
                if e.is_symlink():
                    raise DataError(file, record, field, "a file or a real folder (not a link to a folder)")
                stack.append(p)
            elif stat.S_ISREG(st.st_mode):
                if st.st_size > ASSET_BYTES:
                    raise DataError(file, record, field, f"an asset of at most {ASSET_BYTES >> 20} MiB")
                out.append(p)
            else:
                raise DataError(file, record, field, "a regular file (not a FIFO, device or socket)")
            if len(out) > ASSETS_PER_TASK:
                raise DataError(file, record, "assets", f"at most {ASSETS_PER_TASK} asset files")
    return sorted(out)


SKIPPED = frozenset({"task.yaml", ".history", ".result", ".eval_result"})  # not workspace assets (as the release)
