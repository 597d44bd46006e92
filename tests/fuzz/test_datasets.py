"""Generated malformed and hostile datasets, for every registered suite, through the CLI.

Each case damages one file of the suite's sample dataset (``Suite.sample_dataset``):

* *invalid* cases (truncation, bad bytes, hostile nesting, lone surrogates, giant numbers...) must
  end in exit code 2 with one message naming the file, and nothing written;
* *hostile* cases (path-like, over-long or control-character ids in every id field, wrong types,
  missing fields, out-of-range numbers) may be accepted or refused, but never end in a traceback,
  a refusal is one clean message with nothing written, and an accepted run writes nothing outside
  its run folder.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fuzzkit import (
    ESCAPE,
    SUITES,
    assert_clean_failure,
    assert_no_traceback,
    invoke,
    reference_agent,
    sample,
    snapshot,
)

Mutation = Callable[[bytes], bytes]
ID_KEY = re.compile(r"(^|_)id$")
HOSTILE_IDS = {
    "traversal": "../../../../../../../../.." + ESCAPE + "-rel",
    "absolute": ESCAPE + "-abs",
    "long": "x" * 5000,
    "control": "\x1b[2J\x00\n",
}
MAX_ID_KEYS = 8


def _first_file(folder: Path) -> Path:
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl"))
    return files[0]


def _samples(suites: list[str] = SUITES) -> dict[str, tuple[Path, str, Path]]:
    """suite -> (sample folder, dataset spec, the file the cases damage); built once at collection.
    A suite whose ``sample_dataset`` returns None opted out of dataset fuzzing: it is left out."""
    root = Path(tempfile.mkdtemp(prefix="longview-fuzz-samples-"))
    out = {}
    for name in suites:
        folder = root / name
        spec = sample(name, folder)
        if spec is not None:
            out[name] = (folder, spec, _first_file(folder))
    return out


SAMPLES = _samples()
atexit.register(lambda: [shutil.rmtree(f.parent, ignore_errors=True) for f, _, _ in SAMPLES.values()])


def _load(raw: bytes, jsonl: bool) -> Any:
    text = raw.decode("utf-8")
    return json.loads(text.splitlines()[0] if jsonl else text)


def _dump(obj: Any, raw: bytes, jsonl: bool) -> bytes:
    text = json.dumps(obj)  # ensure_ascii: a lone surrogate is written as its \\uXXXX escape
    if jsonl:
        rest = raw.decode("utf-8").splitlines()[1:]
        return ("\n".join([text, *rest]) + "\n").encode()
    return text.encode()


def _walk(obj: Any, path: tuple = ()):  # (path, key, value) of every dict entry, document order
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield path, k, v
            yield from _walk(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _walk(v, (*path, i))


def _get(obj: Any, path: tuple) -> Any:
    for k in path:
        obj = obj[k]
    return obj


def _tree(fn: Callable[[Any], None]) -> Callable[[bytes, bool], bytes]:
    def mutate(raw: bytes, jsonl: bool) -> bytes:
        obj = _load(raw, jsonl)
        fn(obj)
        return _dump(obj, raw, jsonl)

    return mutate


def _first_string(obj: Any) -> tuple[tuple, str]:
    return next((p, k) for p, k, v in _walk(obj) if isinstance(v, str))


def _first_int(obj: Any) -> tuple[tuple, str]:
    return next((p, k) for p, k, v in _walk(obj) if isinstance(v, int) and not isinstance(v, bool))


def _set_first(kind: Callable[[Any], tuple[tuple, str]], value: Any) -> Callable[[Any], None]:
    def fn(obj: Any) -> None:
        p, k = kind(obj)
        _get(obj, p)[k] = value

    return fn


def _huge_int(raw: bytes, jsonl: bool) -> bytes:
    obj = _load(raw, jsonl)
    p, k = _first_int(obj)
    _get(obj, p)[k] = "__HUGE__"
    return _dump(obj, raw, jsonl).replace(b'"__HUGE__"', b"9" * 5000)


def _deep_inside(obj: Any) -> None:
    p, k = _first_string(obj)
    deep: Any = "x"
    for _ in range(500):
        deep = [deep]
    _get(obj, p)[k] = deep


def _surrogate_key(obj: Any) -> None:
    target = obj if isinstance(obj, dict) else next(v for _, _, v in _walk(obj) if isinstance(v, dict))
    target["\udc80"] = 1


def _infinite_number(raw: bytes, jsonl: bool) -> bytes:
    obj = _load(raw, jsonl)
    p, k = _first_int(obj)
    _get(obj, p)[k] = "__INF__"
    return _dump(obj, raw, jsonl).replace(b'"__INF__"', b"1e400")


INVALID: dict[str, Callable[[bytes, bool], bytes]] = {
    "empty": lambda raw, jsonl: b"",
    "truncated": lambda raw, jsonl: raw[: len(raw) // 2],
    "invalid_utf8": lambda raw, jsonl: b"\xff\xfe" + raw,
    "binary": lambda raw, jsonl: bytes(range(256)) * 4,
    "bom": lambda raw, jsonl: b"\xef\xbb\xbf" + raw,
    "nul_in_json": lambda raw, jsonl: raw[:20] + b"\x00" + raw[20:],
    "deep_root": lambda raw, jsonl: b"[" * 100_000 + b"]" * 100_000,
    "deep_inside": _tree(_deep_inside),
    "surrogate_value": _tree(_set_first(_first_string, "ok\ud800")),
    "surrogate_key": _tree(_surrogate_key),
    "huge_int": _huge_int,
    "infinite_number": _infinite_number,
    "nan_literal": lambda raw, jsonl: b'{"x": NaN}',
    "top_number": lambda raw, jsonl: b"42",
}


def _hostile_cases(raw: bytes, jsonl: bool) -> dict[str, Callable[[bytes, bool], bytes]]:
    obj = _load(raw, jsonl)
    cases: dict[str, Callable[[bytes, bool], bytes]] = {
        "top_list": lambda raw, jsonl: b"[]",
        "top_null": lambda raw, jsonl: b"null",
    }
    if isinstance(obj, dict):
        for key, value in obj.items():
            wrong = 1 if isinstance(value, (str, list, dict)) else "x"
            cases[f"wrong_type:{key}"] = _tree(lambda o, key=key, wrong=wrong: o.__setitem__(key, wrong))
            cases[f"missing:{key}"] = _tree(lambda o, key=key: o.pop(key))
    seen: list[str] = []
    for path, key, value in _walk(obj):
        if ID_KEY.search(str(key)) and isinstance(value, str) and key not in seen and len(seen) < MAX_ID_KEYS:
            seen.append(key)
            for label, hostile in HOSTILE_IDS.items():
                def fn(o: Any, path=path, key=key, hostile=hostile) -> None:
                    _get(o, path)[key] = hostile

                cases[f"id:{key}:{label}"] = _tree(fn)
    ints = [(p, k) for p, k, v in _walk(obj) if isinstance(v, int) and not isinstance(v, bool)]
    for p, k in {k: (p, k) for p, k in ints}.values():
        for label, big in (("negative", -(10**12)), ("huge", 10**12)):
            def fn(o: Any, p=p, k=k, big=big) -> None:
                _get(o, p)[k] = big

            cases[f"int:{k}:{label}"] = _tree(fn)
    return cases


def _cases(kind: str) -> list[tuple[str, str]]:
    out = []
    for suite, (_, _, file) in SAMPLES.items():
        names = INVALID if kind == "invalid" else _hostile_cases(file.read_bytes(), file.suffix == ".jsonl")
        out += [(suite, n) for n in names]
    return out


def _materialize(suite: str, case: str, kind: str, tmp: Path) -> tuple[str, Path]:
    folder, spec, file = SAMPLES[suite]
    target = tmp / "data"
    shutil.copytree(folder, target)
    damaged = target / file.relative_to(folder)
    raw, jsonl = file.read_bytes(), file.suffix == ".jsonl"
    mutate = INVALID[case] if kind == "invalid" else _hostile_cases(raw, jsonl)[case]
    damaged.write_bytes(mutate(raw, jsonl))
    return spec.replace(str(folder), str(target)), damaged


def _run_args(suite: str, spec: str, out: Path) -> list[str]:
    return ["run", suite, "--dataset", spec, "--out", out, "--agent", reference_agent(suite), "--units", "1",
            "--max-turns", "3", "--json", out.parent / "scorecard.json"]


@pytest.mark.parametrize("suite,case", _cases("invalid"))
def test_invalid_dataset_is_one_clean_error(suite, case, tmp_path):
    spec, damaged = _materialize(suite, case, "invalid", tmp_path)
    before = snapshot(tmp_path)
    run = invoke(_run_args(suite, spec, tmp_path / "run"), tmp_path)
    assert_clean_failure(run, names=damaged.name)
    assert snapshot(tmp_path) == before  # no run folder, no scorecard, nothing


@pytest.mark.parametrize("suite,case", _cases("hostile"))
def test_hostile_dataset_is_refused_cleanly_or_stays_inside(suite, case, tmp_path):
    spec, damaged = _materialize(suite, case, "hostile", tmp_path)
    before = snapshot(tmp_path)
    run = invoke(_run_args(suite, spec, tmp_path / "run"), tmp_path)
    assert_no_traceback(run)
    after = snapshot(tmp_path)
    if run.code == 2:
        assert_clean_failure(run, names=damaged.name)
        assert after == before
        return
    assert run.code in (0, 1), run.text[-2000:]
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    allowed = ("run", "scorecard.json", "cache")
    assert all(k.split("/")[0] in allowed for k in changed), sorted(changed)



@pytest.mark.parametrize("kind", ["fifo", "device"])
@pytest.mark.parametrize("suite", sorted(SAMPLES))
def test_a_dataset_file_that_is_not_a_regular_file_is_refused_without_reading_it(suite, kind, tmp_path):
    # A FIFO would block the read forever and /dev/zero never end: both are refused by their type.
    folder, spec, file = SAMPLES[suite]
    target = tmp_path / "data"
    shutil.copytree(folder, target)
    damaged = target / file.relative_to(folder)
    damaged.unlink()
    if kind == "fifo":
        os.mkfifo(damaged)
    else:
        damaged.symlink_to("/dev/zero")
    before = snapshot(tmp_path)
    run = invoke(_run_args(suite, spec.replace(str(folder), str(target)), tmp_path / "run"), tmp_path)
    assert_clean_failure(run, names=damaged.name)
    assert "a regular file" in run.text
    assert snapshot(tmp_path) == before


def test_a_suite_that_opts_out_of_dataset_fuzzing_is_left_out(monkeypatch):
    """``sample_dataset`` returning None (the contract's default) opts a suite out: no case of this
    module is generated for it, instead of a KeyError at collection."""
    from types import SimpleNamespace

    from longview.harness import registry

    monkeypatch.setattr(registry, "load", lambda name: SimpleNamespace(sample_dataset=lambda folder: None))
    assert _samples(["opted-out"]) == {}
