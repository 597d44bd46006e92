"""Where the benchmarks put their temporary run folders, and what creating a file costs there.

A run writes one trace file per session (2,093 for the atr reference run), so the folder's file
system is part of what a benchmark times. On these machines (ext4 on a shared disk) creating a file
has cost anywhere from 0.04 to 0.9 ms, under /tmp and /work alike, changing within minutes; on
/dev/shm (tmpfs) it stays at 0.02-0.04 ms. The benchmarks write where ``longview run`` does by
default (a folder under the current directory) and print the probe below next to their figures, so
a slow phase of the disk is visible; ``--dir /dev/shm`` leaves the disk out of the measurement.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time

HELP = ("parent of the temporary run folders (default: the current directory, where `longview run` "
        "writes its runs/); creating a file costs 20x more in some phases of this disk, see benchdir.py")


def add_dir_option(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--dir", default=".", help=HELP)


def file_creation_ms(parent: str | None, files: int = 400) -> float:
    """Milliseconds to create and write one 4 kB file in a fresh folder under ``parent`` (mean of
    ``files``), as a run writes its traces."""
    folder = tempfile.mkdtemp(dir=parent, prefix="fsprobe")
    try:
        data = b"x" * 4096
        t0 = time.perf_counter()
        for i in range(files):
            fd = os.open(os.path.join(folder, f"s{i}.jsonl"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.write(fd, data)
            os.close(fd)
        return 1000 * (time.perf_counter() - t0) / files
    finally:
        shutil.rmtree(folder, ignore_errors=True)
