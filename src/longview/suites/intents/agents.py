"""Reference agents: scripted validity bounds that act through exactly the tools an agent gets.

* ``ref:literal`` does exactly what the request says, then whatever the user adds.
* ``ref:asker`` first asks one targeted question per hidden requirement, then does it all.
* ``ref:recall`` reuses earlier sessions (its memory, in the system prompt) and the workspace (it
  lists and reads the files): it applies a requirement when the requirement's cue turns up there.
* ``ref:oracle`` knows every requirement and satisfies all of them in its first answer.

They read the session's reference scripts from the dataset (``base_actions``, each intent's
``actions`` and ``reply``) and execute one tool call per turn, so ``$<save>.<field>`` arguments can
refer to earlier results.
"""

from __future__ import annotations

import json
import re
from typing import Any

from longview.kernel.agent import AssistantTurn, Observation, ToolCall
from longview.suites.intents.dataset import IntentsDataset
from longview.suites.intents.judge import sentences
from longview.suites.intents.schema import Action, Episode, HiddenIntent, Session
from longview.text import content_words, overlap

KINDS = ("literal", "asker", "recall", "oracle")


def mentioned(intent: HiddenIntent, text: str) -> bool:
    """Whether a user message carries this intent: verbatim, or its cue, or (intents without a cue)
    most of its content words."""
    if intent.content.lower() in text.lower():
        return True
    if intent.cue:
        return intent.cue.lower() in text.lower()
    want = content_words(intent.content)
    return bool(want) and overlap(content_words(text), want) >= 0.6


class ReferenceAgent:
    def __init__(self, kind: str, dataset: IntentsDataset, unit: str) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown reference agent {kind}")
        self.kind, self.name = kind, f"ref:{kind}"
        self.episode: Episode = dataset.episode(unit)
        self.sessions = {s.id: s for s in self.episode.sessions}
        self._sid: str | None = None

    # --- per-session state -------------------------------------------------------------------
    def _reset(self, session: Session) -> None:
        self._sid = session.id
        self.queue: list[Action] = []
        self.reply_parts: list[str] = []
        self.saved: dict[str, Any] = {}
        self.tokens: dict[str, str] = {}
        self.applied: set[str] = set()
        self.users_seen = 0
        self.pending: dict[str, Action] = {}
        self.phase = "start"
        self.found_text = ""
        self.calls = 0

    async def act(self, obs: Observation) -> AssistantTurn:
        session = self.sessions.get(obs.session_id)
        if session is None:
            return AssistantTurn(text="I cannot help with this.")
        if self._sid != session.id:
            self._reset(session)
        self._absorb_results(obs)
        users = [m.content or "" for m in obs.messages if m.role == "user"]
        if len(users) > self.users_seen:
            new = users[self.users_seen:]
            self.users_seen = len(users)
            if self.phase == "start":
                self._plan_start(session, obs)
            else:
                self._plan_followup(session, "\n".join(new))
        if self.queue:
            return self._next_call()
        if self.phase == "recall_read":
            self._plan_after_reading(session, obs)
            if self.queue:
                return self._next_call()
        text = "\n\n".join(p for p in self.reply_parts if p) or "Done."
        self.reply_parts = []
        return AssistantTurn(text=text)

    # --- planning ----------------------------------------------------------------------------
    def _apply(self, intents: list[HiddenIntent]) -> None:
        for i in intents:
            if i.id not in self.applied:
                self.applied.add(i.id)
                self.queue += i.actions
                self.reply_parts.append(i.reply or i.content)

    def _plan_start(self, session: Session, obs: Observation) -> None:
        self.phase = "work"
        if self.kind == "asker":
            qs = [f"Could you tell me {q.rstrip('?. ')}?" for i in session.hidden_intents
                  for q in sentences(i.question)]  # one question per sentence of a long intent
            self.reply_parts = ["Before I start, I have a few questions. " + " ".join(qs)]
            self.phase = "asked"
            return
        self.queue = list(session.base_actions)
        self.reply_parts = [session.base_reply]
        if self.kind == "oracle":
            self._apply(session.hidden_intents)
        elif self.kind == "recall":
            memory = obs.system.split("## What you remember from earlier sessions", 1)[-1]
            self.found_text = memory
            self.queue = [Action(tool="list_dir", args={"path": "."}, save="__dir")]
            self.phase = "recall_list"

    def _plan_after_reading(self, session: Session, obs: Observation) -> None:
        self.phase = "work"
        hits = [i for i in session.hidden_intents if i.cue and i.cue.lower() in self.found_text.lower()]
        self.queue = list(session.base_actions)
        self.reply_parts = [session.base_reply]
        self._apply(hits)

    def _plan_followup(self, session: Session, text: str) -> None:
        said = [i for i in session.hidden_intents if mentioned(i, text)]
        if self.phase == "asked":
            self.phase = "work"
            self.queue = list(session.base_actions)
            self.reply_parts = [session.base_reply]
        self._apply(said)
        if not self.reply_parts:
            self.reply_parts = ["Noted."]

    # --- execution ---------------------------------------------------------------------------
    def _resolve(self, value: Any) -> Any:
        if isinstance(value, str):
            m = re.fullmatch(r"\$login:(\w+)", value)
            if m:
                return self.tokens.get(m.group(1), "")
            m = re.fullmatch(r"\$(\w+)\.(\w+)", value)
            if m and m.group(1) in self.saved:
                out = self.saved[m.group(1)]
                return out.get(m.group(2)) if isinstance(out, dict) else None
            return value
        if isinstance(value, list):
            return [self._resolve(v) for v in value]
        if isinstance(value, dict):
            return {k: self._resolve(v) for k, v in value.items()}
        return value

    def _next_call(self) -> AssistantTurn:
        action = self.queue[0]
        for v in json.dumps(action.args).split('"'):
            m = re.fullmatch(r"\$login:(\w+)", v)
            if m and m.group(1) not in self.tokens:
                acc = self.episode.persona.accounts.get(m.group(1))
                if acc is not None:
                    action = Action(tool=f"{m.group(1)}__login", args={"username": acc.email, "password": acc.password},
                                    save=f"__login_{m.group(1)}")
                    self.queue.insert(0, action)
                    break
        self.queue.pop(0)
        self.calls += 1
        cid = f"{self.kind}_{self._sid}_{self.calls}"
        self.pending[cid] = action
        return AssistantTurn(tool_calls=[ToolCall(id=cid, name=action.tool, arguments=self._resolve(action.args))])

    def _absorb_results(self, obs: Observation) -> None:
        for m in reversed(obs.messages):
            if m.role != "tool":
                break
            action = self.pending.pop(m.tool_call_id or "", None)
            if action is None:
                continue
            try:
                out = json.loads(m.content or "null")
            except ValueError:
                out = None
            if action.save and isinstance(out, dict):
                self.saved[action.save] = out
                if action.save.startswith("__login_") and "access_token" in out:
                    self.tokens[action.save[len("__login_"):]] = out["access_token"]
            if self.phase == "recall_list" and action.save == "__dir" and isinstance(out, dict):
                files = [e for e in out.get("entries", []) if not e.endswith("/")]
                self.queue += [Action(tool="read_file", args={"path": f}, save="__read") for f in files]
                self.phase = "recall_read"
            elif action.tool == "read_file" and isinstance(out, dict):
                self.found_text += "\n" + str(out.get("content", ""))
