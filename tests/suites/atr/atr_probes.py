"""Probe agents for atr (the four 'done when' probes): factories taking the cell, acting only through
the Agent protocol (the observation's messages and tool schemas). Only the rephrasing oracle reads
the episode, to know what the real work is; the others know nothing a real agent would not see."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from longview.harness import registry
from longview.kernel.agent import AssistantTurn, Observation, ToolCall
from longview.suites.atr.agents import OracleAgent, targeted_question
from longview.suites.atr.protocol import FINISH_SESSION, SEND_TO_USER

LEARNING = "learning"


@cache
def _dataset() -> Any:
    s = registry.load("atr")
    return s.load_dataset("builtin", s.Options())


def _turns(obs: Observation) -> int:
    return sum(1 for m in obs.messages if m.role == "assistant")


def _call(obs: Observation, i: int, name: str, args: dict) -> ToolCall:
    return ToolCall(id=f"{obs.session_id}-{_turns(obs)}-{i}", name=name, arguments=args)


def _learning(obs: Observation) -> bool:
    return any(t["function"]["name"] == SEND_TO_USER.name for t in obs.tools)


def _domain_tools(obs: Observation) -> list[dict]:
    return [t["function"] for t in obs.tools if t["function"]["name"] not in (SEND_TO_USER.name, FINISH_SESSION.name)]


def _ids(obs: Observation) -> list[str]:
    """Every string under a key named id/*_id in any tool result so far, first sighting first."""
    seen: dict[str, None] = {}

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            for k, v in x.items():
                if isinstance(v, str) and (k == "id" or k.endswith("_id")):
                    seen.setdefault(v)
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    for m in obs.messages:
        if m.role == "tool" and m.content:
            try:
                walk(json.loads(m.content))
            except ValueError:
                continue
    return list(seen)


def _filler(name: str, spec: dict, ident: str | None) -> Any:
    if "enum" in spec:
        return spec["enum"][0]
    kind = spec.get("type")
    if kind == "integer" or kind == "number":
        return 1
    if kind == "boolean":
        return True
    if kind == "array":
        return [ident] if ident else []
    if kind == "object":
        return {}
    return ident if (ident and (name == "id" or name.endswith("_id"))) else "anything"


def _args(fn: dict, ident: str | None) -> dict:
    props = fn.get("parameters", {}).get("properties", {})
    return {k: _filler(k, v, ident) for k, v in props.items()}


class PasteBack:
    """Pastes the user's last message back (to the user in learning, as plain text in tests)."""

    name = "probe:paste"

    def __init__(self, cell: Any = None) -> None:
        pass

    async def act(self, obs: Observation) -> AssistantTurn:
        last = next((m.content for m in reversed(obs.messages) if m.role == "user" and m.content), "") or "Noted."
        if _learning(obs):
            return AssistantTurn(tool_calls=[_call(obs, 0, SEND_TO_USER.name, {"output": last, "reason": "echo"})])
        if _turns(obs) == 0:
            return AssistantTurn(text=last)
        return AssistantTurn(tool_calls=[_call(obs, 0, FINISH_SESSION.name, {})])


class ToolSpammer:
    """Calls every offered domain tool with every id seen so far (READ tools first so ids appear),
    one batch per turn, then reports / finishes."""

    name = "probe:spam"
    ROUNDS = 3

    def __init__(self, cell: Any = None) -> None:
        pass

    async def act(self, obs: Observation) -> AssistantTurn:
        n = _turns(obs)
        if n < self.ROUNDS:
            ids = _ids(obs) or [None]
            calls = [_call(obs, i, fn["name"], _args(fn, ident))
                     for i, (fn, ident) in enumerate((fn, ident) for fn in _domain_tools(obs) for ident in ids)]
            return AssistantTurn(tool_calls=calls)
        if _learning(obs):
            return AssistantTurn(tool_calls=[_call(obs, 0, SEND_TO_USER.name, {"output": "Done.", "reason": "report"})])
        return AssistantTurn(tool_calls=[_call(obs, 0, FINISH_SESSION.name, {})])


class _OnlyAsks:
    """In learning, sends the user :meth:`question` every turn; in tests it finishes without acting."""

    def __init__(self, cell: Any = None) -> None:
        pass

    def question(self, obs: Observation) -> str:
        raise NotImplementedError

    async def act(self, obs: Observation) -> AssistantTurn:
        if not _learning(obs):
            return AssistantTurn(tool_calls=[_call(obs, 0, FINISH_SESSION.name, {})])
        return AssistantTurn(tool_calls=[_call(obs, 0, SEND_TO_USER.name, {"output": self.question(obs), "reason": "ask"})])


class AskEverything(_OnlyAsks):
    """Asks a default-choice question about every offered tool at once (and in tests only finishes)."""

    name = "probe:ask-all"

    def question(self, obs: Observation) -> str:
        domain = obs.session_id.split("_")[0]
        return " ".join(targeted_question(domain, fn["name"]) for fn in _domain_tools(obs))


class RephrasedOracle:
    """ref:oracle's decisions delivered in another form: a narration with every batch and its own
    call ids. The matcher reads decisions, not words, so it must keep the oracle's TSAcc."""

    name = "probe:rephrased-oracle"

    def __init__(self, cell: Any) -> None:
        self.inner = OracleAgent(_dataset().episode(cell.unit))

    async def act(self, obs: Observation) -> AssistantTurn:
        turn = await self.inner.act(obs)
        n = _turns(obs)
        calls = [ToolCall(id=f"mine-{n}-{i}", name=c.name, arguments=c.arguments) for i, c in enumerate(turn.tool_calls)]
        return AssistantTurn(text=f"Right, handling part {n + 1} of this for you now.", tool_calls=calls)


# Other words for ref:asker's two question shapes: the same decision and options, none of its
# "For future ... requests" / "by default" / "check with you before" wording, several sentence forms
# (yes/no, how-would-you-like, standing-rule, indirect "let me know", next-time, a lead-in clause).
ENUM_ASKS = (
    "Should I always {act} with one and the same {param}, say {opts}?",
    "Going forward, how would you like the {param} set when I {act}: {opts}?",
    "Any standing rule for the {param} when I {act}, {opts}?",
    "Let me know which {param} you'd want from now on whenever I {act}: {opts}.",
    "Next time I {act}, what {param} suits you best, {opts}?",
    "Quick one so I needn't check with you each time from now on: whenever I {act}, should the {param} be {opts}?",
)
OPEN_ASKS = (
    "Should I always {act} straight away, or would you rather approve it first, and what sort of {noun} should I pick?",
    "Going forward, how would you like me to pick when I {act}, and do you want to sign off before I do?",
    "Any standing rule for when I {act}: which one to go for, and whether to run it past you first?",
    "Let me know what sort of {noun} you'd like me to pick whenever I {act}, and whether I should wait for your go-ahead.",
    "Next time I {act}, should I just pick one myself or check in with you first?",
    "Quick one so I needn't check with you each time from now on: whenever I {act}, what sort of option should I go "
    "for, and should I just {act} or run it past you first?",
)
FORMS = len(ENUM_ASKS)  # the last is the earlier probe's wording (TSAcc 0.065 against ref:asker's 0.15)


class ParaphrasedAsker:
    """ref:asker's work (the gold task, then one question per learning session about the decision
    it made, applying what it heard) with the question worded in its own way: sentence form ``form``
    in every session, or (None) each form in turn."""

    name = "probe:paraphrased-asker"
    form: int | None = None

    def __init__(self, cell: Any) -> None:
        from longview.suites.atr.agents import AskerAgent

        self.inner = AskerAgent(_dataset().episode(cell.unit))
        self.inner.question = self._question  # type: ignore[method-assign]
        self.order = {s.session_id: i for i, s in enumerate(self.inner.episode.learning_sessions)}

    def _question(self, obs: Observation, session: Any) -> str | None:
        k = self.order.get(session.session_id, 0) if self.form is None else self.form
        return paraphrase(obs.system, session, k)

    async def act(self, obs: Observation) -> AssistantTurn:
        return await self.inner.act(obs)


def paraphrased_asker(form: int) -> type[ParaphrasedAsker]:
    """The paraphrasing asker held to one sentence form (its own agent name)."""
    return type(f"ParaphrasedAsker{form}", (ParaphrasedAsker,), {"name": f"probe:paraphrased-asker-{form}", "form": form})


def _forms(tool: str) -> tuple[str, ...]:
    """How a question names the tool (ref:asker's words, or this probe's)."""
    verb, *rest = tool.split("_")
    return tuple(" ".join([verb, *d, *rest]) for d in ([], ["the"], ["your"]))


def paraphrase(system: str, session: Any, k: int) -> str | None:
    """ref:asker's question for ``session`` (same tool, same options) in sentence form ``k`` mod FORMS;
    the determiner before the tool's object alternates with ``k`` as well."""
    from longview.domains.personal import tool_spec

    writes = [s.tool for s in session.gold_trajectory if not s.tool.startswith(("search_", "list_"))]
    fresh = [t for t in writes if not any(f in system for f in _forms(t))]
    if not writes:
        return None
    tool = (fresh or writes)[-1]
    verb, *rest = tool.split("_")
    act = " ".join([verb, "your" if k % 2 else "the", *rest]) if rest else verb
    for p in tool_spec(tool).parameters:
        if p.type.startswith("enum[") and not p.name.startswith(("sort", "update_scope")):
            opts = [o.replace("_", " ") for o in p.type[5:-1].split("|")]
            listed = ", ".join(opts[:-1]) + f" or {opts[-1]}"
            return ENUM_ASKS[k % FORMS].format(act=act, param=p.name.replace("_", " "), opts=listed)
    return OPEN_ASKS[k % FORMS].format(act=act, noun=rest[-1] if rest else "option")


class MarkerAsker(_OnlyAsks):
    """A content-free standing-rule question built from the Router's markers (automation, a habitual
    preference, a class of cases, the future), naming no tool, object or choice."""

    name = "probe:marker-asker"

    def question(self, obs: Observation) -> str:
        return ("Going forward, would you like me to automatically handle requests like these the way you "
                "usually prefer, and do you have a preferred default for things like this in the future?")


class SlotStuffer(_OnlyAsks):
    """One standing-rule question that names every offered tool with every cue of a decision (pick
    which one, check with you first, all enum values). Aimed at a Classifier that credits naming a
    rule's slot: naming all is naming none."""

    name = "probe:slot-stuffer"

    def question(self, obs: Observation) -> str:
        tools = _domain_tools(obs)
        values = [v.replace("_", " ") for fn in tools for spec in fn.get("parameters", {}).get("properties", {}).values()
                  for v in spec.get("enum", [])]
        acts = ", ".join(fn["name"].replace("_", " ") for fn in tools)
        return (f"Going forward, whenever I {acts}, which one should I pick ({', '.join(values) or 'any'}), and should I "
                f"check with you first?")
