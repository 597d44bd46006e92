"""``ref:oracle`` on imported π-Bench tasks: a ceiling that does the work through the tools, where
the task's rule script says what the work is.

π-Bench ships no reference trajectories, so the ceiling is searched for, offline, before the
session's first call: it plans one call of each tool the task declares (after logging in to their
apps), fills ids from earlier results and free-text and name arguments from candidates — each
string the script looks for (read from its source) and one text holding all of them plus the
hidden intents, the addresses and numbers the request states, and a closed choice's allowed
values — and keeps, argument by argument, the candidate under which the script (run
confined, as when scoring) meets the most criteria on a rehearsal against fresh offline apps. Then
it makes those calls for real and reports in one line.

It is scored only on what it can be scored on: the rule-script criteria and the intents those keys
test (the runner marks everything else not judged for it). Tasks without a rule script get no
calls: the ceiling there comes from built-in data. A ceiling is also *not found* when the searched
plan, on its rehearsal, leaves a rule key unmet or a key-tested intent not completed (a key that
needs several calls of one tool, or two arguments right at once, is beyond this search): the
ceiling then makes no calls and the session is not judged for it, with the reason — a bound it did
not reach would be shown as a ceiling.
"""

from __future__ import annotations

import json
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from longview.domains.apps import AppsState, AppsToolkit
from longview.kernel.agent import AssistantTurn, Observation, ToolCall
from longview.suites.intents.dataset import IntentsDataset
from longview.suites.intents.evidence import CallRecord
from longview.suites.intents.rule_evidence import RuleEvidence, script_strings
from longview.suites.intents.rules import RuleScriptError, declared_names, histories, run_script
from longview.suites.intents.schema import Session

Plan = list[tuple[str, dict[str, Any]]]  # (tool, arguments; "$token:<app>" / "$last:<key>" resolved when called)
TEXT_CAP = 40  # candidates per argument (the longest script strings first)
STATED = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b\d{7,15}\b")  # e-mail addresses, phone numbers


def _resolve(value: Any, tokens: dict[str, str], outputs: list[Any]) -> Any:
    if isinstance(value, str) and value.startswith("$token:"):
        return tokens.get(value[7:], "")
    if isinstance(value, str) and value.startswith("$last:"):
        key = value[6:]
        for out in reversed(outputs):  # AppWorld names what a send returns 'sent_<id>'
            for k in (key, f"sent_{key}"):
                if isinstance(out, dict) and k in out:
                    return out[k]
        return None
    if isinstance(value, list):
        return [_resolve(v, tokens, outputs) for v in value]
    return value


class _Runner:
    """Calls a plan against a toolkit, resolving tokens and earlier results as it goes."""

    def __init__(self) -> None:
        self.tokens: dict[str, str] = {}
        self.outputs: list[Any] = []

    def args(self, tool: str, template: dict[str, Any]) -> dict[str, Any]:
        out = {k: _resolve(v, self.tokens, self.outputs) for k, v in template.items()}
        return {k: v for k, v in out.items() if v is not None}

    def absorb(self, tool: str, output: Any) -> None:
        self.outputs.append(output)
        if tool.endswith("__login") and isinstance(output, dict) and "access_token" in output:
            self.tokens[tool.split("__")[0]] = output["access_token"]


def rehearse(plan: Plan, apps: list[str]) -> list[CallRecord]:
    """The calls ``plan`` makes against fresh offline apps (open logins, empty state)."""
    runner = _Runner()
    calls: list[CallRecord] = []
    with tempfile.TemporaryDirectory() as tmp:
        kit = AppsToolkit(AppsState(open_login=True), Path(tmp), apps=apps)
        for tool, template in plan:
            args = runner.args(tool, template)
            res = kit.call(tool, args)
            output = res.output if res.ok else {"message": res.error}
            runner.absorb(tool, output)
            calls.append(CallRecord(name=tool, arguments=args, ok=res.ok, output=output, turn=0, segment=0))
    return calls


def _params(schema: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
    params = schema.get("function", schema).get("parameters", {})
    return params.get("properties", {}), set(params.get("required", []))


def search_plan(session: Session, schemas: list[dict[str, Any]]) -> Plan:
    """The calls that meet the most of the session's rule-script criteria (see the module docstring)."""
    if not session.rule_script:
        return []
    by_name = {s.get("function", s).get("name"): s for s in schemas}
    tools = [n.removeprefix(session.tool_prefix) for n in session.rule_tools]
    tools = [t for t in dict.fromkeys(tools) if t in by_name and not t.endswith("__login")]
    if not tools:
        return []
    apps = sorted({t.split("__")[0] for t in tools})
    strings = list(script_strings(session.rule_script))[:TEXT_CAP]
    # every string the script looks for and every intent, one per numbered line (scripts that want a
    # list or a scannable text see one)
    blob = "\n".join(f"{k}. {x}" for k, x in enumerate(strings + [i.content for i in session.hidden_intents], 1))
    plan: Plan = [(f"{a}__login", {"username": "ceiling@example.org", "password": "x"}) for a in apps
                  if f"{a}__login" in by_name]
    # values the request itself states (addresses, numbers): what any agent reading it would use
    stated = list(dict.fromkeys(STATED.findall(session.request)))[:TEXT_CAP]
    slots: list[tuple[int, str, bool, list[Any]]] = []  # (step, param, is_list, candidates) searched
    for tool in tools:
        props, required = _params(by_name[tool])
        args: dict[str, Any] = {}
        for p, spec in props.items():
            typ = spec.get("type")
            if p == "access_token":
                args[p] = f"$token:{tool.split('__')[0]}"
            elif p.endswith("_id") or p.endswith("_ids"):
                args[p] = f"$last:{p}" if p.endswith("_id") else [f"$last:{p[:-1]}"]
            elif spec.get("enum"):  # a closed choice: try each allowed value
                args[p] = spec["enum"][0]
                slots.append((len(plan), p, False, list(spec["enum"])))
            elif typ == "string":
                args[p] = blob
                slots.append((len(plan), p, False, [blob, *strings, *stated]))
            elif typ == "array" and spec.get("items", {}).get("type", "string") == "string":
                args[p] = [blob]
                slots.append((len(plan), p, True, [blob, *strings, *stated]))
            elif p in required:
                args[p] = {"integer": 1, "number": 1, "boolean": False, "array": []}.get(str(typ), "")
        plan.append((tool, args))
    prefix, allowed = session.tool_prefix, declared_names(session.rule_tools)
    best = _score([plan], session, allowed, prefix, apps)[0]
    for step, param, is_list, options in slots:
        candidates = []
        for value in options:
            trial = [(t, dict(a)) for t, a in plan]
            trial[step][1][param] = [value] if is_list else value
            candidates.append(trial)
        scores = _score(candidates, session, allowed, prefix, apps)
        top = max(range(len(scores)), key=lambda k: (scores[k], -k))
        if scores[top] > best:
            plan, best = candidates[top], scores[top]
    return plan


@dataclass
class CeilingPlan:
    """The searched plan and what its rehearsal reaches (rule keys met, key-tested intents completed)."""

    plan: Plan = field(default_factory=list)
    keys: int = 0
    met: int = 0
    intents: list[str] = field(default_factory=list)  # the intents a rule key tests
    completed: list[str] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return bool(self.plan) and self.keys > 0 and self.met == self.keys and self.completed == self.intents

    def why_not(self) -> str:
        if not self.plan:
            return "no ceiling found: the task declares no tool the search can call"
        return (f"no ceiling found: the rule-guided search's rehearsal meets {self.met} of {self.keys} rule keys "
                f"and completes {len(self.completed)} of {len(self.intents)} key-tested intents")


_FOUND: dict[tuple[str, str, str], CeilingPlan] = {}


def ceiling_plan(session: Session, schemas: list[dict[str, Any]]) -> CeilingPlan:
    """:func:`search_plan` with what its rehearsal reaches; cached per (session, script, offered tools)
    because the runner asks before the session and the agent at its first step."""
    names = json.dumps(sorted(str(s.get("function", s).get("name")) for s in schemas))
    key = (session.id, session.rule_script or "", names)
    if key not in _FOUND:
        _FOUND[key] = _reach(session, search_plan(session, schemas))
    return _FOUND[key]


def _reach(session: Session, plan: Plan) -> CeilingPlan:
    if not plan or not session.rule_script:
        return CeilingPlan(plan=plan)
    apps = sorted({t.split("__")[0] for t, _ in plan})
    calls = rehearse(plan, apps)
    allowed, prefix = declared_names(session.rule_tools), session.tool_prefix
    try:
        keys, results = run_script(Path(session.rule_script), json.loads(json.dumps(
            histories(calls, allowed, prefix, "fixed"), default=str)))
    except RuleScriptError:
        return CeilingPlan(plan=plan)
    met = {str(k) for r in results for k, v in r.items() if v in (1, True)}
    ev = RuleEvidence(Path(session.rule_script), session.request,
                      {i.id: i.content for i in session.hidden_intents if not i.initially_provided},
                      allowed, prefix, "fixed")
    tested = [i for i in ev.literals if ev.testable(i)]
    done = ev.completed(tested, calls)
    return CeilingPlan(plan=plan, keys=len(keys), met=len(met & {str(k) for k in keys}), intents=tested,
                       completed=[i for i in tested if done.get(i)])


def _score(plans: list[Plan], session: Session, allowed: set[str], prefix: str, apps: list[str]) -> list[int]:
    hs = [histories(rehearse(p, apps), allowed, prefix, "fixed")[0] for p in plans]
    try:
        _, results = run_script(Path(session.rule_script or ""), json.loads(json.dumps(hs, default=str)))
    except RuleScriptError:
        return [0] * len(plans)
    return [sum(1 for v in r.values() if v == 1) for r in results]


def is_ceiling(agent: str, dataset: IntentsDataset) -> bool:
    """Whether ``agent`` plays the rule-guided ceiling in this cell (ref:oracle on imported data)."""
    return agent == "ref:oracle" and dataset.origin != "builtin"


class RuleCeiling:
    """The searched plan, called for real; then one line to the user, and "Done." to anything else."""

    name = "ref:oracle"

    def __init__(self, dataset: IntentsDataset, unit: str) -> None:
        self.sessions = {s.id: s for s in dataset.episode(unit).sessions}
        self._sid: str | None = None

    async def act(self, obs: Observation) -> AssistantTurn:
        session = self.sessions.get(obs.session_id)
        if session is None:
            return AssistantTurn(text="Done.")
        if self._sid != session.id:
            found = ceiling_plan(session, obs.tools)
            # a plan that does not reach every key on rehearsal is no ceiling: make no calls there
            self._sid, self.plan, self.step, self.runner = session.id, found.plan if found.found else [], 0, _Runner()
            self.pending: dict[str, str] = {}
        for m in reversed(obs.messages):
            if m.role != "tool":
                break
            tool = self.pending.pop(m.tool_call_id or "", None)
            if tool is not None:
                try:
                    self.runner.absorb(tool, json.loads(m.content or "null"))
                except ValueError:
                    self.runner.absorb(tool, None)
        if self.step < len(self.plan):
            tool, template = self.plan[self.step]
            self.step += 1
            cid = f"ceiling_{session.id}_{self.step}"
            self.pending[cid] = tool
            return AssistantTurn(tool_calls=[ToolCall(id=cid, name=tool, arguments=self.runner.args(tool, template))])
        return AssistantTurn(text="Done.")
