"""The cross-session context (paper 000, App. B.4): what later sessions know of earlier ones.

Each finished learning session is rendered from its messages, keeping only what the user saw and
business tool traffic, in order: ``[user]``, ``[assistant to user]``, ``[tool call]`` and
``[tool result]`` lines. Hidden as internal protocol: ``send_to_user.reason``, the synthetic
acknowledgements of control tools, scaffolding notes (never in the messages) and assistant content
on tool-call turns. Oracle variants instead render ``[Prior statement i]`` blocks.
"""

from __future__ import annotations

import json

from longview.kernel.agent import Message

CONTROL_TOOLS = {"send_to_user", "finish_session"}


def render_session(index: int, messages: list[Message]) -> str:
    """Render one learning transcript as a numbered ``[Session i]`` block."""
    lines = [f"[Session {index}]"]
    for m in messages:
        if m.role == "user" and m.content:
            lines.append(f"[user]: {m.content}")
        elif m.role == "assistant":
            if not m.tool_calls and m.content:  # an unrescued text turn reached the user as is
                lines.append(f"[assistant to user]: {m.content}")
            for c in m.tool_calls:
                if c.name == "send_to_user":
                    lines.append(f"[assistant to user]: {c.arguments.get('output', '')}")
                elif c.name not in CONTROL_TOOLS:
                    args = json.dumps(c.arguments, ensure_ascii=False, sort_keys=True)
                    lines.append(f"[tool call]: {c.name}({args})")
        elif m.role == "tool" and m.name not in CONTROL_TOOLS:
            lines.append(f"[tool result]: {m.content}")
    return "\n".join(lines)


def render_prior_statements(answers: list[str]) -> str:
    """Oracle context: canonical answers as synthetic prior user statements."""
    return "\n\n".join(f"[Prior statement {i}]\n[user]: {a}" for i, a in enumerate(answers, 1))


class CrossSessionContext:
    """Grows during the learning phase, then is frozen and shared by every test session."""

    def __init__(self) -> None:
        self._blocks: list[str] = []
        self.frozen = False

    def append_session(self, messages: list[Message]) -> None:
        if self.frozen:
            raise RuntimeError("context is frozen after the learning phase")
        self._blocks.append(render_session(len(self._blocks) + 1, messages))

    def freeze(self) -> str:
        self.frozen = True
        return self.text

    @property
    def text(self) -> str:
        return "\n\n".join(self._blocks)
