"""Calibrating a Router or a Classifier against a labelled set (ATRBench, App. C, in spirit).

The sets shipped here (``router.jsonl``, ``classifier.jsonl``) were written for longview, not
taken from the paper or from benchmark episodes, so they never touch scored data. Any
implementation of the :class:`~longview.suites.atr.scaffold.Router` or
:class:`~longview.suites.atr.scaffold.Classifier` protocol can be measured — the embedded
keyword/topic defaults or a model-backed one.

A scaffold fault on a row (:class:`~longview.kernel.errors.CellAborted`, e.g. a model that
kept answering malformed JSON) is counted as a *fault*: no prediction for that row. Faults lower
accuracy and recall, never precision.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from rich.table import Table

from longview.kernel.errors import CellAborted, DataError
from longview.kernel.ids import parse_json
from longview.suites.atr.dataset import ActionStep, CheckType, StandingRule
from longview.suites.atr.scaffold import Classifier, Router, RouteVerdict

RouterKind = Literal[
    "release_positive",  # a row of the release's sets, labelled positive (no finer kind given)
    "release_negative",
    "standing_rule_ask",
    "soft_standing_rule_ask",
    "current_task_question",
    "declarative_offer",
    "status_update",
    "quoted_draft",
    "recall",
]
POSITIVE_KINDS: frozenset[str] = frozenset({"standing_rule_ask", "soft_standing_rule_ask", "release_positive"})
DEFAULT_CONCURRENCY = 8


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RouterRow(_Row):
    """One labelled agent message for the Router."""

    id: str = Field(min_length=1, description="Unique row id within the file.")
    output: str = Field(min_length=1, description="The user-visible message the agent sent.")
    reason: str = Field(default="", description="The agent's private note sent along with it.")
    label: bool = Field(description="Gold: true iff the output asks a standing-rule question.")
    span: str | None = Field(
        description="Gold span on positives: one complete asking sentence, verbatim from output; "
        "null on negatives."
    )
    kind: RouterKind = Field(
        description="Message category; the two *_ask kinds are the positive ones."
    )


class CalibrationRule(_Row):
    """A pool rule as the Classifier sees it."""

    rule_id: str = Field(min_length=1, description="Rule id, unique within the row's pool.")
    rule_text: str = Field(min_length=1, description="Third-person statement of the rule.")
    topic: str | None = Field(default=None, description="Short topic phrase of the rule.")
    statement: str | None = Field(
        default=None, description="The user's first-person statement (canonical answer), if the set has it."
    )
    bound_tool: str | None = Field(default=None, description="The rule's bound tool, if the set has it.")
    bound_param: str | None = Field(default=None, description="The rule's bound parameter (or confirmed tool).")

    def to_standing_rule(self) -> StandingRule:
        """A :class:`StandingRule` carrying what the set gives; missing parts stay empty (an empty
        answer, an empty tool name), which Classifiers treat as unknown."""
        return StandingRule(
            rule_id=self.rule_id, rule_text=self.rule_text, topic=self.topic,
            canonical_answer=self.statement or "", counterfactual_default="", check_type=CheckType.TOOL_IDENTITY,
            action_step=ActionStep(tool=self.bound_tool or "", param=self.bound_param),
        )


class ClassifierRow(_Row):
    """One labelled question span with the rule pool it is matched against."""

    id: str = Field(min_length=1, description="Unique row id within the file.")
    span: str = Field(min_length=1, description="The standing-rule question, as a Router extracts it.")
    rules: list[CalibrationRule] = Field(min_length=1, description="The candidate rule pool.")
    gold: str | None = Field(
        description="Gold: the id of the pool rule that covers and answers the question, or null."
    )
    note: str = Field(default="", description="Why the gold label is what it is.")


# --- loading ---------------------------------------------------------------------------------

RowT = TypeVar("RowT", RouterRow, ClassifierRow)


def _default(name: str) -> Path:
    return Path(str(resources.files("longview.suites.atr.calibration") / name))


def _load(path: Path, model: type[RowT], check: Callable[[RowT], tuple[str, str] | None]) -> list[RowT]:
    file = str(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        raise DataError(file, "<file>", "<root>", f"readable file ({err.strerror})") from None
    except UnicodeDecodeError as err:
        raise DataError(file, "<file>", "<root>", f"UTF-8 text (invalid byte at offset {err.start})") from None
    rows: list[RowT] = []
    seen: dict[str, int] = {}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        data = parse_json(line, file, f"line {n}")  # DataError: invalid, too deep, lone surrogates
        record = f"line {n}" + (f" ({data['id']})" if isinstance(data, dict) and "id" in data else "")
        if not isinstance(data, dict):
            raise DataError(file, record, "<root>", "a JSON object")
        try:
            row = model.model_validate(data)
        except ValidationError as err:
            e = err.errors()[0]
            raise DataError.from_error(file, record, list(e["loc"]), dict(e)) from None
        if row.id in seen:
            raise DataError(file, record, "id", f"unique id (already used on line {seen[row.id]})")
        seen[row.id] = n
        problem = check(row)
        if problem is not None:
            raise DataError(file, record, *problem)
        rows.append(row)
    if not rows:
        raise DataError(file, "<file>", "<root>", "at least one row")
    return rows


def _check_router(row: RouterRow) -> tuple[str, str] | None:
    if row.label != (row.kind in POSITIVE_KINDS):
        want = "a positive kind (*_ask)" if row.label else "a negative kind"
        return "kind", f"{want} to agree with label={str(row.label).lower()} (got {row.kind!r})"
    if row.label and not (row.span and row.span.strip()):
        return "span", "a non-empty span on a positive row"
    if not row.label and row.span is not None:
        return "span", "null on a negative row"
    if row.span is not None and row.span not in row.output:
        return "span", f"a verbatim substring of output (got {row.span[:80]!r})"
    return None


def _check_classifier(row: ClassifierRow) -> tuple[str, str] | None:
    ids = [r.rule_id for r in row.rules]
    for i, rid in enumerate(ids):
        if rid in ids[:i]:
            return f"rules.{i}.rule_id", f"unique rule id within the pool (duplicate {rid!r})"
    if row.gold is not None and row.gold not in ids:
        return "gold", f"null or one of the pool's rule ids {ids} (got {row.gold!r})"
    return None


def load_router_set(path: str | Path | None = None) -> list[RouterRow]:
    """The Router calibration rows (the shipped set by default); malformed rows raise DataError."""
    return _load(Path(path) if path else _default("router.jsonl"), RouterRow, _check_router)


def load_classifier_set(path: str | Path | None = None) -> list[ClassifierRow]:
    """The Classifier calibration rows (the shipped set by default); strict like the Router's."""
    return _load(Path(path) if path else _default("classifier.jsonl"), ClassifierRow, _check_classifier)


# --- results ---------------------------------------------------------------------------------


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def same_span(a: str | None, b: str | None) -> bool:
    """Span equality up to whitespace runs (the Router contract's normalisation)."""
    return a is not None and b is not None and a.split() == b.split()


class RouterOutcome(BaseModel):
    """What the Router said on one row."""

    id: str = Field(description="Row id.")
    kind: str = Field(description="Row kind.")
    label: bool = Field(description="Gold verdict.")
    gold_span: str | None = Field(description="Gold span.")
    predicted: bool | None = Field(description="Router verdict; null on a fault.")
    span: str | None = Field(default=None, description="Router span.")
    fault: str | None = Field(default=None, description="Abort reason on a fault.")

    @property
    def correct(self) -> bool:
        return self.predicted is not None and self.predicted == self.label


class RouterCalibration(BaseModel):
    """Binary confusion counts and span exactness of one Router on one set."""

    router: str = Field(description="Router name.")
    n: int = Field(description="Rows.")
    tp: int = Field(description="Gold positive, predicted positive.")
    fp: int = Field(description="Gold negative, predicted positive.")
    tn: int = Field(description="Gold negative, predicted negative.")
    fn: int = Field(description="Gold positive, predicted negative.")
    faults: int = Field(default=0, description="Rows where the Router aborted (no prediction).")
    precision: float | None = Field(description="tp / (tp + fp); null without positive predictions.")
    recall: float | None = Field(description="tp / gold positives (faults count as misses).")
    accuracy: float = Field(description="Correct verdicts / n.")
    span_exact: int = Field(description="True positives whose span equals the gold span.")
    span_exact_rate: float | None = Field(description="span_exact / tp.")
    outcomes: list[RouterOutcome] = Field(default_factory=list, description="Per-row results.")

    def errors(self) -> list[RouterOutcome]:
        """Rows with a wrong verdict, a fault, or a true positive with an inexact span."""
        return [
            o for o in self.outcomes
            if not o.correct or (o.label and not same_span(o.span, o.gold_span))
        ]

    def by_kind(self) -> dict[str, tuple[int, int]]:
        """kind -> (correct verdicts, rows)."""
        out: dict[str, tuple[int, int]] = {}
        for o in self.outcomes:
            c, t = out.get(o.kind, (0, 0))
            out[o.kind] = (c + o.correct, t + 1)
        return out


class ClassifierOutcome(BaseModel):
    """What the Classifier said on one row."""

    id: str = Field(description="Row id.")
    gold: str | None = Field(description="Gold rule id or null.")
    predicted: str | None = Field(default=None, description="Predicted rule id or null.")
    fault: str | None = Field(default=None, description="Abort reason on a fault.")
    note: str = Field(default="", description="The row's note.")

    @property
    def correct(self) -> bool:
        return self.fault is None and self.predicted == self.gold


class ClassifierCalibration(BaseModel):
    """Hit precision/recall and exact-id accuracy of one Classifier on one set."""

    classifier: str = Field(description="Classifier name.")
    n: int = Field(description="Rows.")
    gold_hits: int = Field(description="Rows whose gold is a rule id.")
    hits_predicted: int = Field(description="Rows where a rule id was predicted.")
    correct_hits: int = Field(description="Predicted rule id equals the gold rule id.")
    wrong_rule: int = Field(description="Predicted a rule id, gold is a different rule id.")
    false_hits: int = Field(description="Predicted a rule id, gold is null.")
    missed: int = Field(description="Predicted null, gold is a rule id.")
    faults: int = Field(default=0, description="Rows where the Classifier aborted.")
    precision: float | None = Field(description="correct_hits / hits_predicted.")
    recall: float | None = Field(description="correct_hits / gold_hits (faults count as misses).")
    accuracy: float = Field(description="Rows with the exact gold id (or null) / n.")
    outcomes: list[ClassifierOutcome] = Field(default_factory=list, description="Per-row results.")

    def errors(self) -> list[ClassifierOutcome]:
        return [o for o in self.outcomes if not o.correct]


# --- running ---------------------------------------------------------------------------------

T = TypeVar("T")


async def _bounded(items: list[Awaitable[T]], concurrency: int) -> list[T]:
    sem = asyncio.Semaphore(max(1, concurrency))

    async def one(a: Awaitable[T]) -> T:
        async with sem:
            return await a

    return list(await asyncio.gather(*(one(a) for a in items)))


async def _route(router: Router, row: RouterRow) -> RouterOutcome:
    base: dict[str, Any] = dict(id=row.id, kind=row.kind, label=row.label, gold_span=row.span)
    try:
        v: RouteVerdict = await router.route(row.output, row.reason)
    except CellAborted as e:
        return RouterOutcome(**base, predicted=None, fault=e.reason)
    return RouterOutcome(**base, predicted=v.is_rule_question, span=v.span)


async def calibrate_router(
    router: Router, rows: list[RouterRow] | None = None, *, concurrency: int = DEFAULT_CONCURRENCY
) -> RouterCalibration:
    """Run ``router`` over the set (the shipped one by default) and tally the verdicts."""
    rows = load_router_set() if rows is None else rows
    outs = await _bounded([_route(router, r) for r in rows], concurrency)
    tp = sum(o.label and o.predicted is True for o in outs)
    fp = sum(not o.label and o.predicted is True for o in outs)
    tn = sum(not o.label and o.predicted is False for o in outs)
    fn = sum(o.label and o.predicted is False for o in outs)
    exact = sum(o.label and o.predicted is True and same_span(o.span, o.gold_span) for o in outs)
    return RouterCalibration(
        router=router.name, n=len(outs), tp=tp, fp=fp, tn=tn, fn=fn,
        faults=sum(o.fault is not None for o in outs),
        precision=_ratio(tp, tp + fp), recall=_ratio(tp, sum(o.label for o in outs)),
        accuracy=(tp + tn) / len(outs), span_exact=exact, span_exact_rate=_ratio(exact, tp),
        outcomes=outs,
    )


async def _classify(classifier: Classifier, row: ClassifierRow) -> ClassifierOutcome:
    base: dict[str, Any] = dict(id=row.id, gold=row.gold, note=row.note)
    try:
        rid = await classifier.classify(row.span, [r.to_standing_rule() for r in row.rules])
    except CellAborted as e:
        return ClassifierOutcome(**base, fault=e.reason)
    return ClassifierOutcome(**base, predicted=rid)


async def calibrate_classifier(
    classifier: Classifier,
    rows: list[ClassifierRow] | None = None,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
) -> ClassifierCalibration:
    """Run ``classifier`` over the set (the shipped one by default) and tally the verdicts."""
    rows = load_classifier_set() if rows is None else rows
    outs = await _bounded([_classify(classifier, r) for r in rows], concurrency)
    ok = [o for o in outs if o.fault is None]
    predicted = sum(o.predicted is not None for o in ok)
    correct_hits = sum(o.predicted is not None and o.predicted == o.gold for o in ok)
    return ClassifierCalibration(
        classifier=classifier.name, n=len(outs), gold_hits=sum(o.gold is not None for o in outs),
        hits_predicted=predicted, correct_hits=correct_hits,
        wrong_rule=sum(o.predicted is not None and o.gold is not None and o.predicted != o.gold for o in ok),
        false_hits=sum(o.predicted is not None and o.gold is None for o in ok),
        missed=sum(o.predicted is None and o.gold is not None for o in ok),
        faults=len(outs) - len(ok),
        precision=_ratio(correct_hits, predicted),
        recall=_ratio(correct_hits, sum(o.gold is not None for o in outs)),
        accuracy=sum(o.correct for o in outs) / len(outs), outcomes=outs,
    )


# --- rendering -------------------------------------------------------------------------------

NA = "–"


def _f(x: float | None) -> str:
    return NA if x is None else f"{x:.3f}"


def router_table(cal: RouterCalibration) -> Table:
    """Summary of a Router calibration: confusion counts, rates, and accuracy per kind."""
    t = Table(title=f"Router calibration · {cal.router} · {cal.n} rows")
    for col in ("TP", "FP", "TN", "FN", "Faults", "Precision", "Recall", "Accuracy", "Span exact"):
        t.add_column(col, justify="right")
    span = f"{cal.span_exact}/{cal.tp}" + (f" ({cal.span_exact_rate:.3f})" if cal.tp else "")
    t.add_row(
        str(cal.tp), str(cal.fp), str(cal.tn), str(cal.fn), str(cal.faults),
        _f(cal.precision), _f(cal.recall), _f(cal.accuracy), span,
    )
    return t


def router_kind_table(cal: RouterCalibration) -> Table:
    t = Table(title=f"Router accuracy by kind · {cal.router}")
    t.add_column("Kind")
    t.add_column("Gold", justify="center")
    t.add_column("Correct", justify="right")
    for kind, (c, n) in sorted(cal.by_kind().items(), key=lambda kv: (kv[0] not in POSITIVE_KINDS, kv[0])):
        t.add_row(kind, "+" if kind in POSITIVE_KINDS else "−", f"{c}/{n}")
    return t


def classifier_table(cal: ClassifierCalibration) -> Table:
    """Summary of a Classifier calibration."""
    t = Table(title=f"Classifier calibration · {cal.classifier} · {cal.n} rows")
    for col in ("Gold hits", "Predicted hits", "Correct hits", "Wrong rule", "False hits", "Missed",
                "Faults", "Precision", "Recall", "Exact-id acc."):
        t.add_column(col, justify="right")
    t.add_row(
        str(cal.gold_hits), str(cal.hits_predicted), str(cal.correct_hits), str(cal.wrong_rule),
        str(cal.false_hits), str(cal.missed), str(cal.faults),
        _f(cal.precision), _f(cal.recall), _f(cal.accuracy),
    )
    return t


def errors_table(cal: RouterCalibration | ClassifierCalibration, limit: int | None = None) -> Table:
    """The rows a calibration got wrong (verdict, id, span or fault), first ``limit`` of them."""
    if isinstance(cal, RouterCalibration):
        t = Table(title=f"Router disagreements · {cal.router}")
        for col in ("Id", "Kind", "Gold", "Got", "Gold span", "Got span / fault"):
            t.add_column(col)
        for o in cal.errors()[:limit]:
            got = NA if o.predicted is None else ("+" if o.predicted else "−")
            t.add_row(o.id, o.kind, "+" if o.label else "−", got, o.gold_span or NA, o.fault or o.span or NA)
        return t
    t = Table(title=f"Classifier disagreements · {cal.classifier}")
    for col in ("Id", "Gold", "Got", "Note / fault"):
        t.add_column(col)
    for co in cal.errors()[:limit]:
        t.add_row(co.id, co.gold or "null", NA if co.fault else (co.predicted or "null"), co.fault or co.note)
    return t


def render(cal: RouterCalibration | ClassifierCalibration, errors: int | None = 20) -> list[Table]:
    """Every table of a calibration, summary first; ``errors=0`` leaves the disagreements out."""
    if isinstance(cal, RouterCalibration):
        tables = [router_table(cal), router_kind_table(cal)]
    else:
        tables = [classifier_table(cal)]
    if errors != 0 and cal.errors():
        tables.append(errors_table(cal, errors))
    return tables
