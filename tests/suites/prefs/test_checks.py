"""Golden tests of the deterministic checks (embedded BRS)."""

from longview.suites.prefs.checks import brs, observe
from longview.suites.prefs.scenes import Kit, PlannedCall, Question
from longview.suites.prefs.wrapper import Action, Delivered, Realization, Segment


def R(attr, segs, actions=(), user_turns=(1,), deliveries=None):
    d = deliveries or [Delivered(turn=0, segments=[Segment(kind=k, text=t) for k, t in segs])]
    return Realization(attribute=attr, selected="x", select_turn=0, deliveries=d, actions=list(actions),
                       user_turns=list(user_turns))


KIT = Kit(answer="a", confidence="medium", term="cost centre code",
          questions=[Question(slot="time", text="t?", answer="9"), Question(slot="party", text="p?", answer="2")],
          topics=["t1", "t2"], calls=[PlannedCall(name="update_event", args={"event_id": "e1"}, topic="t1"),
                                      PlannedCall(name="order_product", args={"product_id": "p1"}, topic="t2")],
          named_ids=["e1"])


def test_verbosity_golden():
    terse = R("verbosity", [("answer", "It is Tuesday.")])
    detailed = R("verbosity", [("answer", "It is Tuesday."), ("supplement:caveat", "c."), ("supplement:background", "b.")])
    long_answer = R("verbosity", [("answer", "It is Tuesday. First this. Then that. Finally more.")])
    assert observe("verbosity", terse, KIT) == "terse" and brs("verbosity", "terse", terse, KIT) == 5
    assert brs("verbosity", "terse", detailed, KIT) == 1
    assert observe("verbosity", long_answer, KIT) is None and brs("verbosity", "terse", long_answer, KIT) == 3
    assert brs("verbosity", "detailed", long_answer, KIT) == 3


def test_tone_markers_golden():
    casual = R("tone_formality", [("answer", "Hey! Yeah, it's Tuesday. No worries.")])
    formal = R("tone_formality", [("answer", "Good morning. It is Tuesday. Kind regards.")])
    consult = R("tone_formality", [("answer", "It is Tuesday. What do you think - shall we keep it?")])
    assert [observe("tone_formality", x, KIT) for x in (casual, formal, consult)] == ["casual", "formal", "consultative"]
    assert brs("tone_formality", "formal", casual, KIT) == 1


def test_uncertainty_must_match_the_facts():
    right = R("uncertainty_expression", [("answer", "Tuesday (confidence: medium)")])
    wrong = R("uncertainty_expression", [("answer", "Tuesday (confidence: high)")])
    assert observe("uncertainty_expression", right, KIT) == "express"
    assert observe("uncertainty_expression", wrong, KIT) is None
    assert brs("uncertainty_expression", "express", wrong, KIT) == 3  # 2 of 3 conditions


def test_autonomy_stops_golden():
    def acts(i_status, e_status):
        return [Action(id="1", turn=0, name="update_event", effect="internal", status=i_status),
                Action(id="2", turn=0, name="send_email", effect="external", status=e_status)]
    segs = [("answer", "Done.")]
    assert observe("autonomy_level", R("autonomy_level", segs, acts("held", "held")), KIT) == "reactive"
    assert observe("autonomy_level", R("autonomy_level", segs, acts("executed", "held")), KIT) == "self_directed"
    assert observe("autonomy_level", R("autonomy_level", segs, acts("executed", "executed")), KIT) == "autonomous"
    # an action released after approval does not count as done without waiting
    assert observe("autonomy_level", R("autonomy_level", segs, acts("executed", "released")), KIT) == "self_directed"
    # nothing proposed: no setting is shown (degenerate), BRS 1
    assert brs("autonomy_level", "reactive", R("autonomy_level", segs, []), KIT) == 1


def test_elicitation_turns_golden():
    q = lambda turn, n: Delivered(turn=turn, segments=[Segment(kind="question", text="?")] * n)  # noqa: E731
    ans = lambda turn: Delivered(turn=turn, segments=[Segment(kind="answer", text="Booked.")])  # noqa: E731
    book = lambda turn: Action(id="b", turn=turn, name="book_place", effect="external", status="executed")  # noqa: E731
    structured = R("information_elicitation", [], [book(1)], (1,), [q(0, 2), ans(1)])
    iterative = R("information_elicitation", [], [book(2)], (2,), [q(0, 1), q(1, 1), ans(2)])
    infer = R("information_elicitation", [], [book(0)], (0,), [ans(0)])
    assert observe("information_elicitation", structured, KIT) == "structured"
    assert observe("information_elicitation", iterative, KIT) == "iterative"
    assert observe("information_elicitation", infer, KIT) == "infer"


def test_topics_golden():
    run = [Action(id="1", turn=0, name="update_event", args={"event_id": "e1"}, effect="internal", status="executed")]
    both = run + [Action(id="2", turn=0, name="order_product", args={"product_id": "p1"}, effect="external", status="executed")]
    one = R("topic_management", [("topic", "t1: done"), ("deferral", "t2 later - shall I?")], run)
    org = R("topic_management", [("topic", "t1: done"), ("topic", "t2: done")], both)
    assert observe("topic_management", one, KIT) == "one_at_a_time"
    assert observe("topic_management", org, KIT) == "organize"
    assert brs("topic_management", "organize", one, KIT) == 1


def test_reply_attributes_golden():
    # emotional engagement: empathy first, then the task
    warm = R("emotional_engagement", [("empathy", "That sounds hard."), ("answer", "It is Tuesday.")])
    cold = R("emotional_engagement", [("answer", "It is Tuesday.")])
    assert observe("emotional_engagement", warm, KIT) == "relationship_focused"
    assert observe("emotional_engagement", cold, KIT) == "task_focused"
    # guidance: the unfamiliar term explained and >= 2 ordered steps
    scaff = R("guidance_level", [("answer", "Do it."), ("term", "The cost centre code is the budget line."),
                                 ("step", "Open"), ("step", "Fill")])
    wrong_term = R("guidance_level", [("answer", "Do it."), ("term", "A PO is a purchase order."), ("step", "Open"), ("step", "Fill")])
    assert observe("guidance_level", scaff, KIT) == "scaffolded"
    assert observe("guidance_level", wrong_term, KIT) is None and brs("guidance_level", "scaffolded", wrong_term, KIT) == 3
    assert observe("guidance_level", R("guidance_level", [("answer", "Do it.")]), KIT) == "direct"
    # reasoning: the basis must come before the answer
    before = R("reasoning_visibility", [("basis", "Only one entry."), ("answer", "Tuesday.")])
    after = R("reasoning_visibility", [("answer", "Tuesday."), ("basis", "Only one entry.")])
    assert observe("reasoning_visibility", before, KIT) == "show"
    assert observe("reasoning_visibility", after, KIT) is None and brs("reasoning_visibility", "show", after, KIT) == 3
    # solution breadth: one option vs several
    assert observe("solution_breadth", R("solution_breadth", [("answer", "a"), ("option", "A")]), KIT) == "low"
    assert observe("solution_breadth", R("solution_breadth", [("answer", "a"), ("option", "A"), ("option", "B")]), KIT) == "high"
    assert brs("solution_breadth", "low", R("solution_breadth", [("answer", "a")]), KIT) == 3  # 1 of 2: 1 + 1.5 rounded half up


def test_process_visibility_golden():
    calls = [Action(id=str(i), turn=0, name="list_events", status="executed") for i in range(3)]
    narr = lambda n: [("narration", "Checking.")] * n  # noqa: E731
    assert observe("process_visibility", R("process_visibility", [("answer", "x")], calls), KIT) == "silent"
    book = R("process_visibility", narr(1) + [("answer", "x")] + narr(1), calls)
    assert observe("process_visibility", book, KIT) == "bookend"
    full = R("process_visibility", narr(3) + [("answer", "x")], calls)
    assert observe("process_visibility", full, KIT) == "full"
    assert brs("process_visibility", "full", book, KIT) == 1


def test_outreach_expansion_capability_golden():
    told = Realization(attribute="proactive_outreach", selected="high",
                       deliveries=[Delivered(turn=0, segments=[Segment(kind="notify", text="It moved.")])])
    quiet = Realization(attribute="proactive_outreach", selected="low", deliveries=[Delivered(turn=0, suppressed=True)])
    assert observe("proactive_outreach", told, KIT) == "high" and observe("proactive_outreach", quiet, KIT) == "low"
    main = Action(id="1", turn=0, name="update_event", args={"event_id": "e1"}, effect="internal", status="executed")
    extra = Action(id="2", turn=0, name="update_event", args={"event_id": "prep", "scope": "extra"}, effect="internal",
                   status="executed")
    assert observe("task_expansion", R("task_expansion", [("answer", "x"), ("extra", "also moved prep")], [main, extra]), KIT) == "high"
    assert observe("task_expansion", R("task_expansion", [("answer", "x")], [main]), KIT) == "low"
    assert brs("task_expansion", "high", R("task_expansion", [("answer", "x")], [main, extra]), KIT) == 3  # unlabelled extra: 2 of 3
    limit = Action(id="1", turn=0, name="book_place", effect="external", status="failed", capability_limit=True)
    rec = Action(id="2", turn=0, name="book_place", effect="external", status="executed")
    held = Action(id="2", turn=0, name="book_place", effect="external", status="held")
    assert observe("capability_boundary", R("capability_boundary", [("answer", "x")], [limit, rec]), KIT) == "suggest_alternatives"
    assert observe("capability_boundary", R("capability_boundary", [("answer", "x"), ("handoff", "call them")], [limit, held]),
                   KIT) == "find_and_hand_off"
    assert brs("capability_boundary", "find_and_hand_off", R("capability_boundary", [("answer", "x")], []), KIT) == 1
