"""READ calls that surface a session's references through the tools.

Scripted reference agents must find objects the way an LLM agent would (search / list / track),
not be handed them. ``discovery_steps`` derives those calls from the references' own attributes and
runs them on a scratch env, adding calls until every wanted reference has appeared in some output.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from longview.domains.personal.base import normalize, string_values
from longview.domains.personal.registry import make_env

# (domain or "*", reference type) -> (tool, {argument: attribute}) for filter-style discovery.
_SEARCH: dict[tuple[str, str], tuple[str, dict[str, str]]] = {
    ("*", "product"): ("search_products", {"category": "category"}),
    ("*", "restaurant"): ("search_restaurants", {"location": "location"}),
    ("reservation", "event"): ("search_events", {"location": "location"}),
    ("*", "service_provider"): (
        "search_service_providers",
        {"service_type": "service_type", "location": "location"},
    ),
    ("*", "flight_offer"): ("search_flights", {"origin": "origin", "destination": "destination"}),
    ("*", "transport_offer"): ("search_ground_transport", {"origin": "origin", "destination": "destination"}),
    ("*", "hotel_offer"): ("search_hotels", {"location": "location"}),
    ("*", "trip_stop"): ("search_trip_stops", {"destination": "location"}),
    ("*", "message"): ("search_messages", {"sender": "sender"}),
    ("*", "destination"): ("search_destinations", {}),
    ("*", "draft"): ("search_messages", {}),
    ("*", "label"): ("list_labels", {}),
    ("communication", "folder"): ("list_message_folders", {}),
    ("workspace", "folder"): ("list_file_folders", {}),
    ("scheduling", "calendar_event"): ("list_events", {}),
    ("scheduling", "event"): ("list_events", {}),
    ("*", "file"): ("list_files", {}),
    ("*", "document"): ("search_documents", {}),
    ("*", "tracker"): ("list_trackers", {}),
    ("*", "subscription"): ("review_recurring_charges", {}),
}
# Fixed extra arguments (required counts) per search tool.
_FIXED: dict[str, dict[str, Any]] = {
    "search_flights": {"passenger_count": 1},
    "search_ground_transport": {"passenger_count": 1},
    "search_hotels": {"guest_count": 1, "room_count": 1},
}
# Objects with no search surface are looked up by id through their tracking tool.
_TRACK: dict[tuple[str, str], tuple[str, str]] = {
    ("*", "order"): ("track_order", "order_id"),
    ("*", "restaurant_reservation"): ("track_reservation_updates", "reservation_id"),
    ("*", "reservation"): ("track_reservation_updates", "reservation_id"),
    ("reservation", "event_booking"): ("track_reservation_updates", "booking_id"),
    ("reservation", "booking"): ("track_reservation_updates", "booking_id"),
    ("*", "service_appointment"): ("track_reservation_updates", "appointment_id"),
    ("*", "appointment"): ("track_reservation_updates", "appointment_id"),
    ("*", "trip"): ("track_trip_updates", "trip_id"),
    ("*", "itinerary"): ("track_trip_updates", "trip_id"),
    ("travel", "flight_booking"): ("track_trip_updates", "booking_id"),
    ("travel", "hotel_booking"): ("track_trip_updates", "booking_id"),
    ("travel", "transport_booking"): ("track_trip_updates", "booking_id"),
    ("travel", "booking"): ("track_trip_updates", "booking_id"),
}


def _lookup(table: dict, domain: str, type_: str) -> Any:
    return table.get((domain, type_)) or table.get(("*", type_))


def discovery_tool(domain: str, type_: str) -> str | None:
    """The tool that surfaces references of ``type_`` in ``domain``, if any."""
    hit = _lookup(_SEARCH, domain, type_) or _lookup(_TRACK, domain, type_)
    return hit[0] if hit else None


def _as_dict(ref: Any) -> dict[str, Any]:
    return ref.model_dump() if isinstance(ref, BaseModel) else dict(ref)


def _filter_value(value: Any, peers: list[str]) -> str:
    """The part of ``value`` (whole, or one comma-separated piece) shared by most peers.

    E.g. "Chiyoda, Tokyo" among other Tokyo districts gives "Tokyo", so one call finds them all.
    """
    text = re.sub(r"\s*<[^>]*>", "", str(value)).strip() or str(value)  # "Ann <a@x.org>" -> "Ann"
    candidates = [text] + [p.strip() for p in text.split(",") if p.strip()]
    return max(candidates, key=lambda c: sum(normalize(c) in normalize(p) for p in peers))


def _call_for(domain: str, ref: dict[str, Any], peers: list[dict[str, Any]]) -> dict[str, Any] | None:
    attrs = ref.get("attributes") or {}
    track = _lookup(_TRACK, domain, ref["type"])
    if track:
        return {"tool": track[0], "arguments": {track[1]: ref["id"]}}
    search = _lookup(_SEARCH, domain, ref["type"])
    if not search:
        return None
    tool, mapping = search
    args: dict[str, Any] = {}
    for arg, attr in mapping.items():
        if attrs.get(attr) not in (None, ""):
            others = [str((p.get("attributes") or {}).get(attr, "")) for p in peers]
            args[arg] = _filter_value(attrs[attr], others)
        elif arg in ("location", "origin", "destination", "service_type"):
            args[arg] = ""  # required filter with nothing to go on: match everything
    if tool == "search_messages" and attrs.get("archived"):
        args["folder"] = "archive"  # archived messages are listed only from the archive folder
    return {"tool": tool, "arguments": {**args, **_FIXED.get(tool, {})}}


def discovery_steps(domain: str, references: Iterable[Any], types: set[str] | None = None) -> list[dict[str, Any]]:
    """Tool calls ``{"tool", "arguments"}`` whose outputs show every wanted reference's id.

    ``types`` limits which reference types must be surfaced (all by default). References of a type
    with no discovery tool are skipped.
    """
    refs = [_as_dict(r) for r in references]
    env = make_env(domain, refs)
    wanted = [r for r in refs if types is None or r["type"] in types]
    steps: list[dict[str, Any]] = []
    seen: set[str] = set()
    for ref in wanted:
        if ref["id"] in seen:
            continue
        call = _call_for(domain, ref, [p for p in wanted if p["type"] == ref["type"]])
        if call is None or call in steps:
            continue
        result = env.call(call["tool"], call["arguments"])
        if result.ok:
            seen |= string_values(result.output)
        steps.append(call)
    return steps
