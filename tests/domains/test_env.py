"""The personal-assistant env runs the ATRBench fixture episodes and keeps the ontology's promises."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from longview.domains.personal import DOMAINS, discovery_steps, make_env, toolkit_class
from longview.domains.personal.base import string_values
from longview.kernel.state import WorldState

DATA = Path(__file__).parents[1] / "fixtures" / "atrbench" / "data"


def _session(raw: dict) -> SimpleNamespace:
    s = SimpleNamespace(**raw)
    env = raw["local_env"]
    s.local_env = SimpleNamespace(tools=env["tools"], references=[{"attributes": {}, **r} for r in env.get("references", [])])
    s.gold_trajectory = [SimpleNamespace(**x) for x in raw.get("gold_trajectory", [])]
    if "labels" in raw:
        s.required_action = SimpleNamespace(**raw["labels"]["task_success"]["required_actions"][0])
    return s


def _episode(path: Path) -> SimpleNamespace:
    """Episode JSON read as plain data: domain tests exercise the domains, not a suite's loader."""
    raw = json.loads(path.read_text())
    return SimpleNamespace(persona_id=raw["persona_id"], structured_persona=raw.get("structured_persona", {}),
                           learning_sessions=[_session(s) for s in raw["learning_sessions"]],
                           test_sessions=[_session(s) for s in raw["test_sessions"]])


Episode = SimpleNamespace
EPISODES: list[Episode] = [_episode(p) for p in sorted(DATA.rglob("*.json"))]
LEARNING = [(ep, s) for ep in EPISODES for s in ep.learning_sessions]
TESTS = [(ep, s) for ep in EPISODES for s in ep.test_sessions]


def _env(ep: Episode, session):
    return make_env(session.domain, session.local_env.references, ep.structured_persona, session.local_env.tools)


def _ok(env, tool: str, **args):
    result = env.call(tool, args)
    assert result.ok, f"{tool}({args}) -> {result.error}"
    return result.output


def _error(env, tool: str, **args) -> str:
    result = env.call(tool, args)
    assert not result.ok, f"{tool}({args}) unexpectedly succeeded"
    return result.error or ""


def _session(domain: str, refs: list[dict], persona: dict | None = None):
    return make_env(domain, refs, persona or {"name": "Ada Lovelace"})


# ---- the fixture episodes -------------------------------------------------------------------


@pytest.mark.parametrize("ep,session", LEARNING, ids=[s.session_id for _, s in LEARNING])
def test_gold_trajectory_runs(ep: Episode, session) -> None:
    env = _env(ep, session)
    for step in session.gold_trajectory:
        _ok(env, step.tool, **step.arguments)


@pytest.mark.parametrize("ep,session", TESTS, ids=[s.session_id for _, s in TESTS])
def test_discovery_surfaces_gold_ids(ep: Episode, session) -> None:
    env = _env(ep, session)
    steps = discovery_steps(session.domain, session.local_env.references)
    assert steps and all(s["tool"] in session.local_env.tools for s in steps)
    seen: set[str] = set()
    for step in steps:
        seen |= string_values(_ok(env, step["tool"], **step["arguments"]))
    gold = session.required_action.arguments
    ids = [v for k, v in gold.items() if k.endswith("_id")]
    ids += [v for k, vs in gold.items() if k.endswith("_ids") for v in vs]
    assert set(ids) <= seen
    # Every reference is surfaced too, so scripted agents see the whole candidate pool.
    assert {r["id"] for r in session.local_env.references} <= seen


@pytest.mark.parametrize("ep,session", TESTS + LEARNING, ids=[s.session_id for _, s in TESTS + LEARNING])
def test_attributes_returned_verbatim(ep: Episode, session) -> None:
    env = _env(ep, session)
    refs = {r["id"]: r["attributes"] for r in session.local_env.references}
    shown = 0
    for step in discovery_steps(session.domain, session.local_env.references):
        for record in _ok(env, step["tool"], **step["arguments"]).get("results", []):
            if record["id"] in refs:
                assert record["attributes"] == refs[record["id"]]
                shown += 1
    assert shown >= len(refs)


def test_the_rule_bound_actions_are_executable() -> None:
    """The fixture test sessions' gold ids are accepted by their execute tools."""
    ep = next(e for e in EPISODES if e.persona_id == "maximo_esteban_irizarry")
    s = {t.rule_id.removeprefix(ep.persona_id + "_"): t for t in ep.test_sessions}
    env = _env(ep, s["travel_03"])
    out = _ok(
        env,
        "replan_trip",
        trip_id="T-7418",
        disrupted_item_id="stop_cartagena_santa_clara_cloister_01",
        replanning_goal="swap the closed cloister",
        selected_alternative_stop_ids=["stop_cartagena_walled_courtyards_01"],
        replacement_type="swap_single_stop",
    )
    assert out["trip_id"] == "T-7418"
    env = _env(ep, s["workspace_04"])
    _ok(env, "list_trackers")
    out = _ok(
        env,
        "update_tracker",
        tracker_id="trk_api_design_workshop_01",
        entry_id="ENT_catering_01",
        update_action="record_next_action",
        entry_payload="Send final headcount to the caterer by Friday",
    )
    assert out["entry"]["next_action"].startswith("Send final")
    env = _env(ep, s["commerce_03"])
    assert _ok(env, "track_order", order_id="ord_6012_kitchen")["status"] == "delivered"
    out = _ok(env, "return_order", order_id="ord_6012_kitchen", resolution_type="exchange")
    assert out["resolution_type"] == "exchange"


# ---- ids ------------------------------------------------------------------------------------

RESTAURANTS = [
    {"id": "rst_a", "type": "restaurant", "attributes": {"name": "A", "location": "Decatur", "cuisine": "Southern"}},
    {"id": "msg_a", "type": "message", "attributes": {"sender": "Bo", "thread_id": "thr_a"}},
]


def test_unknown_ids_answer_not_found() -> None:
    cases = {
        "commerce": ("place_order", {"product_id": "prod_nope", "quantity": 1}),
        "reservation": (
            "book_restaurant",
            {"restaurant_id": "rst_nope", "date_time": "2026-01-01T19:00:00", "party_size": 2},
        ),
        "travel": ("book_flight", {"flight_offer_id": "flt_nope"}),
        "communication": ("archive_messages", {"message_ids": ["msg_nope"]}),
        "scheduling": ("set_reminder", {"target_id": "evt_nope"}),
        "workspace": ("update_tracker", {"tracker_id": "trk_nope", "update_action": "create_entry"}),
    }
    assert set(cases) == set(DOMAINS)
    for domain, (tool, args) in cases.items():
        err = _error(_session(domain, []), tool, **args)
        assert err.startswith("Not found: "), (domain, err)


def test_an_id_in_the_wrong_slot_is_not_found() -> None:
    env = _session("reservation", RESTAURANTS)
    err = _error(env, "book_restaurant", restaurant_id="msg_a", date_time="2026-01-01T19:00:00", party_size=2)
    assert err.startswith("Not found: msg_a")
    # Ids only mentioned in attributes have no known type, so any slot accepts them.
    env = _session("communication", RESTAURANTS)
    assert _ok(env, "draft_message", thread_id="thr_a", body="hi")["thread_id"] == "thr_a"


def test_created_ids_are_usable_later() -> None:
    env = _session("reservation", RESTAURANTS)
    rsv = _ok(env, "book_restaurant", restaurant_id="rst_a", date_time="2026-01-01T19:00:00", party_size=2)
    rid = rsv["reservation_id"]
    assert rid.startswith("rsv_")
    out = _ok(env, "modify_restaurant_reservation", reservation_id=rid, field="party_size", new_value="4")
    assert out["party_size"] == 4
    assert _ok(env, "track_reservation_updates", reservation_id=rid)["status"] == "confirmed"
    assert _ok(env, "cancel_restaurant_reservation", reservation_id=rid)["status"] == "cancelled"
    assert "already cancelled" in _error(env, "cancel_restaurant_reservation", reservation_id=rid)
    assert "exactly one" in _error(env, "track_reservation_updates")

    env = _session("communication", RESTAURANTS)
    draft = _ok(env, "draft_message", recipient="bo@example.com", body="Hello")
    assert draft["draft_id"].startswith("dft_")
    assert _ok(env, "send_draft", draft_id=draft["draft_id"])["status"] == "sent"
    assert "recipient" in _error(env, "send_message", body="x")  # neither recipient nor thread


def test_new_ids_are_deterministic_and_never_collide() -> None:
    refs = [{"id": "ord_001", "type": "order", "attributes": {}}] + [
        {"id": "prod_a", "type": "product", "attributes": {"name": "A", "price": 3.0}}
    ]
    ids = []
    for _ in range(2):
        env = _session("commerce", refs)
        ids.append(_ok(env, "place_order", product_id="prod_a", quantity=1)["order_id"])
    assert ids[0] == ids[1] != "ord_001"


# ---- behaviour ------------------------------------------------------------------------------


def test_identity_fields_are_auto_filled_from_the_persona() -> None:
    refs = [{"id": "prod_a", "type": "product", "attributes": {"name": "A", "price": 3.0}}]
    env = _session("commerce", refs, {"name": "Ada Lovelace"})
    out = _ok(env, "place_order", product_id="prod_a", quantity=2)
    assert "Ada Lovelace" in out["shipping_address"] and "Ada Lovelace" in out["payment_method"]
    assert not re.search(r"\d{3}", out["shipping_address"])  # a placeholder, not an address
    out = _ok(env, "place_order", product_id="prod_a", quantity=1, payment_method="gift card")
    assert out["payment_method"] == "gift card"
    refs = [{"id": "flt_a", "type": "flight_offer", "attributes": {"origin": "A", "destination": "B", "available_seats": 3}}]
    out = _ok(_session("travel", refs, {"name": "Ada Lovelace"}), "book_flight", flight_offer_id="flt_a")
    assert "Ada Lovelace" in out["traveler_info"]


def test_filters_match_loosely_like_the_release() -> None:
    refs = [
        {"id": "p1", "type": "product", "attributes": {"name": "Trail poles", "category": "hiking poles", "price": 80}},
        {"id": "p2", "type": "product", "attributes": {"name": "Lamp", "category": "lighting", "price": 20}},
        {"id": "p3", "type": "product", "attributes": {"name": "Mystery item"}},
        {"id": "p4", "type": "product", "attributes": {"name": "Boots", "category": "hiking-boots", "price": 120}},
    ]
    env = _session("commerce", refs)
    # Substring either way or one shared word: "hiking poles" also brings the boots (a decoy).
    out = _ok(env, "search_products", category="Hiking Poles", sort_by="price_asc")
    assert [r["id"] for r in out["results"]] == ["p1", "p4"] and "hint" not in out
    out = _ok(env, "search_products", category="Hiking Poles", budget=100)
    assert [r["id"] for r in out["results"]] == ["p1"]
    out = _ok(env, "search_products", category="pole")  # substring
    assert [r["id"] for r in out["results"]] == ["p1"]
    out = _ok(env, "search_products", category="Outdoor hiking gear, poles")  # shared word
    assert [r["id"] for r in out["results"]] == ["p1", "p4"]
    # Matching is on the category only (not the name); a missing category reads as "unknown".
    assert _ok(env, "search_products", category="lamp")["count"] == 0
    assert [r["id"] for r in _ok(env, "search_products", category="unknown")["results"]] == ["p3"]
    # Nothing matched in a non-empty pool: empty, with a hint naming the filter.
    out = _ok(env, "search_products", category="submarine")
    assert out["count"] == 0 and out["results"] == [] and "category='submarine'" in out["hint"]
    out = _ok(env, "search_products", sort_by="price_desc")
    assert [r["id"] for r in out["results"]] == ["p4", "p1", "p2", "p3"]
    # An empty pool gives an empty answer without a hint.
    out = _ok(_session("commerce", []), "search_products", category="lamp")
    assert out == {"results": [], "count": 0}


def test_compare_products_gives_no_ready_made_pick() -> None:
    refs = [
        {"id": "p1", "type": "product", "attributes": {"category": "tea", "price": 8, "rating": 4.1}},
        {"id": "p2", "type": "product", "attributes": {"category": "tea", "price": 5, "rating": 4.8}},
    ]
    out = _ok(_session("commerce", refs), "compare_products", product_ids=["p1", "p2", "p9"])
    assert set(out) == {"results", "count"} and [r["id"] for r in out["results"]] == ["p1", "p2", "p9"]
    assert out["results"][2] == {"id": "p9", "error": "not found"}  # a row, not a failed call


def test_list_filters_follow_the_release_defaults_and_visibility() -> None:
    msgs = [
        {"id": "m1", "type": "message", "attributes": {"sender": "Ann Lee", "folder": "inbox"}},
        {"id": "m2", "type": "message", "attributes": {"sender": "Bo Chen"}},  # no folder: inbox
        {"id": "m3", "type": "message", "attributes": {"sender": "Ann Lee", "folder": "archive", "archived": True}},
    ]
    env = _session("communication", msgs)
    assert [r["id"] for r in _ok(env, "search_messages")["results"]] == ["m1", "m2"]
    assert [r["id"] for r in _ok(env, "search_messages", folder="inbox")["results"]] == ["m1", "m2"]
    assert [r["id"] for r in _ok(env, "search_messages", folder="archive")["results"]] == ["m3"]
    assert "hint" in _ok(env, "search_messages", folder="sent")
    events = [
        {"id": "e1", "type": "calendar_event", "attributes": {"title": "Sync", "participants": ["a@x.org"]}},
        {"id": "e2", "type": "calendar_event", "attributes": {"title": "Old", "status": "cancelled", "calendar": "work"}},
        {"id": "e3", "type": "calendar_event", "attributes": {"title": "Team", "calendar": "work",
                                                               "participants": ["b@x.org"]}},
    ]
    env = _session("scheduling", events)
    assert [r["id"] for r in _ok(env, "list_events")["results"]] == ["e1", "e3"]  # cancelled not listed
    assert [r["id"] for r in _ok(env, "list_events", calendar="work")["results"]] == ["e3"]
    # Participants match exactly (case-insensitive), not loosely.
    assert [r["id"] for r in _ok(env, "list_events", participants=["A@X.org"])["results"]] == ["e1"]
    assert "hint" in _ok(env, "list_events", participants=["a"])
    files = [
        {"id": "f1", "type": "file", "attributes": {"name": "a.pdf", "file_type": "pdf", "location": "/Docs/Tax"}},
        {"id": "f2", "type": "file", "attributes": {"name": "b"}},  # reads as location "/", type "other"
    ]
    env = _session("workspace", files)
    assert [r["id"] for r in _ok(env, "list_files", location="Tax")["results"]] == ["f1"]
    # "/" is contained in "/Docs": the release's substring rule lets the location-less file through.
    assert [r["id"] for r in _ok(env, "list_files", location="/Docs")["results"]] == ["f1", "f2"]
    assert [r["id"] for r in _ok(env, "list_files", location="/")["results"]] == ["f1", "f2"]
    assert "hint" in _ok(env, "list_files", file_type="csv")
    evs = [
        {"id": "v1", "type": "event", "attributes": {"name": "Jazz", "location": "Austin", "event_type": "music"}},
        {"id": "v2", "type": "event", "attributes": {"name": "Expo", "location": "Austin", "event_tags": ["Tech"]}},
    ]
    env = _session("reservation", evs)
    assert [r["id"] for r in _ok(env, "search_events", event_tags=["music"])["results"]] == ["v1"]  # legacy type
    assert [r["id"] for r in _ok(env, "search_events", event_tags=["tech"])["results"]] == ["v2"]
    assert "hint" in _ok(env, "search_events", event_tags=["tec"])  # tags match exactly


def test_confirmation_tool() -> None:
    env = make_env("reservation", RESTAURANTS, None, ["search_restaurants"])
    assert {s.name for s in env.specs} == {"search_restaurants", "get_user_confirmation"}
    out = _ok(env, "get_user_confirmation", target_tool="book_restaurant", target_params={"restaurant_id": "rst_a"})
    assert out == {"confirmed": True, "target_tool": "book_restaurant", "target_params": {"restaurant_id": "rst_a"}}
    assert "book_flight" in _error(env, "get_user_confirmation", target_tool="book_flight")
    env.confirmation_policy = lambda tool, params: False
    assert _ok(env, "get_user_confirmation", target_tool="book_restaurant")["confirmed"] is False
    assert _error(env, "book_restaurant", restaurant_id="rst_a").startswith("Unknown tool")


def test_failures_are_results_not_exceptions() -> None:
    env = _session("scheduling", [])
    backwards = {"start_time": "2026-01-01T10:00:00", "end_time": "2026-01-01T09:00:00"}
    assert "end_time" in _error(env, "create_event", title="x", **backwards)
    assert "ISO 8601" in _error(env, "check_conflicts", start_time="tomorrow", end_time="2026-01-01T09:00:00")
    assert _error(env, "list_events", calendar="holidays").startswith("Invalid arguments")


def test_conflicts_and_alternative_slots() -> None:
    def event(id_: str, type_: str, start: str, end: str) -> dict:
        day = "2026-03-18T"
        times = {"start_time": f"{day}{start}:00-04:00", "end_time": f"{day}{end}:00-04:00"}
        return {"id": id_, "type": type_, "attributes": {"title": id_, **times, "status": "confirmed"}}

    refs = [event("evt_a", "calendar_event", "18:30", "19:30"), event("evt_b", "event", "19:30", "20:00")]
    env = _session("scheduling", refs)
    out = _ok(env, "check_conflicts", start_time="2026-03-18T19:00:00-04:00", end_time="2026-03-18T19:45:00-04:00")
    assert [r["id"] for r in out["conflicts"]] == ["evt_a", "evt_b"]
    slots = _ok(env, "find_alternative_slots", target_id="evt_a")["slots"]
    assert slots[0] == {"start_time": "2026-03-18T20:30:00-04:00", "end_time": "2026-03-18T21:30:00-04:00"}


def test_deleted_files_are_gone() -> None:
    refs = [{"id": "fil_a", "type": "file", "attributes": {"name": "a.pdf", "file_type": "pdf"}}]
    env = _session("workspace", refs)
    _ok(env, "delete_files", file_ids=["fil_a"])
    assert _error(env, "archive_files", file_ids=["fil_a"], folder_id="fld_x").startswith("Not found")
    assert _ok(env, "list_files")["count"] == 0


# ---- schemas and state ----------------------------------------------------------------------


def test_schemas_are_function_calling_format() -> None:
    for domain in DOMAINS:
        for schema in toolkit_class(domain)().schemas():
            assert schema["type"] == "function" and set(schema) == {"type", "function"}
            fn = schema["function"]
            assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", fn["name"])
            assert fn["description"].strip()
            params = fn["parameters"]
            assert params["type"] == "object" and params["additionalProperties"] is False
            assert set(params["required"]) <= set(params["properties"])
            for prop in params["properties"].values():
                assert prop["type"] in {"string", "integer", "number", "boolean", "object", "array"}
                assert prop["description"]
                if prop["type"] == "array":
                    assert prop["items"] == {"type": "string"}
                if "enum" in prop:
                    assert prop["type"] == "string" and prop["enum"]
            json.dumps(schema)


def test_world_state_copy_and_digest() -> None:
    ep, session = LEARNING[0]
    env = _env(ep, session)
    before = env.db.digest()
    snapshot = env.db.copy()
    assert isinstance(snapshot, WorldState) and snapshot.digest() == before
    assert _env(ep, session).db.digest() == before  # stable across builds
    for step in session.gold_trajectory:
        _ok(env, step.tool, **step.arguments)
    assert env.db.digest() != before and snapshot.digest() == before  # copy is independent
    snapshot.records[next(iter(snapshot.records))].attributes["x"] = 1
    assert snapshot.digest() != before
    replay = _env(ep, session)
    for step in session.gold_trajectory:
        _ok(replay, step.tool, **step.arguments)
    assert replay.db.digest() == env.db.digest()  # deterministic


def test_clock_is_simulated() -> None:
    from datetime import datetime, timedelta

    from longview.kernel.clock import SimClock

    clock = SimClock(datetime(2026, 1, 1, 9, 0))
    assert clock.now() == datetime(2026, 1, 1, 9, 0)
    assert clock.advance(hours=2) == datetime(2026, 1, 1, 11, 0)
    assert clock.advance(timedelta(days=1), minutes=30) == datetime(2026, 1, 2, 11, 30)
    with pytest.raises(ValueError):
        clock.advance(hours=-1)


def test_sessions_loaded_from_one_reference_list_are_independent():
    refs = [{"id": "o1", "type": "order", "attributes": {"status": "placed", "product_id": "p9", "tags": ["a"]}}]
    first = make_env("commerce", refs)
    first.db.records["o1"].attributes["status"] = "cancelled"
    first.db.records["o1"].attributes["tags"].append("b")
    second = make_env("commerce", refs)  # the same list again: served from the once-loaded state
    assert second.db.records["o1"].attributes == {"status": "placed", "product_id": "p9", "tags": ["a"]}
    assert second.db.mentioned_ids == {"p9": "product_id"}
    assert refs[0]["attributes"]["tags"] == ["a"]  # the dataset itself is never touched
    refs.append({"id": "o2", "type": "order", "attributes": {}})
    assert set(make_env("commerce", refs).db.records) == {"o1", "o2"}  # a grown list is loaded again
