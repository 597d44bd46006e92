"""The command longview starts per session for the MCP harness of the tests: it hands the session's
MCP URL and observation file to the warm harness (tests/agents/mcp_harness.py, running its loop on
the mcp SDK's client in the test process, so the SDK is imported once, not once per session) and
exits when that loop has finished, as a harness process would.

    mcp_launcher.py PORT URL OBS [BASE_URL API_KEY]        (mcp:)
    mcp_launcher.py PORT --stdio OBS [BASE_URL API_KEY]    (mcp+stdio:)

With --stdio it relays its own stdin and stdout, where longview speaks MCP, to the warm harness
(which runs the SDK's stdio transport on the connection) and exits with the harness's status."""

import json
import socket
import sys
import threading

port, url, observation, *model = sys.argv[1:6]
s = socket.create_connection(("127.0.0.1", int(port)))
s.sendall(json.dumps({"url": url, "observation": observation, "model": model, "stdio": url == "--stdio"}).encode()
          + b"\n")
if url != "--stdio":
    answer = s.makefile().readline().strip()
    sys.exit(0 if answer == "done" else 1)


def upstream() -> None:
    for line in sys.stdin.buffer:
        s.sendall(line)
    s.shutdown(socket.SHUT_WR)  # longview closed our stdin: the harness's transport reads its end


threading.Thread(target=upstream, daemon=True).start()
status = 1
for line in s.makefile("rb"):
    if line.startswith(b'{"launcher_exit"'):
        status = json.loads(line)["launcher_exit"]
        break
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()
sys.exit(status)
