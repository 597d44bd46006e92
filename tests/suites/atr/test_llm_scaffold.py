"""LLM Router, Classifier and user simulator over the mock provider: verdict parsing, verbatim
spans, retry-once-then-abort, unknown ids, core-owned content, and the token-dropped fallback run
end to end through LearningProtocol."""

from __future__ import annotations

import json

import pytest

from longview.agents.llm import LLMAgent
from longview.kernel.agent import Message
from longview.kernel.errors import CellAborted
from longview.kernel.models import (
    GenParams,
    ModelCallFailed,
    ResponseCache,
    make_client,
    register_script,
    unregister_script,
)
from longview.kernel.session import TerminationReason, run_session
from longview.kernel.tools import ToolKind, Toolkit, tool
from longview.kernel.trace import TraceWriter
from longview.suites.atr.dataset import ActionStep, LearningSession, LocalEnv, StandingRule
from longview.suites.atr.llm_scaffold import (
    LLMClassifier,
    LLMRouter,
    LLMUser,
    locate_span,
    parse_json,
)
from longview.suites.atr.preference import Step
from longview.suites.atr.protocol import DEFLECTION, LearningProtocol
from longview.suites.atr.records import LearningRecord
from longview.suites.atr.user import RULE_TOKEN, ScriptedUser, UserState
from longview.suites.atr.variants import block

P = GenParams(temperature=0.0)


class TrialSpy:
    """Wraps a client and records (system, last message content, trial) of every call."""

    def __init__(self, inner) -> None:
        self.inner, self.model = inner, inner.model
        self.calls: list[tuple[str | None, str, int]] = []

    async def complete(self, system, messages, tools, params, trial=0):
        self.calls.append((system, messages[-1].content, trial))
        return await self.inner.complete(system, messages, tools, params, trial)

    @property
    def trials(self) -> list[int]:
        return [t for _, _, t in self.calls]


@pytest.fixture
def model():
    """model(name, answers) -> a spied mock client; answers is a callable of the request payload
    (parsed JSON for scaffold calls, raw text otherwise) or a list of replies used in order."""
    names: list[str] = []

    def make(name: str, answers, cache: ResponseCache | None = None) -> TrialSpy:
        if callable(answers):

            def script(system, messages, tools):
                content = messages[-1].content
                try:
                    content = json.loads(content)
                except ValueError:
                    pass
                return answers(content)

            register_script(name, script)
        else:
            register_script(name, list(answers))
        names.append(name)
        return TrialSpy(make_client(f"mock/{name}", cache=cache))

    yield make
    for n in names:
        unregister_script(n)


def rule(rule_id: str, text: str, topic: str, answer: str = "") -> StandingRule:
    return StandingRule(
        rule_id=rule_id, rule_text=text, topic=topic, canonical_answer=answer or f"answer of {rule_id}",
        counterfactual_default="whatever", check_type="tool_identity",
        action_step=ActionStep(tool="book_flight", param=None),
    )


RULES = [
    rule("r_seat", "She prefers aisle seats on flights.", "flight seat", "I always go for an aisle seat."),
    rule("r_car", "For airport transfers she wants a private car.", "airport ride"),
]
OUT = "Your flight is booked. For future trips,  should I\nalways pick an aisle seat?"


def positive(span: str) -> str:
    return json.dumps({"is_rule_question": True, "span": span})


NEGATIVE = json.dumps({"is_rule_question": False, "span": None})


# --- helpers ---------------------------------------------------------------------------------


def test_parse_json_tolerates_one_fence_only():
    assert parse_json('```json\n{"a": 1}\n```') == {"a": 1}
    assert parse_json(' {"a": 1} ') == {"a": 1}
    with pytest.raises(ValueError):
        parse_json("Sure! {\"a\": 1}")
    with pytest.raises(ValueError):
        parse_json("   ")


def test_locate_span_returns_the_outputs_own_characters():
    assert locate_span("should I always pick an aisle seat?", OUT) == "should I\nalways pick an aisle seat?"
    assert locate_span("should I usually pick an aisle seat?", OUT) is None
    assert locate_span("  ", OUT) is None


# --- Router ----------------------------------------------------------------------------------


async def test_router_positive_span_is_verbatim_and_payload_has_output_and_reason(model):
    spy = model("r-pos", lambda p: positive("For future trips, should I always pick an aisle seat?"))
    router = LLMRouter(spy, P)
    assert router.name == "llm:mock/r-pos"
    v = await router.route(OUT, "learn seat default")
    assert v.is_rule_question and v.span == "For future trips,  should I\nalways pick an aisle seat?"
    assert v.span in OUT
    system, content, trial = spy.calls[0]
    assert system == block("scaffold_router") and trial == 0
    assert json.loads(content) == {"output": OUT, "reason": "learn seat default"}


async def test_router_negative_drops_any_span(model):
    spy = model("r-neg", lambda p: json.dumps({"is_rule_question": False, "span": "Your flight is booked."}))
    v = await LLMRouter(spy, P).route(OUT, "")
    assert not v.is_rule_question and v.span is None


async def test_router_malformed_once_then_valid_uses_next_trial(model):
    spy = model("r-retry", ["I think this is a rule question.", NEGATIVE])
    v = await LLMRouter(spy, P).route(OUT, "")
    assert not v.is_rule_question
    assert spy.trials == [0, 1]


@pytest.mark.parametrize(
    "answer, why",
    [
        ("yes, it asks about seats", "not JSON"),
        ('["is_rule_question", true]', "not a JSON object"),
        ('{"is_rule_question": "yes", "span": null}', "field 'is_rule_question'"),
        ('{"span": "should I"}', "field 'is_rule_question'"),
        ('{"is_rule_question": true, "span": null}', "without a span"),
        ('{"is_rule_question": true, "span": "   "}', "without a span"),
    ],
)
async def test_router_malformed_twice_aborts(model, answer, why):
    spy = model(f"r-bad-{abs(hash(answer))}", lambda p: answer)
    router = LLMRouter(spy, P)
    with pytest.raises(CellAborted) as exc:
        await router.route(OUT, "")
    assert why in exc.value.reason and router.name in exc.value.reason
    assert spy.trials == [0, 1]


async def test_router_span_not_verbatim_is_kept_and_flagged(model):
    spy = model("r-mismatch", lambda p: positive("Should I always pick a **window** seat?"))
    v = await LLMRouter(spy, P).route(OUT, "")
    assert v.is_rule_question and v.span == "Should I always pick a **window** seat?" and not v.verbatim
    assert spy.trials == [0]  # not a fault: no retry


async def test_router_model_failure_is_a_cell_abort():
    class Down:
        model = "mock/down"

        async def complete(self, *a, **k):
            raise ModelCallFailed("retries exhausted", model=self.model, attempts=4)

    with pytest.raises(CellAborted, match="retries exhausted"):
        await LLMRouter(Down(), P).route(OUT, "")


# --- Classifier ------------------------------------------------------------------------------


async def test_classifier_hit_and_payload_hides_canonical_answers(model):
    spy = model("c-hit", lambda p: json.dumps({"rule_id": "r_seat"}))
    cls = LLMClassifier(spy, P)
    assert cls.name == "llm:mock/c-hit"
    assert await cls.classify("should I always pick an aisle seat?", RULES) == "r_seat"
    system, content, _ = spy.calls[0]
    assert system == block("scaffold_classifier")
    payload = json.loads(content)
    assert payload["question"] == "should I always pick an aisle seat?"
    assert payload["rules"][0] == {"rule_id": "r_seat", "rule_text": RULES[0].rule_text, "topic": "flight seat"}
    assert "canonical_answer" not in content and RULES[0].canonical_answer not in content


async def test_classifier_null_is_a_miss(model):
    spy = model("c-null", lambda p: '```json\n{"rule_id": null}\n```')
    assert await LLMClassifier(spy, P).classify("cheapest fare by default?", RULES) is None


async def test_classifier_unknown_id_retried_once_then_valid(model):
    spy = model("c-unk1", ['{"rule_id": "r_meal"}', '{"rule_id": "r_car"}'])
    assert await LLMClassifier(spy, P).classify("private car next time?", RULES) == "r_car"
    assert spy.trials == [0, 1]


async def test_classifier_unknown_id_twice_aborts(model):
    spy = model("c-unk2", lambda p: '{"rule_id": "r_meal"}')
    with pytest.raises(CellAborted, match="unknown rule id 'r_meal'"):
        await LLMClassifier(spy, P).classify("meals?", RULES)
    assert spy.trials == [0, 1]


async def test_classifier_schema_invalid_object_retried_then_aborts(model):
    spy = model("c-schema", lambda p: '{"rule_id": 3}')
    with pytest.raises(CellAborted, match="field 'rule_id'"):
        await LLMClassifier(spy, P).classify("seats?", RULES)
    assert spy.trials == [0, 1]


@pytest.mark.parametrize("answer", ['"r_seat"', '["r_seat"]', "r_seat", "", "null"])
async def test_classifier_non_object_aborts_without_retry(model, answer):
    spy = model(f"c-nonobj-{abs(hash(answer))}", lambda p: answer)
    with pytest.raises(CellAborted, match="did not return a JSON object"):
        await LLMClassifier(spy, P).classify("seats?", RULES)
    assert spy.trials == [0]


async def test_classifier_empty_pool_needs_no_call(model):
    spy = model("c-empty", lambda p: '{"rule_id": null}')
    assert await LLMClassifier(spy, P).classify("seats?", []) is None
    assert spy.calls == []


# --- User simulator --------------------------------------------------------------------------

SESSION = LearningSession(
    session_id="L1", session_type="learning", domain="travel",
    reason_for_call="I need a flight to Denver for a conference.",
    task_params={"destination": "Denver", "travel_date": "2026-03-14"},
    expected_tools=["book"], gold_trajectory=[Step(tool="book", arguments={"destination": "Denver"})],
    local_env=LocalEnv(tools=["book"]),
)


class CountingCore(ScriptedUser):
    """The scripted core, counting how often it is consulted."""

    def __init__(self) -> None:
        self.replies = 0

    async def reply(self, session, state, agent_message, directive):
        self.replies += 1
        return await super().reply(session, state, agent_message, directive)


def draft_of(content: str) -> str:
    return content.split("<draft>\n", 1)[1].split("\n</draft>", 1)[0]


async def test_user_open_rewords_the_core_opening(model):
    spy = model("u-open", lambda text: "hey, I need to fly to Denver for a conference")
    user = LLMUser(spy, P)
    assert user.name == "llm:mock/u-open"
    assert await user.open(SESSION) == "hey, I need to fly to Denver for a conference"
    system, content, _ = spy.calls[0]
    assert system == block("user_reword")
    assert draft_of(content) == await ScriptedUser().open(SESSION)
    assert "has not written anything yet" in content


async def test_user_reply_content_and_end_come_from_the_core(model):
    spy = model("u-end", lambda text: '"Great, that is everything, thanks!"')
    user = LLMUser(spy, P)
    state = UserState(done_tools={"book"})
    r = await user.reply(SESSION, state, "Booked your Denver flight.", None)
    core = await ScriptedUser().reply(SESSION, UserState(done_tools={"book"}), "Booked your Denver flight.", None)
    # The done task opens the closing exchange; the user leaves on the agent's next acknowledgement.
    assert r.end is False and core.end is False
    assert r.text == "Great, that is everything, thanks!"  # wrapping quotes dropped
    assert draft_of(spy.calls[0][1]) == core.text
    assert "Booked your Denver flight." in spy.calls[0][1]
    assert (await user.reply(SESSION, state, "You're welcome, have a good trip!", None)).end is True


async def test_user_never_ends_on_its_own(model):
    spy = model("u-noend", lambda text: "All done, bye!")
    r = await LLMUser(spy, P).reply(SESSION, UserState(), "Which date do you fly?", None)
    assert r.end is False


async def test_user_keeps_due_token_and_strips_an_undue_one(model):
    spy = model("u-tok", lambda text: f"{RULE_TOKEN} Denver, on March 14th.")
    user = LLMUser(spy, P)
    due = await user.reply(SESSION, UserState(), "Next time, aisle seat? Also, where to?", "Next time, aisle seat?")
    assert due.text.count(RULE_TOKEN) == 1
    undue = await user.reply(SESSION, UserState(), "Where to?", None)
    assert RULE_TOKEN not in undue.text and undue.text == "Denver, on March 14th."


async def test_user_empty_reply_retried_twice_then_aborts(model):
    ok = model("u-empty-ok", ["", "   ", "Denver, March 14th."])
    assert (await LLMUser(ok, P).reply(SESSION, UserState(), "Where to?", None)).text == "Denver, March 14th."
    assert ok.trials == [0, 1, 2]
    bad = model("u-empty-bad", lambda text: "")
    with pytest.raises(CellAborted, match="empty reply 3 times in session L1"):
        await LLMUser(bad, P).open(SESSION)
    assert bad.trials == [0, 1, 2]


async def test_user_reask_after_dropped_token_rewords_same_core_reply_with_fresh_trials(model, tmp_path):
    spy = model("u-reask", lambda text: "Denver, March 14th.", cache=ResponseCache(tmp_path))
    core = CountingCore()
    user = LLMUser(spy, P, core=core)
    state = UserState()
    msg, directive = "For future trips, aisle or window? And where are you headed?", "For future trips, aisle or window?"
    first = await user.reply(SESSION, state, msg, directive)
    again = await user.reply(SESSION, state, msg, directive)
    third = await user.reply(SESSION, state, msg, directive)
    assert RULE_TOKEN not in first.text + again.text + third.text
    assert core.replies == 1  # the core decided once; re-asks only re-word
    assert spy.trials == [0, 3, 6]  # fresh trial indices, so the cache cannot replay the faulty wording
    assert len({c for _, c, _ in spy.calls}) == 1  # same request otherwise
    # A new message is a new turn: the core is consulted again and trials restart.
    await user.reply(SESSION, state, "Anything else?", None)
    assert core.replies == 2 and spy.trials[-1] == 0


# --- end to end through LearningProtocol ------------------------------------------------------


class Desk(Toolkit):
    @tool(ToolKind.WRITE)
    def book(self, destination: str) -> dict:
        """Book a flight.

        Args:
          destination: Where to.
        """
        return {"booked": destination}


def send(output: str, reason: str = "") -> dict:
    return {"tool_calls": [{"name": "send_to_user", "arguments": {"output": output, "reason": reason}}]}


ASK = "Booked! For future trips, should I always pick an aisle seat?"


async def run_learning(model, name: str, user_answer, classifier_answer: str):
    agent = LLMAgent(model(f"{name}-agent", [
        {"tool_calls": [{"name": "book", "arguments": {"destination": "Denver"}}]},
        send(ASK, "learn seat default"),
        send("Noted, enjoy Denver!"),
    ]), P)

    def route(p):
        if "future" in p["output"]:
            return positive("For future trips, should I always pick an aisle seat?")
        return NEGATIVE

    router = LLMRouter(model(f"{name}-router", route), P)
    classifier = LLMClassifier(model(f"{name}-cls", lambda p: classifier_answer), P)
    user_spy = model(f"{name}-user", user_answer)
    user = LLMUser(user_spy, P)
    rec = LearningRecord(session_id="L1", domain="travel", termination="", turns=0)
    proto = LearningProtocol(SESSION, RULES, router, classifier, user, rec)
    trace = TraceWriter(None, "L1")
    out = await run_session(
        agent, Desk(), proto, system="sys", opening=[Message(role="user", content=await user.open(SESSION))],
        session_id="L1", phase="learning", trace=trace,
    )
    return out, rec, trace, user_spy


async def test_dropped_token_falls_back_to_guaranteed_delivery_end_to_end(model):
    out, rec, trace, user_spy = await run_learning(
        model, "e2e-drop", lambda text: "Thanks, that's all I needed.", '{"rule_id": "r_seat"}'
    )
    assert [a.model_dump() for a in rec.asks] == [
        {"turn": 1, "span": "For future trips, should I always pick an aisle seat?", "rule_id": "r_seat"}
    ]
    users = [m.content for m in out.messages if m.role == "user"]
    assert users[1] == "Thanks, that's all I needed. I always go for an aisle seat."  # fallback appended
    missing = [e.data for e in trace.events if e.type == "rule_hook_token_missing"]
    assert [d["attempt"] for d in missing] == [0, 1, 2] and missing[-1]["fallback"] is True
    # opening; the rule turn: the original call and two re-asks with fresh trials; the closing reply
    assert user_spy.trials == [0, 0, 3, 6, 0]
    # the core's end at the hit turn was overridden; the session ended on the next reply
    assert out.termination is TerminationReason.USER_END and out.turns == 3


async def test_kept_token_is_substituted_and_a_miss_gets_the_deflection(model):
    out, rec, trace, _ = await run_learning(
        model, "e2e-keep", lambda text: f"{RULE_TOKEN} Thanks!" if RULE_TOKEN in text else "Thanks!", '{"rule_id": null}'
    )
    assert rec.asks[0].rule_id is None
    users = [m.content for m in out.messages if m.role == "user"]
    assert users[1] == f"{DEFLECTION} Thanks!"
    assert not [e for e in trace.events if e.type == "rule_hook_token_missing"]
    # a miss keeps the closing exchange going; the agent's acknowledgement then ends the session
    assert out.termination is TerminationReason.USER_END and out.turns == 3


async def test_router_fault_aborts_the_session(model):
    agent = LLMAgent(model("e2e-fault-agent", [send(ASK)]), P)
    router = LLMRouter(model("e2e-fault-router", lambda p: "no idea"), P)
    classifier = LLMClassifier(model("e2e-fault-cls", lambda p: '{"rule_id": null}'), P)
    user = LLMUser(model("e2e-fault-user", lambda text: "ok"), P)
    rec = LearningRecord(session_id="L1", domain="travel", termination="", turns=0)
    proto = LearningProtocol(SESSION, RULES, router, classifier, user, rec)
    with pytest.raises(CellAborted, match="malformed verdict twice"):
        await run_session(
            agent, Desk(), proto, system="sys", opening=[Message(role="user", content="hi")],
            session_id="L1", phase="learning", trace=TraceWriter(None, "L1"),
        )
