"""The executable toolkits expose exactly the ATRBench tool ontology (names, tags, parameters)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from longview.domains.personal import (
    DOMAINS,
    all_tool_names,
    domain_of,
    safe_fields,
    tool_spec,
    toolkit_class,
)
from longview.kernel.tools import ToolKind

ONTOLOGY = Path(__file__).parents[1] / "fixtures" / "atrbench" / "ontology" / "tools.yaml"
COUNTS = {"commerce": 13, "reservation": 13, "travel": 17, "communication": 9, "scheduling": 10, "workspace": 11}


@pytest.fixture(scope="module")
def ontology() -> dict:
    return yaml.safe_load(ONTOLOGY.read_text(encoding="utf-8"))


def _expected(ontology: dict) -> list[tuple[str, dict]]:
    rows = [(d, t) for d, body in ontology["domains"].items() for t in body["tools"]]
    return rows + [("base", t) for t in ontology["base_tools"]["tools"]]


def test_domains_and_counts(ontology: dict) -> None:
    assert set(DOMAINS) == set(ontology["domains"]) == set(COUNTS)
    for domain, n in COUNTS.items():
        assert len(ontology["domains"][domain]["tools"]) == n
        names = set(toolkit_class(domain).tool_names())
        assert len(names) == n + 1 and "get_user_confirmation" in names
    assert len(all_tool_names()) == sum(COUNTS.values()) + 1 == 74


def test_every_tool_matches_the_ontology(ontology: dict) -> None:
    expected = _expected(ontology)
    assert {t["name"] for _, t in expected} == all_tool_names()
    for domain, t in expected:
        spec = tool_spec(t["name"])
        assert domain_of(t["name"]) == domain, t["name"]
        if domain != "base":
            assert t["name"] in toolkit_class(domain).tool_names()
        assert spec.tags == t["domain_tags"], t["name"]
        want = {p["name"]: (p["type"], p["required"]) for p in t["parameters"]}
        got = {p.name: (p.type, p.required) for p in spec.parameters}
        assert got == want, t["name"]
        assert spec.description, t["name"]
        assert all(p.description for p in spec.parameters), t["name"]


def test_read_write_kinds() -> None:
    reads = ("search_", "list_", "compare_", "track_", "check_", "review_", "find_", "get_user_confirmation")
    for name in all_tool_names():
        want = ToolKind.READ if name.startswith(reads) else ToolKind.WRITE
        assert tool_spec(name).kind is want, name


def test_safe_fields() -> None:
    assert safe_fields("book_flight") == {"flight_offer_id", "seat_preference"}
    assert safe_fields("plan_trip") == {
        "selected_stop_ids",
        "include_daily_breakdown",
        "include_stopovers",
        "include_budget_summary",
    }
    assert safe_fields("send_message") == {"thread_id", "language"}
    assert safe_fields("delete_files") == {"file_ids"}
