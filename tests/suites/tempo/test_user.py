"""The simulated user remembers and judges: their messages and feedback stay readable, redundant and
already-resolved changes are declined, clarifying questions get an answer from what the persona
knows, no internal task label reaches the agent, and idle-time work is credited only when done then."""

from datetime import datetime

import pytest
from tempo_probes import run_world

from longview.kernel.clock import SimClock
from longview.suites.tempo.agents import ReferenceAgent
from longview.suites.tempo.clarify import DEPTH as ANSWERS
from longview.suites.tempo.env import TempoEnv
from longview.suites.tempo.metrics import task_scores

LABELS = ("Latent need:", "No action:", "Act on:", "Prepare:", "Present:", "Nudge:")


@pytest.fixture
def sc(builtin):
    return builtin.by_id["shopping-monitor"]


def env_at(sc, persona, at):
    return TempoEnv(sc, persona, SimClock(datetime.fromisoformat(at)), lambda *a: None)


def test_user_messages_and_feedback_are_records_read_later(sc):
    w = run_world(sc, "operator", ReferenceAgent("policy", sc, "operator"))  # ignores the revocation: gets feedback
    mine = [r for r in w.records.values() if r.kind == "user_message"]
    revoked = next(e for e in sc.events if e.persona_text.get("operator")).persona_text["operator"]
    assert any(r.body == revoked for r in mine)
    assert any(r.title.startswith("Feedback:") for r in mine)
    env = env_at(sc, "operator", "2026-03-08T10:00")
    env.world = w
    listed = env.list_records(kind="user_message")["records"]
    assert {r["id"] for r in listed} == {r.id for r in mine}


def test_no_internal_task_label_reaches_the_agent(builtin):
    for sc in builtin.scenarios[:4]:
        for persona in ("reviewer", "operator"):
            w = run_world(sc, persona, ReferenceAgent("always-execute", sc, persona))
            said = [u.text for u in w.said] + [r.title + r.body for r in w.records.values()]
            assert w.said and not [s for s in said if any(label in s for label in LABELS)], sc.id


def test_redundant_and_already_resolved_changes_are_declined(sc):
    env = env_at(sc, "operator", "2026-03-02T10:00")
    env.place_order("ITEM-1")  # delegated: done
    d = env.request_approval("order it again?", [{"tool": "place_order", "args": {"item_id": "ITEM-1"}}])["decisions"][0]
    assert d["decision"] == "decline" and "already done" in d["reason"]
    env2 = env_at(sc, "planner", "2026-03-05T14:30")
    env2.world.active["t07"] = datetime(2026, 3, 5, 14, 0)  # the user paid it themselves
    d = env2.request_approval("reorder?", [{"tool": "place_order", "args": {"item_id": "ITEM-9"}}])["decisions"][0]
    assert d["decision"] == "decline" and "already taken care of" in d["reason"]


@pytest.mark.parametrize("persona", ["reviewer", "planner", "operator"])
def test_clarifying_questions_are_answered_from_what_the_persona_knows(sc, persona):
    env = env_at(sc, persona, "2026-03-02T10:00")
    env.world.active["t01"] = datetime(2026, 3, 2, 9, 30)
    env.send_message("Should I just order ITEM-1, or do you want to see it first?")
    assert env.replies == [ANSWERS[sc.task("t01").depth[persona]]]
    env.replies.clear()
    env.send_message("Should I do ITEM-1 and ITEM-9 and OFFER-1?")  # no single thing: asks which one
    assert "which" in env.replies[0]
    env.replies.clear()
    env.send_message("ITEM-1 is the better one.")  # not a question: no reply
    assert env.replies == []


def test_clarifying_questions_about_time_channel_and_content_are_answered_from_scenario_facts(sc):
    from longview.suites.tempo.clarify import UNCLEAR, UNKNOWN

    env = env_at(sc, "reviewer", "2026-03-02T10:00")
    env.world.active["t01"] = datetime(2026, 3, 2, 9, 30)
    t01 = sc.task("t01")
    env.send_message("When do you need ITEM-1 by?")
    assert env.replies[-1] == f"I need it done by {t01.due:%A %H:%M}."  # the scored due time, nothing else
    env.send_message("Who should get ITEM-1, and what should the order include?")
    assert env.replies[-1] == "I don't know of anyone else who needs it. Make sure it mentions £160."  # from ITEM-1's own text
    env.send_message("Should I order ITEM-1, and by when?")
    assert env.replies[-1] == f"{ANSWERS['suggest']} I need it done by {t01.due:%A %H:%M}."
    env.send_message("What's the weather going to be like?")  # nothing the scenario holds
    assert env.replies[-1] == UNKNOWN
    env.send_message("When is FORM-2 due?")  # a task that is not live: no facts about it
    assert env.replies[-1] == UNCLEAR
    env4 = env_at(sc, "reviewer", "2026-03-05T10:00")  # the prepared comparison goes to someone
    env4.world.active["t06"] = datetime(2026, 3, 5, 9, 0)
    env4.send_message("Who should the Stand B comparison go to?")
    assert env4.replies == [f"It should go to my {sc.action('A5').args['to']}."]
    env4.world.active["t07"] = datetime(2026, 3, 5, 9, 0)  # nothing needed: said so, whatever was asked
    env4.send_message("When should I reorder ITEM-9, and who gets it?")
    assert env4.replies[-1] == ANSWERS["noop"]


def test_required_facts_the_users_records_do_not_state_are_not_revealed(sc):
    from longview.suites.tempo.clarify import answer

    sc2 = sc.model_copy(deep=True)
    t01 = sc2.task("t01")
    t01.include = ["a secret rubric phrase"]
    env = env_at(sc2, "reviewer", "2026-03-02T10:00")
    env.world.active["t01"] = datetime(2026, 3, 2, 9, 30)
    said = answer(sc2, "reviewer", env.world, env.now(), "What should the ITEM-1 order include?")
    assert "secret" not in said and "don't know" in said


def test_idle_time_work_is_credited_only_when_done_while_the_user_sleeps(sc):
    t05 = sc.task("t05")
    assert t05.idle
    for at, outputs in (("2026-03-04T21:40", 0.0), ("2026-03-04T23:40", 1.0)):
        env = env_at(sc, "planner", at)
        env.world.active["t05"] = datetime(2026, 3, 4, 21, 30)
        env.open_record("DOC-1")
        env.save_note("stands", "DOC-1: Stand B is the better fit")
        t = next(x for x in task_scores(sc, "planner", env.world) if x.task == "t05")
        assert (t.chosen, t.outputs) == ("prepare", outputs)
