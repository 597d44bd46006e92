"""Deep per-field fuzzing of a suite's sample dataset: every distinct field path of its first file
(list positions folded, first and last occurrence) gets type-, range- and shape-breaking values, and
each damaged dataset runs through the CLI. The outcome must be a clean run (exit 0/1, no traceback,
nothing outside the run folder) or one clean refusal (exit 2, one message naming the file, nothing
written).

test_deep_fields.py runs a fixed sample of these cases per suite; the whole set (about a thousand
per suite, a few minutes) runs from the command line, e.g. while writing a suite's loader:

    python tests/fuzz/deepfuzz.py tempo [--agent ref:policy] [--limit N]
"""

from __future__ import annotations

import copy
import json
import random
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from fuzzkit import Run, invoke, reference_agent, sample  # noqa: E402

ESCAPE = "/tmp/longview-deepfuzz-escape"
Case = tuple[tuple, str, Any]  # (field path, mutation name, new value or a marker)
DELETE, DUPLICATE = object(), object()


def _walk(obj: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield (*path, k), v
            yield from _walk(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield (*path, i), v
            yield from _walk(v, (*path, i))


def _mutations(v: Any) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = [("delete", DELETE), ("null", None)]
    if isinstance(v, bool):
        out += [("text", "x"), ("int", 5)]
    elif isinstance(v, int):
        out += [("huge", 10**12), ("negative", -(10**12)), ("zero", 0), ("text", "x"), ("float", 0.5)]
    elif isinstance(v, float):
        out += [("huge", 1e300), ("negative", -1e300), ("text", "x")]
    elif isinstance(v, str):
        out += [("int", 1), ("empty", ""), ("long", "y" * 3000), ("traversal", "../../../../../.." + ESCAPE),
                ("control", "\x1b\x00")]
    elif isinstance(v, list):
        out += [("empty", []), ("dict", {}), ("duplicate", DUPLICATE)]
    elif isinstance(v, dict):
        out += [("empty", {}), ("list", [])]
    return out


def cases(obj: Any) -> list[Case]:
    """Every mutation of the first and last occurrence of each distinct field path (list indices folded)."""
    by_pattern: dict[tuple, list[tuple[tuple, Any]]] = {}
    for path, value in _walk(obj):
        key = tuple("#" if isinstance(x, int) else x for x in path)
        by_pattern.setdefault(key, []).append((path, value))
    out: list[Case] = []
    for occurrences in by_pattern.values():
        for i in sorted({0, len(occurrences) - 1}):
            path, value = occurrences[i]
            out += [(path, name, new) for name, new in _mutations(value)]
    return out


def mutate(obj: Any, case: Case) -> Any:
    path, _, new = case
    out = copy.deepcopy(obj)
    parent = out
    for k in path[:-1]:
        parent = parent[k]
    key = path[-1]
    if new is DELETE:
        parent.pop(key)
    elif new is DUPLICATE:
        parent[key] = parent[key] + parent[key][:1]
    else:
        parent[key] = new
    return out


def label(case: Case) -> str:
    return ".".join(str(x) for x in case[0]) + ":" + case[1]


def problem(run: Run, damaged: str, run_folder: Path) -> str | None:
    """Why the outcome breaks the promise, or None."""
    exc = run.result.exception
    if exc is not None and not isinstance(exc, SystemExit):
        return f"uncaught {type(exc).__name__}: {str(exc)[:300]}"
    if "Traceback" in run.text:
        return "traceback in output"
    if list(Path(ESCAPE).parent.glob(Path(ESCAPE).name + "*")):
        return "wrote outside the run folder"
    if run.code in (0, 1):
        return None
    lines = run.error_lines()
    if run.code != 2 or len(lines) != 1 or damaged not in lines[0]:
        return f"exit {run.code}, error lines {lines or run.text[-300:]}"
    if run_folder.exists():
        return "a refused dataset left a run folder"
    return None


def run_case(suite: str, folder: Path, spec: str, target: Path, obj: Any, case: Case, tmp: Path,
             agent: str | None = None) -> str | None:
    data = tmp / "data"
    shutil.copytree(folder, data)
    (data / target.relative_to(folder)).write_text(json.dumps(mutate(obj, case)), encoding="utf-8")
    out = tmp / "run"
    args = ["run", suite, "--dataset", spec.replace(str(folder), str(data)), "--out", out,
            "--agent", agent or reference_agent(suite), "--units", "1", "--max-turns", "3"]
    return problem(invoke(args, tmp), target.name, out)


def first_file(folder: Path) -> Path:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix == ".json")[0]


def main(argv: list[str]) -> int:
    import argparse
    import os

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("suite")
    ap.add_argument("--agent", default=None)
    ap.add_argument("--limit", type=int, default=0, help="run a seeded random sample of this many cases")
    a = ap.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="longview-deepfuzz-"))
    os.environ.setdefault("LONGVIEW_CACHE_DIR", str(root / "cache"))
    try:
        folder = root / "sample"
        spec = sample(a.suite, folder)
        if spec is None:
            print(f"{a.suite} provides no sample dataset")
            return 1
        target = first_file(folder)
        obj = json.loads(target.read_text(encoding="utf-8"))
        todo = cases(obj)
        if a.limit:
            todo = random.Random(a.suite).sample(todo, min(a.limit, len(todo)))
        bad = 0
        for n, case in enumerate(todo):
            tmp = root / f"c{n}"
            tmp.mkdir()
            why = run_case(a.suite, folder, spec, target, obj, case, tmp, a.agent)
            shutil.rmtree(tmp, ignore_errors=True)
            if why:
                bad += 1
                print(f"BAD {label(case)}: {why}", flush=True)
        print(f"{a.suite}: {len(todo)} cases, {bad} broke the promise")
        return 1 if bad else 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
