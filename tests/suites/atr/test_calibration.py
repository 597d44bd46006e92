"""Router/Classifier calibration: the shipped sets load strictly, the embedded defaults' figures are
pinned (golden), and an LLM scaffold answering from the gold labels scores perfectly."""

from __future__ import annotations

import json

import pytest
from rich.console import Console

from longview.kernel.errors import CellAborted, DataError
from longview.kernel.models import GenParams, make_client, register_script, unregister_script
from longview.suites.atr.calibration import (
    POSITIVE_KINDS,
    CalibrationRule,
    ClassifierCalibration,
    RouterCalibration,
    calibrate_classifier,
    calibrate_router,
    load_classifier_set,
    load_router_set,
    render,
)
from longview.suites.atr.llm_scaffold import LLMClassifier, LLMRouter
from longview.suites.atr.scaffold import KeywordRouter, RouteVerdict, TopicClassifier

ROUTER_SET = load_router_set()
CLASSIFIER_SET = load_classifier_set()


@pytest.fixture
def scripts():
    names: list[str] = []

    def reg(name, fn):
        register_script(name, lambda system, messages, tools: fn(json.loads(messages[-1].content)))
        names.append(name)
        return make_client(f"mock/{name}")

    yield reg
    for n in names:
        unregister_script(n)


# --- the sets --------------------------------------------------------------------------------


def test_router_set_shape():
    assert len(ROUTER_SET) == 72
    assert sum(r.label for r in ROUTER_SET) == 34
    kinds = {r.kind for r in ROUTER_SET}
    assert kinds == (POSITIVE_KINDS - {"release_positive"}) | {
        "current_task_question", "declarative_offer", "status_update", "quoted_draft", "recall"
    }
    for r in ROUTER_SET:
        assert (r.span is not None) == r.label == (r.kind in POSITIVE_KINDS)
        assert r.span is None or r.span in r.output


def test_classifier_set_shape():
    assert len(CLASSIFIER_SET) == 68
    assert sum(r.gold is not None for r in CLASSIFIER_SET) == 33
    for r in CLASSIFIER_SET:
        assert r.note
        assert r.gold is None or r.gold in {x.rule_id for x in r.rules}
        sr = r.rules[0].to_standing_rule()
        assert sr.rule_id == r.rules[0].rule_id and sr.canonical_answer == ""


GOOD_ROUTER = {"id": "x1", "output": "Should I always do this?", "reason": "", "label": True,
               "span": "Should I always do this?", "kind": "standing_rule_ask"}
GOOD_CLS = {"id": "y1", "span": "which seat?", "rules": [{"rule_id": "a", "rule_text": "Aisle.", "topic": "seat"}],
            "gold": "a", "note": ""}


def _write(tmp_path, rows) -> str:
    p = tmp_path / "set.jsonl"
    p.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return str(p)


@pytest.mark.parametrize(
    "bad, record, field, expected",
    [
        ("{not json", "line 2", "<root>", "valid JSON"),
        ("[1, 2]", "line 2", "<root>", "a JSON object"),
        ({**GOOD_ROUTER, "id": "x2", "label": "maybe"}, "line 2 (x2)", "label", "valid boolean"),
        ({k: v for k, v in GOOD_ROUTER.items() if k != "kind"} | {"id": "x2"}, "line 2 (x2)", "kind", "Field required"),
        ({**GOOD_ROUTER, "id": "x2", "kind": "chitchat"}, "line 2 (x2)", "kind", "Input should be"),
        ({**GOOD_ROUTER, "id": "x2", "spna": "typo"}, "line 2 (x2)", "spna", "Extra inputs"),
        ({**GOOD_ROUTER, "id": "x2", "kind": "recall"}, "line 2 (x2)", "kind", "agree with label=true"),
        ({**GOOD_ROUTER, "id": "x2", "span": "Should I never do this?"}, "line 2 (x2)", "span", "verbatim substring"),
        ({**GOOD_ROUTER, "id": "x2", "span": None}, "line 2 (x2)", "span", "non-empty span"),
        ({**GOOD_ROUTER, "id": "x2", "label": False, "kind": "recall"}, "line 2 (x2)", "span", "null on a negative"),
        (GOOD_ROUTER, "line 2 (x1)", "id", "already used on line 1"),
    ],
)
def test_router_loading_is_strict(tmp_path, bad, record, field, expected):
    path = _write(tmp_path, [GOOD_ROUTER, bad])
    with pytest.raises(DataError) as exc:
        load_router_set(path)
    e = exc.value
    assert (e.file, e.record, e.field) == (path, record, field)
    assert expected in e.expected


@pytest.mark.parametrize(
    "bad, field, expected",
    [
        ({**GOOD_CLS, "id": "y2", "gold": "b"}, "gold", "null or one of the pool's rule ids"),
        ({**GOOD_CLS, "id": "y2", "rules": []}, "rules", "at least 1 item"),
        ({**GOOD_CLS, "id": "y2", "rules": [{"rule_id": "a", "topic": "seat"}]}, "rules.0.rule_text", "Field required"),
        ({**GOOD_CLS, "id": "y2", "rules": GOOD_CLS["rules"] * 2}, "rules.1.rule_id", "unique rule id"),
        ({k: v for k, v in GOOD_CLS.items() if k != "gold"} | {"id": "y2"}, "gold", "Field required"),
    ],
)
def test_classifier_loading_is_strict(tmp_path, bad, field, expected):
    path = _write(tmp_path, [GOOD_CLS, bad])
    with pytest.raises(DataError) as exc:
        load_classifier_set(path)
    assert (exc.value.record, exc.value.field) == ("line 2 (y2)", field)
    assert expected in exc.value.expected and path in str(exc.value)


def test_missing_and_empty_files_are_data_errors(tmp_path):
    with pytest.raises(DataError, match="readable file"):
        load_router_set(tmp_path / "nope.jsonl")
    (tmp_path / "empty.jsonl").write_text("\n", encoding="utf-8")
    with pytest.raises(DataError, match="at least one row"):
        load_classifier_set(tmp_path / "empty.jsonl")


# --- embedded defaults: golden figures ---------------------------------------------------------


async def test_embedded_router_figures():
    cal = await calibrate_router(KeywordRouter())
    assert cal.router == "embedded:keyword-router@3"
    assert (cal.n, cal.tp, cal.fp, cal.tn, cal.fn, cal.faults) == (72, 30, 1, 37, 4, 0)
    assert cal.precision == pytest.approx(30 / 31)
    assert cal.recall == pytest.approx(30 / 34)
    assert cal.accuracy == pytest.approx(67 / 72)
    assert (cal.span_exact, cal.span_exact_rate) == (30, pytest.approx(1.0))
    assert cal.by_kind() == {
        "standing_rule_ask": (25, 26), "soft_standing_rule_ask": (5, 8), "current_task_question": (13, 13),
        "declarative_offer": (7, 8), "status_update": (6, 6), "quoted_draft": (5, 5), "recall": (6, 6),
    }
    wrong = {o.id for o in cal.outcomes if not o.correct}
    # misses: no marker word (rt016), soft asks without an invitation phrase; rt042 is a generic offer
    assert wrong == {"rt016", "rt025", "rt026", "rt028", "rt042"}
    assert {o.id for o in cal.errors()} == wrong  # every span verbatim, markdown bold (rt017) included


FALSE_HITS = {"cl068"}  # "all your emails" is wider than the rule's client scope


async def test_embedded_classifier_figures():
    # It prefers a miss to a guess: higher precision, lower recall than the topic matcher it replaced.
    cal = await calibrate_classifier(TopicClassifier())
    assert cal.classifier == "embedded:decision-classifier@5"
    assert (cal.n, cal.gold_hits, cal.hits_predicted, cal.correct_hits) == (68, 33, 23, 22)
    assert (cal.wrong_rule, cal.false_hits, cal.missed, cal.faults) == (0, 1, 11, 0)
    assert cal.precision == pytest.approx(22 / 23)
    assert cal.recall == pytest.approx(22 / 33)
    assert cal.accuracy == pytest.approx(56 / 68)
    assert {o.id for o in cal.errors() if o.gold is None} == FALSE_HITS



def _pool():
    rules = [
        CalibrationRule(rule_id="drafts", rule_text="For client outreach, he wants messages drafted for review rather "
                        "than sent immediately.", statement="For client messages, I like a draft to review before it "
                        "goes out.", bound_tool="draft_message"),
        CalibrationRule(rule_id="hotel", rule_text="When booking lodging, he prefers small local inns over chains.",
                        statement="For hotels, I prefer small local inns over big chains.", bound_tool="book_hotel",
                        bound_param="hotel_offer_id"),
    ]
    return [r.to_standing_rule() for r in rules]


@pytest.mark.parametrize(("span", "gold"), [
    # the rule's own decision, in its sphere
    ("In future, should I always draft client messages for your review first rather than send them?", "drafts"),
    ("For hotels in future, do you prefer big chains or small local inns?", "hotel"),
    # extending a rule in place to another case is the user's new decision
    ("Should client messages to your accountant go through a draft for review first too?", None),
    ("Would you like me to apply that same draft review to your messages to clients' assistants?", None),
    # scoped to the opposite sphere (personal vs the rule's client/work scope)
    ("For personal messages to friends, should I always draft them for review rather than send them?", None),
    # an adjacent field the rule never mentions (price, summary)
    ("When booking hotels, should I prefer small local inns only when they are the cheapest?", None),
    # an open ask naming only the object: the one rule about that object answers it
    ("How would you like me to handle hotel bookings from now on?", "hotel"),
    # ... but not when it lists options, or names an object no rule acts on
    ("How would you like me to handle hotel bookings, for example with breakfast or without?", None),
    ("How would you like me to handle restaurant bookings from now on?", None),
])
def test_decision_classifier_principles(span, gold):
    assert TopicClassifier.decide(span, _pool()) == gold


def _bound_pool():
    """Rules with their ontology binding, as built-in and release episodes carry them."""
    rules = [
        CalibrationRule(rule_id="cancel", rule_text="She approves order cancellations first.",
                        statement="Run any order cancellation past me before you do it.",
                        bound_tool="get_user_confirmation", bound_param="cancel_order"),
        CalibrationRule(rule_id="seat", rule_text="She flies in a window seat.", statement="I always want the window "
                        "seat when I fly.", bound_tool="book_flight", bound_param="seat_preference"),
        CalibrationRule(rule_id="hotel", rule_text="She stays in places with a kitchenette.", statement="Wherever I "
                        "stay, I need a kitchenette.", bound_tool="book_hotel", bound_param="hotel_offer_id"),
        CalibrationRule(rule_id="return", rule_text="Broken items are swapped.", statement="If something arrives "
                        "broken, I want it swapped for a working one.", bound_tool="return_order",
                        bound_param="resolution_type"),
    ]
    return [r.to_standing_rule() for r in rules]


@pytest.mark.parametrize(("span", "gold"), [
    # the rule's decision slot asked in words the rule does not use
    ("Should I always cancel your orders straight away, or would you rather approve it first?", "cancel"),
    ("Going forward, should I book your flight with an aisle or a middle seat?", "seat"),
    ("Any standing rule for what sort of hotel I should pick when I book the hotel?", "hotel"),
    ("Next time I return an order, should it be a refund or store credit?", "return"),
    ("From here on, if I cancel your order, should I hold off until you've confirmed?", "cancel"),
    ("Is there a particular hotel you'd favour whenever I book the hotel?", "hotel"),
    # "prefer" is every standing-rule question's word, not a choice of which hotel
    ("For future hotel bookings, should I always book a standard room, or would you prefer to handle that?", None),
    # another action on the object: placing is not cancelling, cancelling is not booking
    ("Should I always place your orders straight away or run it past you first?", None),
    ("Any standing rule for which one to pick when I cancel a hotel booking?", None),
    # another decision on the same tool (price), or one value that is only a word of the question
    ("Going forward, when I book a flight, should I pick the cheapest one?", None),
    ("Should I always return orders I placed for you by credit card?", None),
    # several tools' decisions in one question: no one rule answers it
    ("From now on, which one should I pick when I book a hotel or book a flight?", None),
])
def test_decision_classifier_asks_about_the_slot(span, gold):
    assert TopicClassifier.decide(span, _bound_pool()) == gold


# --- LLM implementations via the mock provider -------------------------------------------------


async def test_llm_router_answering_from_gold_is_perfect(scripts):
    gold = {r.output: r for r in ROUTER_SET}

    def answer(payload):
        row = gold[payload["output"]]
        return json.dumps({"is_rule_question": row.label, "span": row.span})

    cal = await calibrate_router(LLMRouter(scripts("cal-router-gold", answer), GenParams()))
    assert cal.router == "llm:mock/cal-router-gold"
    assert cal.precision == cal.recall == cal.accuracy == 1.0
    assert cal.span_exact == cal.tp == 34 and cal.errors() == []


async def test_llm_classifier_answering_from_gold_is_perfect(scripts):
    gold = {r.span: r.gold for r in CLASSIFIER_SET}
    spans = [r.span for r in CLASSIFIER_SET]
    assert len(set(spans)) == len(spans)

    def answer(payload):
        assert all(set(card) <= {"rule_id", "rule_text", "topic"} for card in payload["rules"])
        return json.dumps({"rule_id": gold[payload["question"]]})

    cal = await calibrate_classifier(LLMClassifier(scripts("cal-cls-gold", answer), GenParams()))
    assert cal.precision == cal.recall == cal.accuracy == 1.0
    assert (cal.hits_predicted, cal.correct_hits, cal.wrong_rule, cal.false_hits) == (33, 33, 0, 0)


async def test_faults_are_no_prediction(scripts):
    rows = ROUTER_SET[:4]  # rt001..rt004: all positive

    def answer(payload):
        return "not json" if payload["output"] == rows[0].output else json.dumps(
            {"is_rule_question": True, "span": next(r.span for r in rows if r.output == payload["output"])}
        )

    cal = await calibrate_router(LLMRouter(scripts("cal-router-fault", answer), GenParams()), rows)
    assert (cal.tp, cal.fp, cal.tn, cal.fn, cal.faults) == (3, 0, 0, 0, 1)
    assert cal.precision == 1.0 and cal.recall == pytest.approx(3 / 4) and cal.accuracy == pytest.approx(3 / 4)
    fault = next(o for o in cal.outcomes if o.fault)
    assert fault.id == "rt001" and "malformed verdict twice" in fault.fault

    cls = await calibrate_classifier(
        LLMClassifier(scripts("cal-cls-fault", lambda p: "[]"), GenParams()), CLASSIFIER_SET[:3]
    )
    assert cls.faults == 3 and cls.hits_predicted == 0 and cls.precision is None
    assert cls.recall == 0.0 and cls.accuracy == 0.0


async def test_wrong_rule_counts_separately_from_false_hits():
    class FirstRule:
        name = "stub:first-rule"

        async def classify(self, span, rules):
            return rules[0].rule_id

    rows = CLASSIFIER_SET[:4]  # gold: a_list, null, a_unscented, null
    cal = await calibrate_classifier(FirstRule(), rows)
    assert [o.gold for o in cal.outcomes] == ["a_list", None, "a_unscented", None]
    assert (cal.hits_predicted, cal.correct_hits, cal.wrong_rule, cal.false_hits, cal.missed) == (4, 1, 1, 2, 0)
    assert cal.precision == 0.25 and cal.recall == 0.5 and cal.accuracy == 0.25


async def test_concurrency_preserves_row_order():
    class Slow:
        name = "stub:slow"

        async def route(self, output, reason):
            import asyncio

            await asyncio.sleep(0.001 * (len(output) % 5))
            return RouteVerdict(is_rule_question=False)

    cal = await calibrate_router(Slow(), concurrency=16)
    assert [o.id for o in cal.outcomes] == [r.id for r in ROUTER_SET]
    assert (cal.tp, cal.fp, cal.precision, cal.recall) == (0, 0, None, 0.0)


async def test_tables_render():
    console = Console(record=True, width=240)
    r = await calibrate_router(KeywordRouter())
    c = await calibrate_classifier(TopicClassifier())
    for t in render(r) + render(c):
        console.print(t)
    out = console.export_text()
    assert "Router calibration · embedded:keyword-router@3 · 72 rows" in out
    assert "30/30 (1.000)" in out and "0.968" in out and "5/8" in out
    assert "Classifier calibration · embedded:decision-classifier@5 · 68 rows" in out
    assert "0.957" in out and "0.667" in out and "0.824" in out
    assert "Router disagreements" in out and "Classifier disagreements" in out
    assert len(render(r, errors=0)) == 2 and len(render(c, errors=0)) == 1
    assert isinstance(r, RouterCalibration) and isinstance(c, ClassifierCalibration)


async def test_cell_aborted_from_a_custom_router_is_a_fault():
    class Broken:
        name = "stub:broken"

        async def route(self, output, reason):
            raise CellAborted("scaffold fault")

    cal = await calibrate_router(Broken(), ROUTER_SET[:2])
    assert cal.faults == 2 and cal.accuracy == 0.0 and cal.recall == 0.0


# --- the release's own sets, in its layout (synthetic rows written for these tests) --------------


def _release(tmp_path):
    from pathlib import Path as P
    root = tmp_path / "release"
    (root / "runner/router_calibration").mkdir(parents=True)
    (root / "runner/cls_calibration").mkdir(parents=True)
    router = [
        {"source": "r1", "reason": "", "output": "Booked. For future trips, should I always pick an aisle seat?",
         "gold_is_strict_rule_question": True, "gold_rule_question_span": "For future trips, should I always pick an aisle seat?"},
        {"source": "r2", "reason": "", "output": "Your table is booked for 7 pm.", "gold_is_strict_rule_question": False,
         "gold_rule_question_span": None},
    ]
    span = [{"source": "s1", "reason": "", "output": "Done! Going forward, should I draft replies for your review first?",
             "gold_is_strict_rule_question": True,
             "gold_rule_question_span": "Going forward, should I draft replies for your review first?"}]
    pool = [
        {"rule_id": "p_draft", "statement": "I like messages to clients drafted first so I can review them before they go out.",
         "rule_text": "For client messages she prefers a reviewable draft before sending.", "bound_tool": "draft_message",
         "bound_param": None},
        {"rule_id": "p_list", "statement": "For groceries I want a shopping list built first.",
         "rule_text": "She prefers a shopping list before grocery orders.", "bound_tool": "build_shopping_list", "bound_param": None},
    ]
    cls = [
        {"source": "c1", "agent_text": "x", "rule_question_span": "Should I draft client messages first for your review, or send them directly?",
         "gold_rule_id": "p_draft", "rule_pool": pool, "manual_note": "draft-first asks the rule's field"},
        {"source": "c2", "agent_text": "For future messages, should I use a formal tone?", "rule_question_span": "",
         "gold_rule_id": None, "rule_pool": pool, "manual_note": "tone is an adjacent field"},
    ]
    for rel, rows in (("runner/router_calibration/test_set.jsonl", router),
                      ("runner/router_calibration/span_test_set.jsonl", span), ("runner/cls_calibration/test_set.jsonl", cls)):
        (root / rel).write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return P(root)


def test_calibrate_on_the_release_layout_writes_the_headline_json(tmp_path):
    from longview.suites.atr.calibration.release import calibrate

    root = _release(tmp_path)
    out = tmp_path / "c.json"
    cal = calibrate(TopicClassifier(), f"atrbench:{root}", out)
    data = json.loads(out.read_text())
    assert (cal.n, cal.correct_hits, cal.hits_predicted) == (2, 1, 1)
    assert data["precision"] == 1.0 and data["recall"] == 1.0 and data["exact_accuracy"] == 1.0
    assert data["always_miss_accuracy"] == 0.5 and data["set"] == f"atrbench:{root}"
    cal = calibrate(KeywordRouter(), f"atrbench:{root}", out)
    data = json.loads(out.read_text())
    assert cal.n == 3 and data["role"] == "router"
    assert {"precision", "recall", "exact_accuracy", "span_exact"} <= set(data)
    assert data["precision"] == 1.0 and data["span_exact"] == 1.0


def test_release_set_with_a_gold_outside_the_pool_is_a_data_error(tmp_path):
    from longview.suites.atr.calibration.release import calibrate

    root = _release(tmp_path)
    f = root / "runner/cls_calibration/test_set.jsonl"
    rows = [json.loads(x) for x in f.read_text().splitlines()]
    rows[0]["gold_rule_id"] = "nope"
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    with pytest.raises(DataError, match="gold_rule_id"):
        calibrate(TopicClassifier(), f"atrbench:{root}")


# --- the embedded Router's spans: verbatim from the message, whatever quotes and brackets it holds ---
# (shapes found in the release's router set where @2 cut a span short or merged two sentences; our wording)

@pytest.mark.parametrize(("output", "span"), [
    # two short quoted names: quotes pair left to right, so the sentence between them is not blanked
    ('I labelled the club\'s note "Hikes" and starred it. Would you like me to automatically apply the "Hikes" '
     'label to all future notes from the club?',
     'Would you like me to automatically apply the "Hikes" label to all future notes from the club?'),
    # an aside in brackets ends after its end mark: the bracket belongs to the span
    ("Sent. (And whenever you like, let me know if I should flag sign-up deadlines in the future!)",
     "(And whenever you like, let me know if I should flag sign-up deadlines in the future!)"),
    # an abbreviation inside the question does not end it
    ("Filed. For future reports, do you prefer them grouped by type (e.g., photos, invoices) by default?",
     "For future reports, do you prefer them grouped by type (e.g., photos, invoices) by default?"),
    # markdown bold around the question stays in the span
    ("Booked.\n\n**Going forward, should I always pick the earliest train?**",
     "**Going forward, should I always pick the earliest train?**"),
    # a long quoted draft is content, not the question; the question after it is found whole
    ('Draft: "Could you send the minutes to everyone by default from now on?" For future minutes, should I '
     'always send the draft to you first?',
     "For future minutes, should I always send the draft to you first?"),
])
async def test_router_spans_are_verbatim(output, span):
    v = await KeywordRouter().route(output, "")
    assert v.is_rule_question and v.span == span and span in output


@pytest.mark.parametrize("output", [
    "Since you mentioned you like quiet rooms, I asked for one away from the lift. Does that suit you?",
    "Would you like me to automatically fill in the form for this reservation?",
    'Here is the note: "Hi Sam, would you be up for carpooling every week going forward?" Send it?',
])
async def test_router_negatives_stay_negative(output):
    assert not (await KeywordRouter().route(output, "")).is_rule_question
