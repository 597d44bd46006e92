"""Golden tests of the two-stage user's judges: embedded path and mock-model path."""

from __future__ import annotations

import asyncio
import json

from longview.domains.apps.state import AppsState
from longview.harness.roles import Roles
from longview.judges.base import LLMJudge
from longview.kernel.models.mock import register_script, unregister_script
from longview.suites.intents.evidence import CallRecord, Evidence
from longview.suites.intents.judge import (
    Decisions,
    IntentJudges,
    RubricJudge,
    embedded_satisfied,
    embedded_targeted,
    question_sentences,
    read_decisions,
)
from longview.suites.intents.schema import Check, ChecklistItem, HiddenIntent

I1 = HiddenIntent(id="I1", content="Mark it with the label ward-65.", recoverable_from="ask", cue="ward-65",
                  question="which label it should be marked with",
                  satisfied_by=[Check(kind="record_contains", collection="notes", all=["ward-65"])])
I2 = HiddenIntent(id="I2", content="State the deadline 4 May in it.", recoverable_from="ask", cue="4 May",
                  question="what the deadline is")


def ev(notes=(), replies=("",), calls=()):
    s = AppsState.model_validate({"notes": [{"note_id": i, "owner": "me", "title": "T", "content": c}
                                            for i, c in enumerate(notes)]})
    return Evidence(replies=list(replies), calls=list(calls), files={}, state=s)


def test_embedded_satisfaction_needs_work_not_words():
    assert embedded_satisfied(I1, ev(notes=["Label: ward-65"])) is True
    assert embedded_satisfied(I1, ev(notes=["Label: ward-66"], replies=["I used ward-65"])) is False
    # no checks: the words of the reply or of what the agent wrote are no evidence -> not judged here
    assert embedded_satisfied(I2, ev(replies=["I state the deadline 4 May in the note."])) is None
    call = CallRecord("write_file", {"path": "x", "content": "We state the deadline: 4 May"}, True, {}, 0, 0)
    assert embedded_satisfied(I2, ev(calls=[call])) is None
    assert not IntentJudges().can_judge(I2, None) and IntentJudges().can_judge(I1, None)


def test_embedded_targeted_question():
    assert question_sentences("Sure. Which label should it be marked with? Thanks.") == [
        "Which label should it be marked with?"]
    assert embedded_targeted(I1, "Which label should I mark it with?") is True
    assert embedded_targeted(I1, "I will mark it with a label.") is False  # not a question
    assert embedded_targeted(I1, "Anything else I should know?") is False  # generic
    assert embedded_targeted(I2, "What is the deadline?") is True


def _judge(name, answers):
    register_script(name, answers)
    client = Roles({"judge": f"mock/{name}"}).client("judge")
    return LLMJudge(client, Roles({}).params("judge"), "sys", Decisions, "judge")


def test_targeted_question_must_be_about_the_intent():
    # a question that lists everything is about nothing in particular
    spam = "Should I " + " ".join(f"check topic{i}," for i in range(30)) + " and mark it with which label?"
    assert embedded_targeted(I1, spam) is False
    assert embedded_targeted(I1, "Before I start, a few questions: which label should it be marked with?") is True
    # a long intent may be asked about in several focused questions; "p.m." does not end a sentence
    long = HiddenIntent(id="I3", content="x", recoverable_from="ask", question=(
        "Ask for a reply before 8:00 p.m. today and a flag if a document is missing. Add a 10:45 a.m. "
        "packet recheck and a stamped-page check to the board."))
    assert question_sentences("Reply before 8:00 p.m. today? Ok.") == ["Reply before 8:00 p.m. today?"]
    assert embedded_targeted(long, "Should they reply before 8:00 p.m. today and flag a missing document? "
                                   "Should the board get a 10:45 a.m. packet recheck and a stamped-page check?") is True
    assert embedded_targeted(long, "Should they reply before 8:00 p.m. today and flag a missing document?") is False


def test_model_path_decides_and_keeps_embedded_labels_for_agreement():
    sat = _judge("sat_golden", [json.dumps({"decisions": [{"id": "I1", "yes": False}, {"id": "I2", "yes": True,
                                                                                      "reason": "r2"}]})])
    tgt = _judge("tgt_golden", ['```json\n{"decisions": [{"id": "I1", "yes": true}]}\n```'])
    j = IntentJudges(sat, tgt)
    v = asyncio.run(j.satisfied([I1, I2], "r", ev(notes=["ward-65"]), "p"))
    assert v.labels == {"I1": False, "I2": True} and v.reasons["I2"] == "r2" and not v.missing
    assert v.embedded == {"I1": True}  # only intents with deterministic checks are compared
    v = asyncio.run(j.targeted([I1, I2], "Which label should I mark it with?"))
    assert v.labels == {"I1": True, "I2": False}  # the model left I2 out: NO, as π-Bench, and counted
    assert v.missing == ["I2"]
    assert v.embedded == {"I1": True, "I2": False}
    unregister_script("sat_golden")
    unregister_script("tgt_golden")


def test_unreadable_items_count_no_and_are_counted():
    ans = json.dumps({"decisions": [{"id": "I1", "yes": "maybe"}, {"id": "I2", "yes": "YES"}, {"id": "I9", "yes": True}]})
    v = read_decisions(ans, ["I1", "I2"])
    assert v.labels == {"I1": False, "I2": True} and v.missing == ["I1"]
    bad = _judge("bad_golden", ["not json", "still not"])  # retried once, then every item NO, all counted
    v = asyncio.run(IntentJudges(bad, bad).satisfied([I1, I2], "r", ev(), "p"))
    assert v.labels == {"I1": False, "I2": False} and v.missing == ["I1", "I2"]
    unregister_script("bad_golden")


def test_rubric_without_model_uses_proxy_or_leaves_it_unjudged():
    items = [ChecklistItem(id="C1", text="says done", proxy=Check(kind="reply_contains", all=["done"])),
             ChecklistItem(id="C2", text="is polite")]
    v = asyncio.run(RubricJudge().judge(items, ev(replies=["All done."]), [], "p"))
    assert v.labels == {"C1": True, "C2": None}
    # an item left out is asked again (up to 5 answers in all, as π-Bench's evaluator), verdicts kept
    only_c2 = json.dumps({"decisions": [{"id": "C2", "yes": True, "reason": "polite"}]})
    model = _judge("rub_golden", [only_c2] * 5)
    v = asyncio.run(RubricJudge(model).judge(items, ev(), [], "p"))
    assert v.labels == {"C1": False, "C2": True} and v.missing == ["C1"] and v.reasons["C2"] == "polite"
    unregister_script("rub_golden")
    later = json.dumps({"decisions": [{"id": "C1", "yes": True, "reason": "said so"}, {"id": "C2", "yes": False}]})
    model = _judge("rub_golden2", [only_c2, "not json", later])
    v = asyncio.run(RubricJudge(model).judge(items, ev(), [], "p"))
    assert v.labels == {"C1": True, "C2": True} and v.missing == [] and v.reasons == {"C1": "said so", "C2": "polite"}
    unregister_script("rub_golden2")
