"""Reference agents: scripted PAs that solve every task from its kit and differ only in how they
choose the setting.

* ``ref:habits`` — a fixed default per attribute, whatever happened;
* ``ref:recency`` — the last correction it saw for the attribute, in whichever context;
* ``ref:contextual`` — the last correction per (context, attribute), including change events;
* ``ref:oracle`` — the target read from the oracle memory;
* ``ref:reader`` — only what the memory system returns: notes it wrote to MEMORY.md, retrieved raw
  chunks, or the oracle text; the habit when the memory says nothing.
* ``ref:ledger`` — the memory-needing ceiling: it keeps a ledger in MEMORY.md (which setting the user
  accepted or turned down, per context and aspect, and what the reaction pointed to) and chooses
  only from that ledger, eliminating turned-down settings — so a misread reaction costs one more
  session, not the probe. It never reads the oracle line and keeps nothing inside the agent.

Corrections are read by an embedded lexical reader (stemmed overlap with each setting's cue words),
deliberately imperfect: a complaint that only says what was wrong may not say which setting is wanted.
recency/contextual keep what they saw inside the agent (policy baselines with perfect recall of their
own history); they ignore the memory system.
"""

from __future__ import annotations

import copy
import re

from longview.kernel.agent import AssistantTurn, Message, Observation, ToolCall
from longview.suites.prefs.model import Attribute, taxonomy
from longview.suites.prefs.scenes import Kit, Scene
from longview.suites.prefs.wrapper import RESPOND
from longview.text import content_words, stem

ACCEPT_WORDS = {"thanks", "thank", "perfect", "great", "works", "needed"}
CTX_RE = re.compile(r"^Context: (work|personal)$", re.M)
MEM_RE = re.compile(r"<memory>\n(.*?)\n</memory>", re.S)
NOTE_RE = re.compile(r"^- \[(?P<day>[\d-]+) (?P<ctx>work|personal)\] (?P<tool>set_\w+): used (?P<used>\w+);"
                     r"(?: asked: .*?;)? user: (?P<text>.*)$", re.M)
HEAD_RE = re.compile(r"^\[(?P<day>[\d-]+) (?P<ctx>work|personal)\]", re.M)
CALL_RE = re.compile(r'^call (set_\w+)\(\{"setting": "(\w+)"\}\)$', re.M)
ORACLE_RE = re.compile(r"^Target: (set_\w+) = (\w+)", re.M)


def read_setting(attr: Attribute, text: str, used: str | None) -> str | None:
    """The embedded reader: which setting a user's reaction points to (None: cannot tell)."""
    words = content_words(text)
    scores = {s.id: len(words & {stem(c) for c in s.cues}) for s in attr.settings}
    best = max(scores.values())
    if best == 0:
        if used is None:
            return None
        if words & ACCEPT_WORDS and len(words) <= 5:
            return used
        others = [s for s in attr.setting_ids if s != used]
        return others[0]
    tops = [s for s in attr.setting_ids if scores[s] == best]
    if len(tops) > 1 and used in tops:
        tops.remove(used)
    return tops[0]


def read_any(text: str) -> tuple[str, str] | None:
    """Which (attribute, setting) a user's words point to, over the whole inventory (None: unclear)."""
    words = content_words(text)
    scores = [(len(words & {stem(c) for c in s.cues}), a.id, s.id) for a in taxonomy().attributes for s in a.settings]
    best = max(scores)[0]
    tops = [(a, s) for n, a, s in scores if n == best]
    return tops[0] if best > 0 and len(tops) == 1 else None


def session_context(obs: Observation) -> str:
    m = CTX_RE.search(obs.system)
    return m.group(1) if m else "work"


def memory_text(obs: Observation) -> str:
    m = MEM_RE.search(obs.system)
    return m.group(1) if m else ""


def session_day(obs: Observation) -> str:
    m = re.search(r"^Today: ([\d-]+)", obs.system, re.M)
    return m.group(1) if m else ""


def active_attribute(obs: Observation) -> Attribute | None:
    tax = taxonomy()
    for t in obs.tools:
        a = tax.by_tool(t["function"]["name"])
        if a is not None:
            return a
    return None


def last_selection(messages: list[Message]) -> tuple[Attribute | None, str | None, int]:
    tax = taxonomy()
    for i in range(len(messages) - 1, -1, -1):
        for c in messages[i].tool_calls:
            a = tax.by_tool(c.name)
            if a is not None:
                return a, c.arguments.get("setting"), i
    return None, None, -1


class ScriptedPA:
    """Solves the task from the kit; subclasses choose the setting and may learn from reactions."""

    name = "ref:scripted"

    def __init__(self, scenes: dict[str, Scene]) -> None:
        self.scenes = scenes
        self._n = 0
        self.consulted = ""  # what an in-agent recall read for the last choice (part of the agent's input)

    def recall_text(self, attribute: str) -> str:
        """The user's words this agent recalled internally for its last choice (carry-over evidence)."""
        return self.consulted

    # -- policy hooks ----------------------------------------------------------------------------
    def choose(self, attr: Attribute, obs: Observation) -> str:
        return attr.habit

    def learn(self, attr: Attribute, ctx: str, used: str | None, reaction: str, obs: Observation) -> list[ToolCall]:
        """Called on the turn after the user reacted; may return memory calls."""
        return []

    def fork(self) -> ScriptedPA:
        return copy.copy(self)

    # -- mechanics -------------------------------------------------------------------------------
    def _id(self) -> str:
        self._n += 1
        return f"c{self._n}"

    def _call(self, name: str, args: dict) -> ToolCall:
        return ToolCall(id=self._id(), name=name, arguments=args)

    async def act(self, obs: Observation) -> AssistantTurn:
        scene = self.scenes.get(obs.session_id.split("~")[0])  # probe repeats: <sid>~r<k>
        msgs = obs.messages
        attr = active_attribute(obs)
        mine = [m for m in msgs if m.role == "assistant"]
        last = msgs[-1] if msgs else None
        if scene is None:
            return AssistantTurn(text="Done.")
        # A change-event replay or a reaction: learn, then acknowledge.
        sel_attr, used, sel_i = last_selection(msgs)
        if last is not None and last.role == "user" and sel_attr is not None and self._is_reaction(msgs, sel_i, scene):
            reaction = " ".join(m.content or "" for m in msgs[sel_i + 1:] if m.role == "user")
            calls = self.learn(sel_attr, session_context(obs), used, reaction, obs)
            if calls:
                return AssistantTurn(tool_calls=calls)
            return AssistantTurn(text="Understood.")
        if last is not None and last.role == "tool" and mine and any(c.name.startswith("memory_") for c in mine[-1].tool_calls):
            return AssistantTurn(text="Understood.")
        if attr is None:
            return AssistantTurn(text="Understood.")
        kit = scene.kit
        if not any(c.name == attr.tool_name for m in mine for c in m.tool_calls):
            setting = self.choose(attr, obs)
            return AssistantTurn(tool_calls=[self._call(attr.tool_name, {"setting": setting})] + self.first(attr, setting, kit))
        # After the user answered questions (elicitation).
        chosen = next(c.arguments.get("setting") for m in mine for c in m.tool_calls if c.name == attr.tool_name)
        if attr.id == "information_elicitation":
            asked = sum(1 for m in mine for c in m.tool_calls if c.name == RESPOND and c.arguments.get("questions"))
            if chosen == "iterative" and asked < len(kit.questions):
                return AssistantTurn(tool_calls=[self._call(RESPOND, {"answer": "One more thing.",
                                                                     "questions": [kit.questions[asked].text]})])
            calls = [self._call(c.name, dict(c.args)) for c in kit.calls]
            return AssistantTurn(tool_calls=calls + [self._call(RESPOND, {"answer": kit.answer})])
        return AssistantTurn(text="Understood.")

    def _is_reaction(self, msgs: list[Message], sel_i: int, scene: Scene) -> bool:
        """The user spoke after the main reply (not merely answering questions)."""
        after = msgs[sel_i:]
        replay = not any(c.name == RESPOND for m in after for c in m.tool_calls)
        if scene.attribute == "information_elicitation" and not replay:
            # the reaction follows the reply that did the task
            for i, m in enumerate(after):
                if m.role == "assistant" and any(c.name == RESPOND and not c.arguments.get("questions") for c in m.tool_calls):
                    return any(x.role == "user" for x in after[i + 1:])
            return False
        return any(m.role == "user" for m in after)

    def payload(self, attr: Attribute, setting: str, kit: Kit) -> dict:
        """A complete payload, worded for the chosen setting where the wording is the PA's (tone)."""
        answer = kit.answer
        if attr.id == "tone_formality":
            answer = {"casual": f"Hey! Yeah, {answer[0].lower() + answer[1:]} No worries.",
                      "formal": f"Good morning. {answer} Kind regards.",
                      "consultative": f"{answer} What do you think - shall we plan around that?"}[setting]
        p: dict = {"answer": answer}
        if kit.basis:
            p["basis"] = kit.basis
        if kit.supplements:
            p["supplements"] = [s.model_dump() for s in kit.supplements]
        if kit.confidence:
            p["confidence"] = kit.confidence
        if kit.empathy:
            p["empathy"] = kit.empathy
        if kit.term_note:
            p["term_note"] = kit.term_note
        if kit.steps:
            p["steps"] = kit.steps
        if kit.options:
            p["options"] = kit.options
        return p

    def first(self, attr: Attribute, setting: str, kit: Kit) -> list[ToolCall]:
        """The first turn's calls after the selection."""
        c = self._call
        reads = [c(x.name, dict(x.args)) for x in kit.calls if x.role == "read"]
        p = self.payload(attr, setting, kit)
        a = attr.id
        if a == "information_elicitation":
            if setting == "infer":
                return [c(x.name, dict(x.args)) for x in kit.infer_calls] + [c(RESPOND, p)]
            qs = [q.text for q in kit.questions]
            return [c(RESPOND, {"answer": "Happy to book it.", "questions": qs if setting == "structured" else qs[:1]})]
        if a == "proactive_outreach":
            return reads + [c(RESPOND, {"answer": "", "notify": kit.notify})]
        if a == "topic_management":
            todo = kit.calls if setting == "organize" else kit.calls[:1]
            calls = [c(x.name, {**x.args, "topic": x.topic}) for x in todo]
            p["topics"] = [{"topic": x.topic, "text": kit.topic_texts[x.topic]} for x in todo]  # type: ignore[index]  # topic_management kits give every call a topic
            if setting == "organize":
                p["answer"] = kit.answer
            else:
                p["answer"] = "I've started with the first item."
                p["deferral"] = "I've left " + " and ".join(kit.topics[1:]) + " for now - shall I move on to them next?"
            return calls + [c(RESPOND, p)]
        if a == "task_expansion":
            todo = [x for x in kit.calls if x.role != "extra" or setting == "high"]
            if setting == "high":
                p["extra_note"] = kit.extra_note
            return [c(x.name, dict(x.args)) for x in todo] + [c(RESPOND, p)]
        if a == "capability_boundary":
            todo = [x for x in kit.calls if x.role == "blocked" or setting == "suggest_alternatives"]
            if setting == "find_and_hand_off":
                p["handoff"] = kit.handoff
            else:
                rec = next(x for x in kit.calls if x.role == "recovery")
                p["answer"] = f"{kit.answer} I booked a similar place instead ({rec.args['place_id']})."
            return [c(x.name, dict(x.args)) for x in todo] + [c(RESPOND, p)]
        writes = [c(x.name, dict(x.args)) for x in kit.calls if x.role != "read"]
        return reads + writes + [c(RESPOND, p)]


class HabitsPA(ScriptedPA):
    name = "ref:habits"


class RecencyPA(ScriptedPA):
    name = "ref:recency"

    def __init__(self, scenes):
        super().__init__(scenes)
        self.last: dict[str, str] = {}
        self.heard: dict[str, str] = {}

    def choose(self, attr, obs):
        self.consulted = self.heard.get(attr.id, "")
        return self.last.get(attr.id, attr.habit)

    def learn(self, attr, ctx, used, reaction, obs):
        s = read_setting(attr, reaction, used)
        if s is not None and s != used:
            self.last[attr.id], self.heard[attr.id] = s, reaction
        return []

    def fork(self):
        f = copy.copy(self)
        f.last, f.heard = dict(self.last), dict(self.heard)
        return f


class ContextualPA(ScriptedPA):
    name = "ref:contextual"

    def __init__(self, scenes):
        super().__init__(scenes)
        self.cells: dict[tuple[str, str], str] = {}
        self.heard: dict[tuple[str, str], str] = {}

    def choose(self, attr, obs):
        self.consulted = self.heard.get((session_context(obs), attr.id), "")
        return self.cells.get((session_context(obs), attr.id), attr.habit)

    def learn(self, attr, ctx, used, reaction, obs):
        s = read_setting(attr, reaction, used)
        if s is not None:
            self.cells[(ctx, attr.id)], self.heard[(ctx, attr.id)] = s, reaction
        return []

    def fork(self):
        f = copy.copy(self)
        f.cells, f.heard = dict(self.cells), dict(self.heard)
        return f


class OraclePA(ScriptedPA):
    name = "ref:oracle"

    def choose(self, attr, obs):
        for tool, setting in ORACLE_RE.findall(memory_text(obs)):
            if tool == attr.tool_name and setting in attr.setting_ids:
                return setting
        return attr.habit


class ReaderPA(ScriptedPA):
    """Chooses only from what the memory returns; keeps notes in MEMORY.md when it has the tools."""

    name = "ref:reader"

    def choose(self, attr, obs):
        text = memory_text(obs)
        ctx = session_context(obs)
        for tool, setting in ORACLE_RE.findall(text):
            if tool == attr.tool_name and setting in attr.setting_ids:
                return setting
        evidence: list[tuple[str, str, str]] = []  # (day, used, reaction)
        for m in NOTE_RE.finditer(text):
            if m["ctx"] == ctx and m["tool"] == attr.tool_name:
                evidence.append((m["day"], m["used"], m["text"]))
        for chunk in text.split("\n\n"):
            h = HEAD_RE.search(chunk)
            if not h or h["ctx"] != ctx:
                continue
            calls = [(t, s) for t, s in CALL_RE.findall(chunk) if t == attr.tool_name]
            if not calls:
                # a lone raw message: a user's words that point to this attribute count as evidence
                for line in re.findall(r"^user: (.*)$", chunk, re.M):
                    hit = read_any(line)
                    if hit is not None and hit[0] == attr.id:
                        evidence.append((h["day"], "", line))
                continue
            used = calls[-1][1]
            after = chunk.split(f'call {attr.tool_name}(', 1)[1]
            users = re.findall(r"^user: (.*)$", after, re.M)
            if users:
                evidence.append((h["day"], used, " ".join(users)))
        if not evidence:
            return attr.habit
        day, used, reaction = max(evidence, key=lambda e: e[0])
        s = read_setting(attr, reaction, used or None)
        return s or used or attr.habit

    def learn(self, attr, ctx, used, reaction, obs):
        if not any(t["function"]["name"] == "memory_append" for t in obs.tools):
            return []
        reaction = " ".join(reaction.split())
        asked = " ".join((obs.messages[0].content or "").split()) if obs.messages else ""
        note = f"- [{session_day(obs)} {ctx}] {attr.tool_name}: used {used}; asked: {asked}; user: {reaction}"
        return [self._call("memory_append", {"text": note})]


LEDGER_RE = re.compile(r"^- \[(?P<ctx>work|personal)\] (?P<tool>set_\w+): (?P<verdict>ok|no) (?P<used>\w+)"
                       r"(?: -> (?P<hint>\w+))?$", re.M)
NEGATION = {"no", "not", "but", "too", "instead", "rather", "more", "less", "dont", "didnt", "wasnt", "isnt"}


def accepted(reaction: str) -> bool:
    """The user took the reply as it was: a short first sentence of thanks with no objection in it."""
    first = re.split(r"(?<=[.!?])\s", reaction.strip(), maxsplit=1)[0].lower()
    words = re.findall(r"[a-z]+", first.replace("'", ""))
    return 0 < len(words) <= 6 and bool(set(words) & ACCEPT_WORDS) and not set(words) & NEGATION


def ledger_choice(attr: Attribute, ctx: str, memory: str) -> str:
    """The setting the ledger lines of (ctx, attribute) point to, oldest line first: an accepted
    setting stands until it is turned down; a turned-down one is excluded (all exclusions reset when
    a confirmed setting is turned down: the preference changed); the last reaction's pointer is
    tried first, then the habit, then the other settings in order."""
    confirmed: str | None = None
    excluded: set[str] = set()
    hint: str | None = None
    for m in LEDGER_RE.finditer(memory):
        if m["ctx"] != ctx or m["tool"] != attr.tool_name or m["used"] not in attr.setting_ids:
            continue
        used = m["used"]
        if m["verdict"] == "ok":
            confirmed, excluded, hint = used, set(), None
            continue
        excluded = {used} if used == confirmed or len(excluded | {used}) == len(attr.setting_ids) else excluded | {used}
        confirmed = None
        hint = m["hint"] if m["hint"] in attr.setting_ids else None
    if confirmed is not None:
        return confirmed
    for s in [hint, attr.habit, *attr.setting_ids]:
        if s is not None and s not in excluded:
            return s
    return attr.habit


class LedgerPA(ScriptedPA):
    """The memory-needing ceiling: chooses only from its MEMORY.md ledger (none without file memory)."""

    name = "ref:ledger"

    def choose(self, attr, obs):
        return ledger_choice(attr, session_context(obs), memory_text(obs))

    def learn(self, attr, ctx, used, reaction, obs):
        if used is None or not any(t["function"]["name"] == "memory_append" for t in obs.tools):
            return []
        last = obs.messages[-1].content or "" if obs.messages else reaction  # after answers to its questions
        if accepted(last):
            line = f"- [{ctx}] {attr.tool_name}: ok {used}"
        else:
            hint = read_setting(attr, reaction, used)
            line = f"- [{ctx}] {attr.tool_name}: no {used}" + (f" -> {hint}" if hint and hint != used else "")
        return [self._call("memory_append", {"text": line})]


AGENTS = {"ref:habits": HabitsPA, "ref:recency": RecencyPA, "ref:contextual": ContextualPA,
          "ref:oracle": OraclePA, "ref:reader": ReaderPA, "ref:ledger": LedgerPA}
