"""Run one cell: a persona's sessions in order on one workspace and app state, with the agent's
memory carried between sessions (or not, for no_history), each session against the two-stage user."""

from __future__ import annotations

import asyncio
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from longview.domains.apps import AppsState, AppsToolkit
from longview.domains.apps.pdf import write_pdf
from longview.harness.context import CellContext
from longview.kernel.agent import Message
from longview.kernel.errors import CellAborted
from longview.kernel.session import UserTurn, run_session
from longview.memory.base import Memory
from longview.memory.simple import NoMemory
from longview.suites.intents.ceiling import ceiling_plan, is_ceiling
from longview.suites.intents.dataset import IntentsDataset
from longview.suites.intents.judge import IntentJudges, RubricJudge, Verdicts
from longview.suites.intents.memory import FileMemory
from longview.suites.intents.records import CellRecord, CriterionOutcome, RubricInput, SessionRecord
from longview.suites.intents.rule_evidence import RuleEvidence
from longview.suites.intents.rules import RULE_FAILED, RuleMode, RuleScriptError, declared_names, score_rules
from longview.suites.intents.schema import Episode, Session
from longview.suites.intents.user import RecordingToolkit, TwoStageUser
from longview.users.base import VerbatimWording, Wording

START = datetime(2026, 3, 2, 9, 0)
# π-Bench's runner ends a task after 30 agent replies to the user (BenchmarkRunner's max_turns); inside
# one reply its agent may take up to 120 tool steps (nanobot's maxToolIterations). longview's
# --max-turns is that reply cap for this suite; the assistant turns of a session are bounded by
# cap x (steps + 1), the release's worst case.
TOOL_STEPS_PER_REPLY = 120

# What stays the same comes first and the memory, which grows, last: the instructions every user's
# sessions share, then this user's profile, then the memory, so the longest part of each session's
# prompt is a prefix an earlier request shares (prompt caches; benchmarks/bench_prefix_share.py).
SYSTEM = """You are a personal assistant who works with the same user over many sessions.

## Workspace
You share a persistent workspace folder with the user; the file tools (list_dir, read_file, write_file,
edit_file, delete_file) work inside it. App tools need an access_token from the app's login call.

Do the work with your tools. When you have finished, or need something from the user, answer in plain
text (a turn without tool calls); that text is what the user reads.

## The user
{profile}
{accounts}
## What you remember from earlier sessions
{memory}"""


@dataclass
class Components:
    """Shared per run: the judges, the user's wording, the rule-script mode."""

    judges: IntentJudges = field(default_factory=IntentJudges)
    rubric: RubricJudge = field(default_factory=RubricJudge)
    wording: Wording = field(default_factory=VerbatimWording)
    rule_mode: RuleMode = "reference"
    rubric_turns: bool = False  # -S rubric_turns=each: keep (and grade) the rubric input after every reply


class ReplyCap:
    """The session protocol with π-Bench's cap: after the ``cap``-th reply to the user (which the
    user still judges) the session ends, as the release's runner ends a task at max_turns."""

    def __init__(self, inner: TwoStageUser, cap: int) -> None:
        self.inner, self.cap, self.hit = inner, cap, False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def user_reply(self, delivered: str, turn: int, trace: Any) -> UserTurn:
        reply = await self.inner.user_reply(delivered, turn, trace)
        if not reply.end and len(self.inner.replies) >= self.cap:
            self.hit = True
            trace.emit("reply_cap", turn=turn, replies=len(self.inner.replies))
            return UserTurn(text=None, end=True)
        return reply


def system_prompt(ep: Episode, memory: str) -> str:
    accounts = ""
    if ep.persona.accounts:
        accounts = "\nAccounts:\n" + "\n".join(f"- {app}: login {a.email}, password {a.password}"
                                               for app, a in sorted(ep.persona.accounts.items())) + "\n"
    return SYSTEM.format(profile=ep.persona.profile.strip(), accounts=accounts,
                         memory=memory.strip() or "(nothing yet)")


def persona_tools(ep: Episode, allow: list[str] | None) -> tuple[list[str] | None, list[str] | None]:
    """``(apps, allow)`` of the toolkit every session of this persona gets: the same tools in each.

    π-Bench's release serves one AppWorld MCP server per user for the whole run, started with that
    user's ``tools.yaml`` (scripts/entrypoint.sh), and its agent connects once: every task of a user
    offers the user's whole tool list, not the task's apps. An imported persona with a ``tools.yaml``
    gets all of it; a persona without one (built-in and folder datasets) gets every app it has an
    account in or any of its sessions uses. The file tools come first either way (AppsToolkit)."""
    if allow is not None:
        return None, allow
    return sorted(set(ep.persona.accounts) | {a for s in ep.sessions for a in s.apps}), None


def init_state(ep: Episode, open_login: bool) -> AppsState:
    state = AppsState(open_login=open_login, now=START.isoformat())
    for app, acc in ep.persona.accounts.items():
        state.add_account(app, acc.email, acc.password, first_name=ep.persona.name.split()[0])
    data = state.model_dump()
    for key, rows in ep.seed.items():
        data[key] = list(data.get(key) or []) + rows
    return AppsState.model_validate(data)


def _place(root: Path, rel: str) -> Path:
    """Where a dataset file goes: ``root/rel`` (a checked workspace-relative path), with whatever the
    agent left in the way (a folder where the file goes, a file where a folder goes) removed."""
    p = root / rel
    for parent in reversed(p.relative_to(root).parents[:-1]):
        q = root / parent
        if q.is_file() or q.is_symlink():
            q.unlink()
    if p.is_symlink() or p.is_file():
        p.unlink()
    elif p.is_dir():
        shutil.rmtree(p)
    p.parent.mkdir(parents=True, exist_ok=True)
    return p


def init_workspace(ep: Episode, root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for f in ep.files:
        p = _place(root, f.path)
        if f.pdf_lines is not None:
            p.write_bytes(write_pdf(f.pdf_lines))
        else:
            p.write_text(f.text or "", encoding="utf-8")


def stage_assets(session: Session, root: Path, asset_dir: Path | None, skills: Path | None) -> None:
    for rel, text in session.assets.items():
        _place(root, rel).write_text(text, encoding="utf-8")
    if asset_dir is not None:  # imported task: copy its folder's files (not task.yaml) into the workspace root
        for src in sorted(asset_dir.iterdir()):
            if src.name in ("task.yaml", ".history", ".result", ".eval_result"):
                continue
            dst = root / src.name
            if dst.is_dir():
                shutil.rmtree(dst)
            (shutil.copytree if src.is_dir() else shutil.copy2)(src, dst)
    if skills is not None and skills.is_dir() and not (root / "skills").exists():
        shutil.copytree(skills, root / "skills")


async def run_episode(ctx: CellContext, ds: IntentsDataset, comps: Components, *, no_history: bool,
                      limit: int = 0) -> CellRecord:
    unit = ctx.cell.unit
    ep = ds.episode(unit)
    clock = ctx.start_clock(START)
    workspace = ctx.folder / "workspace"
    if workspace.exists():
        shutil.rmtree(workspace)
    init_workspace(ep, workspace)
    state = init_state(ep, open_login=ds.origin != "builtin")
    memory: Memory = FileMemory(ctx.folder / "memory.md")
    record = CellRecord(agent=ctx.cell.agent, variant=ctx.cell.variant, unit=unit, trial=ctx.cell.trial,
                        judge=comps.judges.name, rubric=comps.rubric.name)
    rule_only = is_ceiling(ctx.cell.agent, ds)  # the rule-guided ceiling is scored on rule criteria only
    apps, allow = persona_tools(ep, ds.allowed_tools.get(unit))
    for session in (ep.sessions[:limit] if limit else ep.sessions):
        stage_assets(session, workspace, ds.asset_dirs.get((unit, session.id)), ds.skills_dirs.get(unit))
        state.now = clock.now().isoformat(timespec="seconds")
        mem = NoMemory() if no_history else memory
        tools = RecordingToolkit(AppsToolkit(state, workspace, apps=apps, allow=allow))
        user = TwoStageUser(session, profile=ep.persona.profile, judges=comps.judges, tools=tools, state=state,
                            workspace=workspace, wording=comps.wording, rule=rule_evidence(session, comps, workspace),
                            rule_only=rule_only, rubric_turns=comps.rubric_turns)
        trace = ctx.trace(session.id)
        try:
            capped = ReplyCap(user, ctx.max_turns)
            async with ctx.session():
                outcome = await run_session(
                    ctx.agent, tools, capped, system=system_prompt(ep, mem.context(session.request)),
                    opening=[Message(role="user", content=session.request)], session_id=session.id, phase="task",
                    trace=trace, max_turns=ctx.max_turns * (TOOL_STEPS_PER_REPLY + 1), clock=clock)
            rec = user.record("turn_cap" if capped.hit else outcome.termination.value)
            await add_judged_criteria(rec, session, user, comps, rule_only=rule_only)
            if rule_only and session.rule_script:
                found = ceiling_plan(session, tools.schemas())
                if not found.found:
                    not_judged_for_ceiling(rec, found.why_not())
            # the rubric judge's input stays in the cell's result only (the trace has the session already)
            trace.emit("session_record", record=rec.model_dump(mode="json", exclude={"rubric_input"}))
        finally:
            trace.close()
        record.sessions.append(rec)
        memory.observe(session.id, outcome.messages, when=clock.now().isoformat(timespec="minutes"))
        clock.advance(timedelta(days=1))
    return record


def not_judged_for_ceiling(rec: SessionRecord, why: str) -> None:
    """A session where the rule-guided ceiling was not found (it made no calls): nothing of it is
    judged for the ceiling — its zeros would be the search's limits, not the task's bound."""
    for i in rec.intents.values():
        i.judged = False
    for c in rec.criteria.values():
        c.met, c.by, c.reason = None, "not judged", why
    rec.rule_errors = []


def session_tags(session: Session) -> dict[str, str]:
    """Breakdown keys of a session: the dataset's own, else derived (built-in episodes carry none):
    task type from the dependency structure, category from the app its artifact lives in."""
    if session.task_type:  # the dataset's own labels (imported tasks); no derived category
        return {"task_type": session.task_type, "category": session.category or "unlabelled",
                "difficulty": session.difficulty or "unlabelled"}
    return {"task_type": "dependent" if session.depends_on else "independent",
            "category": session.category or (session.apps[0] if session.apps else "workspace files"),
            "difficulty": session.difficulty or "unlabelled"}


def rule_evidence(session: Session, comps: Components, workspace: Path | None = None) -> RuleEvidence | None:
    """Imported sessions with a rule script: which intents its keys test (offline completion evidence)."""
    if not session.rule_script:
        return None
    return RuleEvidence(Path(session.rule_script), session.request,
                        {i.id: i.content for i in session.hidden_intents if not i.initially_provided},
                        declared_names(session.rule_tools), session.tool_prefix, comps.rule_mode, workspace)


async def add_judged_criteria(rec: SessionRecord, session: Session, user: TwoStageUser, comps: Components,
                              rule_only: bool = False) -> None:
    """Rule-script criteria, then rubric items (judge model, else proxy, else not judged; not judged
    at all for the rule-guided ceiling, which is scored on rule criteria only)."""
    rec.tags = session_tags(session)
    if session.rule_script:
        await add_rule_criteria(rec, session, user, comps)
    if rule_only:
        for c in session.checklist:
            if c.check is None:
                rec.criteria[c.id] = CriterionOutcome(weight=c.weight, kind="rubric", met=None, by="not judged",
                                                      reason="the rule-guided ceiling is scored on rule criteria only")
        return
    rubric = [c for c in session.checklist if c.check is None]
    if not rubric:
        return
    ev = user.evidence(scope="all")
    payload = user.rubric_input_now(ev)
    rec.rubric_input = RubricInput(payload=payload, proxy={c.id: user.proxy_met.get(c.id, False)
                                                           for c in rubric if c.proxy is not None},
                                   turns=user.turn_payloads)
    if comps.rubric.model is not None:
        v = await comps.rubric.grade(payload, user.turn_payloads)
        apply_rubric_verdicts(rec, session, v, comps.rubric.name)
        return
    # A proxy over the reply alone ("tells the user what was done") is a claim: it counts only once
    # some deterministic or rule criterion of the session is met, so saying "done" earns nothing.
    worked = any(c.met for c in rec.criteria.values())
    v = comps.rubric.embedded(rubric, ev)
    for c in rubric:
        met, reason = v.labels.get(c.id), ""
        if c.proxy is not None:
            met, by = user.proxy_met.get(c.id, False) or bool(met), "embedded:proxy"
            if c.proxy.kind == "reply_contains" and not worked:
                met, reason = False, "a claim in the reply, with no criterion of the session met"
        else:
            by, reason = "not judged", "a rubric item: needs --judge-model"
        rec.criteria[c.id] = CriterionOutcome(weight=c.weight, kind="rubric", met=met, by=by, reason=reason)


def apply_rubric_verdicts(rec: SessionRecord, session: Session, v: Verdicts, by: str) -> None:
    """A rubric judge model's verdicts as the session's rubric criteria, with their agreement with
    the items' proxies and the verdicts it left out (each counted NO and in ``judge_missing``).
    Replaces an earlier rubric judgment of the same record (`longview rescore`)."""
    proxy = rec.rubric_input.proxy if rec.rubric_input is not None else {}
    rec.judge_missing += len(v.missing) - rec.rubric_missing
    rec.rubric_missing = len(v.missing)
    rec.agreement = [a for a in rec.agreement if not a[0].startswith(f"rubric:{session.id}:")]
    for c in session.checklist:
        if c.check is not None:
            continue
        met = v.labels.get(c.id)
        if c.proxy is not None and met is not None:
            rec.agreement.append((f"rubric:{session.id}:{c.id}", proxy.get(c.id, False), bool(met)))
        rec.criteria[c.id] = CriterionOutcome(weight=c.weight, kind="rubric", met=met, by=by,
                                              reason=v.reasons.get(c.id, ""))


async def add_rule_criteria(rec: SessionRecord, session: Session, user: TwoStageUser, comps: Components) -> None:
    """Rule-script criteria: the script runs now (confined, see rules.py), never at load time. A
    script that cannot judge leaves its criteria not judged, with the reason in ``rule_errors``;
    when it failed before naming them, one placeholder criterion stands for them."""
    try:
        outcome = await asyncio.to_thread(
            score_rules, Path(session.rule_script or ""), user.tools.calls, declared_names(session.rule_tools),
            session.tool_prefix, comps.rule_mode, workspace=user.workspace)
    except RuleScriptError as e:
        rec.rule_errors.append(str(e))
        rec.criteria[RULE_FAILED] = CriterionOutcome(weight=1.0, kind="rule", met=None, by="not judged",
                                                     reason=f"the rule script failed: {e}")
        return
    for k in outcome.keys:
        rec.criteria[f"[tools] {k}"] = CriterionOutcome(weight=1.0, kind="rule", met=outcome.met[k],
                                                        by=f"rule:{comps.rule_mode}")


def abort_record(ctx: CellContext, err: CellAborted) -> CellRecord:
    return CellRecord(agent=ctx.cell.agent, variant=ctx.cell.variant, unit=ctx.cell.unit, trial=ctx.cell.trial,
                      status="aborted", abort_reason=err.reason)
