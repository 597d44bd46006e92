"""ATR session protocols (ATRBench, App. B.1 and B.4) on top of the kernel session loop.

Learning sessions: the user is online and ``send_to_user(output, reason)`` is the agent's only
user channel (both arguments required by its schema, which also asks for it not to be combined
with other tools). ``reason`` goes to the Router only. Off-protocol text turns are re-prompted up
to three times; a retry counts as a rescue only when it calls ``send_to_user``, otherwise the
original text is routed as it is. A second ``send_to_user`` in one turn is dropped. Each delivered
message passes Router → Classifier; on a Router positive the user simulator is told to place
``<RULE_ANSWER>``, which is replaced by the rule's canonical answer (hit) or the deflection (miss).
When the user ends the session its closing words are dropped (the release stamps an end marker in
their place, which nobody reads). Test sessions: the user is offline, plain text is allowed and
nobody answers it (a user-role carry-on marker follows it, so no request ends on an assistant
message); the agent ends with ``finish_session()``. In both phases an empty response is
asked again twice before the session ends (``agent_empty_response``). Every protocol anomaly is
recorded as a trace event.
"""

from __future__ import annotations

import copy

from longview.kernel.agent import AssistantTurn, ToolCall
from longview.kernel.errors import CellAborted
from longview.kernel.session import ControlResult, TerminationReason, UserTurn
from longview.kernel.tools import ParamSpec, ToolKind, ToolSpec
from longview.kernel.trace import TraceWriter
from longview.suites.atr.dataset import LearningSession, StandingRule
from longview.suites.atr.records import AskRecord, LearningRecord
from longview.suites.atr.scaffold import Classifier, Router
from longview.suites.atr.user import DEFLECTION, RULE_TOKEN, UserSimulator, UserState

SEND_TO_USER = ToolSpec(
    name="send_to_user",
    kind=ToolKind.WRITE,
    description=(
        "Send a message to the user. This is the only way the user sees anything you write; plain "
        "text outside this tool stays internal. Call it on its own, not together with other tools "
        "in the same turn."
    ),
    parameters=[
        ParamSpec(name="output", type="string", required=True, description="The message the user reads."),
        ParamSpec(name="reason", type="string", required=True,
                  description="A short private note, in your own words, on what you are doing this turn."),
    ],
)
FINISH_SESSION = ToolSpec(
    name="finish_session",
    description="End the session once the request has been handled.",
    kind=ToolKind.WRITE,
)
RESCUE_NOTE = (
    "<scaffolding_note>Your last reply was plain text, which the user cannot see. "
    "To talk to the user, call send_to_user with your message.</scaffolding_note>"
)
# What a test session's agent reads after a text-only turn (the user is offline: nobody answers).
CARRY_ON_NOTE = "<scaffolding_note>No one reads plain text here. Carry on with the task; call finish_session when it is done.</scaffolding_note>"
HOOK_RETRIES = 2  # extra simulator calls when it drops the token (App. B.4)
EMPTY_RETRIES = 2  # extra agent calls after an empty response (the release's runner)


class LearningProtocol:
    """One user-online learning session."""

    control_specs = [SEND_TO_USER]
    controls_last = True  # the domain's tools first: learning and test sessions of a domain share them
    max_rescues = 3
    empty_retries = EMPTY_RETRIES

    def __init__(
        self,
        session: LearningSession,
        rules: list[StandingRule],
        router: Router,
        classifier: Classifier,
        user: UserSimulator,
        record: LearningRecord,
    ) -> None:
        self.session, self.rules, self.record = session, rules, record
        self.router, self.classifier, self.user = router, classifier, user
        self.state = UserState()
        self._rule_ids = {r.rule_id for r in rules}
        self._answers = {r.rule_id: r.canonical_answer for r in rules}
        self._pending: tuple[str, str | None] | None = None  # (span, rule id) awaiting the hook

    def filter_batch(self, calls: list[ToolCall], turn: int, trace: TraceWriter) -> list[ToolCall]:
        kept, seen = [], False
        for c in calls:
            if c.name == SEND_TO_USER.name:
                if seen:
                    trace.emit("stu_duplicate_same_turn", turn=turn, dropped=c.arguments)
                    continue
                seen = True
            kept.append(c)
        if seen and len(kept) > 1:
            trace.emit("stu_mixed_with_tools", turn=turn, tools=[c.name for c in kept])
        return kept

    def rescue_note(self, text: str, attempt: int) -> str:
        return RESCUE_NOTE

    @staticmethod
    def accepts_rescue(turn: AssistantTurn) -> bool:
        """A re-prompted turn replaces the text turn only if it now talks through the channel."""
        return any(c.name == SEND_TO_USER.name for c in turn.tool_calls)

    async def on_control(self, call: ToolCall, turn: int, trace: TraceWriter) -> ControlResult:
        output = call.arguments.get("output")
        reason = call.arguments.get("reason") or ""
        if not isinstance(output, str) or not output.strip():
            return ControlResult(content='{"error": "send_to_user needs a non-empty string `output`"}')
        trace.emit("send_event", turn=turn, output=output, reason=str(reason))
        await self._adjudicate(output, str(reason), turn, trace)
        return ControlResult(content='{"delivered": true}', to_user=output)

    async def on_text(self, text: str, turn: int, trace: TraceWriter) -> ControlResult:
        trace.emit("off_protocol_ask", turn=turn, text=text)
        await self._adjudicate(text, "", turn, trace)
        return ControlResult(to_user=text)

    async def on_tool_result(self, call: ToolCall, ok: bool, turn: int) -> None:
        if ok:
            self.state.done_tools.add(call.name)
            self.state.ok_calls += 1

    async def _adjudicate(self, output: str, reason: str, turn: int, trace: TraceWriter) -> None:
        verdict = await self.router.route(output, reason)
        trace.emit("route_decision", turn=turn, router=self.router.name, **verdict.model_dump())
        if not verdict.is_rule_question:
            return
        if not verdict.span:
            raise CellAborted(f"router {self.router.name} returned a positive verdict without a span")
        if not verdict.verbatim:
            # Kept, as the paper keeps its ~2% span mismatches; recorded for diagnostics.
            trace.emit("route_span_mismatch", turn=turn, router=self.router.name, span=verdict.span, output=output)
        rule_id = await self.classifier.classify(verdict.span, self.rules)
        if rule_id is not None and rule_id not in self._rule_ids:
            raise CellAborted(f"classifier {self.classifier.name} returned unknown rule id {rule_id!r}")
        trace.emit("cls_verdict", turn=turn, classifier=self.classifier.name, span=verdict.span, rule_id=rule_id)
        self.record.asks.append(AskRecord(turn=turn, span=verdict.span, rule_id=rule_id))
        self._pending = (verdict.span, rule_id)

    async def user_reply(self, delivered: str, turn: int, trace: TraceWriter) -> UserTurn:
        pending, self._pending = self._pending, None
        directive = pending[0] if pending else None
        # A re-ask (directive only) must start from the state the first answer started from.
        before = copy.deepcopy(self.state) if directive is not None else None
        reply = await self.user.reply(self.session, self.state, delivered, directive)
        if directive is None:
            # The user's closing words are dropped when it ends the session (nobody reads them).
            return UserTurn(text=None if reply.end else reply.text, end=reply.end)
        trace.emit("hook_appended", turn=turn, attempt=0, span=directive)
        after: dict | None = None  # the state the first answer left, kept once a re-ask is needed
        for attempt in range(1, HOOK_RETRIES + 1):
            if RULE_TOKEN in reply.text:
                break
            if after is None:
                after = copy.deepcopy(vars(self.state))
            trace.emit("rule_hook_token_missing", turn=turn, attempt=attempt - 1, reply=reply.text)
            trace.emit("hook_appended", turn=turn, attempt=attempt, span=directive)
            # A re-ask answers the same message from the same state (in place: simulators may key on it).
            vars(self.state).update(copy.deepcopy(vars(before)))
            reply = await self.user.reply(self.session, self.state, delivered, directive)
        if after is not None:
            # A re-ask answers the same message, so the state is the one the first answer left (a
            # simulator that does not recompute on a re-ask must not lose it).
            vars(self.state).update(after)
        hit = pending[1] if pending else None
        answer = self._answers[hit] if hit else DEFLECTION
        if RULE_TOKEN in reply.text:
            text = reply.text.replace(RULE_TOKEN, answer, 1).replace(RULE_TOKEN, "")
        else:  # guaranteed delivery
            trace.emit("rule_hook_token_missing", turn=turn, attempt=HOOK_RETRIES, reply=reply.text, fallback=True)
            text = f"{reply.text} {answer}".strip()
        # A hit keeps the session open so the answer reaches the agent before it closes.
        end = reply.end and hit is None
        return UserTurn(text=None if end else text, end=end)


class TestProtocol:
    """One user-offline test session."""

    __test__ = False
    control_specs = [FINISH_SESSION]
    controls_last = True
    max_rescues = 0
    empty_retries = EMPTY_RETRIES

    def filter_batch(self, calls: list[ToolCall], turn: int, trace: TraceWriter) -> list[ToolCall]:
        return calls

    def rescue_note(self, text: str, attempt: int) -> str:  # pragma: no cover - never rescued
        return ""

    async def on_control(self, call: ToolCall, turn: int, trace: TraceWriter) -> ControlResult:
        return ControlResult(content='{"finished": true}', end=TerminationReason.AGENT_FINISH)

    async def on_text(self, text: str, turn: int, trace: TraceWriter) -> ControlResult:
        # Plain text is allowed (models narrate) and nobody answers it: the session goes on until
        # finish_session or the turn cap, as in the release. The next request must not end on that
        # assistant message (servers read it as a prefill to continue, or refuse a second one), so
        # a user-role marker that says only "go on" follows it, as the release's Anthropic adapter
        # does; it is kept in the history so every later request repeats the same prefix.
        return ControlResult(note=CARRY_ON_NOTE)

    async def on_tool_result(self, call: ToolCall, ok: bool, turn: int) -> None:
        return None

    async def user_reply(self, delivered: str, turn: int, trace: TraceWriter) -> UserTurn:  # pragma: no cover
        return UserTurn(text=None)
