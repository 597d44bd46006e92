"""Default output caps per role: what no protocol needs more than, so a looping model stops.

Without a cap a small local model that loops writes until its context is full (minutes per call on
a CPU). The longest thing any suite asks of the agent in one turn is a tool call carrying a drafted
message or a memory file (well under 2,000 tokens); scaffold roles (user simulator, Router,
Classifier, judges) answer in a sentence or a small JSON object. Reasoning models spend their
thinking from the same budget (OpenAI's ``max_completion_tokens``), so a role that asks for
reasoning, or whose model reasons by default, gets a cap far above any visible answer. An explicit
``--max-tokens`` / ``--param ROLE.max_tokens=N`` always wins. A reply that stops at its cap is
counted per role (``truncated``) and reported after the run.
"""

from __future__ import annotations

import re

from .contracts import GenParams

AGENT_MAX_TOKENS = 4096
ROLE_MAX_TOKENS = 1024
REASONING_MAX_TOKENS = 32768

# Model families that think before answering even when no reasoning setting is sent.
_REASONS_BY_DEFAULT = re.compile(
    r"(^|/)(gpt-5|o[1-9]|deepseek-(reasoner|r1|v4)|qwen3|qwq|minimax|gemini-(2\.5|3)|claude-(opus|sonnet)-4|grok-[34])",
    re.I,
)


def reasons(model: str | None, params: GenParams) -> bool:
    """Whether a role's answers include reasoning tokens drawn from the output budget."""
    if params.reasoning_effort is not None:
        return True
    if any("think" in k.lower() or "reason" in k.lower() for k in params.extra):
        return True
    return bool(model and _REASONS_BY_DEFAULT.search(model))


def default_max_tokens(role: str, model: str | None, params: GenParams) -> int:
    """The cap a role gets when none was given (see the module docstring)."""
    if reasons(model, params):
        return REASONING_MAX_TOKENS
    return AGENT_MAX_TOKENS if role == "agent" else ROLE_MAX_TOKENS


def with_output_cap(role: str, model: str | None, params: GenParams) -> GenParams:
    """``params`` with the role's default cap when it has none."""
    if params.max_tokens is not None:
        return params
    return params.model_copy(update={"max_tokens": default_max_tokens(role, model, params)})
