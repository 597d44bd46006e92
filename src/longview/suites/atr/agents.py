"""Scripted reference agents: validity bounds that act only through the same tools as any agent.

They may follow a learning session's gold trajectory to finish the current task (they bound asking
and applying, not task execution). In test sessions they discover objects through the tools, then
decide with a structured behaviour:

- ``ref:passive`` never asks about standing rules and applies the counterfactual default;
- ``ref:asker`` asks one standing-rule question per learning session about the decision it just
  made, and at test time applies the rules whose answers actually reached its context;
- ``ref:oracle`` applies the test-bound rule's structured preference.

Their state is re-derived from the observation each turn, so they are deterministic and resumable.
"""

from __future__ import annotations

import json

from longview.kernel.agent import AssistantTurn, Observation, ToolCall
from longview.kernel.errors import ConfigError
from longview.suites.atr import policy
from longview.suites.atr.dataset import Episode, LearningSession, StandingRule, TestSession
from longview.suites.atr.preference import Preference, Step
from longview.suites.atr.protocol import FINISH_SESSION, SEND_TO_USER

REFERENCE_AGENTS = {
    "ref:passive": "default",
    "ref:asker": "atr",
    "ref:oracle": "oracle_target",
}  # agent -> the variant it runs by default


def _n_turns(obs: Observation) -> int:
    return sum(1 for m in obs.messages if m.role == "assistant")


def _call(obs: Observation, turn: int, i: int, name: str, args: dict) -> ToolCall:
    """Call ``i`` of the batch on assistant turn ``turn`` (ids unique within the session)."""
    return ToolCall(id=f"{obs.session_id}-t{turn}-{i}", name=name, arguments=args)


def _surface_phrase(tool: str) -> str:
    return tool.replace("_", " ")


def targeted_question(domain: str, tool: str) -> str:
    """A standing-rule question that names the decision and its options, from the public tool
    ontology only: the tool's enum choices when it has any, else which option to pick and whether
    to check first. (A vague "any preferences?" is not a question a rule answers.)"""
    from longview.domains.personal import tool_spec

    act = _surface_phrase(tool)
    try:
        params = tool_spec(tool).parameters
    except KeyError:
        params = []
    for p in params:
        if p.type.startswith("enum[") and not p.name.startswith(("sort", "update_scope")):
            options = p.type[5:-1].split("|")
            listed = ", ".join(o.replace("_", " ") for o in options[:-1]) + f" or {options[-1].replace('_', ' ')}"
            return (f"For future {domain} requests, when I {act}, which {p.name.replace('_', ' ')} do you want "
                    f"by default: {listed}?")
    return (f"For future {domain} requests, when I {act}, which kind of option should I {act.split()[0]} by "
            f"default, and should I {act} directly or check with you before I {act}?")


class ReferenceAgent:
    """Shared mechanics; subclasses choose what to ask and how to decide."""

    name = "ref:base"

    def __init__(self, episode: Episode) -> None:
        self.episode = episode
        self._learning = {s.session_id: s for s in episode.learning_sessions}
        self._tests = {s.session_id: s for s in episode.test_sessions}
        # Per test session, derived once: its discovery plan and its behaviour (which depends only
        # on the session and its system prompt, the frozen context). Pure functions of the
        # observation, so caching them changes nothing a resumed run would see.
        self._plans: dict[str, list[Step]] = {}
        self._behaviours: dict[str, tuple[str, Preference]] = {}

    async def act(self, obs: Observation) -> AssistantTurn:
        if obs.session_id in self._learning:
            return self._learn(obs, self._learning[obs.session_id])
        if obs.session_id in self._tests:
            return self._test(obs, self._tests[obs.session_id])
        raise ConfigError(f"{self.name}: unknown session {obs.session_id}")

    # --- learning -------------------------------------------------------------------------
    def question(self, obs: Observation, session: LearningSession) -> str | None:
        return None

    def _learn(self, obs: Observation, session: LearningSession) -> AssistantTurn:
        n = _n_turns(obs)
        steps = session.gold_trajectory
        if n < len(steps):
            return AssistantTurn(tool_calls=[_call(obs, n, 0, steps[n].tool, steps[n].arguments)])
        if n == len(steps):
            text = f"All done: {session.reason_for_call.rstrip('.').lower()}."
            q = self.question(obs, session)
            if q:
                text += " " + q
            return AssistantTurn(tool_calls=[_call(obs, n, 0, SEND_TO_USER.name, {"output": text, "reason": "report"})])
        return AssistantTurn(
            tool_calls=[_call(obs, n, 0, SEND_TO_USER.name, {"output": "Noted, thank you.", "reason": "acknowledge"})]
        )

    # --- test -----------------------------------------------------------------------------
    def behaviour(self, obs: Observation, session: TestSession, rule: StandingRule) -> Preference:
        return rule.default or policy.blind_default(session)

    def _test(self, obs: Observation, session: TestSession) -> AssistantTurn:
        n = _n_turns(obs)
        plan = self._plans.get(session.session_id)
        if plan is None:
            plan = [Step.model_validate(s) if isinstance(s, dict) else s for s in policy.discovery_plan(session)]
            self._plans[session.session_id] = plan
        if n == 0 and plan:
            return AssistantTurn(tool_calls=[_call(obs, n, i, s.tool, s.arguments) for i, s in enumerate(plan)])
        outputs = []
        for m in obs.messages:
            if m.role == "tool" and m.content:
                try:
                    outputs.append(json.loads(m.content))
                except json.JSONDecodeError:
                    continue
        known = self._behaviours.get(session.session_id)
        if known is None or known[0] != obs.system:
            known = (obs.system, self.behaviour(obs, session, self.episode.rule(session.rule_id)))
            self._behaviours[session.session_id] = known
        batches = policy.decide(session, known[1], policy.records_from_outputs(outputs))
        k = n - (1 if plan else 0)
        if k < len(batches):
            return AssistantTurn(tool_calls=[_call(obs, n, i, s.tool, s.arguments) for i, s in enumerate(batches[k])])
        return AssistantTurn(tool_calls=[_call(obs, n, 0, FINISH_SESSION.name, {})])


class PassiveAgent(ReferenceAgent):
    name = "ref:passive"


class OracleAgent(ReferenceAgent):
    name = "ref:oracle"

    def behaviour(self, obs: Observation, session: TestSession, rule: StandingRule) -> Preference:
        return rule.preference or policy.oracle_behaviour(session, rule)


class AskerAgent(ReferenceAgent):
    name = "ref:asker"

    def question(self, obs: Observation, session: LearningSession) -> str | None:
        writes = [s.tool for s in session.gold_trajectory if not s.tool.startswith(("search_", "list_"))]
        if not writes:
            return None
        # Prefer a decision surface it has not asked about in an earlier session (visible in context).
        fresh = [t for t in writes if _surface_phrase(t) not in obs.system]
        tool = (fresh or writes)[-1]
        return targeted_question(session.domain, tool)

    def behaviour(self, obs: Observation, session: TestSession, rule: StandingRule) -> Preference:
        base = rule.default or policy.blind_default(session)
        frame_tools = set(session.frame.arguments) if session.frame else {base.tool}
        out = base.model_copy(deep=True)
        # Only rules whose answer the user actually gave (now in the frozen context) can be applied.
        for r in self.episode.rules:
            p = r.preference
            if p is None or r.canonical_answer not in obs.system or p.tool not in frame_tools:
                continue
            if p.confirm:
                out.confirm = True
            if p.tool != out.tool or p.select or p.value is not None:
                out.tool, out.param = p.tool, p.param or out.param
                out.select = p.select or out.select
                out.value = p.value if p.value is not None else out.value
        return out


def make_reference_agent(name: str, episode: Episode) -> ReferenceAgent:
    cls = {"ref:passive": PassiveAgent, "ref:asker": AskerAgent, "ref:oracle": OracleAgent}.get(name)
    if cls is None:
        raise ConfigError(f"unknown reference agent '{name}'; expected one of {', '.join(REFERENCE_AGENTS)}")
    return cls(episode)
