"""Typed tools: one definition per tool, its JSON schema derived from the code.

A tool is a plain Python callable decorated with :func:`tool`. Its parameters come from the
signature (annotations give the type, defaults make a parameter optional), its description from
the first paragraph of the docstring, and per-parameter descriptions from ``name: text`` lines of
the docstring's ``Args:`` section. Tool bodies signal failure by raising :class:`ToolError`; the
:class:`Toolkit` turns that (and argument validation failures) into an error *result* for the agent,
never an exception for the caller.
"""

from __future__ import annotations

import copy
import inspect
import json
import re
import types
import typing
from collections.abc import Callable
from enum import StrEnum
from functools import cached_property
from typing import Annotated, Any, Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field


class ToolKind(StrEnum):
    """Whether a tool only observes the world (READ) or changes it (WRITE)."""

    READ = "read"
    WRITE = "write"


class ToolError(Exception):
    """Raised by a tool body; reaches the agent as ``{"error": message}``."""


class Format:
    """Marker for ``Annotated[str, Format("date")]`` string formats."""

    def __init__(self, name: str) -> None:
        self.name = name


Date = Annotated[str, Format("date")]
DateTime = Annotated[str, Format("date-time")]


class ParamSpec(BaseModel):
    """One tool parameter as the agent sees it."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(description="Parameter name.")
    type: str = Field(
        description="Ontology type: string, integer, number, boolean, date, datetime, object, "
        "array[string], or enum[a|b|c]."
    )
    required: bool = Field(description="Whether the agent must pass it.")
    description: str = Field(default="", description="What the parameter means.")


class ToolSpec(BaseModel):
    """A tool's public contract: name, description, READ/WRITE tag and parameters.

    Specs are frozen and shared: :func:`spec_of` derives each tool's spec once per process.
    """

    model_config = ConfigDict(frozen=True)

    name: str = Field(description="Unique tool name.")
    description: str = Field(description="What the tool does, shown to the agent.")
    kind: ToolKind = Field(description="READ observes, WRITE changes the world.")
    tags: list[str] = Field(default_factory=list, description="Domain tags.")
    parameters: list[ParamSpec] = Field(default_factory=list, description="Parameters in order.")

    def json_schema(self) -> dict[str, Any]:
        """The function-calling schema (OpenAI ``tools`` entry format).

        Built once per spec and shared by every session: treat it as read-only (copy it
        before adding provider-specific fields).
        """
        return self._schema

    @cached_property
    def by_name(self) -> dict[str, ParamSpec]:
        """Parameters by name (built once per spec: every call's arguments are checked against it)."""
        return {p.name: p for p in self.parameters}

    @cached_property
    def _schema(self) -> dict[str, Any]:
        props: dict[str, Any] = {}
        for p in self.parameters:
            prop = _json_type(p.type)
            if p.description:
                prop["description"] = p.description
            props[p.name] = prop
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": {
                    "type": "object",
                    "properties": props,
                    "required": [p.name for p in self.parameters if p.required],
                    "additionalProperties": False,
                },
            },
        }


def _json_type(t: str) -> dict[str, Any]:
    if t.startswith("enum["):
        return {"type": "string", "enum": t[5:-1].split("|")}
    if t.startswith("array["):
        return {"type": "array", "items": _json_type(t[6:-1])}
    return {
        "string": {"type": "string"},
        "integer": {"type": "integer"},
        "number": {"type": "number"},
        "boolean": {"type": "boolean"},
        "object": {"type": "object"},
        "date": {"type": "string", "format": "date"},
        "datetime": {"type": "string", "format": "date-time"},
    }[t]


def _ontology_type(annotation: Any) -> str:
    """Map a Python annotation to an ontology type string."""
    origin = get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) != 1:
            raise TypeError(f"unsupported union annotation {annotation!r}")
        return _ontology_type(args[0])
    if origin is Annotated:
        base, *meta = get_args(annotation)
        for m in meta:
            if isinstance(m, Format):
                return "datetime" if m.name == "date-time" else m.name
        return _ontology_type(base)
    if origin is Literal:
        return "enum[" + "|".join(str(a) for a in get_args(annotation)) + "]"
    if origin is list:
        (item,) = get_args(annotation) or (str,)
        return f"array[{_ontology_type(item)}]"
    if origin is dict or annotation is dict:
        return "object"
    simple = {str: "string", int: "integer", float: "number", bool: "boolean"}
    if annotation in simple:
        return simple[annotation]
    raise TypeError(f"unsupported tool parameter annotation {annotation!r}")


_LITERAL = re.compile(r"^Literal\[([^\]]*)\](\s*\|\s*None)?$")


def _literal_in_source_order(annotation: Any) -> str | None:
    """Enum values in the order written. typing caches `Literal[...] | None` by the *set* of
    values, so a second tool with the same values in another order would get the first's order."""
    m = _LITERAL.match(annotation.strip()) if isinstance(annotation, str) else None
    if not m:
        return None
    values = [v.strip().strip("'\"") for v in m.group(1).split(",")]
    return "enum[" + "|".join(values) + "]"


_ARG_LINE = re.compile(r"^\s{2,}(\w+):\s*(.+)$")


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    doc = inspect.cleandoc(doc or "")
    summary = doc.split("\n\n", 1)[0].replace("\n", " ").strip()
    params: dict[str, str] = {}
    if "Args:" in doc:
        for line in doc.split("Args:", 1)[1].splitlines():
            m = _ARG_LINE.match(line)
            if m:
                params[m.group(1)] = m.group(2).strip()
    return summary, params


def tool(kind: ToolKind, *, tags: tuple[str, ...] = (), name: str | None = None) -> Callable:
    """Mark a function or method as a tool; its spec is derived from signature and docstring."""

    def wrap(fn: Callable) -> Callable:
        fn.__tool_meta__ = (kind, tuple(tags), name or fn.__name__)  # type: ignore[attr-defined]
        return fn

    return wrap


_SPEC_CACHE: dict[tuple[Callable, tuple], ToolSpec] = {}


def spec_of(fn: Callable) -> ToolSpec:
    """The :class:`ToolSpec` of a function (or bound method) decorated with :func:`tool`.

    Derived from signature and docstring once per function and process, then shared.
    """
    func: Any = getattr(fn, "__func__", fn)
    key = (func, func.__tool_meta__)
    spec = _SPEC_CACHE.get(key)
    if spec is None:
        spec = _SPEC_CACHE[key] = _derive_spec(func)
    return spec


def _derive_spec(fn: Callable) -> ToolSpec:
    kind, tags, name = fn.__tool_meta__  # type: ignore[attr-defined]
    summary, param_docs = _parse_docstring(fn.__doc__ or "")
    hints = typing.get_type_hints(fn, include_extras=True)
    params = []
    for p in inspect.signature(fn).parameters.values():
        if p.name == "self":
            continue
        params.append(
            ParamSpec(
                name=p.name,
                type=_literal_in_source_order(p.annotation) or _ontology_type(hints[p.name]),
                required=p.default is inspect.Parameter.empty,
                description=param_docs.get(p.name, ""),
            )
        )
    return ToolSpec(name=name, description=summary, kind=kind, tags=list(tags), parameters=params)


class ToolResult(BaseModel):
    """What a tool call returned to the agent."""

    ok: bool = Field(description="False when the call failed; `error` then says why.")
    output: Any = Field(default=None, description="JSON-serialisable result on success.")
    error: str | None = Field(default=None, description="Reason for failure, shown to the agent.")

    def content(self) -> str:
        """The text the agent sees as the tool message."""
        body = self.output if self.ok else {"error": self.error}
        return json.dumps(body, ensure_ascii=False, sort_keys=True, default=str)


_ATOMS = (str, int, float, bool, type(None))


def json_copy(value: Any) -> Any:
    """A deep copy of JSON-shaped data (dicts, lists, scalars), several times faster than
    ``copy.deepcopy``; any other object is handed to ``copy.deepcopy``."""
    t = type(value)
    if t is dict:  # atoms are checked inline: most arguments are flat, so this saves a call per value
        return {k: v if type(v) in _ATOMS else json_copy(v) for k, v in value.items()}
    if t is list:
        return [v if type(v) in _ATOMS else json_copy(v) for v in value]
    if t in _ATOMS:
        return value
    return copy.deepcopy(value)


def _check_value(t: str, v: Any) -> bool:
    if t.startswith("enum["):
        return isinstance(v, str) and v in t[5:-1].split("|")
    if t.startswith("array["):
        return isinstance(v, list) and all(_check_value(t[6:-1], x) for x in v)
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if t == "boolean":
        return isinstance(v, bool)
    if t == "object":
        return isinstance(v, dict)
    return isinstance(v, str)


def validate_arguments(spec: ToolSpec, args: Any) -> str | None:
    """Return why ``args`` do not fit ``spec``, or None when they do."""
    if not isinstance(args, dict):
        return f"arguments for {spec.name} must be a JSON object"
    known = spec.by_name
    if not known.keys() >= args.keys():
        return f"unknown argument(s) for {spec.name}: {', '.join(sorted(set(args) - set(known)))}"
    for p in spec.parameters:
        if p.name not in args or args[p.name] is None:
            if p.required:
                return f"missing required argument '{p.name}' for {spec.name}"
            continue
        if not _check_value(p.type, args[p.name]):
            return f"argument '{p.name}' of {spec.name} must be {p.type}, got {args[p.name]!r}"
    return None


class Toolkit:
    """A set of tools bound to one live environment; the agent's only way to act on it.

    Subclasses define tools as methods decorated with :func:`tool`. ``only`` restricts the
    exposed tools (e.g. a session's allowed tool list).
    """

    def __init__(self, only: list[str] | None = None) -> None:
        # Shared, read-only tables: one per class and tool selection (a toolkit is built for
        # every session, from a few distinct selections).
        key = (type(self), None if only is None else tuple(only))
        tables = _SELECTIONS.get(key)
        if tables is None:
            table = tool_table(type(self))
            if only is not None:
                missing = sorted(set(only) - set(table))
                if missing:
                    raise KeyError(f"unknown tool(s): {', '.join(missing)}")
                table = {n: table[n] for n in only}
            tables = ({n: attr for n, (attr, _) in table.items()}, {n: spec for n, (_, spec) in table.items()},
                      [spec.json_schema() for _, spec in table.values()])
            if len(_SELECTIONS) >= 4096:
                _SELECTIONS.clear()
            _SELECTIONS[key] = tables
        self._attrs, self._specs, self._schemas = tables

    @property
    def specs(self) -> list[ToolSpec]:
        return list(self._specs.values())

    def spec(self, name: str) -> ToolSpec | None:
        return self._specs.get(name)

    def schemas(self) -> list[dict[str, Any]]:
        return list(self._schemas)

    def call(self, name: str, args: Any) -> ToolResult:
        """Run one tool call; every failure becomes an error result."""
        spec = self._specs.get(name)
        if spec is None:
            return ToolResult(ok=False, error=f"Unknown tool: {name}")
        if isinstance(args, dict) and "__raw__" in args:  # the model layer's marker for unparseable JSON
            return ToolResult(ok=False, error=f"Invalid arguments: not valid JSON: {str(args['__raw__'])[:200]}")
        problem = validate_arguments(spec, args)
        if problem:
            return ToolResult(ok=False, error=f"Invalid arguments: {problem}")
        try:
            # The tool gets its own copy: nothing it stores or changes aliases the agent's objects.
            clean = {k: json_copy(v) for k, v in args.items() if v is not None}
            return ToolResult(ok=True, output=getattr(self, self._attrs[name])(**clean))
        except ToolError as e:
            return ToolResult(ok=False, error=str(e))


_TABLES: dict[type, dict[str, tuple[str, ToolSpec]]] = {}
# (toolkit class, tool selection) -> (tool -> attribute, tool -> spec, schemas); see Toolkit.__init__.
_SELECTIONS: dict[tuple[type, tuple[str, ...] | None], tuple[dict[str, str], dict[str, ToolSpec], list[dict[str, Any]]]] = {}


def tool_table(cls: type) -> dict[str, tuple[str, ToolSpec]]:
    """tool name -> (attribute name, spec) for a toolkit class, in attribute-name order; built once
    per class (tools are class attributes, so every instance of a class has the same table)."""
    table = _TABLES.get(cls)
    if table is None:
        table = {}
        for attr in dir(cls):
            fn = getattr(cls, attr, None)  # a plain function for methods; properties stay unevaluated
            if callable(fn) and hasattr(fn, "__tool_meta__"):
                table[fn.__tool_meta__[2]] = (attr, spec_of(fn))
        _TABLES[cls] = table
    return table
