"""The suite's optional report hooks (``profile``, ``report_sections``, ``session_outcomes``), with
fallbacks for built-in suites that do not declare them themselves yet (``adapters/``).

A suite that overrides a hook always wins; an adapter is used only for a suite still on the
contract's default. Removing an adapter once its suite declares the hook changes nothing else.
"""

from __future__ import annotations

import importlib
from typing import Any

from longview.harness.cell import Dataset
from longview.harness.suite import ProfileSpec, Section, SessionOutcome, Suite

ADAPTERS = {"atr": "longview.report.adapters.atr", "intents": "longview.report.adapters.intents",
            "tempo": "longview.report.adapters.tempo"}


def _adapter(suite: Suite | None, name: str | None = None) -> Any | None:
    key = suite.name if suite is not None else name
    mod = ADAPTERS.get(key or "")
    return importlib.import_module(mod) if mod else None


def _overrides(suite: Suite, attr: str) -> bool:
    return getattr(type(suite), attr) is not getattr(Suite, attr)


def profile_spec(suite: Suite) -> ProfileSpec:
    if _overrides(suite, "profile"):
        return suite.profile
    adapter = _adapter(suite)
    return getattr(adapter, "PROFILE", suite.profile) if adapter else suite.profile


def report_sections(suite: Suite | None, scorecard: dict[str, Any]) -> list[Section]:
    """The suite's own report sections; without the suite installed, the built-in adapter's (they
    read only the scorecard JSON)."""
    if suite is not None and _overrides(suite, "report_sections"):
        return suite.report_sections(scorecard)
    adapter = _adapter(suite, scorecard.get("suite"))
    return adapter.report_sections(scorecard) if adapter and hasattr(adapter, "report_sections") else []


def session_outcomes(suite: Suite, result: str, dataset: Dataset) -> dict[str, SessionOutcome]:
    if _overrides(suite, "session_outcomes"):
        return suite.session_outcomes(result, dataset)
    adapter = _adapter(suite)
    return adapter.session_outcomes(result, dataset) if adapter and hasattr(adapter, "session_outcomes") else {}
