"""One cell: a user's whole timeline for one agent and one memory system.

Accumulation and change-event sessions run serially (the history is on-policy); after each, the
memory system observes the session's public record (user messages, tool calls and results, the
interaction-tool call and the delivered reply — never held content or wrapper fields). Probes branch
from a checkpoint of world, memory, simulator and agent state: pre-event probes just before their
change event, the 28 final probes after the last session, concurrently; they write nothing back.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from longview.harness.context import gather_sessions
from longview.kernel.agent import Message, ToolCall
from longview.kernel.clock import SimClock
from longview.kernel.session import ControlResult, UserTurn, run_session
from longview.kernel.trace import TraceWriter
from longview.memory.registry import fork as fork_memory
from longview.suites.prefs.checks import brs as embedded_brs
from longview.suites.prefs.checks import observe
from longview.suites.prefs.dataset import UserData
from longview.suites.prefs.evidence import evidence_sentences, held
from longview.suites.prefs.judge import BRSJudge
from longview.suites.prefs.model import taxonomy
from longview.suites.prefs.scenes import Scene
from longview.suites.prefs.user import Said, SimState, UserCore, change_lines
from longview.suites.prefs.world import PrefsWorld, WorldTools
from longview.suites.prefs.wrapper import RESPOND, Realization, Wrapper, _only_questions, respond_spec
from longview.users.base import VerbatimWording

MAX_TURNS = 8

SYSTEM = """You are the long-term personal assistant of {name}.
Today: {day}
Context: {context}

How this works:
- Use the world tools to look things up and to act; completed changes persist.
- When a set_<aspect> tool is offered, call it once, before acting on that aspect. Your choice decides, for the
  rest of this session, which parts of your reply are shown and which of your actions run now or wait for the
  user's approval. Choose what suits this user in this context.
- Deliver every reply through `respond`, filling all fields that apply (the selected settings decide what is shown).
- Label extra work with scope="extra" and multi-part requests with topic=<which request>.
{memory_help}
<memory>
{memory}
</memory>"""

FILE_HELP = "- MEMORY.md is yours: memory_read / memory_append / memory_write keep notes for future sessions."


class ProbeRecord(BaseModel):
    """One probe's outcome."""

    sid: str = Field(description="Probe session id.")
    kind: Literal["final", "pre"] = Field(description="Final or pre-event probe.")
    context: str = Field(description="work / personal.")
    attribute: str = Field(description="Attribute probed.")
    dimension: str = Field(description="Its dimension.")
    attr_kind: str = Field(description="reply / action.")
    target: str = Field(description="Target setting at the probe's date.")
    other_target: str = Field(description="The other context's target at that date.")
    other_evidence: bool = Field(default=False, description="The agent's input at the probe held something the user "
                                 "said in the other context pointing to other_target (carry-over evidence).")
    selected: str | None = Field(description="The PA's selection.")
    observed: str | None = Field(description="Setting the delivered behaviour shows (checks).")
    capability_failure: bool = Field(description="No valid selection (none, or two different settings tried) or no "
                                     "delivered reply.")
    brs_embedded: int = Field(description="Deterministic BRS 1-5 (1 on capability failure).")
    brs_judged: int | None = Field(default=None, description="Judge model's BRS, when a judge is given.")
    brs_input: dict[str, Any] | None = Field(
        default=None, description="What a BRS judge reads of a final probe (request, setting, replies, actions), kept "
        "so `longview rescore` can judge it again without the agent; None for pre-event probes and failures.")
    prs: int | None = Field(default=None, description="The simulated user's rating (final probes).")
    prs_by: str = Field(default="core", description="Who rated: the deterministic core, or the user model (llm:M).")
    changed: bool = Field(default=False, description="The cell has a change event.")
    repeat: int = Field(default=0, description="Probe repeat index at its checkpoint.")


class PrefsCellResult(BaseModel):
    status: str = Field(default="complete", description="complete or aborted.")
    abort_reason: str | None = Field(default=None, description="Why the cell aborted.")
    agent: str = Field(description="Agent.")
    memory: str = Field(description="Memory system.")
    memory_info: str = Field(default="", description="What the memory system ran as (retrieval method, Mem0 mode).")
    user: str = Field(description="User.")
    trial: int = Field(default=0, description="Trial.")
    probes: list[ProbeRecord] = Field(default_factory=list, description="Probe outcomes.")
    sessions: int = Field(default=0, description="Accumulation + change sessions run.")
    corrections: int = Field(default=0, description="Accumulation sessions the user corrected.")
    agent_turns: int = Field(default=0, description="Assistant turns across all sessions.")
    audit: dict[str, Any] = Field(default_factory=dict, description="Leakage audit of simulator messages.")


class PrefsProtocol:
    """The kernel's SessionProtocol for one prefs session."""

    max_rescues = 0

    def __init__(self, wrapper: Wrapper, core: UserCore, scene: Scene, probe: bool, wording, said: list[Said],
                 offer_select: bool = True) -> None:
        self.w, self.core, self.scene, self.probe, self.wording, self.said = wrapper, core, scene, probe, wording, said
        self.control_specs = [respond_spec()]  # set_<attribute> is the wrapper's last tool (see Wrapper)
        self._control = {s.name for s in self.control_specs}
        wrapper.offer_select = offer_select
        self._trace: Any = None
        wrapper.on_select = self._traced_selection
        self.delivered_by_call: dict[str, str] = {}
        self.system = ""  # the session's system prompt (with the memory block), as the agent got it

    def _traced_selection(self, arguments: Any, content: str) -> None:
        if self._trace is not None:
            self._trace.emit("selection", turn=self.w.turn, attribute=self.w.attr.id, arguments=arguments,
                             result=json.loads(content))

    def filter_batch(self, calls: list[ToolCall], turn: int, trace) -> list[ToolCall]:
        self.w.turn, self._trace = turn, trace
        self.w.ids = [c.id for c in calls if c.name not in self._control]
        return calls

    def rescue_note(self, text: str, attempt: int) -> str:
        return ""

    async def on_control(self, call: ToolCall, turn: int, trace) -> ControlResult:
        if call.name == RESPOND:
            content, d = self.w.respond(call.arguments)
            trace.emit("delivery", turn=turn, suppressed=d.suppressed, segments=[s.model_dump() for s in d.segments])
            self.delivered_by_call[call.id] = "" if d.suppressed else d.text
            return ControlResult(content=content, to_user="" if d.suppressed else d.text)
        raise AssertionError(f"not a control tool: {call.name}")  # pragma: no cover - only respond is one

    async def on_text(self, text: str, turn: int, trace) -> ControlResult:
        self.w.text_reply(text)
        return ControlResult(to_user=text)

    async def on_tool_result(self, call: ToolCall, ok: bool, turn: int) -> None:
        return None

    async def user_reply(self, delivered: str, turn: int, trace) -> UserTurn:
        r = self.w.r
        last = r.deliveries[-1] if r.deliveries else None
        if self.core.reacted:
            intent = self.core.close()
        elif last is not None and last.turn == turn and _only_questions(last) and not last.suppressed:
            intent = self.core.answer_questions([s.text for s in last.segments if s.kind == "question"])
            r.answered, self.w.pending_questions = True, 0
        else:
            suppressed = last is None or (last.suppressed and not delivered)
            intent = self.core.react(r, probe=self.probe, suppressed_only=suppressed)
            r.user_turns.append(turn)
        if "release" in intent.grants:
            released = self.w.release()
            trace.emit("released", turn=turn, actions=[a.id for a in released])
        text = (await self.wording.word(intent, delivered)) if intent.draft else None
        if text:
            kind = self.scene.kind  # accumulation, change, probe_final, probe_pre
            self.said.append(Said(sid=self.scene.sid, kind=kind, text=text, trigger=intent.facts.get("trigger", "none"),
                                  wanted=self.core.target))
        trace.emit("user_decision", turn=turn, trigger=intent.facts.get("trigger"), observed=intent.facts.get("observed"),
                   grants=intent.grants)
        return UserTurn(text=text, end=intent.end)


def memory_record(messages: list[Message], proto: PrefsProtocol) -> list[Message]:
    """The public record of a session for the memory system (App. E.4)."""
    hidden = {a.id for a in proto.w.r.actions if a.status in ("held", "dropped", "deferred")}
    out: list[Message] = []
    skip_results: set[str] = set()
    for m in messages:
        if m.role == "assistant":
            calls = [c for c in m.tool_calls if c.name != RESPOND and c.id not in hidden]
            skip_results |= {c.id for c in m.tool_calls if c.name == RESPOND or c.id in hidden}
            if m.content or calls:
                out.append(Message(role="assistant", content=m.content, tool_calls=calls))
            for c in m.tool_calls:
                if c.name == RESPOND and proto.delivered_by_call.get(c.id):
                    out.append(Message(role="assistant", content=proto.delivered_by_call[c.id]))
        elif m.role == "tool":
            if m.tool_call_id not in skip_results:
                out.append(m)
        elif m.role == "user":
            out.append(m)
    return out


class Timeline:
    """Runs one cell."""

    def __init__(self, ctx, data: UserData, memory, agent, wording=None, judge=None, max_turns: int = MAX_TURNS,
                 trace_sessions: bool = True, repeats: int = 1, rater=None) -> None:
        self.ctx, self.data, self.user, self.memory, self.agent = ctx, data, data.user, memory, agent
        self.rater = rater  # a model-backed user's PRS rating (None: the core's)
        self.wording = wording or VerbatimWording()
        self.judge = judge
        self.world: PrefsWorld = data.world.branch()  # records are copied on write
        self.sim = SimState()
        self.said: list[Said] = []
        self.max_turns = max_turns
        self.trace_sessions = trace_sessions
        self.turns = 0
        self.corrections = 0
        self.repeats = repeats
        self._scene_of = {s.sid: s for s in data.sessions}
        self.wording_checks: list[dict] = []  # the model user's rewordings, checked before the assistant sees them

    # -- one session ------------------------------------------------------------------------------
    def _system(self, scene: Scene, memory, target: str) -> str:
        attr = taxonomy().attribute(scene.attribute)
        if hasattr(memory, "set_current"):
            memory.set_current(f"Target: {attr.tool_name} = {target} ({attr.setting(target).definition})")
        tools = memory.tools()
        return SYSTEM.format(name=self.user.profile.name, day=scene.day, context=scene.context,
                             memory_help=FILE_HELP if tools is not None else "",
                             memory=memory.context(scene.request) or "(no memory)")

    def _trace(self, sid: str) -> TraceWriter:
        if self.trace_sessions and self.ctx is not None:
            return self.ctx.trace(sid)
        return TraceWriter(None, sid)

    async def session(self, scene: Scene, world: PrefsWorld, memory, sim: SimState, agent, *, probe: bool,
                      opening: list[Message] | None = None, session_id: str | None = None) -> tuple[Realization, UserCore, Any, PrefsProtocol]:
        attr = taxonomy().attribute(scene.attribute)
        target = self.user.target(scene.context, scene.attribute, scene.day)
        if scene.kit.event is not None and scene.kit.event.id not in world.records:
            world.add(scene.kit.event)
        wrapper = Wrapper(attr, WorldTools(world, scene.context, scene.day), memory.tools())
        core = UserCore(self.user, scene, sim, target)
        core.reacted = opening is not None  # a change transcript already holds the user's reaction
        wording = self.wording.bind(self.user, scene, self.wording_checks) if hasattr(self.wording, "bind") else self.wording
        proto = PrefsProtocol(wrapper, core, scene, probe, wording, self.said, offer_select=opening is None)
        proto.system = self._system(scene, memory, target)
        sid = session_id or scene.sid
        trace = self._trace(sid)
        clock = SimClock(datetime.fromisoformat(scene.day + "T09:00:00"))
        first = opening if opening is not None else [Message(role="user", content=scene.request)]
        if opening is None and scene.opening == "user":  # an event notice is not the user speaking
            self.said.append(Said(sid=scene.sid, kind=scene.kind, text=scene.request, trigger="request"))
        try:
            # Wrapper duck-types Toolkit (schemas/call/spec); kernel's run_session is annotated with the class.
            outcome = await run_session(agent, wrapper, proto,
                                        system=proto.system, opening=first,
                                        session_id=sid, phase=scene.kind, trace=trace, max_turns=self.max_turns,
                                        clock=clock, trigger="notification" if scene.opening == "event" and opening is None
                                        else "user")
        finally:
            trace.close()
        self.turns += outcome.turns
        return wrapper.r, core, outcome, proto

    # -- probes -----------------------------------------------------------------------------------
    async def probe(self, scene: Scene, kind: Literal["final", "pre"], repeat: int = 0) -> ProbeRecord:
        async with self._slot():
            world = self.world.branch()
            for rec in scene.records:
                world.add(rec)
            memory = fork_memory(self.memory)
            agent = self.agent.fork() if hasattr(self.agent, "fork") else self.agent
            sim = self.sim.fork()
            sid = scene.sid if repeat == 0 else f"{scene.sid}~r{repeat}"
            r, core, outcome, proto = await self.session(scene, world, memory, sim, agent, probe=True, session_id=sid)
        attr = taxonomy().attribute(scene.attribute)
        target = core.target
        other = "personal" if scene.context == "work" else "work"
        other_target = self.user.target(other, attr.id, scene.day)
        other_evidence = False
        if other_target != target:
            ev = evidence_sentences(self.said, self._scene_of, other, attr.id, other_target, target)
            recall = agent.recall_text(attr.id) if hasattr(agent, "recall_text") else ""
            seen = "\n".join([proto.system, recall, *(m.content or "" for m in outcome.messages)])
            other_evidence = held(ev, seen)
        # capability failure (App. F.2): no valid selection, or the PA never delivered anything; a PA that
        # tried two different settings (every option stated) made no choice, so its first does not count
        failure = r.selected is None or r.hedged or not r.deliveries
        b = 1 if failure else embedded_brs(attr.id, target, r, scene.kit)
        judged = None
        brs_input = BRSJudge.payload(scene, attr, target, r) if kind == "final" and not failure else None
        if self.judge is not None and kind == "final":
            judged = 1 if failure else await self.judge.score_payload(brs_input or {})
        prs, prs_by = None, "core"
        if kind == "final":
            if self.rater is not None and not failure:
                prs, prs_by = await self.rater.rate(self.user, scene, attr, target, r), self.rater.name
            else:
                prs = core.rate(r, failure)
        return ProbeRecord(
            sid=scene.sid, kind=kind, context=scene.context, attribute=attr.id, dimension=attr.dimension,
            attr_kind=attr.kind, target=target, other_target=other_target, other_evidence=other_evidence,
            selected=r.selected, observed=observe(attr.id, r, scene.kit), capability_failure=failure,
            brs_embedded=b, brs_judged=judged, brs_input=brs_input, prs=prs, prs_by=prs_by,
            changed=any(c.context == scene.context and c.attribute == attr.id for c in self.user.changes),
            repeat=repeat)

    def _slot(self):
        if self.ctx is not None:
            return self.ctx.session()
        import contextlib

        return contextlib.nullcontext()

    def checkpoint(self) -> dict[str, str]:
        """Digests of the state probes must leave untouched (for tests)."""
        import hashlib

        snap = self.memory.snapshot()
        agent_state = {k: v for k, v in vars(self.agent).items() if k in ("last", "cells")}
        return {"world": self.world.digest(),
                "memory": hashlib.sha256(json.dumps(snap, sort_keys=True, default=str).encode()).hexdigest(),
                "simulator": hashlib.sha256(self.sim.model_dump_json().encode()).hexdigest(),
                "agent": hashlib.sha256(repr(sorted(agent_state.items())).encode()).hexdigest()}

    # -- the timeline -----------------------------------------------------------------------------
    async def run(self, *, probe_hook=None) -> list[ProbeRecord]:
        pre_by_sid = {ev.sid: (ev, sc) for ev, sc in zip(self.user.changes, self.data.pre_probes, strict=True)}
        records: list[ProbeRecord] = []
        for scene in self.data.sessions:
            if scene.sid in pre_by_sid:
                ev, pre = pre_by_sid[scene.sid]
                before = self.checkpoint() if probe_hook else None
                records += await gather_sessions(*[self.probe(pre, "pre", k) for k in range(self.repeats)])
                if probe_hook:
                    probe_hook(before, self.checkpoint())
            opening = self._change_opening(scene) if scene.kind == "change" else None
            async with self._slot():
                r, core, outcome, proto = await self.session(scene, self.world, self.memory, self.sim, self.agent,
                                                             probe=False, opening=opening)
            if opening is not None:
                for m in opening:
                    if m.role == "user":
                        trig: Literal["consequence", "new_rule", "request"] = (
                            "consequence" if m is opening[-2] else "new_rule" if m is opening[-1] else "request")
                        self.said.append(Said(sid=scene.sid, kind="change", text=m.content or "", trigger=trig,
                                              wanted=next(c.new for c in self.user.changes if c.sid == scene.sid)))
            self.corrections += any(s.sid == scene.sid and s.trigger == "mismatch" for s in self.said[-4:])
            self.memory.observe(scene.sid, memory_record(outcome.messages, proto), when=f"{scene.day} {scene.context}")
        before = self.checkpoint() if probe_hook else None
        finals = await gather_sessions(*[self.probe(sc, "final", k) for k in range(self.repeats)
                                         for sc in self.data.final_probes])
        if probe_hook:
            probe_hook(before, self.checkpoint())
        return records + list(finals)

    def _change_opening(self, scene: Scene) -> list[Message]:
        """The fixed change transcript: the old setting followed, its consequence met, the new rule stated."""
        ev = next(c for c in self.user.changes if c.sid == scene.sid)
        attr = taxonomy().attribute(scene.attribute)
        from longview.suites.prefs.agents import HabitsPA

        pa = HabitsPA({})
        scratch = Wrapper(attr, WorldTools(self.world.branch(), scene.context, scene.day), None)
        scratch.select({"setting": ev.old})
        payload = next(c.arguments for c in pa.first(attr, ev.old, scene.kit) if c.name == RESPOND)
        reply = scratch.render_preview(payload)
        consequence, rule = change_lines(self.user, scene, ev.old, ev.new)
        call = ToolCall(id="replay_1", name=attr.tool_name, arguments={"setting": ev.old})
        return [Message(role="user", content=scene.request),
                Message(role="assistant", tool_calls=[call]),
                Message(role="tool", content=json.dumps({"ok": True, "active": ev.old}), tool_call_id="replay_1",
                        name=attr.tool_name),
                Message(role="assistant", content=reply),
                Message(role="user", content=consequence),
                Message(role="user", content=rule)]
