"""The learning-session user simulator (ATRBench, App. B.3): interface and embedded default.

The simulator holds only the current task (intent, parameters, the gold tool path) — never the
hidden rules. When the orchestrator passes a rule-answer directive it places the literal
``<RULE_ANSWER>`` token in its reply; the orchestrator, not the simulator, substitutes the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from longview.suites.atr.dataset import LearningSession
from longview.suites.atr.scaffold import words

RULE_TOKEN = "<RULE_ANSWER>"
# What the user says to a question its task does not answer, and what the orchestrator substitutes
# for <RULE_ANSWER> on a Classifier miss: a fixed deflection, so nothing is ever made up.
DEFLECTION = "No strong preference on that one, use your judgement."
PATIENCE = 3  # idle exchanges after which the user leaves, so a stuck agent cannot run to the cap
CLOSING_EXCHANGES = 3  # replies the user gives after its closing words before it leaves anyway

# Argument keys of the first gold step that the opening may mention (App. B.3 "sanitized hint").
_OPENING_KEYS = (
    "location", "category", "sender", "folder", "destination", "origin", "service_type", "cuisine",
    "calendar", "file_type", "doc_type",
)
# A closing offer ("anything else I can help with?") is not a question the user has to answer.
_GENERIC_OFFER = re.compile(
    r"\b(anything else|something else|help (you )?with anything|any other (questions|requests|tasks))\b", re.I
)
# The agent asks the user what to do next: the user points at the next step of its guided path.
_STUCK = re.compile(
    r"\b(how (should|do|would) (i|we) (proceed|continue)|what (should|would you like) (i|me to) do( next)?|"
    r"how would you like me to proceed|what('s| is) the next step)\b",
    re.I,
)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")


def questions(message: str) -> list[str]:
    """The sentences of ``message`` that ask the user something (a closing offer does not)."""
    sents = [m.group(0).strip() for m in _SENTENCE.finditer(message)]
    return [q for q in sents if q.endswith("?") and not _GENERIC_OFFER.search(q)]


@dataclass
class UserState:
    """What the simulator has observed in the current session."""

    done_tools: set[str] = field(default_factory=set)  # tools the agent has called successfully
    answered: set[str] = field(default_factory=set)  # task parameters already given
    ok_calls: int = 0  # successful domain calls so far
    calls_at_reply: int = 0  # ok_calls when the user last replied
    idle: int = 0  # consecutive replies to messages that neither asked nor followed any progress
    closing: int = -1  # replies since the user's closing words (-1: not closing yet)


@dataclass
class UserReply:
    text: str
    end: bool


class UserSimulator(Protocol):
    name: str

    async def open(self, session: LearningSession) -> str: ...

    async def reply(
        self, session: LearningSession, state: UserState, agent_message: str, directive: str | None
    ) -> UserReply:
        """Answer the agent; with a directive, include RULE_TOKEN exactly once."""


def task_done(session: LearningSession, state: UserState) -> bool:
    """The task is done when every tool the task needs has been called successfully."""
    needed = set(session.expected_tools) or {s.tool for s in session.gold_trajectory}
    return needed <= state.done_tools


def _fmt(value: object) -> str:
    if isinstance(value, list):
        return "; ".join(_fmt(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k.replace('_', ' ')} {_fmt(v)}" for k, v in value.items())
    return str(value)


class ScriptedUser:
    """Deterministic simulator, behaving as the release's user is told to: opens with the intent,
    answers task questions from the task parameters, deflects questions its task does not answer
    (never picking one side of an either/or), points a stuck agent at the next step, and once
    the task is done closes the conversation gradually — its closing words, then replies while the
    agent is still talking or asking (the moment ``always_ask`` agents ask), and it leaves when the
    agent's message asks nothing more (an acknowledgement, a goodbye or a generic offer of help)."""

    name = "embedded:scripted-user@2"

    async def open(self, session: LearningSession) -> str:
        hint = ""
        if session.gold_trajectory:
            args = session.gold_trajectory[0].arguments
            bits = [f"{k.replace('_', ' ')}: {args[k]}" for k in _OPENING_KEYS if isinstance(args.get(k), (str, int))]
            hint = f" ({'; '.join(bits)})" if bits else ""
        return f"Hi! {session.reason_for_call.rstrip('.')}.{hint}"

    async def reply(
        self, session: LearningSession, state: UserState, agent_message: str, directive: str | None
    ) -> UserReply:
        parts: list[str] = [RULE_TOKEN] if directive is not None else []
        # The rule question itself is answered by the token; other questions by the task.
        asked = [q for q in questions(agent_message) if directive is None or q not in directive]
        progressed = state.ok_calls > state.calls_at_reply
        state.calls_at_reply = state.ok_calls
        state.idle = 0 if (asked or progressed or directive is not None) else state.idle + 1
        if state.closing >= 0:  # the closing exchange
            state.closing += 1
            if not asked and directive is None:
                return UserReply(text="Bye!", end=True)
            if asked:
                parts.append(self._answer(session, state, " ".join(asked)))
            return UserReply(text=" ".join(parts), end=state.closing >= CLOSING_EXCHANGES)
        if asked:
            parts.append(self._answer(session, state, " ".join(asked)))
        if task_done(session, state):
            parts.append("That's everything I needed, thanks.")
            state.closing = 0
            return UserReply(text=" ".join(parts), end=False)
        if state.idle >= PATIENCE:
            parts.append("Let's leave it there for today.")
            return UserReply(text=" ".join(parts), end=True)
        if not asked:
            parts.append("Sounds good, please go ahead.")
        return UserReply(text=" ".join(parts), end=False)

    def _answer(self, session: LearningSession, state: UserState, asked: str) -> str:
        q = words(asked)
        params = session.task_params
        keys = [k for k in params if (words(k) | words(_fmt(params[k]))) & q]
        if keys:
            state.answered.update(keys)
            return " ".join(f"{k.replace('_', ' ').capitalize()}: {_fmt(params[k])}." for k in keys)
        if _STUCK.search(asked):
            nxt = next((st.tool for st in session.gold_trajectory if st.tool not in state.done_tools), None)
            if nxt:
                return f"I think the next thing is to {nxt.replace('_', ' ')}."
        return DEFLECTION
