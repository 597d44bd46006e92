"""A minimal agent for `longview run SUITE --agent 'cmd:python examples/stdio_agent.py'` (docs/agents.md).

It says who it is (an optional hello line, recorded with the run), then reads one observation per
line on stdin and writes one turn per line on stdout (schema longview.agent/1). Its policy is deliberately simple: look once at the first read tool, then end
the session if the suite offers a finish tool, else answer the user in a sentence.
"""

import json
import sys

print(json.dumps({"type": "hello", "name": "example-stdio-agent", "version": "1.0"}), flush=True)
for line in sys.stdin:
    obs = json.loads(line)
    tools = [t["function"] for t in obs["tools"]]
    names = [t["name"] for t in tools]
    turns = sum(m["role"] == "assistant" for m in obs["messages"])
    finish = next((n for n in ("finish_session", "finish") if n in names), None)
    look = next((t for t in tools if t["name"].startswith(("list_", "search")) and not t["parameters"].get("required")), None)
    if turns == 0 and look is not None:
        turn = {"tool_calls": [{"id": f"{obs['session_id']}-1", "name": look["name"], "arguments": {}}]}
    elif finish is not None:
        turn = {"tool_calls": [{"id": f"{obs['session_id']}-{turns + 1}", "name": finish, "arguments": {}}]}
    else:
        turn = {"text": "Thanks, I have noted that and will take care of it."}
    print(json.dumps(turn), flush=True)
