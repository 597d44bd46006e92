"""MemPABench metrics (App. F) from probe records, per user; rows via ``build_row`` (user-macro
means, user-cluster bootstrap intervals).

* ``psa`` — share of probes (28 final + pre-event) whose selection equals the target; a capability
  failure (no valid selection, or no delivered reply) counts 0 and stays in the denominator.
* ``cs`` — over attributes whose work and personal targets differ at the end: share with both final
  probes correct.
* ``pet`` — over changed cells: share correct both at the pre-event probe and at the final probe.
* ``carry_over`` — over the same differing pairs as ``cs``: share of pairs in which at least one
  context's probe *carried over*: its selection equals the other context's target AND the agent's
  input at that probe held something the user said in the other context pointing to that target
  (``ProbeRecord.other_evidence``; see evidence.py). A mere error is not a carry-over.
* ``brs`` — mean Behavioral Realization Score (1-5) of final probes: the judge's when a judge model
  is given, else the embedded checks'; a capability failure scores 1.
* ``prs`` — mean Perceived Realization Score (1-5): the simulated user's rating after each final probe.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from longview.suites.prefs.runner import ProbeRecord

NAMES = ["psa", "cs", "pet", "carry_over", "brs", "prs"]
N_BOOT = 5000  # the paper's draws (App. F.3)


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def correct(p: ProbeRecord) -> bool:
    return not p.capability_failure and p.selected == p.target


def carried_over(p: ProbeRecord) -> bool:
    """The probe applied the other context's preference, having seen evidence of it."""
    return not p.capability_failure and p.target != p.other_target and p.selected == p.other_target and p.other_evidence


def brs_value(p: ProbeRecord, judged: bool) -> float | None:
    if p.capability_failure:
        return 1.0
    if judged:
        return None if p.brs_judged is None else float(p.brs_judged)
    return float(p.brs_embedded)


def unit_metrics(probes: Iterable[ProbeRecord], judged: bool = False) -> dict[str, float | None]:
    """One user's (one trial's) metrics; probe repeats are scored separately and averaged."""
    probes = list(probes)
    reps = sorted({p.repeat for p in probes})
    if len(reps) > 1:
        each = [_one_repeat([p for p in probes if p.repeat == k], judged) for k in reps]
        return {n: _mean([x for e in each if (x := e[n]) is not None]) for n in NAMES}
    return _one_repeat(probes, judged)


def _one_repeat(probes: list[ProbeRecord], judged: bool) -> dict[str, float | None]:
    finals = [p for p in probes if p.kind == "final"]
    pres = {(p.context, p.attribute): p for p in probes if p.kind == "pre"}
    by_cell = {(p.context, p.attribute): p for p in finals}
    attrs = sorted({p.attribute for p in finals})
    pairs = [(by_cell[("work", a)], by_cell[("personal", a)]) for a in attrs
             if ("work", a) in by_cell and ("personal", a) in by_cell
             and by_cell[("work", a)].target != by_cell[("personal", a)].target]
    carried = [any(carried_over(p) for p in pair) for pair in pairs]
    pet = [float(correct(pre) and correct(by_cell[cell])) for cell, pre in pres.items() if cell in by_cell]
    return {
        "psa": _mean([float(correct(p)) for p in probes]),
        "cs": _mean([float(correct(w) and correct(q)) for w, q in pairs]),
        "pet": _mean(pet),
        "carry_over": _mean([float(c) for c in carried]),
        "brs": _mean([v for p in finals if (v := brs_value(p, judged)) is not None]),
        "prs": _mean([float(p.prs) for p in finals if p.prs is not None]),
    }


def counts(probes: Iterable[ProbeRecord]) -> dict[str, int]:
    """Raw counts behind the shares (one trial of one user)."""
    probes = list(probes)
    finals = [p for p in probes if p.kind == "final"]
    pairs: dict[tuple[str, int], list[ProbeRecord]] = defaultdict(list)
    for p in finals:
        if p.target != p.other_target:
            pairs[(p.attribute, p.repeat)].append(p)
    pairs = {k: v for k, v in pairs.items() if len(v) == 2}
    return {
        "probes": len(probes),
        "capability_failures": sum(p.capability_failure for p in probes),
        "carry_overs": sum(any(carried_over(p) for p in pair) for pair in pairs.values()),  # pair instances
        "differing_pairs": len(pairs),  # pair instances (pairs x repeats)
    }


def cluster_values(probes_by_unit: dict[str, list[list[ProbeRecord]]], judged: bool = False) -> dict[str, dict[str, float | None]]:
    """The paper's bootstrap clusters (App. F.3) and each one's metrics: a probe cell
    (``unit|kind|context|attribute``: psa, and brs/prs for final probes), a differing pair
    (``unit|pair|attribute``: cs, carry_over) and a changed cell (``unit|change|context|attribute``:
    pet). Repeats and trials of a cluster are averaged inside it, so they stay together when the
    cluster is drawn; a metric a cluster does not define is absent from it."""
    acc: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for unit, trials in probes_by_unit.items():
        for probes in trials:
            finals: dict[tuple[str, int, str], ProbeRecord] = {}
            pres: dict[tuple[str, int, str], ProbeRecord] = {}
            for p in probes:
                cell = acc[f"{unit}|{p.kind}|{p.context}|{p.attribute}"]
                cell["psa"].append(float(correct(p)))
                if p.kind == "final":
                    finals[(p.attribute, p.repeat, p.context)] = p
                    if (b := brs_value(p, judged)) is not None:
                        cell["brs"].append(b)
                    if p.prs is not None:
                        cell["prs"].append(float(p.prs))
                else:
                    pres[(p.attribute, p.repeat, p.context)] = p
            for (a, rep, ctx), w in finals.items():
                q = finals.get((a, rep, "personal"))
                if ctx == "work" and q is not None and w.target != q.target:
                    pair = acc[f"{unit}|pair|{a}"]
                    pair["cs"].append(float(correct(w) and correct(q)))
                    pair["carry_over"].append(float(carried_over(w) or carried_over(q)))
            for (a, rep, ctx), pre in pres.items():
                if (fin := finals.get((a, rep, ctx))) is not None:
                    acc[f"{unit}|change|{ctx}|{a}"]["pet"].append(float(correct(pre) and correct(fin)))
    return {k: {m: sum(v) / len(v) for m, v in d.items() if v} for k, d in sorted(acc.items())}


def breakdown(probes: Iterable[ProbeRecord], key: str, judged: bool = False) -> dict[str, dict[str, float | None]]:
    """PSA, BRS and PRS per dimension or per action/reply kind (one user)."""
    groups: dict[str, list[ProbeRecord]] = defaultdict(list)
    for p in probes:
        groups[getattr(p, key)].append(p)
    out = {}
    for g, ps in sorted(groups.items()):
        finals = [p for p in ps if p.kind == "final"]
        out[g] = {"psa": _mean([float(correct(p)) for p in ps]),
                  "brs": _mean([v for p in finals if (v := brs_value(p, judged)) is not None]),
                  "prs": _mean([float(p.prs) for p in finals if p.prs is not None])}
    return out


def brs_agreement(probes: Iterable[ProbeRecord]) -> dict[str, float | int | None]:
    """Embedded vs judged BRS over final probes both scored: exact and within-one agreement."""
    both = [p for p in probes if p.kind == "final" and p.brs_judged is not None and not p.capability_failure]
    if not both:
        return {"n": 0, "exact": None, "within_one": None}
    return {"n": len(both), "exact": sum(p.brs_judged == p.brs_embedded for p in both) / len(both),
            # ``both`` keeps only probes whose brs_judged is set; mypy cannot see that through the filter.
            "within_one": sum(abs(p.brs_judged - p.brs_embedded) <= 1 for p in both) / len(both)}  # type: ignore[operator]


def prs_brs_agreement(probes: Iterable[ProbeRecord]) -> dict[str, float | int | None]:
    """How often the user's rating and the embedded BRS agree (final probes): exact, within one."""
    both = [p for p in probes if p.kind == "final" and p.prs is not None]
    if not both:
        return {"n": 0, "exact": None, "within_one": None}
    return {"n": len(both), "exact": sum(p.prs == p.brs_embedded for p in both) / len(both),
            # ``both`` keeps only probes whose prs is set; mypy cannot see that through the filter.
            "within_one": sum(abs(p.prs - p.brs_embedded) <= 1 for p in both) / len(both)}  # type: ignore[operator]
