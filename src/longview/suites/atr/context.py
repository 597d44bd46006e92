"""The cross-session context (ATRBench, App. B.4): what later sessions know of earlier ones.

Each finished learning session is rendered from its messages, keeping only what the user saw and
business tool traffic, in order: ``[user]``, ``[assistant to user]``, ``[tool call]`` and
``[tool result]`` lines. Hidden as internal protocol: ``send_to_user.reason``, the synthetic
acknowledgements of control tools, scaffolding notes (never in the messages) and assistant content
on tool-call turns. Long lines are cut as the release cuts them (500/300 characters, see
:func:`render_session`). Oracle variants instead render ``[Prior statement i]`` blocks.
"""

from __future__ import annotations

import json

from longview.kernel.agent import Message
from longview.suites.atr.protocol import FINISH_SESSION, SEND_TO_USER

CONTROL_TOOLS = {SEND_TO_USER.name, FINISH_SESSION.name}
TEXT_LIMIT = 500  # characters kept of each user/assistant line and tool result (the release's cut)
ARGS_LIMIT = 300  # characters kept of a tool call's JSON arguments


def clip(text: str, limit: int) -> str:
    """The first ``limit`` characters, with ``...`` when something was cut."""
    return text if len(text) <= limit else text[:limit] + "..."


def render_session(index: int, messages: list[Message]) -> str:
    """Render one learning transcript as a numbered ``[Session i]`` block.

    Lines are cut as the release cuts them: user and assistant text and tool results at
    :data:`TEXT_LIMIT` characters, tool-call arguments (JSON, key order as called) at
    :data:`ARGS_LIMIT`; an empty user message (the user left) is not rendered.
    """
    lines = [f"[Session {index}]"]
    for m in messages:
        content = (m.content or "").strip()
        if m.role == "user" and content:
            lines.append(f"[user]: {clip(content, TEXT_LIMIT)}")
        elif m.role == "assistant":
            if not m.tool_calls and content:  # an unrescued text turn reached the user as is
                lines.append(f"[assistant to user]: {clip(content, TEXT_LIMIT)}")
            sent = False
            for c in m.tool_calls:
                if c.name == SEND_TO_USER.name:
                    output = str(c.arguments.get("output") or "").strip()
                    if output and not sent:
                        lines.append(f"[assistant to user]: {clip(output, TEXT_LIMIT)}")
                    sent = True
                elif c.name not in CONTROL_TOOLS:
                    args = json.dumps(c.arguments, ensure_ascii=False)
                    lines.append(f"[tool call]: {c.name}({clip(args, ARGS_LIMIT)})")
        elif m.role == "tool" and m.name not in CONTROL_TOOLS:
            lines.append(f"[tool result]: {clip(content, TEXT_LIMIT)}")
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
