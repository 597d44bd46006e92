"""A Python agent for `longview.run("atr", agent=EchoAgent())` or `--agent examples.python_agent:EchoAgent`.

Any object with a `name` and an async `act(observation) -> AssistantTurn` is an agent
(longview.kernel.agent.Agent); a class like this one is called once per cell. This one repeats
the user's last message back, as a baseline that does no real work.
"""

from longview.kernel.agent import AssistantTurn, Observation, ToolCall


class EchoAgent:
    name = "echo"

    async def act(self, obs: Observation) -> AssistantTurn:
        names = {t["function"]["name"] for t in obs.tools}
        last_user = next((m.content for m in reversed(obs.messages) if m.role == "user"), "") or ""
        if obs.messages[-1].role != "user":  # it already answered: end the session where a suite offers a way
            for finish in ("finish_session", "finish"):
                if finish in names:
                    return AssistantTurn(tool_calls=[ToolCall(id=f"end-{len(obs.messages)}", name=finish)])
        if "send_to_user" in names:
            call = ToolCall(id=f"say-{len(obs.messages)}", name="send_to_user",
                            arguments={"output": f"You said: {last_user[:200]}", "reason": "echo"})
            return AssistantTurn(tool_calls=[call])
        return AssistantTurn(text=f"You said: {last_user[:200]}")
