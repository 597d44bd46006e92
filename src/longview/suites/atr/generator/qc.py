"""Deterministic quality control for generated episodes (the checks of ATRBench, A.3-A.5, run
programmatically with longview's reference policy instead of LLM judges).

Test sessions: the oracle (rule preference) must pass the matcher and the passive agent (the
rule's counterfactual default) must fail it, both acting only through the live environment.
Learning sessions: every gold call runs ok, no rule is stated (verbal leakage), and no rule's
choice recurs (behavioural leakage). :class:`QCReport` summarises a cohort.
"""

from __future__ import annotations

import itertools
from collections.abc import Set as AbstractSet
from typing import Any

from pydantic import BaseModel, Field

from longview.domains.personal import make_env, safe_fields, tool_spec
from longview.kernel.agent import ToolCall
from longview.suites.atr.dataset import CheckType, Episode, LearningSession, StandingRule, TestSession
from longview.suites.atr.generator.templates import words_of
from longview.suites.atr.matcher import MatchResult, match_action
from longview.suites.atr.policy import decide, discovery_plan, records_from_outputs, select
from longview.suites.atr.preference import Preference, Step

# ---- running a policy -----------------------------------------------------------------------


def run_policy(session: TestSession, behaviour: Preference, persona: dict[str, Any] | None = None) -> tuple[list[list[Step]], list[str]]:
    """Discovery then decision batches, executed in a fresh environment; returns the batches and
    the errors of calls that failed."""
    env = make_env(session.domain, session.local_env.references, persona, session.local_env.tools)
    plan = discovery_plan(session)
    errors: list[str] = []
    outputs = []
    for step in plan:
        res = env.call(step.tool, step.arguments)
        outputs.append(res.output)
        if not res.ok:
            errors.append(f"{step.tool}: {res.error}")
    batches = [[s] for s in plan] + decide(session, behaviour, records_from_outputs(outputs))
    for batch in batches[len(plan):]:
        for step in batch:
            res = env.call(step.tool, step.arguments)
            if not res.ok:
                errors.append(f"{step.tool}: {res.error}")
    return batches, errors


def match(session: TestSession, rule: StandingRule, batches: list[list[Step]]) -> MatchResult:
    counter = itertools.count()
    calls = [[ToolCall(id=f"c{next(counter)}", name=s.tool, arguments=s.arguments) for s in b] for b in batches]
    return match_action(session.required_action, rule.check_type, calls, safe_fields)


def check_test(session: TestSession, rule: StandingRule, persona: dict[str, Any] | None = None,
               direction: tuple[str, ...] = ()) -> list[str]:
    """Why a test session is invalid (empty when it is fine)."""
    problems: list[str] = []
    if rule.preference is None or rule.default is None:
        return ["rule lacks a structured preference or default"]
    gold = session.gold_value
    gold_ids = gold if isinstance(gold, list) else [gold]
    for g in gold_ids:
        if isinstance(g, str) and "_" in g and g in session.instruction:
            problems.append(f"instruction names the gold id {g}")
    leaked = words_of(session.instruction) & words_of(list(direction))
    if leaked:
        problems.append(f"instruction states the rule direction ({', '.join(sorted(leaked))})")
    batches, errors = run_policy(session, rule.preference, persona)
    if errors:
        problems.append(f"oracle call failed: {errors[0]}")
    verdict = match(session, rule, batches)
    if not verdict.passed:
        problems.append(f"oracle fails: {verdict.reason}")
    passive, _ = run_policy(session, rule.default, persona)
    if match(session, rule, passive).passed:
        problems.append("passive default passes (not counter-default)")
    return problems


# ---- learning sessions ----------------------------------------------------------------------

# Words every domain's tasks use; never distinctive of a rule.
GENERIC = set(
    """book booking bookings order orders buy bought item items tickets ticket event events
    restaurant restaurants table dinner appointment flight flights hotel hotels trip trips travel
    message messages email emails reply replies inbox send sent calendar meeting meetings reminder
    file files folder folders document documents tracker trackers subscription subscriptions plan
    option options time day days week weeks month monthly user person people name something
    anything thing things place places somewhere one two three first last new old""".split()
)


# Everyday nouns of each domain's tasks: naming the domain is not stating a rule.
DOMAIN_WORDS = {
    "commerce": "product products price prices store shop deliver delivery package shipping service services "
    "charge charges bill bills pay paying cost unit units brand purchase purchases grocery groceries",
    "reservation": "concert concerts show shows venue seat seats party cuisine guests evening night lunch "
    "provider service services salon performance performances",
    "travel": "getaway destination destinations stop stops city cities stay airline itinerary route "
    "lodging vacation",
    "communication": "note notes thread sender subject mail label labels",
    "scheduling": "invite invites invitation invitations slot slots event events calendar errand errands",
    "workspace": "drive desktop note notes spreadsheet log logs checklist entry entries",
}


def domain_vocab(domain: str) -> set[str]:
    """Words a learning session of ``domain`` may use freely: tool and parameter names, generic nouns."""
    from longview.domains.personal import toolkit_class

    parts: list[str] = [DOMAIN_WORDS.get(domain, "")]
    for name in toolkit_class(domain).tool_names():
        parts.append(name.replace("_", " "))
        parts.extend(p.name.replace("_", " ") for p in tool_spec(name).parameters)
    return words_of(parts) | words_of(sorted(GENERIC))


def distinctive(rule: StandingRule, domain: str, persona_words: AbstractSet[str] = frozenset()) -> set[str]:
    """Content words of a rule's text and answer that a ``domain`` learning session must not show."""
    return words_of([rule.rule_text, rule.canonical_answer]) - domain_vocab(domain) - persona_words


def session_text(s: LearningSession) -> list[Any]:
    return [s.reason_for_call, s.task_params, [r.model_dump(mode="json") for r in s.local_env.references]]


def verbal_leaks(s: LearningSession, rules: list[StandingRule], persona_words: AbstractSet[str] = frozenset()) -> list[str]:
    """Rules a learning session states: their canonical answer, or any distinctive word."""
    found = []
    text = words_of(session_text(s))
    flat = str(session_text(s)).lower()
    for r in rules:
        if r.canonical_answer.lower() in flat or r.rule_text.lower() in flat:
            found.append(f"{r.rule_id}: states the rule")
            continue
        hit = text & distinctive(r, s.domain, persona_words)
        if hit:
            found.append(f"{r.rule_id}: uses {', '.join(sorted(hit))}")
    return found


def consistent_with(s: LearningSession, rule: StandingRule) -> bool:
    """Whether the session's gold path makes the rule's own choice (behavioural leakage)."""
    p = rule.preference
    if p is None:
        return False
    calls = [st for st in s.gold_trajectory if st.tool == p.tool]
    if rule.check_type is CheckType.TOOL_IDENTITY:
        return bool(calls)
    if rule.check_type is CheckType.CONFIRM:
        return any(st.tool == "get_user_confirmation" and st.arguments.get("target_tool") == p.tool for st in s.gold_trajectory)
    for st in calls:
        got = st.arguments.get(p.param or "")
        if p.value is not None and got == p.value:
            return True
        if p.select is not None and got is not None:
            refs = [r.model_dump(mode="json") for r in s.local_env.references]
            chosen = {r["id"] for r in select(refs, p.select)}
            if set(got if isinstance(got, list) else [got]) & chosen:
                return True
    return False


def check_learning(s: LearningSession, rules: list[StandingRule], persona: dict[str, Any] | None = None,
                   persona_words: AbstractSet[str] = frozenset()) -> list[str]:
    """Why a learning session is invalid: a failing gold call or verbal leakage."""
    env = make_env(s.domain, s.local_env.references, persona, s.local_env.tools)
    problems = []
    for st in s.gold_trajectory:
        res = env.call(st.tool, st.arguments)
        if not res.ok:
            problems.append(f"gold call {st.tool} failed: {res.error}")
    return problems + verbal_leaks(s, rules, persona_words)


def touches(s: LearningSession, rule: StandingRule) -> bool:
    """Whether the session's gold path calls the rule's action-surface tool (inner tool for confirm)."""
    tool = rule.action_step.param if rule.check_type is CheckType.CONFIRM else rule.action_step.tool
    return any(st.tool == tool for st in s.gold_trajectory)


def persona_words_of(ep: Episode) -> set[str]:
    return words_of(str(ep.structured_persona.get("name", "")))


# ---- report ---------------------------------------------------------------------------------


class Dropped(BaseModel):
    """A candidate that QC rejected."""

    candidate: str = Field(description="Template and variant key, or learning kind.")
    reason: str = Field(description="The first QC problem found.")


class PersonaQC(BaseModel):
    """QC outcome for one persona."""

    persona_id: str = Field(description="Persona id.")
    candidates: int = Field(description="Rule candidates built and checked.")
    kept: int = Field(description="Rules kept (one test session each).")
    dropped: list[Dropped] = Field(default_factory=list, description="Rejected rule candidates with reasons.")
    learning_candidates: int = Field(description="Learning sessions built and checked.")
    learning_dropped: list[Dropped] = Field(default_factory=list, description="Rejected learning sessions.")
    rules_by_domain: dict[str, int] = Field(description="Kept rules per domain.")
    rules_by_check: dict[str, int] = Field(description="Kept rules per check type.")
    touched: int = Field(description="Rules whose surface some learning gold path calls.")
    touched_fraction: float = Field(description="touched / kept.")
    learning_sessions: int = Field(description="Learning sessions in the episode (2 per test session).")
    test_sessions: int = Field(description="Test sessions in the episode.")


class Totals(BaseModel):
    personas: int = Field(description="Episodes in the cohort.")
    rules: int = Field(description="Kept rules (= test sessions).")
    test_sessions: int = Field(description="Test sessions.")
    learning_sessions: int = Field(description="Learning sessions.")
    candidates: int = Field(description="Rule candidates checked.")
    dropped: int = Field(description="Rule candidates dropped.")
    rules_by_domain: dict[str, int] = Field(description="Kept rules per domain.")
    rules_by_check: dict[str, int] = Field(description="Kept rules per check type.")
    confirm_share: float = Field(description="Share of rules with check type confirm.")
    touched: int = Field(description="Touched (learnable) rules.")
    touched_fraction: float = Field(description="touched / rules over the cohort.")
    distinct_surfaces: int = Field(description="Distinct decision surfaces among kept rules.")
    distinct_templates: int = Field(description="Distinct templates among kept rules.")


class QCReport(BaseModel):
    """What the generator built, kept and dropped (written as qc_report.json)."""

    seed: int = Field(description="Generation seed.")
    generator: str = Field(description="Generator name and version.")
    personas: list[PersonaQC] = Field(description="Per-persona QC outcome, in persona order.")
    totals: Totals = Field(description="Cohort totals.")
