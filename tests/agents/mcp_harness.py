"""An external harness built only on the `mcp` SDK's client and an OpenAI-compatible model endpoint:
it runs its own loop (ask the model, call the tools it chose over MCP, repeat) the way an SDK-built
agent does. Run as a command per session:

    mcp:python mcp_harness.py {mcp_url} {observation_file} BASE_URL API_KEY CALL_LOG
    mcp+stdio:python mcp_harness.py --stdio {observation_file} BASE_URL API_KEY CALL_LOG

(with --stdio it speaks MCP on its own stdin/stdout: ``Client(stdio_server())``), or warm
(:class:`WarmHarness`, the tests: the SDK is imported once), reached per session through
tests/agents/mcp_launcher.py. It introduces itself as ``test-harness`` (``clientInfo``), version
``HARNESS_VERSION`` or ``$TEST_HARNESS_VERSION``.

It starts from the session's opening observation (system prompt and messages as data), keeps its
own message list in OpenAI form, sends the model the MCP server's tools (less reply_to_user), turns
a text answer into reply_to_user, and logs every call it makes (one JSON line each) to CALL_LOG."""

import asyncio
import json
import os
import sys

import httpx
from mcp import Client
from mcp.server.stdio import stdio_server
from mcp_types import Implementation

REPLY, SAYS = "reply_to_user", "[the user says] "
ENDED = "The session ha"  # "has ended" (the last turn's calls) or "had ended ... not run" (a late call)
NOT_RUN = "The session had ended before this call"
HARNESS_VERSION = "0.3.1"


def client_info() -> Implementation:
    return Implementation(name="test-harness", version=os.environ.get("TEST_HARNESS_VERSION", HARNESS_VERSION))


def openai_message(m: dict) -> dict:
    out = {"role": m["role"], "content": m.get("content")}
    if m.get("tool_calls"):
        out["tool_calls"] = [{"id": c["id"], "type": "function",
                              "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments") or {})}}
                             for c in m["tool_calls"]]
    if m["role"] == "tool":
        out["tool_call_id"], out["name"] = m.get("tool_call_id"), m.get("name")
    return out


async def main(server, observation_file: str, base_url: str, api_key: str, log_path: str) -> None:
    """``server``: the MCP server's URL, or a transport (the SDK's stdio transport, for mcp+stdio:)."""
    with open(observation_file, encoding="utf-8") as fh:
        obs = json.load(fh)
    log = open(log_path, "a", encoding="utf-8")
    async with Client(server, client_info=client_info()) as mcp, httpx.AsyncClient(base_url=base_url, timeout=60,
                                                     headers={"Authorization": f"Bearer {api_key}"}) as http:
        listed = (await mcp.list_tools()).tools
        tools = [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                   "parameters": t.input_schema}} for t in listed if t.name != REPLY]
        messages = [{"role": "system", "content": obs["system"]}] + [openai_message(m) for m in obs["messages"]]

        async def call(name: str, arguments: dict) -> list[str]:
            result = await mcp.call_tool(name, arguments)
            blocks = [b.text for b in result.content]
            # A call answered "had ended before this call" was never run (it came after the end).
            log.write(json.dumps({"session": obs["session_id"], "name": name, "arguments": arguments,
                                  "ran": not any(b.startswith(NOT_RUN) for b in blocks)}) + "\n")
            log.flush()
            return blocks

        while True:
            r = await http.post("/chat/completions", json={"model": "harness", "messages": messages, "tools": tools,
                                                           "user": obs["session_id"]})
            r.raise_for_status()
            msg = r.json()["choices"][0]["message"]
            calls = msg.get("tool_calls") or []
            if not calls and not msg.get("content"):
                return  # nothing more to do: leave
            if not calls:
                messages.append({"role": "assistant", "content": msg["content"]})
                blocks = await call(REPLY, {"text": msg["content"]})
            else:
                messages.append({"role": "assistant", "content": msg.get("content"), "tool_calls": calls})
                results = await asyncio.gather(*(call(c["function"]["name"], json.loads(c["function"]["arguments"]))
                                                 for c in calls))
                for c, res in zip(calls, results, strict=True):
                    messages.append({"role": "tool", "tool_call_id": c["id"], "name": c["function"]["name"],
                                     "content": res[0]})
                blocks = results[-1][1:]
                if any(b.startswith(ENDED) for res in results for b in res):
                    return
            if any(b.startswith(ENDED) for b in blocks):
                return
            said = [b[len(SAYS):] for b in blocks if b.startswith(SAYS)]
            if said:
                messages.append({"role": "user", "content": "\n\n".join(said)})


class WarmHarness:
    """Runs :func:`main` for each launcher that connects (127.0.0.1), on a loop in a background thread."""

    def __init__(self, base_url: str, api_key: str, log_path: str) -> None:
        import threading

        self.base_url, self.api_key, self.log_path = base_url, api_key, log_path
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.port = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        server = self.loop.run_until_complete(asyncio.start_server(self._one, "127.0.0.1", 0))
        self.port = server.sockets[0].getsockname()[1]
        self.ready.set()
        self.loop.run_forever()

    async def _one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        job = json.loads(await reader.readline())
        base_url, api_key = job.get("model") or (self.base_url, self.api_key)  # longview's endpoint if given
        if job.get("stdio"):
            # The launcher relays its stdin/stdout over this connection: the SDK's stdio transport
            # runs on it as it would on the process's own pipes; the exit status comes last.
            transport = stdio_server(stdin=_SocketLines(reader), stdout=_SocketWriter(writer))
            try:
                await main(transport, job["observation"], base_url, api_key, self.log_path)
                status = 0
            except Exception as e:
                print(f"harness failed: {type(e).__name__}: {e}", file=sys.stderr)
                status = 1
            writer.write(json.dumps({"launcher_exit": status}).encode() + b"\n")
        else:
            try:
                await main(job["url"], job["observation"], base_url, api_key, self.log_path)
                writer.write(b"done\n")
            except Exception as e:  # the launcher exits 1: longview aborts the cell with its stderr
                writer.write(f"failed {type(e).__name__}: {e}\n".encode())
        await writer.drain()
        writer.close()

    def __enter__(self) -> "WarmHarness":
        self.thread.start()
        self.ready.wait(30)
        return self

    def __exit__(self, *exc: object) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)


class _SocketLines:
    """A connection's lines as the text file the SDK's stdio transport reads."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader

    def __aiter__(self):
        return self

    async def __anext__(self) -> str:
        line = await self.reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode()


class _SocketWriter:
    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer

    async def write(self, text: str) -> None:
        self.writer.write(text.encode())

    async def flush(self) -> None:
        await self.writer.drain()


if __name__ == "__main__":
    if sys.argv[1] == "--stdio":
        asyncio.run(main(stdio_server(), *sys.argv[2:6]))
    else:
        asyncio.run(main(*sys.argv[1:6]))
