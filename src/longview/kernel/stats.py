"""Suite-agnostic statistics: stable seeds, persona-macro means, cluster-bootstrap CIs, pass^k.

Pure Python on purpose: the inputs are a few dozen clusters, so numpy would buy nothing but a
dependency. Clusters are the replication unit (personas, users); a cluster whose value is
undefined (``None``) is skipped, never counted as zero.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping
from math import comb, fsum
from typing import cast

_SEP = "\x1f"  # unit separator: ("ab", "c") and ("a", "bc") must not share a seed


def seed_from(*parts: object) -> int:
    """A 64-bit seed from the sha256 of the parts' text; identical across processes and platforms.

    Python's ``hash()`` is salted per process, so it must never feed a seed.
    """
    text = _SEP.join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def _mean(xs: list[float]) -> float | None:
    # fsum is correctly rounded, so a mean (and every CI built from means) is the same on every
    # Python version; plain sum() of floats changed in 3.12 (compensated summation).
    return fsum(xs) / len(xs) if xs else None


def macro_mean(values: Mapping[str, float | None]) -> float | None:
    """Mean over the clusters whose value is defined; None when none is."""
    return _mean([v for v in values.values() if v is not None])


def _percentile(sorted_xs: list[float], q: float) -> float:
    """Linear-interpolation percentile (numpy's default method) of an ascending list."""
    h = (len(sorted_xs) - 1) * q
    lo = int(h)
    hi = min(lo + 1, len(sorted_xs) - 1)
    return sorted_xs[lo] + (h - lo) * (sorted_xs[hi] - sorted_xs[lo])


def cluster_bootstrap_ci(
    values: Mapping[str, float | None],
    *,
    n_boot: int = 2000,
    seed: int,
    level: float = 0.95,
) -> tuple[float, float] | None:
    """Percentile CI of the macro mean, resampling clusters with replacement.

    All clusters are resampled (undefined ones included) and each resample's statistic is the
    macro mean of its defined values, so the interval also reflects how often a metric is defined.
    A resample with no defined value has no statistic and is dropped. None with < 2 defined clusters.
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if n_boot < 1:
        raise ValueError(f"n_boot must be positive, got {n_boot}")
    if sum(v is not None for v in values.values()) < 2:
        return None
    # Sorted keys: the interval must not depend on the mapping's insertion order.
    pool = [values[k] for k in sorted(values)]
    n = len(pool)
    # All draws at once: choices() takes one random() per draw, so this is the same sequence as
    # one call per resample (and the same intervals), without a call per resample.
    draws = random.Random(seed).choices(pool, k=n * n_boot)
    starts = range(0, n * n_boot, n)
    stats: list[float]
    if None not in pool:  # every resample is defined: its mean straight from the slice (as _mean)
        defined = cast("list[float]", draws)
        stats = [fsum(defined[i:i + n]) / n for i in starts]
    else:
        stats = []
        for i in starts:
            m = _mean([v for v in draws[i:i + n] if v is not None])
            if m is not None:
                stats.append(m)
    stats.sort()
    alpha = (1 - level) / 2
    return _percentile(stats, alpha), _percentile(stats, 1 - alpha)


def pass_hat_k(successes: list[list[bool]], k: int) -> float | None:
    """Mean over tasks of the unbiased per-task pass^k: C(c, k) / C(n, k).

    ``successes[i]`` holds task i's trial outcomes (n trials, c successes); pass^k is the chance
    that k trials drawn without replacement all succeed. None when there are no tasks.
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    per_task = []
    for i, trials in enumerate(successes):
        if len(trials) < k:
            raise ValueError(f"task {i} has {len(trials)} trials, fewer than k={k}")
        per_task.append(comb(sum(trials), k) / comb(len(trials), k))
    return _mean(per_task)
