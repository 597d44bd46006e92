"""The simulated user: a deterministic core that reacts to delivered behaviour, an optional model
that only rewords, and the leakage audit over every message it sends.

The core never sees the PA's selection, only what was delivered (through the deterministic checks'
observed setting). In accumulation sessions it accepts a match, and corrects a mismatch in its own
everyday words — a reaction to what it just got, sometimes with what it would have wanted; in probes
it takes the answer without comment on its manner; it never states a preference without a
behavioural trigger. Its own memory (dated entries of how the PA treated it, no task details) is part
of the checkpointed state.
"""

from __future__ import annotations

import random
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from longview.kernel.stats import seed_from
from longview.suites.prefs.checks import observe
from longview.suites.prefs.dataset import User
from longview.suites.prefs.model import IsoDate, taxonomy
from longview.suites.prefs.scenes import Scene
from longview.suites.prefs.wrapper import Realization
from longview.users.base import UserIntent

ACCEPT = ["Thanks, that's what I needed.", "Great, thank you.", "Perfect, thanks.", "That works, thanks."]
CLOSE = ["Thanks.", "Okay, thanks.", "Got it.", "Alright."]
PROBE_ACK = ["Okay.", "Thanks.", "Noted."]
APPROVE = "Yes, go ahead with it."
CONTEXT_PHRASE = {"work": "for work things", "personal": "for my own life outside work"}


class SimEntry(BaseModel):
    """One dated entry of the simulator's memory (how the PA treated the user; no task details)."""

    model_config = ConfigDict(frozen=True)  # appended, never changed: a fork shares them

    day: IsoDate = Field(description="ISO date.")
    context: str = Field(description="work / personal.")
    attribute: str = Field(description="Attribute the session exercised.")
    outcome: Literal["matched", "corrected", "rule_stated", "unclear"] = Field(
        description="What happened (unclear: the reply showed no setting).")


class SimState(BaseModel):
    entries: list[SimEntry] = Field(default_factory=list, description="Dated entries, oldest first.")

    def fork(self) -> SimState:
        """An independent state for a probe branch: its own list of the same (frozen) entries. A deep
        copy per probe cost more CPU than the model call it served (profiled)."""
        return SimState.model_construct(entries=list(self.entries))

    def mismatches(self, context: str, attribute: str) -> int:
        return sum(e.context == context and e.attribute == attribute and e.outcome == "corrected" for e in self.entries)


class Said(BaseModel):
    """One simulator message, with why it was said (for the leakage audit)."""

    sid: str
    kind: str
    text: str
    trigger: Literal["request", "facts", "match", "mismatch", "unclear", "consequence", "new_rule", "close", "probe",
                     "approval", "none"]
    wanted: str | None = None  # the user's target when it said this (reactions only; for carry-over evidence)


class UserCore:
    """Decisions of one session's simulated user."""

    def __init__(self, user: User, scene: Scene, state: SimState, target: str) -> None:
        self.user, self.scene, self.state, self.target = user, scene, state, target
        self.rng = random.Random(seed_from(user.id, scene.sid, "sim"))
        self.reacted = False
        self.rating: int | None = None

    def _pick(self, xs: list[str]) -> str:
        return xs[self.rng.randrange(len(xs))]

    def answer_questions(self, questions: list[str]) -> UserIntent:
        out = []
        for q in questions:
            ql = q.lower()
            for fact in self.scene.kit.questions:
                if fact.slot == "time" and ("time" in ql or "when" in ql):
                    out.append(fact.answer)
                elif fact.slot == "party" and any(w in ql for w in ("how many", "people", "party", "guests", "number")):
                    out.append(fact.answer)
        text = " ".join(dict.fromkeys(out)) or "I don't have more to add on that."
        return UserIntent(draft=text, facts={"trigger": "facts"})

    def react(self, r: Realization, *, probe: bool, suppressed_only: bool = False) -> UserIntent:
        """The reaction to the main delivered reply (or to its absence, for a withheld notice)."""
        attr = taxonomy().attribute(self.scene.attribute)
        seen = observe(attr.id, r, self.scene.kit)
        held = any(a.status == "held" for a in r.actions)
        if probe:
            self.reacted = True
            return UserIntent(draft=self._pick(PROBE_ACK), end=True, facts={"trigger": "probe", "observed": seen})
        self.reacted = True
        if suppressed_only and self.target == "low":
            return UserIntent(draft="", end=True, facts={"trigger": "none", "observed": seen})
        if seen == self.target:
            self.state.entries.append(SimEntry(day=self.scene.day, context=self.scene.context, attribute=attr.id,
                                               outcome="matched"))
            draft = self._pick(ACCEPT)
            grants = []
            if held:
                draft, grants = f"{draft} {APPROVE}", ["release"]
            return UserIntent(draft=draft, grants=grants, facts={"trigger": "match", "observed": seen})
        if seen is None:
            # Nothing in the reply shows how it was handled: a person has nothing to object to and
            # nothing to approve of; they take the answer (approving held work so the task ends).
            self.state.entries.append(SimEntry(day=self.scene.day, context=self.scene.context, attribute=attr.id,
                                               outcome="unclear"))
            draft, grants = self._pick(CLOSE), []
            if held:
                draft, grants = f"{draft} {APPROVE}", ["release"]
            return UserIntent(draft=draft, grants=grants, facts={"trigger": "unclear", "observed": None})
        # A mismatch: react to what was delivered, sometimes adding what would have suited.
        parts = [self._pick(attr.complaints(seen, self.target))]
        repeat = self.state.mismatches(self.scene.context, attr.id)
        if self.rng.random() < self.user.states_rule or repeat >= 1:
            want = attr.setting(self.target).want
            parts.append(want[min(repeat, len(want) - 1)])
        grants = []
        if held:
            parts.append(APPROVE)
            grants = ["release"]
        self.state.entries.append(SimEntry(day=self.scene.day, context=self.scene.context, attribute=attr.id,
                                           outcome="corrected"))
        return UserIntent(draft=" ".join(parts), grants=grants, facts={"trigger": "mismatch", "observed": seen})

    def close(self) -> UserIntent:
        return UserIntent(draft=self._pick(CLOSE), end=True, facts={"trigger": "close"})

    def rate(self, r: Realization, capability_failure: bool) -> int:
        """Perceived Realization Score (1-5): the user's own reception of the final-probe reply."""
        if capability_failure:
            return 1
        seen = observe(self.scene.attribute, r, self.scene.kit)
        if seen == self.target:
            return 5
        if seen is None:
            return 2 + self.user.lenience
        return 1 + self.user.lenience


def change_lines(user: User, scene: Scene, old: str, new: str) -> tuple[str, str]:
    """The fixed lines of a change event: meeting the old behaviour's consequence, then the new rule."""
    attr = taxonomy().attribute(scene.attribute)
    rng = random.Random(seed_from(user.id, scene.sid, "change"))
    lines = attr.complaints(old, new)
    consequence = f"About {scene.noun}: {lines[rng.randrange(len(lines))]}"
    rule = f"{attr.setting(new).want[0]} That's how I'd like it from now on, {CONTEXT_PHRASE[scene.context]}."
    return consequence, rule


def user_phrases() -> list[str]:
    """Every preference sentence the simulator can say (wants and complaints of every setting)."""
    return [p for a in taxonomy().attributes for s in a.settings for p in s.want + [c.say for c in s.complaint]]


# ------------------------------------------------------------------------------------------
# Leakage audit
EARLIER = re.compile(r"\b(last time|as i said|i told you|previously|before,? i|again)\b", re.I)


def audit(said: list[Said]) -> dict:
    """Every simulator message checked for: benchmark vocabulary; a preference statement without a
    behavioural trigger; in probes, references to earlier sessions or feedback on manner."""
    tax = taxonomy()
    jargon = [re.compile(r"(?<![a-z])" + re.escape(t) + r"(?![a-z])", re.I) for t in tax.jargon()]
    phrases = {p.lower() for p in user_phrases()}
    leaks = []
    for m in said:
        low = m.text.lower()
        if any(j.search(m.text) for j in jargon):
            leaks.append({"sid": m.sid, "why": "benchmark vocabulary", "text": m.text})
            continue
        states = any(p in low for p in phrases)
        if states and m.trigger not in ("mismatch", "consequence", "new_rule"):
            leaks.append({"sid": m.sid, "why": "preference stated without a behavioural trigger", "text": m.text})
        elif m.kind.startswith("probe") and (EARLIER.search(m.text) or states):
            leaks.append({"sid": m.sid, "why": "probe refers to earlier sessions or comments on manner", "text": m.text})
    return {"messages": len(said), "leaks": len(leaks), "examples": leaks[:5]}
