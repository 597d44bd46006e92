"""Model-backed Router, Classifier and user simulator of the ATR scaffold (ATRBench, App. B.2-B.3).

They implement the same protocols as the embedded defaults in ``scaffold.py`` and ``user.py``, so
the orchestrator cannot tell them apart. Their prompts are versioned files in ``prompts/``
(``scaffold_router.md``, ``scaffold_classifier.md``, ``user_reword.md``), hashed into the run
manifest with the other prompt blocks.

Faults never degrade silently: a malformed Router verdict (not JSON, wrong schema, a positive
without a span) is retried once with the next trial index and then aborts the cell (a span that is
not a verbatim part of the message is kept and flagged, not a fault); so does a Classifier rule id outside the pool, while a Classifier answer
that is not a JSON object aborts at once. Retries use ``trial + 1`` so a response cache does not
replay the faulty answer.
"""

from __future__ import annotations

import re
from collections import OrderedDict

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, ValidationError

from longview.judges.base import LLMJudge, brief, parse_json
from longview.kernel.agent import Message
from longview.kernel.errors import CellAborted
from longview.kernel.models import GenParams, ModelClient
from longview.suites.atr.dataset import LearningSession, StandingRule
from longview.suites.atr.protocol import HOOK_RETRIES
from longview.suites.atr.scaffold import RouteVerdict
from longview.suites.atr.user import RULE_TOKEN, ScriptedUser, UserReply, UserSimulator, UserState
from longview.suites.atr.variants import block

ROUTER_PROMPT = "scaffold_router"
CLASSIFIER_PROMPT = "scaffold_classifier"
USER_PROMPT = "user_reword"
EMPTY_RETRIES = 2  # extra user-simulator calls after an empty reply (App. B.3)


class _Malformed(ValueError):
    """One unusable model answer: the shared judge plumbing retries once, then aborts the cell."""


class RouterReply(BaseModel):
    """The JSON object the Router model must return."""

    model_config = ConfigDict(extra="ignore")

    is_rule_question: StrictBool = Field(
        description="Whether the message asks a standing-rule question."
    )
    span: StrictStr | None = Field(
        default=None, description="Verbatim question sentence on positives."
    )


class ClassifierReply(BaseModel):
    """The JSON object the Classifier model must return."""

    model_config = ConfigDict(extra="ignore")

    rule_id: StrictStr | None = Field(
        description="Id of the rule that answers the question, or null."
    )


def locate_span(span: str, output: str) -> str | None:
    """The substring of ``output`` that equals ``span`` up to whitespace runs, or None.

    Returning the output's own characters keeps the recorded span verbatim even when the model
    collapsed a line break or doubled a space.
    """
    tokens = span.split()
    if not tokens:
        return None
    m = re.search(r"\s+".join(re.escape(t) for t in tokens), output)
    return m.group(0) if m else None


class _PromptedModel:
    """A model client, its generation params and a fixed system prompt from ``prompts/``."""

    prompt: str

    def __init__(self, client: ModelClient, params: GenParams, system: str | None = None) -> None:
        self.client, self.params = client, params
        self.name = f"llm:{client.model}"
        # The release's own prompt (with its few-shot bank) when the run is on its checkout.
        self.system = system or block(self.prompt)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class _PromptedJudge(_PromptedModel):
    """A prompted model that gives one JSON verdict, through the plumbing every suite's model judge
    shares: one JSON payload, a retry on a malformed answer, then an abort naming ``role``."""

    role: str
    schema: type[BaseModel]

    def __init__(self, client: ModelClient, params: GenParams, system: str | None = None) -> None:
        super().__init__(client, params, system)
        self.llm = LLMJudge(client, params, self.system, self.schema, self.role)


class LLMRouter(_PromptedJudge):
    """Router (speech-act decision plus span extraction) as one JSON-returning model call."""

    prompt = ROUTER_PROMPT
    role = "router"
    schema = RouterReply

    async def route(self, output: str, reason: str) -> RouteVerdict:
        return await self.llm.ask_with({"output": output, "reason": reason}, lambda text: self._verdict(text, output),
                                       f" for message {brief(output)}")

    @staticmethod
    def _verdict(text: str | None, output: str) -> RouteVerdict:
        try:
            value = parse_json(text)
        except ValueError:
            raise _Malformed(f"not JSON: {brief(text)}") from None
        if not isinstance(value, dict):
            raise _Malformed(f"not a JSON object: {brief(text)}")
        try:
            reply = RouterReply.model_validate(value)
        except ValidationError as err:
            e = err.errors()[0]
            field = ".".join(str(x) for x in e["loc"]) or "<root>"
            raise _Malformed(f"field '{field}': {e['msg']} in {brief(text)}") from None
        if not reply.is_rule_question:
            return RouteVerdict(is_rule_question=False)
        if not reply.span or not reply.span.strip():
            raise _Malformed("positive verdict without a span")
        span = locate_span(reply.span, output)
        if span is None:
            # Not verbatim: kept as the model gave it (the paper kept its ~2% of such spans); the
            # protocol records a route_span_mismatch event.
            return RouteVerdict(is_rule_question=True, span=reply.span.strip(), verbatim=False)
        return RouteVerdict(is_rule_question=True, span=span)


def rule_card(rule: StandingRule) -> dict[str, str]:
    """What the Classifier model sees of a rule: id, statement and topic — never the answer."""
    card = {"rule_id": rule.rule_id, "rule_text": rule.rule_text}
    if rule.topic:
        card["topic"] = rule.topic
    return card


class LLMClassifier(_PromptedJudge):
    """Classifier (question span → one pool rule or none) as one JSON-returning model call."""

    prompt = CLASSIFIER_PROMPT
    role = "classifier"
    schema = ClassifierReply

    async def classify(self, span: str, rules: list[StandingRule]) -> str | None:
        if not rules:
            return None
        pool = {r.rule_id for r in rules}

        def read(text: str | None) -> str | None:
            try:
                value = parse_json(text)
            except ValueError:
                value = None
            if not isinstance(value, dict):  # not even an object: no retry (as the release's runner)
                raise CellAborted(f"classifier {self.name} did not return a JSON object for span "
                                  f"{brief(span)}: {brief(text)}")
            try:
                rule_id = ClassifierReply.model_validate(value).rule_id
            except ValidationError as err:
                raise _Malformed(f"field 'rule_id': {err.errors()[0]['msg']} in {brief(text)}") from None
            if rule_id is not None and rule_id not in pool:
                raise _Malformed(f"unknown rule id {rule_id!r} (pool: {', '.join(sorted(pool))})")
            return rule_id

        payload = {"question": span, "rules": [rule_card(r) for r in rules]}
        return await self.llm.ask_with(payload, read, f" for span {brief(span)}")


class LLMUser(_PromptedModel):
    """User simulator whose wording comes from a model and whose content comes from ``core``.

    The deterministic core decides every fact, whether the session ends, and whether the
    ``<RULE_ANSWER>`` token is due; the model only rephrases the core's text in a natural first
    person voice. ``end`` always comes from the core. A reworded reply that lost a due token is
    returned as it is — the orchestrator re-asks (up to ``HOOK_RETRIES`` times) and then appends
    the answer itself. A re-ask is recognised (same session, state, message and directive right
    after a reply that lost the token): the core is not consulted again — its reply already
    moved the state — and the model is called with fresh trial indices so a response cache does
    not replay the same wording.
    """

    prompt = USER_PROMPT
    _MEMO_CAP = 1024

    def __init__(
        self, client: ModelClient, params: GenParams, core: UserSimulator | None = None
    ) -> None:
        super().__init__(client, params)
        self.core: UserSimulator = core if core is not None else ScriptedUser()
        # (session id, id(state)) -> ((agent message, directive), core reply, re-ask count)
        self._lost: OrderedDict[tuple[str, int], tuple[tuple[str, str | None], UserReply, int]] = (
            OrderedDict()
        )

    def __repr__(self) -> str:
        return f"LLMUser({self.name!r}, core={self.core.name!r})"

    async def open(self, session: LearningSession) -> str:
        draft = await self.core.open(session)
        return await self._reword(session, draft, None, 0)

    async def reply(
        self, session: LearningSession, state: UserState, agent_message: str, directive: str | None
    ) -> UserReply:
        key = (session.session_id, id(state))
        lost = self._lost.pop(key, None)
        if lost is not None and lost[0] == (agent_message, directive) and lost[2] < HOOK_RETRIES:
            core, reask = lost[1], lost[2] + 1
        else:
            core, reask = await self.core.reply(session, state, agent_message, directive), 0
        due = RULE_TOKEN in core.text
        text = await self._reword(session, core.text, agent_message, reask * (EMPTY_RETRIES + 1))
        if not due and RULE_TOKEN in text:  # a token nobody asked for would reach the agent
            text = re.sub(r"[ \t]{2,}", " ", text.replace(RULE_TOKEN, "")).strip()
        if due and RULE_TOKEN not in text and reask < HOOK_RETRIES:
            self._lost[key] = ((agent_message, directive), core, reask)
            while len(self._lost) > self._MEMO_CAP:
                self._lost.popitem(last=False)
        return UserReply(text=text, end=core.end)

    async def _reword(
        self, session: LearningSession, draft: str, agent_message: str | None, first_trial: int
    ) -> str:
        if not draft.strip() or draft.strip() == RULE_TOKEN:
            return draft.strip()
        said = (
            f"The assistant just wrote:\n<assistant>\n{agent_message}\n</assistant>"
            if agent_message is not None
            else "You are opening the conversation; the assistant has not written anything yet."
        )
        content = (
            f"What you want from this conversation: {session.reason_for_call}\n\n{said}\n\n"
            f"Draft reply to reword:\n<draft>\n{draft}\n</draft>"
        )
        messages = [Message(role="user", content=content)]
        for trial in range(first_trial, first_trial + EMPTY_RETRIES + 1):
            turn = await self.client.complete(self.system, messages, [], self.params, trial)
            text = _unquote((turn.text or "").strip())
            if text:
                return text
        raise CellAborted(
            f"user simulator {self.name} returned an empty reply {EMPTY_RETRIES + 1} times "
            f"in session {session.session_id}"
        )


def _unquote(text: str) -> str:
    """Drop one pair of quotes wrapping the whole reply, which models sometimes add."""
    for open_q, close_q in (('"', '"'), ("“", "”")):
        inner = text[1:-1]
        if len(text) >= 2 and text[0] == open_q and text[-1] == close_q:
            if open_q not in inner and close_q not in inner:
                return inner.strip()
    return text
