"""The command longview starts per session for the MCP harness of the tests: it hands the session's
MCP URL and observation file to the warm harness (tests/agents/mcp_harness.py, running its loop on
the mcp SDK's client in the test process, so the SDK is imported once, not once per session) and
exits when that loop has finished, as a harness process would.
Usage: mcp_launcher.py PORT URL OBS [BASE_URL API_KEY]"""

import json
import socket
import sys

port, url, observation, *model = sys.argv[1:6]
with socket.create_connection(("127.0.0.1", int(port))) as s:
    s.sendall(json.dumps({"url": url, "observation": observation, "model": model}).encode() + b"\n")
    answer = s.makefile().readline().strip()
sys.exit(0 if answer == "done" else 1)
