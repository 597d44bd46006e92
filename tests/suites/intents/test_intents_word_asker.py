"""'Ask about everything' without knowing the hidden intents: a probe that reads every workspace file
and the user's messages, then asks one short question per content word it saw ("What about X?").
Each such question is 'focused' (its only content word may be an intent's), so without a bound the
union of hundreds of them could cover an intent's question words by brute force. It must stay at
the floor: elicited and PROC near 0, completed 0. Before the reply-level focus rule
(judge.reply_focused) it scored PROC 0.55, elicited 0.52 (2 units, 8 sessions; 2026-12-02)."""

from __future__ import annotations

import json

import pytest
from intents_helpers import run_cells

from longview.kernel.agent import AssistantTurn, Observation, ToolCall
from longview.suites.intents.dataset import IntentsDataset
from longview.suites.intents.suite import IntentsOptions, IntentsSuite
from longview.text import content_words

UNITS = ("researcher", "law_trainee")


class WordAsker:
    name = "probe:word-asker"

    def __init__(self) -> None:
        self.sid: str | None = None

    async def act(self, obs: Observation) -> AssistantTurn:
        mine = sum(1 for m in obs.messages if m.role == "assistant")
        names = {t["function"]["name"] for t in obs.tools}
        if mine == 0 and "list_dir" in names:
            return AssistantTurn(tool_calls=[ToolCall(id="l0", name="list_dir", arguments={"path": "."})])
        if mine == 1 and "read_file" in names:
            entries = []
            for m in obs.messages:
                if m.role == "tool" and m.content:
                    try:
                        entries = json.loads(m.content).get("entries", []) or entries
                    except (ValueError, AttributeError):
                        pass
            files = [e for e in entries if not e.endswith("/")]
            if files:
                return AssistantTurn(tool_calls=[ToolCall(id=f"r{i}", name="read_file", arguments={"path": f})
                                                 for i, f in enumerate(files)])
        if any(m.role == "assistant" and m.content and m.content.startswith("What about") for m in obs.messages):
            return AssistantTurn(text="Thanks, noted.")
        text = " ".join(m.content or "" for m in obs.messages if m.role in ("user", "tool"))
        words = sorted(content_words(text))
        return AssistantTurn(text=" ".join(f"What about {w}?" for w in words) or "Anything else?")


@pytest.fixture(scope="module")
def row(tmp_path_factory):
    suite = IntentsSuite()
    full = suite.load_dataset("builtin", None)
    ds = IntentsDataset(name=full.name, sha256=full.sha256, episodes={u: full.episode(u) for u in UNITS})
    res = run_cells(suite, ds, ["probe:word-asker"], ["default"], tmp_path_factory.mktemp("wordask"),
                    options=IntentsOptions(sessions=8), agent_factory=lambda agent, unit, t: WordAsker())
    return suite.score(res, ds, IntentsOptions(), 0).rows[0]


def test_asking_about_every_word_elicits_nothing(row):
    m = row.metrics
    print({k: m[k] for k in ("proc", "comp", "completed", "elicited", "provided")})
    assert m["completed"] == 0.0
    assert m["elicited"] <= 0.10 and m["proc"] <= 0.10
