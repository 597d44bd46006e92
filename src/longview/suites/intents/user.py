"""The two-stage simulated user (π-Bench App. B) as a longview session protocol.

After each agent reply: (1) the satisfaction judge marks open intents the reply — with its tool
calls and the artifacts as they stand — already satisfies as *completed*; (2) of the rest, the
targeted-question judge marks those the reply asks about specifically as *elicited*, and the user
answers with exactly those; (3) otherwise the user volunteers the first open intent (*provided*).
The session ends at the first reply after which no intent is open (so the agent always answers the
last thing the user said), or at the turn cap. The core decides; a ``user`` model only rewords.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from longview.domains.apps.files import snapshot_files
from longview.domains.apps.state import AppsState
from longview.kernel.agent import ToolCall
from longview.kernel.session import ControlResult, UserTurn
from longview.kernel.tools import Toolkit, ToolResult, ToolSpec
from longview.kernel.trace import TraceWriter
from longview.suites.intents.evidence import COLLECTIONS, CallRecord, Evidence, records, run_check
from longview.suites.intents.judge import IntentJudges, Verdicts, rubric_payload
from longview.suites.intents.records import CriterionOutcome, IntentOutcome, SessionRecord
from longview.suites.intents.rule_evidence import RuleEvidence
from longview.suites.intents.schema import Session
from longview.users.base import UserIntent, VerbatimWording, Wording

WRITE_FILE_TOOLS = ("write_file", "edit_file", "delete_file")


def _rel(path: str) -> str:
    """A workspace path as snapshot_files keys it."""
    import posixpath

    return posixpath.normpath(path.replace("\\", "/")).lstrip("/")


class RecordingToolkit:
    """A toolkit wrapper that keeps every call with its output (rule scripts and judges need them)."""

    def __init__(self, inner: Toolkit) -> None:
        self.inner = inner
        self.calls: list[CallRecord] = []
        self.segment = 0

    def schemas(self) -> list[dict[str, Any]]:
        return self.inner.schemas()

    def spec(self, name: str) -> ToolSpec | None:
        return self.inner.spec(name)

    @property
    def specs(self) -> list[ToolSpec]:
        return self.inner.specs

    def call(self, name: str, args: Any) -> ToolResult:
        res = self.inner.call(name, args)
        self.calls.append(CallRecord(name=name, arguments=dict(args) if isinstance(args, dict) else {}, ok=res.ok,
                                     output=res.output if res.ok else {"message": res.error}, turn=-1,
                                     segment=self.segment))
        return res


class TwoStageUser:
    """Session protocol: text turns go to the user; the user core tracks intent statuses."""

    control_specs: list[ToolSpec] = []
    max_rescues = 0

    def __init__(self, session: Session, *, profile: str, judges: IntentJudges, tools: RecordingToolkit,
                 state: AppsState, workspace: Path, wording: Wording | None = None,
                 rule: RuleEvidence | None = None, rule_only: bool = False, rubric_turns: bool = False) -> None:
        self.session, self.profile, self.judges, self.tools = session, profile, judges, tools
        self.state, self.workspace, self.rule = state, workspace, rule
        self.start_records = {c: records(state, c) for c in COLLECTIONS}  # the rubric judge sees the change
        # rule_only (the rule-guided ceiling): only intents a rule-script key tests are judged
        self.judged = {i.id: (rule is not None and rule.testable(i.id)) if rule_only else judges.can_judge(i, rule)
                       for i in session.hidden_intents}
        self.judge_missing = 0
        self.wording = wording or VerbatimWording()
        self.status: dict[str, IntentOutcome | None] = {
            i.id: IntentOutcome(status="provided", reply=0) if i.initially_provided else None
            for i in session.hidden_intents}
        self.met: dict[str, bool] = {c.id: False for c in session.checklist if c.check is not None}
        self.proxy_met: dict[str, bool] = {c.id: False for c in session.checklist if c.check is None and c.proxy}
        self.replies: list[str] = []
        self.transcript: list[dict[str, Any]] = [{"role": "user", "text": session.request}]
        self.agreement: list[tuple[str, bool, bool]] = []
        # -S rubric_turns=each: the rubric judge's input as the session stands after each reply
        self.rubric_turns = rubric_turns and any(c.check is None for c in session.checklist)
        self.turn_payloads: list[dict[str, Any]] = []

    # --- SessionProtocol -------------------------------------------------------------------
    def filter_batch(self, calls: list[ToolCall], turn: int, trace: TraceWriter) -> list[ToolCall]:
        return calls

    def rescue_note(self, text: str, attempt: int) -> str:
        return ""

    async def on_control(self, call: ToolCall, turn: int, trace: TraceWriter) -> ControlResult:
        return ControlResult(content='{"error": "no control tools"}')

    async def on_text(self, text: str, turn: int, trace: TraceWriter) -> ControlResult:
        return ControlResult(to_user=text)

    async def on_tool_result(self, call: ToolCall, ok: bool, turn: int) -> None:
        if self.tools.calls:
            self.tools.calls[-1].turn = turn

    async def user_reply(self, delivered: str, turn: int, trace: TraceWriter) -> UserTurn:
        self.replies.append(delivered)
        self.transcript.append({"role": "assistant", "text": delivered})
        n = len(self.replies)
        ev = self.evidence(scope="segment")
        self.update_checklist(ev)
        if self.rubric_turns:  # the same files, read once this reply
            self.turn_payloads.append(self.rubric_input_now(self.evidence(scope="all", files=ev.files)))
        open_ = [i for i in self.session.hidden_intents if self.status[i.id] is None]
        if open_:
            v = await self.judges.satisfied(open_, delivered, ev, self.profile, self.rule, self.tools.calls)
            self._agree("satisfaction", v)
            for i in open_:
                if v.labels.get(i.id):
                    self.status[i.id] = IntentOutcome(status="completed", reply=n)
        open_ = [i for i in self.session.hidden_intents if self.status[i.id] is None]
        if not open_:
            trace.emit("intent_status", turn=turn, statuses=self.statuses(), action="end")
            return UserTurn(text=None, end=True)
        v = await self.judges.targeted(open_, delivered)
        self._agree("targeted", v)
        asked = [i for i in open_ if v.labels.get(i.id)]
        if asked:
            for i in asked:
                self.status[i.id] = IntentOutcome(status="elicited", reply=n)
            draft, action = "\n".join(i.content for i in asked), "answer"
        else:
            first = open_[0]
            self.status[first.id] = IntentOutcome(status="provided", reply=n)
            draft, action = first.content, "volunteer"
        text = await self.wording.word(UserIntent(draft=draft), delivered)
        self.tools.segment += 1
        self.transcript.append({"role": "user", "text": text})
        trace.emit("intent_status", turn=turn, statuses=self.statuses(), action=action)
        return UserTurn(text=text)

    # --- helpers ---------------------------------------------------------------------------
    def _agree(self, stage: str, v: Verdicts) -> None:
        self.judge_missing += len(v.missing)
        for k, e in v.embedded.items():
            m = v.labels.get(k)
            if e is not None and m is not None:
                self.agreement.append((f"{stage}:{self.session.id}:{k}@{len(self.replies)}", bool(e), bool(m)))

    def statuses(self) -> dict[str, str]:
        return {k: (v.status if v else "open") for k, v in self.status.items()}

    def evidence(self, scope: str, files: dict[str, str] | None = None) -> Evidence:
        calls = [c for c in self.tools.calls if scope == "all" or c.segment == self.tools.segment]
        written = {str(c.arguments.get("path")) for c in calls if c.ok and c.name in WRITE_FILE_TOOLS}
        replies = self.replies[-1:] if scope == "segment" else list(self.replies)
        return Evidence(replies=replies, calls=calls, files=snapshot_files(self.workspace) if files is None else files,
                        state=self.state,
                        written={_rel(w) for w in written}, context_files=list(self.session.files_read))

    def rubric_input_now(self, ev: Evidence) -> dict[str, Any]:
        """What the rubric judge reads about the session as it stands now, given ``ev`` (scope all):
        its items, conversation, calls and state so far, built from copies, so later turns do not
        change it."""
        items = [c for c in self.session.checklist if c.check is None]
        return rubric_payload(items, ev, list(self.transcript), self.profile, self.session.hidden_intents,
                              start=self.start_records)

    def update_checklist(self, ev: Evidence) -> None:
        by_id = {c.id: c for c in self.session.checklist}
        for cid in self.met:
            if not self.met[cid]:
                self.met[cid] = run_check(by_id[cid].check, ev)  # type: ignore[arg-type]
        for cid in self.proxy_met:
            if not self.proxy_met[cid]:
                self.proxy_met[cid] = run_check(by_id[cid].proxy, ev)  # type: ignore[arg-type]

    def record(self, termination: str) -> SessionRecord:
        """The session's intents and deterministic criteria (rubric and rule criteria are added by the runner)."""
        ev = self.evidence(scope="all")
        self.update_checklist(ev)
        crit = {cid: CriterionOutcome(weight=next(c.weight for c in self.session.checklist if c.id == cid),
                                      kind="check", met=m, by="embedded:check") for cid, m in self.met.items()}
        return SessionRecord(
            session_id=self.session.id, depends_on=list(self.session.depends_on),
            intents={k: (v or IntentOutcome(status="open")).model_copy(update={"judged": self.judged[k]})
                     for k, v in self.status.items()},
            criteria=crit, replies=len(self.replies), termination=termination, agreement=list(self.agreement),
            judge_missing=self.judge_missing)
