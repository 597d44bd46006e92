"""A stdio agent whose decisions come from a model it calls itself, through longview's endpoint:

    longview run atr --agent 'cmd:python examples/stdio_model_agent.py' --model openai/gpt-5.4

longview starts an OpenAI-compatible endpoint for the run's --model and hands it over as
OPENAI_BASE_URL / OPENAI_API_KEY, so this agent's calls are cached, retried, limited and counted
like a native agent's (docs/agents.md). Standard library only.
"""

import json
import os
import sys
import urllib.request

URL, KEY = os.environ["OPENAI_BASE_URL"] + "/chat/completions", os.environ["OPENAI_API_KEY"]


def openai(m):
    out = {"role": m["role"], "content": m.get("content")}
    if m.get("tool_calls"):
        out["tool_calls"] = [{"id": c["id"], "type": "function",
                              "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}} for c in m["tool_calls"]]
    if m["role"] == "tool":
        out["tool_call_id"] = m["tool_call_id"]
    return out


print(json.dumps({"type": "hello", "name": "example-stdio-model-agent", "version": "1.0"}), flush=True)
for line in sys.stdin:
    obs = json.loads(line)
    body = {"model": "any", "messages": [{"role": "system", "content": obs["system"]}] + [openai(m) for m in obs["messages"]],
            "tools": obs["tools"]}
    req = urllib.request.Request(URL, json.dumps(body).encode(), {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"})
    msg = json.load(urllib.request.urlopen(req, timeout=600))["choices"][0]["message"]
    calls = [{"id": c["id"], "name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"] or "{}")}
             for c in msg.get("tool_calls") or []]
    print(json.dumps({"text": msg.get("content"), "tool_calls": calls}), flush=True)
