"""Runs one ATR cell (agent, variant, persona): the learning phase, then every test session.

Learning sessions run serially so the cross-session context grows; it is then frozen and shared
by all test sessions, which therefore run concurrently (each holding one of the run's session
slots). Oracle variants skip learning and see prior statements instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

from longview.domains.personal import make_env
from longview.harness.context import CellContext, gather_sessions
from longview.harness.roles import Roles
from longview.kernel.agent import Message
from longview.kernel.clock import SimClock
from longview.kernel.errors import CellAborted
from longview.kernel.session import run_session
from longview.suites.atr.context import CrossSessionContext, render_prior_statements
from longview.suites.atr.dataset import Episode, LearningSession, TestSession
from longview.suites.atr.protocol import LearningProtocol, TestProtocol
from longview.suites.atr.records import CellRecord, LearningRecord, TestRecord
from longview.suites.atr.release_prompts import PromptSet, release_system_prompt
from longview.suites.atr.scaffold import Classifier, KeywordRouter, Router, TopicClassifier
from longview.suites.atr.user import ScriptedUser, UserSimulator
from longview.suites.atr.variants import Variant, get_variant, system_prompt

# Simulated day 0 of every episode: sessions are stamped EPOCH + day_offset, never wall time.
EPOCH = datetime(2026, 1, 5, 9, 0)


@dataclass
class Scaffold:
    """The fixed, swappable components every cell shares, and the agent prompt set."""

    router: Router
    classifier: Classifier
    user: UserSimulator
    prompts: PromptSet = field(default_factory=lambda: PromptSet(name="longview", source="", hashes={}))

    def names(self) -> dict[str, str]:
        return {"router": self.router.name, "classifier": self.classifier.name, "user": self.user.name,
                "prompts": self.prompts.name}

    def system(self, variant: Variant, domain: str, phase: Literal["learning", "test"], context: str) -> str:
        """The agent's system prompt: the release's blocks in the release's order on its checkout,
        longview's own otherwise."""
        if self.prompts.name == "atrbench-release":
            return release_system_prompt(self.prompts, variant.name, domain, phase, context)
        return system_prompt(variant, domain, phase, context)


def scaffold_for(roles: Roles, prompts: PromptSet | None = None) -> Scaffold:
    """Embedded Router, Classifier and user unless a model is set for the role; model-backed ones
    use the release's prompts when ``prompts`` is the release's set."""
    prompts = prompts or PromptSet(name="longview", source="", hashes={})
    router: Router = KeywordRouter()
    classifier: Classifier = TopicClassifier()
    user: UserSimulator = ScriptedUser()
    if any(roles.model(r) for r in ("router", "classifier", "user")):
        from longview.suites.atr.llm_scaffold import LLMClassifier, LLMRouter, LLMUser

        if c := roles.client("router"):
            router = LLMRouter(c, roles.params("router"), prompts.router)
        if c := roles.client("classifier"):
            classifier = LLMClassifier(c, roles.params("classifier"), prompts.classifier)
        if c := roles.client("user"):
            user = LLMUser(c, roles.params("user"))
    return Scaffold(router=router, classifier=classifier, user=user, prompts=prompts)


def test_context(variant: Variant, episode: Episode, t: TestSession, frozen: str) -> str:
    if variant.oracle == "target":
        return render_prior_statements([episode.rule(t.rule_id).canonical_answer])
    if variant.oracle == "full":
        return render_prior_statements([r.canonical_answer for r in episode.rules])
    return frozen


async def run_cell(ctx: CellContext, episode: Episode) -> CellRecord:
    cell, variant = ctx.cell, get_variant(ctx.cell.variant)
    record = CellRecord(agent=cell.agent, variant=cell.variant, persona_id=cell.unit, trial=cell.trial, status="complete")
    try:
        context = CrossSessionContext()
        if variant.learning:
            for s in episode.learning_sessions:
                await _learning(ctx, variant, episode, s, context, record)
        frozen = context.freeze()
        tests = await gather_sessions(
            *(_test(ctx, variant, episode, t, test_context(variant, episode, t, frozen)) for t in episode.test_sessions)
        )
        record.tests.extend(tests)
    except CellAborted as e:
        record = record.model_copy(update={"status": "aborted", "abort_reason": e.reason})
    return record


async def _learning(
    ctx: CellContext, variant: Variant, ep: Episode, s: LearningSession, context: CrossSessionContext,
    record: CellRecord,
) -> None:
    rec = LearningRecord(session_id=s.session_id, domain=s.domain, termination="", turns=0)
    sc: Scaffold = ctx.components
    proto = LearningProtocol(s, ep.rules, sc.router, sc.classifier, sc.user, rec)
    env = make_env(s.domain, s.local_env.references, ep.structured_persona, s.local_env.tools)
    async with ctx.session():
        trace = ctx.trace(s.session_id)
        try:
            opening = [Message(role="user", content=await sc.user.open(s))]
            out = await run_session(
                ctx.agent, env, proto, system=sc.system(variant, s.domain, "learning", context.text),
                opening=opening, session_id=s.session_id, phase="learning", trace=trace, max_turns=ctx.max_turns,
                clock=SimClock(EPOCH + timedelta(days=s.day_offset)),
            )
        finally:
            trace.close()
    rec.termination, rec.turns = out.termination.value, out.turns
    record.learning.append(rec)
    context.append_session(out.messages)


async def _test(ctx: CellContext, variant: Variant, ep: Episode, t: TestSession, context: str) -> TestRecord:
    env = make_env(t.domain, t.local_env.references, ep.structured_persona, t.local_env.tools)
    test_day = max((s.day_offset for s in ep.learning_sessions), default=0) + 1  # tests come after learning
    async with ctx.session():
        trace = ctx.trace(t.session_id)
        try:
            out = await run_session(
                ctx.agent, env, TestProtocol(), system=ctx.components.system(variant, t.domain, "test", context),
                opening=[Message(role="user", content=t.instruction)], session_id=t.session_id,
                phase="test", trace=trace, max_turns=ctx.max_turns,
                clock=SimClock(EPOCH + timedelta(days=test_day)),
            )
        finally:
            trace.close()
    return TestRecord(session_id=t.session_id, rule_id=t.rule_id, termination=out.termination.value, batches=out.batches)
