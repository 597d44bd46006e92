"""The suite's optional report hooks as the report uses them: a report reads what the suite
declares (``Suite.profile``, ``Suite.report_sections``), and works without the suite installed."""

from __future__ import annotations

from typing import Any

from longview.harness.suite import AnySuite, ProfileSpec, Section


def profile_spec(suite: AnySuite) -> ProfileSpec:
    return suite.profile


def report_sections(suite: AnySuite | None, scorecard: dict[str, Any]) -> list[Section]:
    """The suite's own report sections (they read only the scorecard JSON); none without the suite."""
    return suite.report_sections(scorecard) if suite is not None else []
