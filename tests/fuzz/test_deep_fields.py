"""A fixed sample of deep per-field mutations of every suite's sample dataset (see deepfuzz.py;
run the whole set with ``python tests/fuzz/deepfuzz.py SUITE``)."""

from __future__ import annotations

import atexit
import json
import random
import shutil
import tempfile
from pathlib import Path

import pytest
from deepfuzz import ESCAPE, cases, first_file, label, run_case
from fuzzkit import SUITES, sample

PER_SUITE = 40


def _prepare() -> dict[str, tuple[Path, str, Path, object, dict]]:
    root = Path(tempfile.mkdtemp(prefix="longview-deepfuzz-samples-"))
    atexit.register(shutil.rmtree, root, True)
    out = {}
    for suite in SUITES:
        folder = root / suite
        spec = sample(suite, folder)
        if spec is None:
            continue
        target = first_file(folder)
        obj = json.loads(target.read_text(encoding="utf-8"))
        picked = random.Random(suite).sample(cases(obj), PER_SUITE)
        out[suite] = (folder, spec, target, obj, {label(c): c for c in picked})
    return out


PREPARED = _prepare()
PARAMS = [(suite, name) for suite, (*_, picked) in PREPARED.items() for name in picked]


@pytest.mark.parametrize("suite,case", PARAMS)
def test_deep_field_mutation_runs_cleanly_or_is_refused_cleanly(suite, case, tmp_path):
    folder, spec, target, obj, picked = PREPARED[suite]
    why = run_case(suite, folder, spec, target, obj, picked[case], tmp_path)
    assert why is None, why
    assert not list(Path(ESCAPE).parent.glob(Path(ESCAPE).name + "*"))
