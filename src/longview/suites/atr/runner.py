"""Runs ATR cells: one (agent, variant, persona) = the learning phase, then every test session.

Learning sessions run serially so the cross-session context grows; it is then frozen and shared
by all test sessions. Oracle variants skip learning and see prior statements instead. Cells run
concurrently (asyncio, bounded); each writes its traces, then its completion marker.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from longview.domains.personal import make_env
from longview.kernel.agent import Agent, Message
from longview.kernel.clock import SimClock
from longview.kernel.errors import CellAborted
from longview.kernel.runstore import RunStore
from longview.kernel.session import DEFAULT_MAX_TURNS, run_session
from longview.kernel.trace import TraceWriter
from longview.suites.atr.context import CrossSessionContext, render_prior_statements
from longview.suites.atr.dataset import Episode, LearningSession, TestSession
from longview.suites.atr.protocol import LearningProtocol, TestProtocol
from longview.suites.atr.records import CellRecord, LearningRecord, TestRecord
from longview.suites.atr.scaffold import Classifier, Router
from longview.suites.atr.user import UserSimulator
from longview.suites.atr.variants import Variant, get_variant, system_prompt


# Simulated day 0 of every episode: sessions are stamped EPOCH + day_offset, never wall time.
EPOCH = datetime(2026, 1, 5, 9, 0)


@dataclass
class Scaffold:
    """The fixed, swappable components every cell shares."""

    router: Router
    classifier: Classifier
    user: UserSimulator

    def names(self) -> dict[str, str]:
        return {"router": self.router.name, "classifier": self.classifier.name, "user": self.user.name}


@dataclass(frozen=True)
class Cell:
    agent: str
    variant: str
    persona_id: str
    trial: int = 0

    @property
    def key(self) -> str:
        base = f"{self.agent}__{self.variant}__{self.persona_id}"
        return f"{base}__t{self.trial}" if self.trial else base


@dataclass
class CellRunner:
    """Runs cells into a run store."""

    store: RunStore
    scaffold: Scaffold
    make_agent: Callable[[str, Episode, int], Agent]  # (name, episode, trial)
    episodes: dict[str, Episode]
    max_turns: int = DEFAULT_MAX_TURNS
    on_session: Callable[[], None] = lambda: None
    usage: dict[str, int] = field(default_factory=dict)

    async def run_cell(self, cell: Cell) -> CellRecord:
        episode = self.episodes[cell.persona_id]
        variant = get_variant(cell.variant)
        folder = self.store.start_cell(cell.key)
        record = CellRecord(agent=cell.agent, variant=cell.variant, persona_id=cell.persona_id, trial=cell.trial,
                            status="complete")
        agent = self.make_agent(cell.agent, episode, cell.trial)
        try:
            context = CrossSessionContext()
            if variant.learning:
                for s in episode.learning_sessions:
                    await self._learning(agent, variant, episode, s, context, record, folder)
            frozen = context.freeze()
            for t in episode.test_sessions:
                await self._test(agent, variant, episode, t, self._test_context(variant, episode, t, frozen), record, folder)
        except CellAborted as e:
            record = record.model_copy(update={"status": "aborted", "abort_reason": e.reason})
        self.store.finish_cell(cell.key, record)
        return record

    @staticmethod
    def _test_context(variant: Variant, episode: Episode, t: TestSession, frozen: str) -> str:
        if variant.oracle == "target":
            return render_prior_statements([episode.rule(t.rule_id).canonical_answer])
        if variant.oracle == "full":
            return render_prior_statements([r.canonical_answer for r in episode.rules])
        return frozen

    async def _learning(
        self, agent: Agent, variant: Variant, ep: Episode, s: LearningSession,
        context: CrossSessionContext, record: CellRecord, folder: Path,
    ) -> None:
        rec = LearningRecord(session_id=s.session_id, domain=s.domain, termination="", turns=0)
        sc = self.scaffold
        proto = LearningProtocol(s, ep.rules, sc.router, sc.classifier, sc.user, rec)
        env = make_env(s.domain, s.local_env.references, ep.structured_persona, s.local_env.tools)
        trace = TraceWriter(folder / f"{s.session_id}.jsonl", s.session_id)
        try:
            opening = [Message(role="user", content=await sc.user.open(s))]
            out = await run_session(
                agent, env, proto, system=system_prompt(variant, s.domain, "learning", context.text),
                opening=opening, session_id=s.session_id, phase="learning", trace=trace, max_turns=self.max_turns,
                clock=SimClock(EPOCH + timedelta(days=s.day_offset)),
            )
        finally:
            trace.close()
        rec.termination, rec.turns = out.termination.value, out.turns
        record.learning.append(rec)
        context.append_session(out.messages)
        self.on_session()
        await asyncio.sleep(0)  # a yield point between sessions, so cancellation and progress are prompt

    async def _test(
        self, agent: Agent, variant: Variant, ep: Episode, t: TestSession, context: str,
        record: CellRecord, folder: Path,
    ) -> None:
        env = make_env(t.domain, t.local_env.references, ep.structured_persona, t.local_env.tools)
        trace = TraceWriter(folder / f"{t.session_id}.jsonl", t.session_id)
        test_day = max((s.day_offset for s in ep.learning_sessions), default=0) + 1  # tests come after learning
        try:
            out = await run_session(
                agent, env, TestProtocol(), system=system_prompt(variant, t.domain, "test", context),
                opening=[Message(role="user", content=t.instruction)], session_id=t.session_id,
                phase="test", trace=trace, max_turns=self.max_turns,
                clock=SimClock(EPOCH + timedelta(days=test_day)),
            )
        finally:
            trace.close()
        record.tests.append(
            TestRecord(session_id=t.session_id, rule_id=t.rule_id, termination=out.termination.value, batches=out.batches)
        )
        self.on_session()
        await asyncio.sleep(0)


async def run_cells(runner: CellRunner, cells: list[Cell], max_concurrency: int,
                    on_cell: Callable[[Cell, CellRecord], None] = lambda c, r: None) -> None:
    """Run the cells that have no completion marker, at most ``max_concurrency`` at a time."""
    sem = asyncio.Semaphore(max(1, max_concurrency))

    async def one(cell: Cell) -> None:
        async with sem:
            on_cell(cell, await runner.run_cell(cell))

    await asyncio.gather(*(one(c) for c in cells if not runner.store.is_done(c.key)))
