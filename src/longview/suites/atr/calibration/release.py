"""Calibration on the ATRBench release's own labelled sets, read from the user's copy (never shipped).

``atrbench:PATH`` names a checkout of the release. Its layout (``runner/``):

- ``router_calibration/test_set.jsonl`` (binary) and ``span_test_set.jsonl`` (positives with gold
  spans): rows ``{source, reason, output, gold_is_strict_rule_question, gold_rule_question_span}``;
- ``cls_calibration/test_set.jsonl``: rows ``{source, agent_text, rule_question_span, gold_rule_id,
  rule_pool: [{rule_id, statement, rule_text, bound_tool, bound_param}], manual_note}``; the
  Classifier input is the span (the agent text when the span is empty), as the release's own
  evaluator does.

:func:`calibrate` is the one entry point a command calls: (implementation, set spec, JSON path) →
the result, with ``precision``, ``recall``, ``exact_accuracy`` (and ``span_exact`` for a Router) in
the JSON. A gold span the release gives that is not verbatim in its output is kept (the release's
evaluator scores such rows too).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from longview.kernel.errors import DataError
from longview.suites.atr.calibration.calibrate import (
    CalibrationRule,
    ClassifierCalibration,
    ClassifierRow,
    RouterCalibration,
    RouterRow,
    calibrate_classifier,
    calibrate_router,
    load_classifier_set,
    load_router_set,
)
from longview.suites.atr.scaffold import Classifier, Router

PREFIX = "atrbench:"
ROUTER_FILES = ("runner/router_calibration/test_set.jsonl", "runner/router_calibration/span_test_set.jsonl")
CLASSIFIER_FILE = "runner/cls_calibration/test_set.jsonl"


class ReleaseRouterRow(BaseModel):
    """One row of the release's Router sets."""

    model_config = ConfigDict(extra="ignore")
    source: str = Field(min_length=1, description="Row id in the release.")
    output: str = Field(description="The agent's user-visible message.")
    reason: str | None = Field(default="", description="The agent's private reason.")
    gold_is_strict_rule_question: bool = Field(description="Gold verdict.")
    gold_rule_question_span: str | None = Field(default=None, description="Gold span on positives.")


class ReleasePoolRule(BaseModel):
    model_config = ConfigDict(extra="ignore")
    rule_id: str = Field(min_length=1, description="Rule id.")
    statement: str = Field(description="The user's canonical statement of the rule.")
    rule_text: str | None = Field(default=None, description="Third-person rule text.")
    bound_tool: str | None = Field(default=None, description="Bound tool.")
    bound_param: str | None = Field(default=None, description="Bound parameter or confirmed tool.")


class ReleaseClassifierRow(BaseModel):
    """One row of the release's Classifier set."""

    model_config = ConfigDict(extra="ignore")
    source: str = Field(min_length=1, description="Row id in the release.")
    agent_text: str = Field(description="The agent's message.")
    rule_question_span: str | None = Field(default=None, description="The Router span, if recorded.")
    gold_rule_id: str | None = Field(description="Gold rule id or null.")
    rule_pool: list[ReleasePoolRule] = Field(min_length=1, description="The persona's rule pool.")
    manual_note: str | None = Field(default="", description="Why the label is what it is.")


def release_root(spec: str) -> Path:
    return Path(spec[len(PREFIX):]).expanduser()


def _rows(path: Path, model: type[BaseModel]) -> list[tuple[str, Any]]:
    file = str(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise DataError(file, "<file>", "<root>", f"readable file ({err.strerror})") from None
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            data = json.loads(line)
        except ValueError as err:
            raise DataError(file, f"line {n}", "<root>", f"valid JSON ({err})") from None
        try:
            out.append((f"line {n}", model.model_validate(data)))
        except ValidationError as err:
            e = err.errors()[0]
            raise DataError.from_error(file, f"line {n}", list(e["loc"]), dict(e)) from None
    if not out:
        raise DataError(file, "<file>", "<root>", "at least one row")
    return out


def load_release_router_set(root: Path) -> list[RouterRow]:
    """Both Router sets of a release checkout, as :class:`RouterRow` (binary rows first)."""
    rows: list[RouterRow] = []
    for rel in ROUTER_FILES:
        for _, r in _rows(root / rel, ReleaseRouterRow):
            label = r.gold_is_strict_rule_question
            span = r.gold_rule_question_span if label else None
            rows.append(RouterRow.model_construct(
                id=f"{Path(rel).stem}:{r.source}", output=r.output, reason=r.reason or "", label=label,
                span=span, kind="release_positive" if label else "release_negative",
            ))
    return rows


def load_release_classifier_set(root: Path) -> list[ClassifierRow]:
    """The release's Classifier set as :class:`ClassifierRow` (rules carry statement and binding)."""
    out: list[ClassifierRow] = []
    for where, r in _rows(root / CLASSIFIER_FILE, ReleaseClassifierRow):
        ids = [x.rule_id for x in r.rule_pool]
        if r.gold_rule_id is not None and r.gold_rule_id not in ids:
            raise DataError(str(root / CLASSIFIER_FILE), f"{where} ({r.source})", "gold_rule_id",
                            f"null or one of the pool's rule ids (got {r.gold_rule_id!r})")
        span = r.rule_question_span if (r.rule_question_span or "").strip() else r.agent_text
        out.append(ClassifierRow(
            id=r.source, span=span, gold=r.gold_rule_id, note=r.manual_note or "",
            rules=[CalibrationRule(rule_id=x.rule_id, rule_text=x.rule_text or x.statement, statement=x.statement,
                                   bound_tool=x.bound_tool, bound_param=x.bound_param) for x in r.rule_pool],
        ))
    return out


def load_set(role: Literal["router", "classifier"], spec: str | Path | None) -> list[RouterRow] | list[ClassifierRow]:
    """Rows for ``role`` from a set spec: None/'builtin' = the shipped set, 'atrbench:PATH' = the
    release's set in the user's checkout, anything else = a JSONL file in longview's format."""
    if spec is None or str(spec) == "builtin":
        return load_router_set() if role == "router" else load_classifier_set()
    s = str(spec)
    if s.startswith(PREFIX):
        root = release_root(s)
        return load_release_router_set(root) if role == "router" else load_release_classifier_set(root)
    return load_router_set(s) if role == "router" else load_classifier_set(s)


def summary(result: RouterCalibration | ClassifierCalibration) -> dict[str, Any]:
    """The headline figures: precision, recall, exact_accuracy (and span_exact for a Router)."""
    if isinstance(result, RouterCalibration):
        return {
            "role": "router", "implementation": result.router, "n": result.n, "precision": result.precision,
            "recall": result.recall, "exact_accuracy": result.accuracy, "span_exact": result.span_exact_rate,
            "span_exact_count": result.span_exact, "tp": result.tp, "fp": result.fp, "tn": result.tn,
            "fn": result.fn, "faults": result.faults,
        }
    return {
        "role": "classifier", "implementation": result.classifier, "n": result.n, "precision": result.precision,
        "recall": result.recall, "exact_accuracy": result.accuracy, "gold_hits": result.gold_hits,
        "hits_predicted": result.hits_predicted, "correct_hits": result.correct_hits,
        "wrong_rule": result.wrong_rule, "false_hits": result.false_hits, "missed": result.missed,
        "faults": result.faults,
        "always_miss_accuracy": (result.n - result.gold_hits) / result.n if result.n else None,
    }


def calibrate(
    implementation: Router | Classifier,
    set_spec: str | Path | None = None,
    json_path: str | Path | None = None,
    *,
    role: Literal["router", "classifier"] | None = None,
) -> RouterCalibration | ClassifierCalibration:
    """Score ``implementation`` (a Router or a Classifier) on a labelled set; write the JSON
    (summary figures, the set spec, per-row outcomes) to ``json_path`` when given."""
    role = role or ("router" if hasattr(implementation, "route") else "classifier")
    rows = load_set(role, set_spec)
    if role == "router":
        result: RouterCalibration | ClassifierCalibration = asyncio.run(calibrate_router(implementation, rows))  # type: ignore[arg-type]
    else:
        result = asyncio.run(calibrate_classifier(implementation, rows))  # type: ignore[arg-type]
    if json_path is not None:
        data = {**summary(result), "set": str(set_spec or "builtin"),
                "outcomes": [o.model_dump() for o in result.outcomes]}
        Path(json_path).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return result
