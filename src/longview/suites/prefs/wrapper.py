"""The interaction wrapper (MemPABench App. E): selected settings + the PA's payload in, the public
interaction and executed-or-held actions out.

At a decision point the PA selects a setting for the session's attribute through ``set_<attribute>``
— once per session; the choice stays active. It then hands its reply as a structured payload to
``respond``. The wrapper realises the selected setting through one of four mechanisms: pass-through
(tone: the PA's wording is delivered as written), selective rendering (which payload parts appear
and in what order), delivery scheduling (questions, outreach) and execution control (which proposed
world writes run and which are held; held items keep their ids and run when the user approves).
The wrapper never sees the target setting and cannot correct a wrong choice: it only applies the
selection it was given. Everything it did is kept in a :class:`Realization`, which the
deterministic checks, the simulated user and the metrics read.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field

from longview.kernel.tools import ParamSpec, ToolKind, Toolkit, ToolResult, ToolSpec
from longview.suites.prefs.model import Attribute
from longview.suites.prefs.world import EXTERNAL, WorldTools, effect_of

RESPOND = "respond"
SUPPLEMENT_CATEGORIES = ("background", "caveat", "boundary", "consequence", "alternative")

NARRATE = {
    "list_events": "Checking your calendar.", "search_mail": "Looking through your mail.",
    "search_contacts": "Looking up the contact.", "list_files": "Opening your documents.",
    "search_places": "Searching for places.", "search_products": "Searching the shop.",
    "list_trips": "Checking your trips.", "update_event": "Updating the calendar entry.",
    "create_event": "Adding the calendar entry.", "edit_file": "Editing the document.",
    "send_email": "Sending the email.", "book_place": "Making the booking.", "order_product": "Placing the order.",
    "get_event": "Opening the calendar entry.", "read_email": "Reading the message.", "read_file": "Reading the document.",
    "get_place": "Looking at the place's details.", "check_availability": "Checking availability.",
    "list_orders": "Checking your orders.", "list_bookings": "Checking your bookings.",
    "cancel_event": "Cancelling the calendar entry.", "create_file": "Creating the document.",
    "add_contact": "Adding the contact.", "reply_email": "Sending the reply.", "cancel_booking": "Cancelling the booking.",
}


class Segment(BaseModel):
    kind: str = Field(description="answer, basis, supplement:<cat>, empathy, term, step, option, question, "
                                  "topic, deferral, extra, handoff, notify, narration, text.")
    text: str = Field(description="The rendered text.")


class Delivered(BaseModel):
    turn: int = Field(description="Assistant turn.")
    segments: list[Segment] = Field(default_factory=list, description="What was rendered, in order.")
    suppressed: bool = Field(default=False, description="Outreach withheld by the selected setting.")

    @property
    def text(self) -> str:
        return render_text(self.segments)


class Action(BaseModel):
    id: str = Field(description="Call id (kept while held).")
    turn: int = Field(description="Turn it was proposed.")
    name: str = Field(description="World tool.")
    args: dict[str, Any] = Field(default_factory=dict, description="Arguments.")
    effect: str | None = Field(default=None, description="internal / external / None for reads.")
    status: Literal["executed", "failed", "held", "released", "dropped", "deferred"] = Field(description="Outcome.")
    error: str | None = Field(default=None, description="Error text when failed.")
    capability_limit: bool = Field(default=False, description="Failed on a capability limit.")
    released_turn: int | None = Field(default=None, description="Turn a held action ran after approval.")


class Realization(BaseModel):
    """What the wrapper did in one session (the public record the checks read)."""

    attribute: str = Field(description="The session's attribute.")
    selected: str | None = Field(default=None, description="The PA's selection (None: never selected).")
    select_turn: int | None = Field(default=None, description="Turn of the selection.")
    invalid_selections: int = Field(default=0, description="Selections rejected (unknown setting or a second call).")
    hedged: bool = Field(default=False, description="The PA also tried to select a different known setting in the "
                         "session (stating every option): its selection does not count (a capability failure).")
    deliveries: list[Delivered] = Field(default_factory=list, description="Replies, in order.")
    actions: list[Action] = Field(default_factory=list, description="Every proposed world call, in order.")
    user_turns: list[int] = Field(default_factory=list, description="Turns after which the user spoke.")
    answered: bool = Field(default=False, description="The user has answered the PA's questions.")
    approved: bool = Field(default=False, description="The user approved held actions.")

    def final(self) -> Delivered | None:
        """The main reply: the last delivery before the user first reacted, else the last one."""
        first_user = self.user_turns[0] if self.user_turns else None
        cands = [d for d in self.deliveries if not d.suppressed and not _only_questions(d)]
        if first_user is not None:
            before = [d for d in cands if d.turn <= first_user]
            after_q = [d for d in cands if d.turn > first_user]
            if before:
                return before[-1]
            return after_q[0] if after_q else None
        return cands[-1] if cands else None


def _only_questions(d: Delivered) -> bool:
    """A delivery that asks the user something: a question turn, not the main reply."""
    return any(s.kind == "question" for s in d.segments)


def render_text(segments: list[Segment]) -> str:
    out: list[str] = []
    for s in segments:
        if s.kind == "step":
            out.append(f"{len([x for x in out if x[:1].isdigit()]) + 1}. {s.text}")
        elif s.kind == "option":
            out.append(f"- {s.text}")
        else:
            out.append(s.text)
    return "\n".join(out)


def _str_list(v: Any) -> list[str]:
    return [str(x) for x in v] if isinstance(v, list) else ([] if v in (None, "") else [str(v)])


@lru_cache(maxsize=1)
def respond_spec() -> ToolSpec:
    def p(name, type_, desc, req=False):
        return ParamSpec(name=name, type=type_, required=req, description=desc)

    return ToolSpec(
        name=RESPOND, kind=ToolKind.WRITE, tags=["wrapper"],
        description="Deliver your reply to the user. Fill every field that applies; the interaction settings you "
                    "selected decide which parts are shown, in what order, and whether questions or notices go out.",
        parameters=[
            p("answer", "string", "The answer or task result, in your own words (tone is yours).", True),
            p("basis", "string", "Why the answer holds (the reasoning behind it)."),
            p("supplements", "array[object]", "Supporting moves: objects {category, text}; category one of "
              + ", ".join(SUPPLEMENT_CATEGORIES) + "."),
            p("confidence", "enum[low|medium|high]", "How well the facts support the answer."),
            p("empathy", "string", "One sentence acknowledging the user's situation."),
            p("term_note", "string", "Explanation of a term the user may not know."),
            p("steps", "array[string]", "Ordered steps."),
            p("options", "array[string]", "Distinct viable options, your recommendation first."),
            p("questions", "array[string]", "Questions for missing required information."),
            p("topics", "array[object]", "Per-topic report chunks: objects {topic, text}."),
            p("deferral", "string", "What you are leaving for later and asking before moving on to."),
            p("extra_note", "string", "What you did beyond the request."),
            p("handoff", "string", "What is blocked and what the user must do next."),
            p("notify", "string", "A message to the user about an event (only when no request is open)."),
        ],
    )


@lru_cache(maxsize=32)
def _select_spec(attr_id: str) -> ToolSpec:
    from longview.suites.prefs.model import taxonomy

    return select_spec_of(taxonomy().attribute(attr_id))


def select_spec(attr: Attribute) -> ToolSpec:
    return _select_spec(attr.id)


def select_spec_of(attr: Attribute) -> ToolSpec:
    lines = "; ".join(f"{s.id}: {s.definition}" for s in attr.settings)
    return ToolSpec(
        name=attr.tool_name, kind=ToolKind.WRITE, tags=["wrapper"],
        description=f"Choose how to handle {attr.name.lower()} for the rest of this session (call once, before "
                    f"acting on it). Settings - {lines}",
        parameters=[ParamSpec(name="setting", type="enum[" + "|".join(attr.setting_ids) + "]", required=True,
                              description="The setting to apply.")],
    )


class Wrapper:
    """One session's wrapper. ``env`` is what the kernel calls for domain tools (world + memory)."""

    def __init__(self, attr: Attribute, world_tools: WorldTools, memory_tools: Toolkit | None,
                 offer_select: bool = False) -> None:
        self.attr = attr
        # The session's set_<attribute> tool comes LAST in the tool list: everything before it is the
        # same in every session, so a session's first request shares a long prefix with the previous
        # session's (prompt caching). It is served here, as a tool, rather than as a kernel control
        # tool (those always come first).
        self.offer_select = offer_select
        self.on_select: Any = None  # set by the protocol: traces each selection
        self.world_tools = world_tools
        self.memory_tools = memory_tools
        self.r = Realization(attribute=attr.id)
        self.turn = 0
        self.first_topic: str | None = None
        self.limit_turn: int | None = None
        self.pending_questions = 0
        self.ids: list[str] = []  # ids of this turn's domain calls, in execution order (set by the protocol)

    # -- the kernel's env interface -------------------------------------------------------------
    def schemas(self) -> list[dict]:
        out = list(self.world_tools.schemas())
        if self.memory_tools is not None:
            out += self.memory_tools.schemas()
        if self.offer_select:
            out.append(select_spec(self.attr).json_schema())
        return out

    def spec(self, name: str) -> ToolSpec | None:
        if self.offer_select and name == self.attr.tool_name:
            return select_spec(self.attr)
        s = self.world_tools.spec(name)
        if s is None and self.memory_tools is not None:
            s = self.memory_tools.spec(name)
        return s

    def call(self, name: str, args: Any) -> ToolResult:
        if self.offer_select and name == self.attr.tool_name:
            if self.ids:
                self.ids.pop(0)
            content = self.select(args if isinstance(args, dict) else {})
            if self.on_select is not None:
                self.on_select(args, content)
            body = json.loads(content)
            return ToolResult(ok="error" not in body, output=body, error=body.get("error"))
        if self.memory_tools is not None and self.memory_tools.spec(name) is not None:
            if self.ids:
                self.ids.pop(0)
            return self.memory_tools.call(name, args)
        spec = self.world_tools.spec(name)
        if spec is None:
            return ToolResult(ok=False, error=f"Unknown tool: {name}")
        args = args if isinstance(args, dict) else {}
        cid = self.ids.pop(0) if self.ids else f"act_{len(self.r.actions) + 1}"
        effect = effect_of(self.world_tools, name)
        act = Action(id=cid, turn=self.turn, name=name, args=dict(args), effect=effect, status="executed")
        if effect is not None:
            hold = self._decide(act)
            if hold is not None:
                act.status = hold
                self.r.actions.append(act)
                msg = {"held": "held until the user approves", "dropped": "not performed: outside the request",
                       "deferred": "not performed yet: waiting for the user"}[hold]
                if hold == "deferred" and self.r.selected is None:
                    msg = f"not performed: choose a setting with {self.attr.tool_name} first"
                return ToolResult(ok=True, output={"status": hold, "action_id": cid, "note": msg})
        res = self.world_tools.call(name, args)
        if not res.ok:
            act.status, act.error = "failed", res.error
            act.capability_limit = bool(res.error and res.error.startswith("Capability limit"))
            if act.capability_limit and self.limit_turn is None:
                self.limit_turn = self.turn
        self.r.actions.append(act)
        return res

    # -- execution control ----------------------------------------------------------------------
    def _decide(self, act: Action) -> Literal["held", "dropped", "deferred"] | None:
        a, s = self.attr.id, self.r.selected
        if self.attr.kind == "action" and s is None:
            return "deferred"  # the required interaction-tool call comes first
        scope = act.args.get("scope", "requested")
        topic = act.args.get("topic")
        if a == "autonomy_level":
            if s == "reactive" or (s == "self_directed" and act.effect == EXTERNAL):
                return None if self.r.approved else "held"
        elif a == "task_expansion":
            if scope == "extra" and s == "low":
                return "dropped"
        elif a == "topic_management":
            if topic:
                if self.first_topic is None:
                    self.first_topic = topic
                if s == "one_at_a_time" and topic != self.first_topic and not self.r.approved:
                    return "held"
        elif a == "capability_boundary":
            if self.limit_turn is not None and s == "find_and_hand_off" and not self.r.approved:
                return "held"
        elif a == "information_elicitation":
            if s in ("structured", "iterative") and self.pending_questions and not self.r.answered:
                return "deferred"
        return None

    def release(self) -> list[Action]:
        """The user approved: held actions run now, under the ids they were held with."""
        self.r.approved = True
        out = []
        for act in self.r.actions:
            if act.status == "held":
                res = self.world_tools.call(act.name, act.args)
                act.status = "released" if res.ok else "failed"
                act.error = None if res.ok else res.error
                act.released_turn = self.turn
                out.append(act)
        return out

    # -- control tools --------------------------------------------------------------------------
    def select(self, args: dict) -> str:
        setting = (args or {}).get("setting")
        if self.r.selected is not None:
            self.r.invalid_selections += 1
            self.r.hedged = self.r.hedged or (setting in self.attr.setting_ids and setting != self.r.selected)
            return json.dumps({"error": f"already selected {self.r.selected!r} for this session"})
        if setting not in self.attr.setting_ids:
            self.r.invalid_selections += 1
            return json.dumps({"error": f"setting must be one of {self.attr.setting_ids}"})
        self.r.selected, self.r.select_turn = setting, self.turn
        return json.dumps({"ok": True, "active": setting})

    def respond(self, args: dict) -> tuple[str, Delivered]:
        """Render a payload under the selection; returns the tool result and the delivery."""
        segs = self._render(args or {})
        d = Delivered(turn=self.turn, segments=segs)
        if self.attr.id == "proactive_outreach" and any(s.kind == "notify" for s in segs) and self.r.selected != "high":
            d = Delivered(turn=self.turn, segments=[], suppressed=True)
        self.r.deliveries.append(d)
        n_q = sum(s.kind == "question" for s in d.segments)
        if n_q:
            self.pending_questions += n_q
            self.r.answered = False
        status = "suppressed" if d.suppressed else "delivered"
        return json.dumps({"status": status}), d

    def text_reply(self, text: str) -> Delivered:
        d = Delivered(turn=self.turn, segments=[Segment(kind="text", text=text)])
        self.r.deliveries.append(d)
        return d

    def render_preview(self, payload: dict) -> str:
        """The text a payload would render to under the current selection, without recording it."""
        return render_text(self._render(payload))

    def _render(self, p: dict) -> list[Segment]:
        a, s = self.attr.id, self.r.selected
        active = lambda attr_id: a == attr_id  # noqa: E731
        segs: list[Segment] = []
        answer = str(p.get("answer") or "").strip()
        if active("emotional_engagement") and s == "relationship_focused" and p.get("empathy"):
            segs.append(Segment(kind="empathy", text=str(p["empathy"])))
        executed = [x for x in self.r.actions if x.status in ("executed", "failed") and x.turn <= self.turn]
        if active("process_visibility") and executed:
            if s == "full":
                segs += [Segment(kind="narration", text=NARRATE.get(x.name, f"Ran {x.name}.")) for x in executed]
            elif s == "bookend":
                segs.append(Segment(kind="narration", text="Let me look into it. " + NARRATE.get(executed[0].name, "")))
        if active("reasoning_visibility") and s == "show" and p.get("basis"):
            segs.append(Segment(kind="basis", text=str(p["basis"])))
        if answer:
            if active("uncertainty_expression") and s == "express" and p.get("confidence"):
                answer = f"{answer} (confidence: {p['confidence']})"
            segs.append(Segment(kind="answer", text=answer))
        if active("verbosity") and s == "detailed":
            for sup in p.get("supplements") or []:
                if isinstance(sup, dict) and sup.get("text"):
                    cat = sup.get("category") if sup.get("category") in SUPPLEMENT_CATEGORIES else "background"
                    segs.append(Segment(kind=f"supplement:{cat}", text=str(sup["text"])))
        if active("guidance_level") and s == "scaffolded":
            if p.get("term_note"):
                segs.append(Segment(kind="term", text=str(p["term_note"])))
            segs += [Segment(kind="step", text=t) for t in _str_list(p.get("steps"))]
        options = _str_list(p.get("options"))
        if options:
            shown = options[:1] if (active("solution_breadth") and s == "low") else options
            segs += [Segment(kind="option", text=o) for o in shown]
        topics = [t for t in (p.get("topics") or []) if isinstance(t, dict) and t.get("text")]
        for t in topics:
            segs.append(Segment(kind="topic", text=f"{t.get('topic', 'Item')}: {t['text']}"))
        if p.get("deferral"):
            segs.append(Segment(kind="deferral", text=str(p["deferral"])))
        if p.get("extra_note"):
            segs.append(Segment(kind="extra", text=str(p["extra_note"])))
        questions = _str_list(p.get("questions"))
        if questions:
            if active("information_elicitation"):
                questions = [] if s == "infer" else questions[:1] if s == "iterative" else questions
            segs += [Segment(kind="question", text=q) for q in questions]
        if p.get("notify"):
            segs.append(Segment(kind="notify", text=str(p["notify"])))
        if p.get("handoff"):
            segs.append(Segment(kind="handoff", text=str(p["handoff"])))
        if active("process_visibility") and s == "bookend" and executed:
            segs.append(Segment(kind="narration", text=f"All done - {len(executed)} steps checked."))
        return segs

