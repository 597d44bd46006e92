"""Golden tests of the per-persona ATR metrics and the persona-macro scorecard on a hand-built cohort.

Each persona has the same four rules (one per action surface); three are learnable. The expected
numbers below are worked out by hand from the records, not read back from the code.
Regenerate the golden scorecard only deliberately: LONGVIEW_REGEN_GOLDEN=1 pytest <this file>.
"""

import json
import os
from pathlib import Path

import pytest

from longview.kernel.agent import ToolCall
from longview.suites.atr.dataset import Episode
from longview.suites.atr.metrics import ScoringError, score_cell
from longview.suites.atr.records import AskRecord, CellRecord, LearningRecord, TestRecord
from longview.suites.atr.scorecard import build_scorecard

GOLDEN = Path(__file__).parents[2] / "golden" / "atr" / "scorecard.json"

# rule id -> (check_type, domain, required action, a passing call, a failing call)
RULES = {
    "r_tool": ("tool_identity", "commerce", {"tool": "build_shopping_list", "arguments": {}},
               ("build_shopping_list", {"items": ["kale"]}), ("place_order", {"product_id": "p1"})),
    "r_id": ("param_id", "reservation",
             {"tool": "book_restaurant", "arguments": {"restaurant_id": "rst_a"}, "compare_args": ["restaurant_id"]},
             ("book_restaurant", {"restaurant_id": "rst_a"}), ("book_restaurant", {"restaurant_id": "rst_b"})),
    "r_enum": ("param_enum", "scheduling",
               {"tool": "respond_to_event_invite", "arguments": {"response": "tentative"},
                "compare_args": ["response"]},
               ("respond_to_event_invite", {"response": "tentative"}),
               ("respond_to_event_invite", {"response": "accept"})),
    "r_confirm": ("confirm", "communication",
                  {"tool": "get_user_confirmation", "arguments": {"target_tool": "send_message"},
                   "compare_args": ["target_tool"]},
                  ("get_user_confirmation", {"target_tool": "send_message"}), ("send_message", {"body": "hi"})),
}
LEARNABLE = ["r_tool", "r_id", "r_enum"]
LEARNING_IDS = ["L1", "L2"]
PERSONAS = ["p1", "p2", "p3"]


def safe_fields(tool: str) -> set[str]:
    return {"send_message": {"thread_id"}}.get(tool, set())


def episode(persona_id: str) -> Episode:
    env = {"tools": ["search_products"]}
    return Episode.model_validate({
        "episode_id": f"{persona_id}_seed000",
        "persona_id": persona_id,
        "rules": [
            {"rule_id": rid, "rule_text": f"rule {rid}", "canonical_answer": f"answer {rid}",
             "counterfactual_default": "something else", "check_type": check,
             "action_step": {"tool": action["tool"], "param": None}}
            for rid, (check, _, action, _, _) in RULES.items()
        ],
        "learning_sessions": [
            {"session_id": sid, "session_type": "learning", "domain": "commerce",
             "reason_for_call": "weekly groceries", "local_env": env}
            for sid in LEARNING_IDS
        ],
        "test_sessions": [
            {"session_id": f"T_{rid}", "session_type": "test", "domain": domain, "rule_id": rid,
             "instruction": "do it", "local_env": env,
             "labels": {"task_success": {"required_actions": [action]}}}
            for rid, (_, domain, action, _, _) in RULES.items()
        ],
        "metadata": {"selected_rules": LEARNABLE},
    })


def records_for(passing: set[str]) -> list[TestRecord]:
    out = []
    for rid, (_, _, _, good, bad) in RULES.items():
        name, args = good if rid in passing else bad
        batches = [[ToolCall(id="c0", name="search_products")], [ToolCall(id="c1", name=name, arguments=args)]]
        out.append(TestRecord(session_id=f"T_{rid}", rule_id=rid, termination="finish_session", batches=batches))
    return out


def cell(
    persona: str,
    passing: set[str],
    asks: list[list[str | None]] | None = None,
    agent: str = "m",
    variant: str = "atr",
) -> CellRecord:
    """``asks``: per learning session, the Classifier verdict of each Router-positive ask; None = no learning."""
    learning = [
        LearningRecord(session_id=sid, domain="commerce", termination="task_complete", turns=4,
                       asks=[AskRecord(turn=i, span="a question", rule_id=r) for i, r in enumerate(session)])
        for sid, session in zip(LEARNING_IDS, asks or [], strict=False)
    ]
    return CellRecord(agent=agent, variant=variant, persona_id=persona, status="complete",
                      learning=learning, tests=records_for(passing))


def aborted(persona: str, agent: str = "m", variant: str = "atr") -> CellRecord:
    return CellRecord(agent=agent, variant=variant, persona_id=persona, status="aborted",
                      abort_reason="agent model failed after retries")


EPISODES = {p: episode(p) for p in PERSONAS}
ATR_CELLS = [
    # 3 asks in 2 sessions, 2 hits (r_tool learnable, r_confirm not); r_enum fails.
    cell("p1", {"r_tool", "r_id", "r_confirm"}, [["r_tool", None], ["r_confirm"]]),
    # Learned but never asked; every test fails.
    cell("p2", set(), [[], []]),
    # Three hits on two learnable rules: r_id applied, r_enum not.
    cell("p3", {"r_tool", "r_id"}, [["r_id", "r_id"], ["r_enum"]]),
]


def score(c: CellRecord):
    return score_cell(c, EPISODES[c.persona_id], safe_fields)


def test_persona_p1():
    m = score(ATR_CELLS[0])
    assert m.tsacc == 0.75
    assert m.rule_ask == 1.5  # a count per learning session, may exceed 1
    assert m.acq_prec == pytest.approx(2 / 3)  # two distinct rules over three asks
    assert m.ask_hit_rate == pytest.approx(2 / 3)
    assert m.forced_ask_compliance == 1.0  # both sessions asked
    assert m.rule_cov == 0.5  # {r_tool, r_confirm} of 4
    assert m.hit_rules == ["r_confirm", "r_tool"]
    assert (m.covered_hit_pass, m.covered_hit_fail) == (1, 0)  # r_confirm is hit but not learnable
    assert m.applied_rate == 1.0


def test_persona_without_asks_has_undefined_precision_and_application():
    m = score(ATR_CELLS[1])
    assert (m.tsacc, m.rule_ask, m.rule_cov) == (0.0, 0.0, 0.0)
    assert m.acq_prec is None and m.ask_hit_rate is None
    assert m.forced_ask_compliance == 0.0
    assert m.applied_rate is None


def test_persona_p3():
    m = score(ATR_CELLS[2])
    assert m.tsacc == 0.5
    # Three hits on two distinct rules: Table 3's AcqPrec counts r_id once; the per-ask hit rate twice.
    assert (m.rule_ask, m.acq_prec, m.ask_hit_rate, m.rule_cov) == (1.5, 2 / 3, 1.0, 0.5)
    assert (m.covered_hit_pass, m.covered_hit_fail) == (1, 1)
    assert m.applied_rate == 0.5


def test_no_learning_leaves_learning_metrics_undefined():
    m = score(cell("p1", set(RULES), None, variant="oracle_target"))
    assert m.tsacc == 1.0
    assert (m.rule_ask, m.rule_cov, m.acq_prec, m.applied_rate) == (None, None, None, None)


def test_applied_rate_undefined_when_only_unlearnable_rules_hit():
    m = score(cell("p1", set(RULES), [["r_confirm"], []]))
    assert m.rule_cov == 0.25
    assert m.applied_rate is None


def test_verdicts_carry_breakdown_fields():
    m = score(ATR_CELLS[0])
    rows = [(v.session_id, v.rule_id, v.domain, v.check_type, v.passed) for v in m.verdicts]
    assert rows == [
        ("T_r_tool", "r_tool", "commerce", "tool_identity", True),
        ("T_r_id", "r_id", "reservation", "param_id", True),
        ("T_r_enum", "r_enum", "scheduling", "param_enum", False),
        ("T_r_confirm", "r_confirm", "communication", "confirm", True),
    ]
    assert m.verdicts[2].reason == "respond_to_event_invite: response='accept', expected 'tentative'"


def test_persona_macro_over_three_personas():
    sc = build_scorecard(ATR_CELLS, EPISODES, "hand", "0" * 64, safe_fields)
    (row,) = sc.rows
    assert row.n_personas == 3
    assert row.metrics.tsacc == pytest.approx((0.75 + 0.0 + 0.5) / 3)
    assert row.metrics.rule_ask == pytest.approx(1.0)
    assert row.metrics.rule_cov == pytest.approx(1 / 3)
    assert row.metrics.acq_prec == pytest.approx((2 / 3 + 2 / 3) / 2)  # p2 undefined, skipped
    assert row.metrics.applied_rate == pytest.approx((1.0 + 0.5) / 2)  # p2 undefined, skipped


def test_aborted_cells_are_counted_never_scored():
    cells = [ATR_CELLS[0], ATR_CELLS[1], aborted("p3")]
    row = build_scorecard(cells, EPISODES, "hand", "0" * 64, safe_fields).rows[0]
    assert (row.n_personas, row.n_aborted, row.n_missing) == (2, 1, 0)
    assert row.abort_reasons == {"p3": "agent model failed after retries"}
    assert row.metrics.tsacc == pytest.approx(0.375)
    assert set(row.per_persona) == {"p1", "p2"}
    with pytest.raises(ScoringError, match="aborted"):
        score(aborted("p1"))


def test_missing_test_record_is_an_error_not_a_fail():
    c = ATR_CELLS[0].model_copy(update={"tests": ATR_CELLS[0].tests[:-1]})
    with pytest.raises(ScoringError, match="no record for test session T_r_confirm"):
        score(c)


@pytest.mark.parametrize(
    "update, message",
    [
        ({"tests": ATR_CELLS[0].tests + ATR_CELLS[0].tests[:1]}, "duplicate test record"),
        ({"tests": ATR_CELLS[0].tests[:3] + [ATR_CELLS[0].tests[3].model_copy(update={"session_id": "T_x"})]},
         "not in the episode"),
        ({"tests": [ATR_CELLS[0].tests[0].model_copy(update={"rule_id": "r_id"})] + ATR_CELLS[0].tests[1:]},
         "bound to r_id"),
        ({"learning": ATR_CELLS[0].learning[:1]}, "learning records do not match"),
        ({"learning": [ATR_CELLS[0].learning[0].model_copy(update={"asks": [AskRecord(turn=0, span="q", rule_id="r_zz")]}),
                       ATR_CELLS[0].learning[1]]}, "not in the pool"),
        ({"persona_id": "p2"}, "episode of persona p1"),
    ],
)
def test_inconsistent_records_are_rejected(update, message):
    c = ATR_CELLS[0].model_copy(update=update)
    with pytest.raises(ScoringError, match=message):
        score_cell(c, EPISODES["p1"], safe_fields)


def golden_cells() -> list[CellRecord]:
    """Two model variants with an aborted cell, the model's oracle, and the two reference bounds."""
    return [
        cell("p1", {"r_tool"}, [[], []], variant="default"),
        cell("p2", set(), [[], []], variant="default"),
        aborted("p3", variant="default"),
        *ATR_CELLS,
        cell("p1", set(RULES), variant="oracle_target"),
        cell("p2", {"r_tool", "r_id", "r_enum"}, variant="oracle_target"),
        cell("p3", set(RULES), variant="oracle_target"),
        *(cell(p, set(), [[], []], agent="ref:passive", variant="default") for p in PERSONAS),
        *(cell(p, set(RULES), agent="ref:oracle", variant="oracle_target") for p in PERSONAS),
    ]


def test_gap_on_the_hand_cohort():
    sc = build_scorecard(golden_cells(), EPISODES, "hand", "0" * 64, safe_fields)
    default, oracle = (0.25 + 0.0) / 2, (1.0 + 0.75 + 1.0) / 3
    atr = sc.row("m", "atr")
    assert atr.gap == pytest.approx(oracle - default)
    assert atr.gap_rec == pytest.approx(((0.75 + 0.5) / 3 - default) / (oracle - default))
    assert sc.row("m", "default").gap_rec == 0.0
    assert sc.row("m", "oracle_target").gap_rec is None
    assert sc.row("ref:passive", "default").gap == 1.0
    assert sc.row("ref:oracle", "oracle_target").gap_rec is None


def test_golden_scorecard():
    sc = build_scorecard(golden_cells(), EPISODES, "hand", "0" * 64, safe_fields, seed=0)
    got = json.dumps(sc.to_json_dict(), indent=2) + "\n"
    if os.environ.get("LONGVIEW_REGEN_GOLDEN") == "1":
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(got, encoding="utf-8")
    assert got == GOLDEN.read_text(encoding="utf-8")


def test_breakdown_pools_test_sessions():
    # TS-micro: all 12 sessions of the atr row pooled, not averaged per persona.
    b = build_scorecard(ATR_CELLS, EPISODES, "hand", "0" * 64, safe_fields).rows[0].breakdown
    assert b.by_check_type == {"confirm": 1 / 3, "param_enum": 0.0, "param_id": 2 / 3, "tool_identity": 2 / 3}
    assert b.n_by_check_type == {"confirm": 3, "param_enum": 3, "param_id": 3, "tool_identity": 3}
    assert b.by_domain["reservation"] == 2 / 3 and b.n_by_domain["reservation"] == 3
