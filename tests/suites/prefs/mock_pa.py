"""A scripted mock model for the golden test: a PA that uses its memory. It selects the setting its
MEMORY.md notes for this context and aspect (else the first one offered), delivers a plain reply, and
when the user objects it notes in MEMORY.md to avoid that setting next time."""

from __future__ import annotations

import json
import re

from longview.kernel.models.mock import register_script

NOTE = re.compile(r"^- (work|personal) (set_\w+): avoid (\w+)$", re.M)


def _tool(tools, prefix):
    for t in tools:
        if t["function"]["name"].startswith(prefix):
            return t["function"]
    return None


def mock_pa(system, messages, tools):
    ctx = re.search(r"^Context: (\w+)$", system, re.M).group(1)
    mem = re.search(r"<memory>\n(.*?)\n</memory>", system, re.S).group(1)
    sel = _tool(tools, "set_")
    mine = [m for m in messages if m.role == "assistant"]
    last = messages[-1]
    if sel is not None and not mine:
        options = sel["parameters"]["properties"]["setting"]["enum"]
        avoid = {s for c, t, s in NOTE.findall(mem) if c == ctx and t == sel["name"]}
        choice = next((o for o in options if o not in avoid), options[0])
        request = next((m.content or "" for m in messages if m.role == "user"), "")
        term = re.search(r"mention the (.+?)\.", request)
        payload = {"answer": "Here is what I found.", "basis": "Your records say so.",
                   "supplements": [{"category": "caveat", "text": "It may still change."},
                                   {"category": "background", "text": "It has been like this for a while."}],
                   "confidence": "high", "empathy": "That sounds like a lot right now.",
                   "term_note": f"The {term.group(1) if term else 'term'} is explained in your notes.",
                   "steps": ["Open the instructions.", "Follow them in order."],
                   "options": ["The first option.", "The second option."],
                   "notify": "Heads-up: something you are working on changed."}
        return {"tool_calls": [{"name": sel["name"], "arguments": {"setting": choice}},
                               {"name": "respond", "arguments": payload}]}
    if last.role == "user" and mine and not any(c.name == "memory_append" for m in mine for c in m.tool_calls):
        used = next((c for m in messages for c in m.tool_calls if c.name.startswith("set_")), None)
        text = (last.content or "").lower()
        liked = any(w in text for w in ("thanks", "perfect", "great", "works")) and len(text) < 40
        has_memory = _tool(tools, "memory_append") is not None
        if used is not None and not liked and has_memory:
            note = f"- {ctx} {used.name}: avoid {used.arguments.get('setting')}"
            return {"tool_calls": [{"name": "memory_append", "arguments": {"text": note}}]}
    return "Noted."


register_script("prefs-memory-user", mock_pa)
_ = json
