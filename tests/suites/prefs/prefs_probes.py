"""Probe agents that do no real work (issue 23): they must score PSA at the floor.

* ``EchoPA`` pastes the user's message back as plain text and calls nothing;
* ``EchoRespondPA`` pastes it back through ``respond`` without selecting a setting;
* ``EveryOptionPA`` states every option: it calls ``set_<attribute>`` once per setting in one
  batch and fills every ``respond`` field, so whatever the target, one of its choices matches;
* ``AskEverythingPA`` asks the user, before choosing, which way they want every aspect handled,
  then chooses from what the user answered (the first setting when the answer says nothing).
"""

from __future__ import annotations

from longview.kernel.agent import AssistantTurn, Observation
from longview.suites.prefs.agents import ScriptedPA, active_attribute, read_setting
from longview.suites.prefs.model import taxonomy
from longview.suites.prefs.wrapper import RESPOND


class EchoPA:
    name = "probe:echo"

    async def act(self, obs: Observation) -> AssistantTurn:
        last = next((m.content for m in reversed(obs.messages) if m.role == "user" and m.content), "")
        return AssistantTurn(text=last or "Noted.")


class EchoRespondPA(ScriptedPA):
    name = "probe:echo-respond"

    async def act(self, obs: Observation) -> AssistantTurn:
        if any(m.role == "assistant" for m in obs.messages):
            return AssistantTurn(text="Understood.")
        request = next((m.content for m in obs.messages if m.role == "user" and m.content), "Noted.")
        return AssistantTurn(tool_calls=[self._call(RESPOND, {"answer": request})])


def every_field(kit) -> dict:
    """A respond payload with every part filled (all options, all questions, every note)."""
    p: dict = {"answer": kit.answer, "basis": kit.basis or "Here is why.", "confidence": kit.confidence or "medium",
               "empathy": kit.empathy or "That sounds like a lot.", "term_note": kit.term_note or "A note on terms.",
               "steps": kit.steps or ["First step.", "Second step."], "options": kit.options or ["One way.", "Another way."],
               "questions": [q.text for q in kit.questions] or ["Anything else?"],
               "supplements": [s.model_dump() for s in kit.supplements]}
    for k in ("handoff", "extra_note", "notify"):
        if getattr(kit, k, None):
            p[k] = getattr(kit, k)
    return p


class EveryOptionPA(ScriptedPA):
    name = "probe:every-option"

    async def act(self, obs: Observation) -> AssistantTurn:
        attr = active_attribute(obs)
        scene = self.scenes.get(obs.session_id.split("~")[0])
        if attr is None or scene is None or any(m.role == "assistant" for m in obs.messages):
            return AssistantTurn(text="Understood.")
        calls = [self._call(attr.tool_name, {"setting": s}) for s in attr.setting_ids]
        work = [self._call(c.name, dict(c.args)) for c in scene.kit.calls]
        return AssistantTurn(tool_calls=calls + work + [self._call(RESPOND, every_field(scene.kit))])


class AskEverythingPA(ScriptedPA):
    name = "probe:ask-everything"

    async def act(self, obs: Observation) -> AssistantTurn:
        attr = active_attribute(obs)
        scene = self.scenes.get(obs.session_id.split("~")[0])
        mine = [m for m in obs.messages if m.role == "assistant"]
        if attr is None or scene is None:
            return AssistantTurn(text="Understood.")
        if not mine:
            qs = [f"For {a.name.lower()}, do you want " + " or ".join(f"{s.label.lower()} ({s.definition})" for s in a.settings) + "?"
                  for a in taxonomy().attributes]
            return AssistantTurn(tool_calls=[self._call(RESPOND, {"answer": "Before I start, a few questions.",
                                                                  "questions": qs})])
        if any(c.name == attr.tool_name for m in mine for c in m.tool_calls):
            return AssistantTurn(text="Understood.")
        answer = " ".join(m.content or "" for m in obs.messages[1:] if m.role == "user")
        setting = read_setting(attr, answer, None) or attr.setting_ids[0]
        return AssistantTurn(tool_calls=[self._call(attr.tool_name, {"setting": setting})]
                             + self.first(attr, setting, scene.kit))
