"""ATR's test-session carry-on against a server that refuses a request ending on an assistant message
(llama.cpp refuses two there and reads one as a prefill): every request ends on a user or tool
message, the carry-on marker follows each narration, and the cell completes."""

from __future__ import annotations

from longview.harness import run as harness
from longview.harness.options import RunConfig
from longview.suites.atr.protocol import CARRY_ON_NOTE
from longview.testing.loopback import LoopbackServer, finish_or_send, text_message, tool_call_message


def narrating_agent(seen: list[dict]):
    """Test sessions: two narrations, then finish_session; learning sessions: finish_or_send."""

    def agent(body: dict) -> dict:
        msgs = body["messages"]
        seen.append(msgs[-1])
        tools = [t["function"]["name"] for t in body.get("tools") or []]
        if "finish_session" not in tools:
            return finish_or_send(body)
        narrated = sum(1 for m in msgs if m["role"] == "assistant" and not m.get("tool_calls"))
        return text_message(f"Still working ({narrated}).") if narrated < 2 else tool_call_message("finish_session")

    return agent


def test_carry_on_turns_complete_on_a_strict_server(episodes, tmp_path):
    seen: list[dict] = []
    with LoopbackServer(agent=narrating_agent(seen), strict=True).in_thread() as srv:
        cfg = RunConfig(suite="atr", dataset=str(episodes), models=["hosted_vllm/narrator"], variants=["default"],
                        api_base=srv.url, out=tmp_path / "run", no_cache=True, max_attempts=1, units=1,
                        max_concurrency=1)
        store, sc = harness.run(cfg)
        refused = srv.stats.refused
    row = sc.rows[0]
    assert row.n_aborted == 0 and row.n == 1, row.abort_reasons
    assert refused == 0
    assert all(m["role"] != "assistant" for m in seen)
    # The narration is answered by the marker, in atr's words (not the model layer's generic net).
    carried = [m for m in seen if m["role"] == "user" and m["content"] == CARRY_ON_NOTE]
    assert len(carried) >= 2
