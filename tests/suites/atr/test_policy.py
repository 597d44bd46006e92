"""The scripted reference policy: discovery plans, record collection and decisions per check type."""

from __future__ import annotations

from pathlib import Path

import pytest

from longview.domains.personal import all_tool_names, make_env, safe_fields
from longview.kernel.agent import ToolCall
from longview.suites.atr import policy
from longview.suites.atr.dataset import TestSession, load_episode
from longview.suites.atr.matcher import match_action
from longview.suites.atr.preference import Preference, Selector, Step, TaskFrame

FIXTURES = Path(__file__).parents[2] / "fixtures" / "atrbench" / "data" / "personas"


def rec(id_: str, type_: str, **attrs) -> dict:
    return {"id": id_, "type": type_, "attributes": attrs}


def session(domain: str, refs: list[dict], frame: TaskFrame | None, tool: str = "book_restaurant") -> TestSession:
    return TestSession.model_validate({
        "session_id": "s_test", "session_type": "test", "domain": domain, "rule_id": "r1",
        "instruction": "Do the task.", "local_env": {"tools": [tool], "references": refs},
        "labels": {"task_success": {"required_actions": [{"tool": tool, "arguments": {}, "compare_args": None}]}},
        "frame": frame.model_dump() if frame else None,
    })


RESTAURANTS = [
    rec("rst_b", "restaurant", name="B", rating=4.8, price=30, noise_level="loud"),
    rec("rst_a", "restaurant", name="A", rating=4.8, price=40, noise_level="quiet"),
    rec("rst_c", "restaurant", name="C", rating=4.1, price=20, noise_level="quiet"),
    rec("rsv_x", "restaurant_reservation", rating=5.0),  # other type: never a candidate
]
FRAME = TaskFrame(
    discovery=[Step(tool="search_restaurants", arguments={"location": "Columbus"})],
    candidate_type="restaurant",
    arguments={"book_restaurant": {"date_time": "2026-06-12T19:00:00", "party_size": 2}},
)


def test_discovery_plan_uses_the_frame() -> None:
    s = session("reservation", RESTAURANTS, FRAME)
    assert policy.discovery_plan(s) == FRAME.discovery


def test_records_from_nested_outputs_keep_first_sighting() -> None:
    outputs = [{"results": RESTAURANTS[:2], "count": 2}, {"record": RESTAURANTS[0], "related": [RESTAURANTS[2]]}, "text", None]
    got = policy.records_from_outputs(outputs)
    assert [r["id"] for r in got] == ["rst_b", "rst_a", "rst_c"]


def test_select_max_breaks_ties_by_id_then_by_refinement() -> None:
    pool = RESTAURANTS[:3]
    assert [r["id"] for r in policy.select(pool, Selector(attribute="rating", op="max"))] == ["rst_a"]
    cheaper = Selector(attribute="rating", op="max", then=Selector(attribute="price", op="min"))
    assert [r["id"] for r in policy.select(pool, cheaper)] == ["rst_b"]
    assert [r["id"] for r in policy.select(pool, Selector(attribute="price", op="min"))] == ["rst_c"]


def test_decide_param_id_eq_picks_lowest_id_among_matches_of_the_candidate_type() -> None:
    s = session("reservation", RESTAURANTS, FRAME)
    pref = Preference(tool="book_restaurant", param="restaurant_id", select=Selector(attribute="noise_level", op="eq", value="quiet"))
    batches = policy.decide(s, pref, RESTAURANTS)
    assert batches == [[Step(tool="book_restaurant", arguments={
        "date_time": "2026-06-12T19:00:00", "party_size": 2, "restaurant_id": "rst_a"})]]
    top = Preference(tool="book_restaurant", param="restaurant_id", select=Selector(attribute="rating", op="max"))
    assert policy.decide(s, top, RESTAURANTS)[0][0].arguments["restaurant_id"] == "rst_a"  # rsv_x ignored


def test_decide_enum_sets_value_and_default_can_leave_slot_out() -> None:
    frame = TaskFrame(arguments={"book_flight": {"flight_offer_id": "flt_1", "seat_preference": "middle"}})
    s = session("travel", [rec("flt_1", "flight_offer")], frame, "book_flight")
    aisle = policy.decide(s, Preference(tool="book_flight", param="seat_preference", value="aisle"), [])
    assert aisle == [[Step(tool="book_flight", arguments={"flight_offer_id": "flt_1", "seat_preference": "aisle"})]]
    omit = policy.decide(s, Preference(tool="book_flight", param="seat_preference"), [])
    assert omit[0][0].arguments == {"flight_offer_id": "flt_1"}


def test_decide_confirm_emits_confirmation_then_the_action() -> None:
    frame = TaskFrame(arguments={"cancel_subscription": {"subscription_id": "sub_1"}})
    s = session("commerce", [rec("sub_1", "subscription")], frame, "cancel_subscription")
    batches = policy.decide(s, Preference(tool="cancel_subscription", confirm=True), [])
    assert batches == [
        [Step(tool="get_user_confirmation", arguments={"target_tool": "cancel_subscription",
                                                       "target_params": {"subscription_id": "sub_1"}})],
        [Step(tool="cancel_subscription", arguments={"subscription_id": "sub_1"})],
    ]
    # target_params keep only the safe fields of the target tool (ids, enums, booleans)
    frame = TaskFrame(arguments={"send_message": {"thread_id": "thr_1", "body": "hi"}})
    s = session("communication", [], frame, "send_message")
    (confirm,), _ = policy.decide(s, Preference(tool="send_message", param="language", value="en", confirm=True), [])
    assert confirm.arguments["target_params"] == {"thread_id": "thr_1", "language": "en"}


def test_decide_array_ids_one_element_unless_selector_yields_several() -> None:
    stops = [rec("stop_1", "trip_stop", tags=["nature"], rating=4.0), rec("stop_2", "trip_stop", tags=["museum"], rating=4.9),
             rec("stop_3", "trip_stop", tags=["nature", "food"], rating=4.2)]
    frame = TaskFrame(candidate_type="trip_stop", arguments={"plan_trip": {"destination": "Taos"}})
    s = session("travel", stops, frame, "plan_trip")
    nature = Preference(tool="plan_trip", param="selected_stop_ids", select=Selector(attribute="tags", op="contains", value="nature"))
    assert policy.decide(s, nature, stops)[0][0].arguments["selected_stop_ids"] == ["stop_1", "stop_3"]
    best = Preference(tool="plan_trip", param="selected_stop_ids", select=Selector(attribute="rating", op="max"))
    assert policy.decide(s, best, stops)[0][0].arguments["selected_stop_ids"] == ["stop_2"]


def test_decide_never_reads_labels() -> None:
    s = session("reservation", RESTAURANTS, FRAME)
    pref = Preference(tool="book_restaurant", param="restaurant_id", select=Selector(attribute="price", op="min"))
    before = policy.decide(s, pref, RESTAURANTS)
    s.labels.task_success.required_actions[0].arguments = {"restaurant_id": "rst_b"}
    s.gold_value = "rst_b"
    assert policy.decide(s, pref, RESTAURANTS) == before


def _run(s: TestSession, behaviour: Preference) -> list[list[ToolCall]]:
    env = make_env(s.domain, s.local_env.references, None, s.local_env.tools)
    plan = policy.discovery_plan(s)
    outputs = [env.call(st.tool, st.arguments).output for st in plan]
    steps = [[st] for st in plan] + policy.decide(s, behaviour, policy.records_from_outputs(outputs))
    return [[ToolCall(id=f"{i}.{j}", name=st.tool, arguments=st.arguments) for j, st in enumerate(b)] for i, b in enumerate(steps)]


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*/episodes/*.json")), ids=lambda p: p.stem)
def test_imported_sessions_oracle_passes_and_blind_default_fails(path: Path) -> None:
    ep = load_episode(path, all_tool_names())
    for s in ep.test_sessions:
        rule = ep.rule(s.rule_id)
        oracle = match_action(s.required_action, rule.check_type, _run(s, policy.oracle_behaviour(s, rule)), safe_fields)
        assert oracle.passed, (s.session_id, oracle.reason)
        blind = match_action(s.required_action, rule.check_type, _run(s, policy.blind_default(s)), safe_fields)
        assert not blind.passed, s.session_id


def _executed(s: TestSession, behaviour: Preference) -> list[tuple[str, dict, str | None]]:
    """Run discovery and the decision in a fresh env; (tool, arguments, error) of every call."""
    env = make_env(s.domain, s.local_env.references, None, s.local_env.tools)
    plan = policy.discovery_plan(s)
    outputs = [env.call(st.tool, st.arguments).output for st in plan]
    out = []
    for batch in policy.decide(s, behaviour, policy.records_from_outputs(outputs)):
        for st in batch:
            r = env.call(st.tool, st.arguments)
            out.append((st.tool, st.arguments, None if r.ok else r.error))
    return out


def imported(domain: str, refs: list[dict], tool: str, instruction: str) -> TestSession:
    s = session(domain, refs, None, tool)
    s.instruction = instruction
    return s


def test_imported_base_ids_are_objects_the_environment_knows() -> None:
    # A product names its order; the product the instruction mentions decides which order.
    products = [rec("prod_a_press", "product", name="Plantain Press", order_id="ord_1"),
                rec("prod_b_knife", "product", name="Chef Knife", order_id="ord_2")]
    s = imported("commerce", products, "return_order", "Return the chef's knife from my order.")
    [(_, args, err)] = _executed(s, Preference(tool="return_order", param="resolution_type", value="refund"))
    assert err is None and args["order_id"] == "ord_2"
    # A trip is known only through its stops' trip_id.
    stops = [rec("stop_1", "trip_stop", name="Museum", trip_id="T-1", availability="unavailable"),
             rec("stop_2", "trip_stop", name="Walk")]
    s = imported("travel", stops, "replan_trip", "A stop on trip T-1 fell through; swap in a replacement.")
    walk = Selector(attribute="id", op="in", value=["stop_2"])
    [(_, args, err)] = _executed(s, Preference(tool="replan_trip", param="selected_alternative_stop_ids", select=walk))
    assert err is None and args["trip_id"] == "T-1"
    # A reply goes to the thread of the message from the person the instruction names.
    msgs = [rec("msg_a", "message", sender="Ann Lee <ann@x.org>", thread_id="thr_a"),
            rec("msg_b", "message", sender="Bo Diaz <bo@y.org>", thread_id="thr_b")]
    s = imported("communication", msgs, "send_message", "Reply to Bo Diaz about Saturday.")
    [(_, args, err)] = _executed(s, Preference(tool="send_message"))
    assert err is None and args["thread_id"] == "thr_b"


def test_imported_tracker_entry_and_event_window() -> None:
    tracker = rec("trk_1", "tracker", title="Prep checklist", entries=[
        {"entry_id": "E1", "status": "done", "payload": "Room layout"},
        {"entry_id": "E2", "status": "pending", "payload": "Projector check"},
        {"entry_id": "E3", "status": "pending", "payload": "Headcount for the caterer"}])
    s = imported("workspace", [tracker], "update_tracker", "Update the prep checklist for the caterer.")
    next_action = Preference(tool="update_tracker", param="update_action", value="record_next_action")
    [(_, args, err)] = _executed(s, next_action)
    assert err is None and args["entry_id"] == "E3"  # not done, and the one the instruction is about
    new_entry = Preference(tool="update_tracker", param="update_action", value="create_entry")
    [(_, args, err)] = _executed(s, new_entry)
    assert err is None and "entry_id" not in args  # the tool gives a new entry its id
    event = rec("evt_1", "event", title="Yoga", start_time="2026-09-03T07:00:00")
    s = imported("scheduling", [event], "create_event", "Put yoga on my calendar.")
    [(_, args, err)] = _executed(s, Preference(tool="create_event"))
    assert err is None and (args["start_time"], args["end_time"]) == ("2026-09-03T07:00:00", "2026-09-03T08:00:00")


def test_reference_agents_tool_calls_succeed_on_imported_episodes(tmp_path: Path) -> None:
    from longview.harness.options import RunConfig
    from longview.harness.run import run
    from longview.kernel.trace import iter_trace

    root = FIXTURES.parents[1]
    store, _ = run(RunConfig(suite="atr", dataset=f"atrbench:{root}", agents=["reference"], out=tmp_path / "run"))
    episodes = [load_episode(p, all_tool_names()) for p in FIXTURES.glob("*/episodes/*.json")]
    test_ids = {s.session_id for ep in episodes for s in ep.test_sessions}
    traces = [f for f in (store.root / "cells").glob("*/*.jsonl") if f.stem in test_ids]
    assert len(traces) == 3 * len(test_ids)  # oracle, passive and asker ran every test session
    failed = [(f.parent.name, f.stem, e.data["name"], e.data["error"])
              for f in traces for e in iter_trace(f) if e.type == "tool_call" and not e.data["ok"]]
    assert failed == []
