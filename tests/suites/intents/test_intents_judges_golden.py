"""Golden tests of the two-stage user's judges: embedded path and mock-model path."""

from __future__ import annotations

import asyncio
import json

import pytest

from longview.domains.apps.state import AppsState
from longview.harness.roles import Roles
from longview.judges.base import LLMJudge
from longview.kernel.errors import CellAborted
from longview.kernel.models.mock import register_script, unregister_script
from longview.suites.intents.evidence import CallRecord, Evidence
from longview.suites.intents.judges import (
    Decisions,
    IntentJudges,
    RubricJudge,
    embedded_satisfied,
    embedded_targeted,
    question_sentences,
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


def test_embedded_satisfaction_checks_and_lexical_proxy():
    assert embedded_satisfied(I1, ev(notes=["Label: ward-65"])) is True
    assert embedded_satisfied(I1, ev(notes=["Label: ward-66"], replies=["I used ward-65"])) is False
    # no checks: lexical proxy over reply + what the agent wrote
    assert embedded_satisfied(I2, ev(replies=["I state the deadline 4 May in the note."])) is True
    assert embedded_satisfied(I2, ev(replies=["I state the deadline 5 May in the note."])) is False  # numbers count
    call = CallRecord("write_file", {"path": "x", "content": "We state the deadline: 4 May"}, True, {}, 0, 0)
    assert embedded_satisfied(I2, ev(calls=[call])) is True
    assert embedded_satisfied(I2, ev(replies=["Done."])) is False


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


def test_model_path_decides_and_keeps_embedded_labels_for_agreement():
    sat = _judge("sat_golden", [json.dumps({"decisions": [{"id": "I1", "yes": False}, {"id": "I2", "yes": True}]})])
    tgt = _judge("tgt_golden", ['```json\n{"decisions": [{"id": "I1", "yes": true}]}\n```'])
    j = IntentJudges(sat, tgt)
    decided, embedded = asyncio.run(j.satisfied([I1, I2], "r", ev(notes=["ward-65"]), "p"))
    assert decided == {"I1": False, "I2": True}
    assert embedded == {"I1": True}  # only intents with deterministic checks are compared
    decided, embedded = asyncio.run(j.targeted([I1, I2], "Which label should I mark it with?"))
    assert decided == {"I1": True, "I2": None}  # the model left I2 out: undefined, not False
    assert embedded == {"I1": True, "I2": False}
    unregister_script("sat_golden")
    unregister_script("tgt_golden")


def test_malformed_model_verdict_aborts_the_cell():
    bad = _judge("bad_golden", ["not json", "still not"])
    with pytest.raises(CellAborted):
        asyncio.run(IntentJudges(bad, bad).satisfied([I1], "r", ev(), "p"))
    unregister_script("bad_golden")


def test_rubric_without_model_uses_proxy_or_leaves_it_unjudged():
    items = [ChecklistItem(id="C1", text="says done", proxy=Check(kind="reply_contains", all=["done"])),
             ChecklistItem(id="C2", text="is polite")]
    labels = asyncio.run(RubricJudge().judge(items, ev(replies=["All done."]), [], "p"))
    assert labels == {"C1": True, "C2": None}
    model = _judge("rub_golden", [json.dumps({"decisions": [{"id": "C2", "yes": True}]})])
    labels = asyncio.run(RubricJudge(model).judge(items, ev(), [], "p"))
    assert labels == {"C1": None, "C2": True}
    unregister_script("rub_golden")
