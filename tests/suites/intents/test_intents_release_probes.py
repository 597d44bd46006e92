"""The probes on a real released π-Bench task (law_trainee_task_020's data, verbatim, with longview's
own stand-in for its rule script scoring the same nine keys; tests/fixtures/pibench_release,
Apache-2.0): pasting the hidden intents or spamming the tools earns
nothing offline, asking is elicited and never completed, doing the work through the tools earns
PROC and COMP, and what the offline judges cannot see is counted as not judged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from intents_helpers import run_cells
from test_intents_probes import Asker, Paster, Spammer

from longview.kernel.agent import AssistantTurn, Observation, ToolCall
from longview.suites.intents.dataset import IntentsDataset
from longview.suites.intents.rule_evidence import intent_literals, script_literals
from longview.suites.intents.suite import IntentsOptions, IntentsSuite

RELEASE = Path(__file__).parents[2] / "fixtures" / "pibench_release"
SCRIPT = RELEASE / "data/law_trainee/scripts/law_trainee_task_020_5.py"


class ReleaseWorker:
    """Sends the handover SMS and runs the temporary Todoist board through the tools, in its own
    words around the phrases the task fixes, then answers in two words."""

    name = "probe:worker"

    def __init__(self, kind: str, ds: IntentsDataset, unit: str) -> None:
        self.turn, self.outputs = 0, []

    async def act(self, obs: Observation) -> AssistantTurn:
        self.outputs += [json.loads(m.content or "null") for m in obs.messages[-1:] if m.role == "tool"]
        token = next((o["access_token"] for o in reversed(self.outputs) if isinstance(o, dict) and "access_token" in o), "")
        project = next((o["project_id"] for o in self.outputs if isinstance(o, dict) and "project_id" in o), None)
        sms = ("Yuehai packet handover, tmrw:\n1. 11:30 a.m., east gate of Jiangzhou Intermediate People's Court\n"
               "2. Please have: original notarized power of attorney; two stamped copies of the evidence list; "
               "one copy of the hearing notice\n3. Confirm before 8:00 p.m. today - flag at once if a document is "
               "not ready or the pickup time or location must move")
        plan = [("phone__login", {"username": "5707454150", "password": "A!HFDCn"}),
                ("phone__send_text_message", {"access_token": token, "phone_number": "2873148336", "message": sms}),
                ("todoist__login", {"username": "stmcco@gmail.com", "password": "Ozz21Q4"}),
                ("todoist__create_project", {"access_token": token, "name": "Temporary Court Handover Reminder Board"}),
                ("todoist__create_task", {"access_token": token, "project_id": project,
                                          "title": "10:45 recheck packet completeness + stamped pages"}),
                ("todoist__delete_project", {"access_token": token, "project_id": project})]
        self.turn += 1
        if self.turn <= len(plan):
            name, args = plan[self.turn - 1]
            return AssistantTurn(tool_calls=[ToolCall(id=f"r{self.turn}", name=name, arguments=args)])
        return AssistantTurn(text="All set.")


PROBES: dict[str, Any] = {"paster": Paster, "asker": Asker, "spammer": Spammer, "worker": ReleaseWorker}


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> dict[str, Any]:
    suite = IntentsSuite()
    ds = suite.load_dataset(f"pibench:{RELEASE}", None)
    res = run_cells(suite, ds, [f"probe:{k}" for k in PROBES], ["default"], tmp_path_factory.mktemp("rel"),
                    agent_factory=lambda agent, unit, t: PROBES[agent.split(":")[1]](agent.split(":")[1], ds, unit))
    sc = suite.score(res, ds, IntentsOptions(), 0)
    return {r.agent.split(":")[1]: r for r in sc.rows}


def test_which_intents_the_released_script_tests():
    ds = IntentsSuite().load_dataset(f"pibench:{RELEASE}", None)
    s = ds.episode("law_trainee").sessions[0]
    lits = script_literals(str(SCRIPT))
    tested = [bool(intent_literals(lits, i.content, s.request)) for i in s.hidden_intents]
    # the slot, the materials and the reply-by/flag intents carry phrases the script looks for; the
    # 'one compact SMS' and 'clear the board' intents restate the request: nothing offline tests them
    assert tested == [True, True, True, False, False]


def test_paster_and_spammer_earn_nothing_on_a_released_task(rows):
    for probe in ("paster", "spammer"):
        m = rows[probe].metrics
        assert m["proc"] <= 0.10 and m["completed"] == 0.0, probe
        assert m["comp"] < rows["worker"].metrics["comp"]
    assert rows["paster"].metrics["comp"] == 0.0


def test_asker_is_elicited_not_completed_on_a_released_task(rows):
    m = rows["asker"].metrics
    assert m["completed"] == 0.0 and m["elicited"] == 1.0


def test_worker_earns_proc_and_comp_on_a_released_task(rows):
    w, p = rows["worker"], rows["paster"]
    assert w.metrics["proc"] == 1.0 and w.metrics["comp"] == 1.0 > p.metrics["comp"]
    assert (w.coverage["proc"].judged, w.coverage["proc"].total) == (3, 5)
    assert (w.coverage["comp"].judged, w.coverage["comp"].total) == (9, 18)  # 9 rule keys; 9 rubric not judged


def test_release_breakdown_keys(rows):
    b = rows["worker"].extra["breakdowns"]
    assert b["task_type"] == {"short_term_independent": {"sessions": 1, "proc": 1.0, "comp": 1.0}}
    assert set(b["difficulty"]) == {"medium"} and set(b["persona"]) == {"law_trainee"}


def test_rule_guided_ceiling_on_a_released_task(tmp_path):
    """ref:oracle on imported data searches the calls the rule script rewards and makes them: all 9
    keys met and the 3 intents the keys test completed; rubric items are not its to be scored on."""
    suite = IntentsSuite()
    ds = suite.load_dataset(f"pibench:{RELEASE}", None)
    res = run_cells(suite, ds, ["ref:oracle"], ["default"], tmp_path)
    row = suite.score(res, ds, IntentsOptions(), 0).rows[0]
    assert row.metrics["proc"] >= 0.95 and row.metrics["comp"] >= 0.95
    assert (row.coverage["comp"].judged, row.coverage["proc"].judged) == (9, 3)


def test_only_specific_literals_link_an_intent_to_a_check(tmp_path):
    lits = ("5:00 p.m. tomorrow", "5 pm tomorrow", "approval", "camping", "flag")
    assert intent_literals(lits, "Send it now, not after approval.", "Send the email.") == []
    assert intent_literals(lits, "Tag the note with 'camping'.", "Make a note.") == ["camping"]
    assert intent_literals(lits, "Ask for it by 5:00 p.m. tomorrow and to flag delays.", "Email them.") == [
        "5:00 p.m. tomorrow"]
    # a spelling the script also accepts is masked with the intent's own, so work that carries both
    # still shows that the key depends on the intent
    script = tmp_path / "s.py"
    script.write_text("def score(h):\n    t = ' '.join(str((i.get('call') or {}).get('body', '')) for i in h or []).lower()\n"
                      "    return {'deadline': int('5:00 p.m. tomorrow' in t or '5 pm tomorrow' in t)}\n")
    from longview.suites.intents.evidence import CallRecord
    from longview.suites.intents.rule_evidence import RuleEvidence

    ev = RuleEvidence(script, "Email them.", {"I1": "Ask for it by 5:00 p.m. tomorrow."}, set(), "", "fixed")
    both = [CallRecord("gmail__send_email", {"body": "by 5:00 p.m. tomorrow (5 pm tomorrow)"}, True, {}, 0, 0)]
    none = [CallRecord("gmail__send_email", {"body": "soon"}, True, {}, 0, 0)]
    assert ev.completed(["I1"], both) == {"I1": True}
    assert ev.completed(["I1"], none) == {"I1": False}
    assert ev.completed(["I1"], []) == {"I1": False}


def test_ceiling_not_found_is_not_judged(tmp_path):
    """A key the one-call-per-tool search cannot reach (here: two texts to two numbers) means no
    ceiling was found: the ceiling makes no calls there and nothing of the session is judged for it,
    so its shown numbers are never the search's limits."""
    import shutil

    rel = tmp_path / "rel"
    shutil.copytree(RELEASE, rel)
    (rel / "data/law_trainee/scripts/law_trainee_task_020_5.py").write_text(
        "def score(h):\n"
        "    nums = {str((i.get('call') or {}).get('phone_number')) for i in h or []\n"
        "            if str(i.get('tool_name', '')).endswith('phone__send_text_message')}\n"
        "    return {'texted_both': int({'2873148336', '5551234567'} <= nums)}\n")
    suite = IntentsSuite()
    ds = suite.load_dataset(f"pibench:{rel}", None)
    res = run_cells(suite, ds, ["ref:oracle"], ["default"], tmp_path / "run")
    cell = json.loads(res[0])
    s = cell["sessions"][0]
    assert all(c["met"] is None and c["reason"].startswith("no ceiling found") for c in s["criteria"].values())
    assert not any(i["judged"] for i in s["intents"].values())
    row = suite.score(res, ds, IntentsOptions(), 0).rows[0]
    assert row.coverage["comp"].judged == 0 and row.metrics["comp"] is None


# Financier_task_011 as released (tests/fixtures/pibench_release/financier_011, Apache-2.0; the rule
# script is longview's own stand-in scoring the release script's ten keys): the release's full task
# shape (quoted title and description, a '|-' request, metadata with benchmark_role and
# preference_threads, a quoted 'data/...' script path). Its hidden intents restate the request in
# plain phrases ("photo first"), which link to no key: nothing of PROC is judged offline there.
F011 = RELEASE / "financier_011"


class TextWorker:
    """Looks up the thread, then texts the handover in its own words; ``photo`` says whether the
    text carries the photo fallback the third intent asks for."""

    name = "probe:texter"

    def __init__(self, photo: bool) -> None:
        self.turn, self.photo, self.token = 0, photo, ""

    async def act(self, obs: Observation) -> AssistantTurn:
        for m in obs.messages[-1:]:
            out = json.loads(m.content or "null") if m.role == "tool" else None
            if isinstance(out, dict) and "access_token" in out:
                self.token = out["access_token"]
        text = ("Hi! Chestnut's boarding handover tomorrow:\n- 07:40, west gate of Riverside Vet Clinic\n"
                "- Bring: cat carrier, vaccination booklet, one dinner meal pouch\n"
                "Please confirm by 21:30 tonight; if the pickup timing changes or the vaccination booklet "
                "is missing, tell me immediately.")
        if self.photo:
            text += "\nFeeding sheet not printed yet? A photo first is fine."
        plan = [("phone__login", {"username": "5707454150", "password": "A!HFDCn"}),
                ("phone__search_contacts", {"access_token": self.token, "query": "2873148336"}),
                ("phone__show_text_message_window", {"access_token": self.token, "phone_number": "2873148336"}),
                ("phone__send_text_message", {"access_token": self.token, "phone_number": "2873148336",
                                              "message": text})]
        self.turn += 1
        if self.turn <= len(plan):
            name, args = plan[self.turn - 1]
            return AssistantTurn(tool_calls=[ToolCall(id=f"t{self.turn}", name=name, arguments=args)])
        return AssistantTurn(text="Sent.")


def _f011_rows(tmp_path) -> dict[str, Any]:
    suite = IntentsSuite()
    ds = suite.load_dataset(f"pibench:{F011}", None)
    makers: dict[str, Any] = {"probe:paster": lambda u: Paster("paster", ds, u),
                              "probe:photo": lambda u: TextWorker(True), "probe:nophoto": lambda u: TextWorker(False)}
    res = run_cells(suite, ds, list(makers), ["default"], tmp_path,
                    agent_factory=lambda agent, unit, t: makers[agent](unit))
    return {r.agent: r for r in suite.score(res, ds, IntentsOptions(), 0).rows}


def test_released_financier_011_loads_and_scores_work_not_words(tmp_path):
    ds = IntentsSuite().load_dataset(f"pibench:{F011}", None)
    s = ds.episode("Financier").sessions[0]
    assert (s.title, s.task_type, s.difficulty) == ("Pet Boarding Handover Text", "short_term_independent", "medium")
    lits = script_literals(s.rule_script or "")
    # 'photo first' is in the request too, unquoted: a phrase, not an exact detail -> not linked
    assert [intent_literals(lits, i.content, s.request) for i in s.hidden_intents] == [[], [], []]
    rows = _f011_rows(tmp_path)
    paster, photo, nophoto = rows["probe:paster"], rows["probe:photo"], rows["probe:nophoto"]
    for r in (paster, photo, nophoto):  # no intent judged offline: PROC undefined, and said so
        assert r.metrics["proc"] is None and (r.coverage["proc"].judged, r.coverage["proc"].total) == (0, 3)
    assert photo.metrics["comp"] == 1.0 > nophoto.metrics["comp"] > paster.metrics["comp"] == 0.0
    assert (photo.coverage["comp"].judged, photo.coverage["comp"].total) == (10, 18)  # 8 rubric items not judged


def test_a_released_intent_that_restates_an_exact_detail_is_linked():
    """law_trainee_task_012's intents (verbatim) restate the request's quoted subject and label: exact
    details, linked to the keys that check them; law_trainee_task_014's 'partner review' is context."""
    req = ('... Use the subject "Internal Follow-up | Xinhe Supply Chain Arbitration | Supervisor Review Queue". '
           'After sending, do the usual same-thread review-tracking pass with the "needs-supervisor-review" label')
    subject = 'Use the subject "Internal Follow-up | Xinhe Supply Chain Arbitration | Supervisor Review Queue" exactly.'
    label = ('After sending, complete the usual same-thread review-tracking pass with the "needs-supervisor-review" '
             'label and the unread/read toggles.')
    lits = ("internal follow-up | xinhe supply chain arbitration | supervisor review queue", "needs-supervisor-review",
            "xinhe supply chain arbitration", "partner review", "2026-04-29 17:45")
    assert intent_literals(lits, subject, req) == [lits[0]]  # the quoted subject, not its unquoted part
    assert intent_literals(lits, label, req) == ["needs-supervisor-review"]
    brief = "Keep the Simple Note short and circulation-ready for quick partner review, rather than a long memo."
    assert intent_literals(lits, brief, "Prepare the handover for partner review.") == []
    times = "State both the 2026-04-29 17:45 checkpoint and the escalation trigger explicitly."
    assert intent_literals(lits, times, "There is a fixed checkpoint at 2026-04-29 17:45.") == ["2026-04-29 17:45"]


def test_rule_guided_ceiling_on_released_financier_011(tmp_path):
    suite = IntentsSuite()
    ds = suite.load_dataset(f"pibench:{F011}", None)
    row = suite.score(run_cells(suite, ds, ["ref:oracle"], ["default"], tmp_path), ds, IntentsOptions(), 0).rows[0]
    assert row.metrics["comp"] >= 0.95 and row.metrics["proc"] is None  # no intent a key tests here
    assert (row.coverage["comp"].judged, row.coverage["proc"].judged) == (10, 0)
