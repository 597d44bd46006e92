"""The simulated user's answers to clarifying questions, from facts the scenario holds.

A question (a message with a ``?`` while the user is awake) is about the one live task whose change
it names (its target, as in attribution). The user answers each facet the question asks about:

* **depth** (go ahead / ask first): how far they want the agent to go — the task's expected depth,
  which already reflects their own later instructions;
* **time** (when, by when, deadline): the task's due time;
* **channel** (who gets it, where it goes): the change's recipient or collection, or where a
  calendar entry or reminder lives; for other changes they don't know of anyone else involved;
* **content** (what it should say or include, which one): the task's required facts that the
  user's own records state (its evidence or its trigger); otherwise they don't know.

A question naming no task, several, or one that is not live gets no facts: the user says they
don't know what is meant or asks for one item at a time. A task where nothing is needed (NOOP) is
answered with that, whatever was asked. Nothing here reads an answer key the user could not know.
"""

from __future__ import annotations

import re
from datetime import datetime

from longview.suites.tempo.attribution import proposes
from longview.suites.tempo.schema import Scenario, Task
from longview.suites.tempo.text import contains
from longview.suites.tempo.world import TempoWorld

DEPTH = {  # how far the user wants the agent to go with it
    "execute": "Yes, just go ahead and do it; no need to ask me about that.",
    "suggest": "Send me the exact change as an approval request and I'll decide.",
    "prepare": "Just get it ready for now; don't bring it to me or change anything yet.",
    "noop": "No need, that's already been taken care of.",
}
UNCLEAR = "I'm not sure which thing you mean; ask me about one item at a time."
UNKNOWN = "I don't know what you're asking about."
FACETS = {  # facet -> what a question about it says
    "depth": re.compile(r"\b(go ahead|just do|should i|shall i|want me to|do you want|ok(ay)? (for me )?to|may i|can i|"
                        r"approv\w*|ask(ing)? you|check with you|how far)\b", re.I),
    "time": re.compile(r"\b(when|what time|deadline|due|how soon|which day)\b", re.I),
    "channel": re.compile(r"\b(who|whom|recipient|send (it )?to|which (collection|list|folder|calendar)|where)\b", re.I),
    "content": re.compile(r"\b(include|mention|say|contain|details?|which one|which option|anything specific)\b", re.I),
}
_CHANNEL = {"create_event": "It goes in my calendar.", "set_reminder": "As a reminder on my phone."}


def asked(question: str) -> list[str]:
    """The facets a question asks about, in a fixed order (depth when it names none)."""
    return [f for f, rx in FACETS.items() if rx.search(question)] or ["depth"]


def answer(scenario: Scenario, persona: str, world: TempoWorld, now: datetime, question: str) -> str:
    named = {t.action for t in scenario.tasks if proposes(question, scenario, t)}
    live = [t for t in scenario.tasks if t.id in world.active and world.active[t.id] <= now <= t.due
            and proposes(question, scenario, t)]
    if not named:
        return UNKNOWN
    if len(named) != 1 or not live:
        return UNCLEAR
    t = live[0]
    depth = t.depth[persona]
    if depth == "noop":
        return DEPTH["noop"]
    parts = {"depth": DEPTH[depth], "time": f"I need it done by {t.due:%A %H:%M}.",
             "channel": _channel(scenario, t), "content": _content(scenario, world, t)}
    return " ".join(parts[f] for f in asked(question))


def _channel(scenario: Scenario, t: Task) -> str:
    spec = scenario.action(t.action)  # type: ignore[arg-type]
    args = {**spec.fill, **spec.args}
    if spec.tool == "send_email" and isinstance(args.get("to"), str):
        return f"It should go to my {args['to']}."
    if spec.tool == "save_to_collection" and isinstance(args.get("collection"), str):
        return f"Put it in my {args['collection']}."
    return _CHANNEL.get(spec.tool, "I don't know of anyone else who needs it.")


def _content(scenario: Scenario, world: TempoWorld, t: Task) -> str:
    """The required facts the user's own records or their trigger state (what they would know)."""
    seen = [f"{r.title} {r.body} {r.fields}" for rid in t.evidence if (r := world.records.get(rid))]
    seen += [e.text for e in scenario.events if e.id == t.trigger]
    facts = [f for f in t.include if any(contains(s, f) for s in seen)]
    return f"Make sure it mentions {', '.join(facts)}." if facts else "I don't know anything more than what's in my records."
