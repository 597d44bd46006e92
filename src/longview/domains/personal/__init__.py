"""The six-domain personal-assistant environment (the ATRBench tool ontology, executable).

``make_env(domain, references, persona, tools)`` builds one session's toolkit; the other helpers
answer questions about the tool surface without building one.
"""

from __future__ import annotations

from functools import cache

from longview.domains.personal.base import PersonalToolkit, Record, SessionDB
from longview.domains.personal.discovery import discovery_steps, discovery_tool
from longview.domains.personal.registry import _CLASSES, BASE_TOOLS, DOMAINS, make_env, toolkit_class
from longview.kernel.tools import ToolSpec, spec_of


@cache
def _specs() -> dict[str, tuple[str, ToolSpec]]:
    """tool name -> (domain, spec); the base tool maps to domain 'base'."""
    out: dict[str, tuple[str, ToolSpec]] = {}
    for domain, cls in _CLASSES.items():
        for attr in dir(cls):
            fn = getattr(cls, attr)
            if hasattr(fn, "__tool_meta__"):
                name = fn.__tool_meta__[2]
                out[name] = ("base" if name in BASE_TOOLS else domain, spec_of(fn))
    return out


def all_tool_names() -> set[str]:
    """Every tool of every domain, plus the base tool."""
    return set(_specs())


def tool_spec(name: str) -> ToolSpec:
    """The spec of any tool by name; KeyError if there is none."""
    return _specs()[name][1]


def domain_of(tool_name: str) -> str:
    """The domain a tool belongs to ('base' for get_user_confirmation)."""
    return _specs()[tool_name][0]


def safe_fields(tool_name: str) -> set[str]:
    """Parameters that a confirmation must echo exactly: ids, enums and booleans."""
    return {
        p.name
        for p in tool_spec(tool_name).parameters
        if p.name.endswith(("_id", "_ids")) or p.type.startswith("enum[") or p.type == "boolean"
    }


__all__ = [
    "BASE_TOOLS",
    "DOMAINS",
    "PersonalToolkit",
    "Record",
    "SessionDB",
    "all_tool_names",
    "discovery_steps",
    "discovery_tool",
    "domain_of",
    "make_env",
    "safe_fields",
    "tool_spec",
    "toolkit_class",
]
