"""Labelled calibration sets for the ATR Router and Classifier, and the code that scores any
implementation against them (see :mod:`.calibrate`)."""

from .calibrate import (
    POSITIVE_KINDS,
    CalibrationRule,
    ClassifierCalibration,
    ClassifierOutcome,
    ClassifierRow,
    RouterCalibration,
    RouterOutcome,
    RouterRow,
    calibrate_classifier,
    calibrate_router,
    classifier_table,
    errors_table,
    load_classifier_set,
    load_router_set,
    render,
    router_kind_table,
    router_table,
    same_span,
)

__all__ = [
    "POSITIVE_KINDS",
    "CalibrationRule",
    "ClassifierCalibration",
    "ClassifierOutcome",
    "ClassifierRow",
    "RouterCalibration",
    "RouterOutcome",
    "RouterRow",
    "calibrate_classifier",
    "calibrate_router",
    "classifier_table",
    "errors_table",
    "load_classifier_set",
    "load_router_set",
    "render",
    "router_kind_table",
    "router_table",
    "same_span",
]
