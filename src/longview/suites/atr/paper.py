"""ATR results the way the ATRBench paper prints them (Table 3's † marks, Table 4's summary) and the
note a scorecard carries when acquisition was judged by an embedded component.

These are functions of already-scored rows, so a finished run can be shown both ways. Facts used:

- **† (negligible acquisition).** Table 3 marks a rate "from negligible acquisition" without a
  written threshold; its marks agree with this rule: AcqPrec is marked when fewer than
  :data:`NEGLIGIBLE` distinct rules were acquired over the whole cohort, AppliedRate when fewer
  than :data:`NEGLIGIBLE` learnable acquired rules back it (e.g. AcqPrec 5.0† from one rule, 16.7
  unmarked from six; App 25.0† from four learnable hits).
- **Table 4.** Per variant, the plain means over models of RuleAsk, RuleCov, AppliedRate and GapRec
  (each over the models where it is defined, daggered values included), and *Active*: the number of
  models with RuleAsk ≥ :data:`ACTIVE_ASK` (one question per future rule's learning session).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pydantic import BaseModel, Field

from longview.suites.atr.metrics import PersonaMetrics

NEGLIGIBLE = 5  # fewer acquired rules than this over the cohort: the rate is marked †
ACTIVE_ASK = 0.5  # RuleAsk at or above this counts a model as Active (Table 4)
DAGGER = "†"


class AcquisitionMarks(BaseModel):
    """Which learning-side rates of one row rest on negligible acquisition (Table 3's †)."""

    acquired_rules: int = Field(description="Distinct Classifier-acquired rules, summed over personas.")
    learnable_acquired: int = Field(description="Of those, rules that are learnable (AppliedRate's base).")
    acq_prec: bool = Field(description="AcqPrec rests on fewer than NEGLIGIBLE acquired rules.")
    applied_rate: bool = Field(description="AppliedRate rests on fewer than NEGLIGIBLE learnable acquired rules.")


def acquisition_marks(per_persona: Iterable[PersonaMetrics]) -> AcquisitionMarks:
    """The † marks of one (agent, variant) row from its scored personas (complete cells only)."""
    ms = [m for m in per_persona if m.rule_ask is not None]
    acquired = sum(len(m.hit_rules) for m in ms)
    # Each rule has one test session, so the covered-hit tests count the learnable acquired rules.
    learnable = sum(m.covered_hit_pass + m.covered_hit_fail for m in ms)
    return AcquisitionMarks(
        acquired_rules=acquired, learnable_acquired=learnable,
        acq_prec=acquired < NEGLIGIBLE, applied_rate=learnable < NEGLIGIBLE,
    )


def marked(text: str, dagger: bool) -> str:
    """A formatted rate with Table 3's † appended when it rests on negligible acquisition."""
    return f"{text}{DAGGER}" if dagger and text not in ("–", "-", "") else text


class ModelRow(BaseModel):
    """One model's learning-variant figures, as Table 4 averages them."""

    model: str = Field(description="Agent (model) name.")
    rule_ask: float | None = Field(description="RuleAsk (asks per learning session).")
    rule_cov: float | None = Field(description="RuleCov, a fraction.")
    applied_rate: float | None = Field(description="AppliedRate, a fraction.")
    gap_rec: float | None = Field(description="GapRec, a fraction.")


class CohortSummary(BaseModel):
    """Table 4's line for one variant: means over models and the Active count."""

    variant: str = Field(description="Variant summarised (atr or always_ask).")
    n_models: int = Field(description="Models summarised.")
    rule_ask: float | None = Field(description="Mean RuleAsk over models.")
    rule_cov: float | None = Field(description="Mean RuleCov over models.")
    applied_rate: float | None = Field(description="Mean AppliedRate over models where it is defined.")
    gap_rec: float | None = Field(description="Mean GapRec over models where it is defined.")
    active: int = Field(description="Models with RuleAsk >= ACTIVE_ASK.")


def _mean(xs: list[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return sum(vals) / len(vals) if vals else None


def cohort_summary(variant: str, rows: list[ModelRow]) -> CohortSummary:
    """Table 4's summary of one learning variant over the given models."""
    return CohortSummary(
        variant=variant, n_models=len(rows),
        rule_ask=_mean([r.rule_ask for r in rows]), rule_cov=_mean([r.rule_cov for r in rows]),
        applied_rate=_mean([r.applied_rate for r in rows]), gap_rec=_mean([r.gap_rec for r in rows]),
        active=sum(r.rule_ask is not None and r.rule_ask >= ACTIVE_ASK for r in rows),
    )


# --- honesty note for embedded acquisition judges ------------------------------------------------

# Figures of the embedded components on the release's labelled sets (``longview atr calibrate
# ... --set atrbench:PATH``), re-measured whenever a component's version changes; see docs/atr.md.
EMBEDDED_CALIBRATION: dict[str, str] = {
    "embedded:decision-classifier@5": "longview set: precision 0.96, recall 0.67, exact-id 0.82; release set "
    "(all 271 rows, used to diagnose @3's and @5's errors, so not held out): precision 0.93, recall 0.41, "
    "exact-id 0.92 (always-miss 0.87)",
    "embedded:decision-classifier@4": "longview set: precision 0.96, recall 0.67, exact-id 0.82; release set "
    "(all 271 rows, used to diagnose @3's errors, so not held out): precision 0.93, recall 0.38, exact-id 0.92 "
    "(always-miss 0.87)",
    "embedded:keyword-router@3": "longview set (72 rows): precision 0.97, recall 0.88, accuracy 0.93; release set "
    "(115 rows, used to find @2's misses, so not held out): precision 1.00, recall 0.98, span exact 1.00",
    "embedded:keyword-router@2": "longview set: precision 0.96, recall 0.86, accuracy 0.92; release set (115 rows): "
    "precision 1.00, recall 0.76, span exact 0.80",
}


def embedded_scaffold_note(components: Mapping[str, str], agent_is_model: bool) -> str | None:
    """A note for the acquisition metrics when a model agent's asks were judged by an embedded
    Router or Classifier (whose figures are not the paper's model-backed scaffold's), else None."""
    if not agent_is_model:
        return None
    embedded = [(role, name) for role, name in components.items()
                if role in ("router", "classifier") and name.startswith("embedded:")]
    if not embedded:
        return None
    parts = []
    for role, name in embedded:
        fig = EMBEDDED_CALIBRATION.get(name)
        parts.append(f"{role} {name}" + (f" ({fig})" if fig else " (uncalibrated)"))
    return ("RuleAsk/RuleCov/AcqPrec/AppliedRate judged by embedded " + "; ".join(parts)
            + " — not the paper's model-backed scaffold; use --router-model/--classifier-model to compare.")
