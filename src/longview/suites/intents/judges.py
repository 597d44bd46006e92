"""The two judges of the two-stage user and the rubric judge, each embedded (deterministic) or a
model (the ``judge`` role).

* Satisfaction: which open intents does the latest reply satisfy? By longview's documented choice
  the evidence is the reply *plus* the tool calls it made since the last user message and the
  artifacts (app records, workspace files) as they now stand. Embedded: the intent's own checks
  all pass; an intent without checks (imported tasks) falls back to a lexical proxy — most of its
  content words appear in the reply or in what the agent wrote.
* Targeted question: which remaining intents does the reply ask about specifically? Embedded: a
  question sentence (ending in '?') covers most content words of the intent's question.
* Rubric: checklist items without a deterministic check. Embedded: the item's proxy check, or
  *not judged* (None) — a missing judgment is never a pass or a fail.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from pydantic import BaseModel, Field

from longview.judges.base import LLMJudge
from longview.suites.intents.evidence import Evidence, run_check
from longview.suites.intents.schema import ChecklistItem, HiddenIntent
from longview.text import content_words, overlap, tokens

SATISFIED_MIN = 0.75  # lexical proxy: share of an intent's content words found in reply + artifacts
QUESTION_MIN = 0.6  # share of an intent's question words one question sentence must cover

SATISFACTION_PROMPT = """You judge a simulated user's hidden requirements against an assistant's latest work.
Input JSON: the user's profile, a list of open requirements (id, content), the assistant's latest reply,
the tool calls it made since the user last spoke, and the current artifacts (app records, files).
A requirement is met only if the reply, the calls or the artifacts already fulfil it concretely; a
question or a promise does not meet it. Answer with JSON only:
{"decisions": [{"id": "<id>", "yes": true|false}, ...]} with one entry per requirement."""

TARGETED_PROMPT = """You judge whether an assistant's latest reply asks the user specifically about hidden requirements.
Input JSON: the open requirements (id, content) and the reply. Answer yes for a requirement only when
the reply contains a question aimed at that specific missing detail; generic questions such as
"anything else?" do not count. Answer with JSON only:
{"decisions": [{"id": "<id>", "yes": true|false}, ...]} with one entry per requirement."""

RUBRIC_PROMPT = """You grade whether a finished assistant session meets each criterion.
Input JSON: the user's profile, the criteria (id, text), the conversation, and the final artifacts.
Credit a criterion only with concrete evidence in the conversation, calls or artifacts. Answer with JSON only:
{"decisions": [{"id": "<id>", "yes": true|false}, ...]} with one entry per criterion."""


def prompt_hashes() -> dict[str, str]:
    return {name: hashlib.sha256(text.encode()).hexdigest() for name, text in
            (("satisfaction", SATISFACTION_PROMPT), ("targeted", TARGETED_PROMPT), ("rubric", RUBRIC_PROMPT))}


class Decision(BaseModel):
    id: str = Field(description="Item id.")
    yes: bool = Field(description="Verdict.")


class Decisions(BaseModel):
    decisions: list[Decision] = Field(description="One verdict per item.")


Labels = dict[str, bool | None]


def question_sentences(reply: str) -> list[str]:
    """Sentences of ``reply`` that end with a question mark."""
    return [q.strip() for q in re.findall(r"[^.!?\n]*\?", reply or "") if q.strip(" ?")]


def proxy_words(text: str) -> set[str]:
    """Content words plus numbers: what the lexical proxy compares."""
    return content_words(text) | {t for t in tokens(text) if t.isdigit()}


def embedded_satisfied(intent: HiddenIntent, ev: Evidence) -> bool:
    if intent.satisfied_by:
        return all(run_check(c, ev) for c in intent.satisfied_by)
    want = proxy_words(intent.content)
    have = proxy_words("\n".join(ev.replies) + "\n" + ev.artifacts_text())
    return bool(want) and overlap(have, want) >= SATISFIED_MIN


def embedded_targeted(intent: HiddenIntent, reply: str) -> bool:
    want = content_words(intent.question or intent.content)
    return bool(want) and any(overlap(content_words(q), want) >= QUESTION_MIN for q in question_sentences(reply))


def _labels(verdict: Decisions, ids: list[str]) -> Labels:
    got = {d.id: d.yes for d in verdict.decisions}
    return {i: got.get(i) for i in ids}  # an id the model left out stays undefined


def _artifacts(ev: Evidence, limit: int = 6000) -> dict[str, Any]:
    """App records and the workspace files the agent wrote (plus the task's files_read), cut to ``limit``."""
    from longview.suites.intents.evidence import records

    apps = {c: records(ev.state, c) for c in ("notes", "tasks", "emails", "texts", "events", "expenses", "groups",
                                                  "orders", "contacts", "alarms", "projects")}
    apps = {k: v for k, v in apps.items() if v}
    shown = sorted(ev.written | {p for p in ev.context_files if p in ev.files})
    return {"apps": apps, "files": {p: ev.files[p][:limit] for p in shown if p in ev.files}}


class IntentJudges:
    """Satisfaction and targeted-question stages; embedded unless ``model`` (an LLMJudge factory) is given.

    When both run, the embedded label is kept next to the model's for the agreement report; the
    model's label decides."""

    def __init__(self, satisfaction: LLMJudge | None = None, targeted: LLMJudge | None = None) -> None:
        self.satisfaction_model, self.targeted_model = satisfaction, targeted
        self.name = satisfaction.name if satisfaction else "embedded:checks+lexical"

    async def satisfied(self, intents: list[HiddenIntent], reply: str, ev: Evidence,
                        profile: str) -> tuple[Labels, Labels]:
        """(decisions, embedded labels). Embedded labels are given for intents with checks."""
        embedded: Labels = {i.id: embedded_satisfied(i, ev) for i in intents}
        if self.satisfaction_model is None:
            return embedded, {}
        payload = {"profile": profile, "requirements": [{"id": i.id, "content": i.content} for i in intents],
                   "reply": reply, "tool_calls": [{"name": c.name, "arguments": c.arguments, "ok": c.ok}
                                                  for c in ev.calls], "artifacts": _artifacts(ev)}
        verdict = await self.satisfaction_model.ask(payload)
        return _labels(verdict, [i.id for i in intents]), {i.id: embedded[i.id] for i in intents if i.satisfied_by}

    async def targeted(self, intents: list[HiddenIntent], reply: str) -> tuple[Labels, Labels]:
        embedded: Labels = {i.id: embedded_targeted(i, reply) for i in intents}
        if self.targeted_model is None:
            return embedded, {}
        payload = {"requirements": [{"id": i.id, "content": i.content} for i in intents], "reply": reply}
        verdict = await self.targeted_model.ask(payload)
        return _labels(verdict, [i.id for i in intents]), embedded


class RubricJudge:
    """Checklist items without a deterministic check."""

    def __init__(self, model: LLMJudge | None = None) -> None:
        self.model = model
        self.name = model.name if model else "embedded:proxy"

    async def judge(self, items: list[ChecklistItem], ev: Evidence, transcript: list[dict[str, Any]],
                    profile: str) -> Labels:
        if not items:
            return {}
        if self.model is None:
            return {it.id: (run_check(it.proxy, ev) if it.proxy else None) for it in items}
        payload = {"profile": profile, "criteria": [{"id": it.id, "text": it.text} for it in items],
                   "conversation": transcript, "artifacts": _artifacts(ev)}
        return _labels(await self.model.ask(payload), [it.id for it in items])
