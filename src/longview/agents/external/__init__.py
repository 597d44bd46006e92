"""Agents that longview did not write: a Python object or factory, a command over stdio (``cmd:``),
an MCP-capable harness that runs its own loop (``mcp:``). See docs/agents.md.

:mod:`.specs` turns an ``--agent`` value into a per-cell factory and an identity (recorded in the
run's config, so ``--resume`` refuses a different agent); :mod:`.stdio` speaks the line protocol of
:mod:`.schema`.
"""
