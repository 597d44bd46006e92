"""Golden cases pinning the action matcher to ATRBench, App. D.2."""

import json

import pytest

from longview.kernel.agent import ToolCall
from longview.suites.atr.dataset import CheckType, RequiredAction
from longview.suites.atr.matcher import match_action

SAFE = {"send_message": {"thread_id", "channel", "urgent"}}


def safe_fields(tool: str) -> set[str]:
    return SAFE.get(tool, set())


def call(name: str, **arguments) -> ToolCall:
    return ToolCall(id=f"c_{name}", name=name, arguments=arguments)


TOOL = RequiredAction(tool="build_shopping_list", arguments={}, compare_args=None)
PARAM = RequiredAction(tool="place_order", arguments={"product_id": "prod_kale"}, compare_args=["product_id"])
LIST = RequiredAction(tool="plan_trip", arguments={"stop_ids": ["s1", "s2"]}, compare_args=["stop_ids"])
SCALAR = RequiredAction(tool="book_table", arguments={"party_size": 1}, compare_args=["party_size"])
GOLD_PARAMS = {"thread_id": "th_1", "channel": "email", "urgent": True, "body": "Running late, sorry"}
CONFIRM = RequiredAction(
    tool="get_user_confirmation",
    arguments={"target_tool": "send_message", "target_params": GOLD_PARAMS},
    compare_args=["target_tool", "target_params"],
)


def confirm(**overrides) -> ToolCall:
    return call("get_user_confirmation", target_tool="send_message", target_params={**GOLD_PARAMS, **overrides})


CASES = {
    # tool_identity: any call to the tool in the first batch holding it passes, whatever its arguments.
    "identity_any_call": (TOOL, CheckType.TOOL_IDENTITY, [[call("build_shopping_list", items=["x"])]], True, 0),
    "identity_among_other_tools": (
        TOOL, CheckType.TOOL_IDENTITY, [[call("search_products"), call("build_shopping_list")]], True, 0),
    "identity_after_unrelated_batches": (
        TOOL, CheckType.TOOL_IDENTITY, [[call("search_products")], [call("build_shopping_list")]], True, 1),
    # longview: the first batch with the tool or a same-goal alternative decides; a hedge fails.
    "identity_with_alternative_same_batch": (
        TOOL, CheckType.TOOL_IDENTITY, [[call("place_order"), call("build_shopping_list")]], False, 0),
    "identity_after_alternative": (
        TOOL, CheckType.TOOL_IDENTITY, [[call("compare_products")], [call("build_shopping_list")]], False, 0),
    "identity_never_called": (TOOL, CheckType.TOOL_IDENTITY, [[call("search_products")]], False, None),
    "no_batches": (TOOL, CheckType.TOOL_IDENTITY, [], False, None),
    # param: the first batch with the tool decides; later batches are never read.
    "param_match": (PARAM, CheckType.PARAM_ID, [[call("place_order", product_id="prod_kale")]], True, 0),
    "param_wrong_then_right": (
        PARAM, CheckType.PARAM_ID,
        [[call("place_order", product_id="prod_chips")], [call("place_order", product_id="prod_kale")]], False, 0),
    "param_right_then_wrong": (
        PARAM, CheckType.PARAM_ID,
        [[call("place_order", product_id="prod_kale")], [call("place_order", product_id="prod_chips")]], True, 0),
    "param_same_batch_shotgun": (
        PARAM, CheckType.PARAM_ID,
        [[call("place_order", product_id="prod_kale"), call("place_order", product_id="prod_chips")]], False, 0),
    "param_extra_other_tools_ignored": (
        PARAM, CheckType.PARAM_ID,
        [[call("search_products", category="x"), call("place_order", product_id="prod_kale"),
          call("track_order", order_id="o1")]], True, 0),
    "param_missing_argument": (PARAM, CheckType.PARAM_ID, [[call("place_order")]], False, 0),
    "param_never_called": (PARAM, CheckType.PARAM_ID, [[call("search_products")]], False, None),
    "enum_mismatch": (
        RequiredAction(tool="respond_to_event_invite", arguments={"response": "tentative"}, compare_args=["response"]),
        CheckType.PARAM_ENUM, [[call("respond_to_event_invite", response="accept")]], False, 0),
    # Lists compare as sets; scalars exactly, type included.
    "list_reordered": (LIST, CheckType.PARAM_ID, [[call("plan_trip", stop_ids=["s2", "s1"])]], True, 0),
    "list_with_duplicate": (LIST, CheckType.PARAM_ID, [[call("plan_trip", stop_ids=["s2", "s1", "s1"])]], True, 0),
    "list_subset": (LIST, CheckType.PARAM_ID, [[call("plan_trip", stop_ids=["s1"])]], False, 0),
    "list_superset": (LIST, CheckType.PARAM_ID, [[call("plan_trip", stop_ids=["s1", "s2", "s3"])]], False, 0),
    "list_vs_scalar": (LIST, CheckType.PARAM_ID, [[call("plan_trip", stop_ids="s1")]], False, 0),
    "scalar_exact": (SCALAR, CheckType.PARAM_ENUM, [[call("book_table", party_size=1)]], True, 0),
    "scalar_string_vs_int": (SCALAR, CheckType.PARAM_ENUM, [[call("book_table", party_size="1")]], False, 0),
    # confirm: target_params compared on the target tool's safe-typed fields only.
    "confirm_exact": (CONFIRM, CheckType.CONFIRM, [[confirm()], [call("send_message", **GOLD_PARAMS)]], True, 0),
    "confirm_free_text_differs": (CONFIRM, CheckType.CONFIRM, [[confirm(body="Be there in 10")]], True, 0),
    "confirm_id_differs": (CONFIRM, CheckType.CONFIRM, [[confirm(thread_id="th_2")]], False, 0),
    "confirm_enum_differs": (CONFIRM, CheckType.CONFIRM, [[confirm(channel="sms")]], False, 0),
    "confirm_bool_differs": (CONFIRM, CheckType.CONFIRM, [[confirm(urgent=False)]], False, 0),
    "confirm_safe_field_missing": (
        CONFIRM, CheckType.CONFIRM,
        [[call("get_user_confirmation", target_tool="send_message", target_params={"channel": "email"})]], False, 0),
    "confirm_wrong_target_tool": (
        CONFIRM, CheckType.CONFIRM,
        [[call("get_user_confirmation", target_tool="delete_message", target_params=GOLD_PARAMS)]], False, 0),
    # As in the release: the first batch containing get_user_confirmation decides; an earlier
    # unconfirmed call to the target tool does not fail the rule.
    "confirm_target_called_first": (
        CONFIRM, CheckType.CONFIRM, [[call("send_message", **GOLD_PARAMS)], [confirm()]], True, 1),
    # target_params stringified by the provider is parsed before comparing.
    "confirm_params_as_json_string": (
        CONFIRM, CheckType.CONFIRM,
        [[call("get_user_confirmation", target_tool="send_message", target_params=json.dumps(GOLD_PARAMS))]], True, 0),
    "confirm_params_json_string_differs": (
        CONFIRM, CheckType.CONFIRM,
        [[call("get_user_confirmation", target_tool="send_message",
               target_params=json.dumps({**GOLD_PARAMS, "thread_id": "th_9"}))]], False, 0),
    "confirm_params_not_json": (
        CONFIRM, CheckType.CONFIRM,
        [[call("get_user_confirmation", target_tool="send_message", target_params="send it")]], False, 0),
    "confirm_never_asked": (CONFIRM, CheckType.CONFIRM, [[call("search_messages")]], False, None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matcher_golden(case):
    action, check, batches, passed, batch = CASES[case]
    r = match_action(action, check, batches, safe_fields)
    assert (r.passed, r.batch) == (passed, batch), r.reason


def test_reasons_name_what_differs():
    r = match_action(SCALAR, CheckType.PARAM_ENUM, [[call("book_table", party_size="1")]], safe_fields)
    assert r.reason == "book_table: party_size='1', expected 1"
    r = match_action(CONFIRM, CheckType.CONFIRM, [[call("send_message")]], safe_fields)
    assert r.reason == "get_user_confirmation never called"
    r = match_action(TOOL, CheckType.TOOL_IDENTITY, [], safe_fields)
    assert r.reason == "build_shopping_list never called"
