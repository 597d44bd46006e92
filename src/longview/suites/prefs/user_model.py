"""The model-backed simulated user (``--user-model``): the deterministic core decides every move
(what to say, whether to correct, approve or end); a model puts the draft into the persona's own
words, given the persona, the situation and the beat. Its output is checked before the assistant
sees it, as the paper's message checker does: shape (plain text, bounded length, not empty, no
markup or JSON) and leakage (benchmark vocabulary, a preference stated where the beat states
none, in probes a reference to earlier sessions). A rejected rewording is replaced by the draft
and counted (``audit.reworded_rejected``), so nothing unchecked reaches the assistant."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field

from longview.kernel.agent import Message
from longview.suites.prefs.user import Said, audit
from longview.users.base import UserIntent

SYSTEM = ("You speak as the person described below, writing to your personal assistant. You get a draft of "
          "what you want to say next and the situation; rewrite the draft in your own everyday voice. Keep its "
          "meaning and every fact, say no more than it says (no new requests, permissions, praise or complaints), "
          "never describe how the assistant should behave unless the draft does, and never mention earlier "
          "conversations unless the draft does. Answer with the message text only.")

BEATS = {"request": "opening the conversation with a request", "facts": "answering the assistant's questions",
         "match": "accepting what the assistant delivered", "mismatch": "reacting to what the assistant delivered",
         "unclear": "taking the answer without comment", "close": "closing the conversation",
         "probe": "taking the answer without comment on how it was given", "approval": "approving held work",
         "none": "saying nothing in particular"}


class PersonaWording:
    """One run's model-backed wording; ``bind`` gives a session its persona and situation."""

    def __init__(self, client: Any, params: Any) -> None:
        self.client, self.params = client, params
        self.name = f"llm:{client.model}"

    def bind(self, user: Any, scene: Any, checks: list[dict]) -> BoundWording:
        return BoundWording(self, user, scene, checks)


class BoundWording:
    def __init__(self, parent: PersonaWording, user: Any, scene: Any, checks: list[dict]) -> None:
        self.parent, self.user, self.scene, self.checks = parent, user, scene, checks

    async def word(self, intent: UserIntent, delivered: str) -> str:
        trigger = intent.facts.get("trigger", "none")
        payload = json.dumps({"persona": self.user.profile.text(), "context": self.scene.context,
                              "situation": self.scene.noun or self.scene.request[:200],
                              "beat": BEATS.get(trigger, trigger), "assistant_said": delivered[-1500:],
                              "draft": intent.draft}, ensure_ascii=False)
        turn = await self.parent.client.complete(SYSTEM, [Message(role="user", content=payload)], [], self.parent.params)
        text = (turn.text or "").strip()
        why = problem(text, intent.draft, trigger, self.scene)
        self.checks.append({"sid": self.scene.sid, "ok": why is None, "why": why})
        return intent.draft if why is not None else text


def problem(text: str, draft: str, trigger: str, scene: Any) -> str | None:
    """Why a rewording may not reach the assistant (None: it may)."""
    if not text:
        return "empty"
    if text[:1] in "{[<`" or text.lower().startswith(("json", "draft:", "message:")):
        return "markup or JSON, not a message"
    if len(text) > 3 * len(draft) + 200:
        return "far longer than the draft"
    kind = "probe_final" if trigger == "probe" else scene.kind
    found = audit([Said.model_validate({"sid": scene.sid, "kind": kind, "text": text, "trigger": trigger})])
    if found["leaks"]:
        return found["examples"][0]["why"]
    return None


RATE_SYSTEM = ("You are the person described below. Your assistant just answered a request of yours. You get "
               "how you like to be helped in this situation (in your own words), the request, and what the "
               "assistant showed you and did. Rate from 1 to 5 how well the way it helped you matched how you like "
               "it (5 = exactly, 1 = the opposite); not whether the facts were right. Answer with one JSON object: "
               '{"rating": <1-5>, "why": "<one sentence>"}')


class PRSVerdict(BaseModel):
    rating: int = Field(ge=1, le=5, description="The user's rating 1-5.")
    why: str = Field(default="", description="One sentence.")


class PRSRater:
    """The Perceived Realization Score from the model-backed user (the paper's PRS is the simulated
    user's rating): a malformed rating is asked again once, then the cell aborts."""

    def __init__(self, client: Any, params: Any) -> None:
        from longview.judges.base import LLMJudge

        self.llm = LLMJudge(client, params, RATE_SYSTEM, PRSVerdict, role="user")
        self.name = self.llm.name

    async def rate(self, user: Any, scene: Any, attr: Any, target: str, r: Any) -> int:
        payload = {"persona": user.profile.text(), "context": scene.context,
                   "how_you_like_it": attr.setting(target).want, "request": scene.request,
                   "replies": [d.text for d in r.deliveries if not d.suppressed],
                   "actions": [{"tool": a.name, "status": a.status} for a in r.actions]}
        return (await self.llm.ask(payload)).rating
