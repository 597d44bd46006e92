"""The kernel tool mechanism: schemas come from code, and every failure is a result."""

from __future__ import annotations

from typing import Literal

import pytest

from longview.kernel.tools import (
    Date,
    DateTime,
    ToolError,
    ToolKind,
    Toolkit,
    ToolResult,
    spec_of,
    tool,
    validate_arguments,
)


class Shop(Toolkit):
    def __init__(self, only: list[str] | None = None) -> None:
        self.stock = {"p1": 3}
        super().__init__(only)

    @tool(ToolKind.READ, tags=("shop",))
    def lookup(self, item_id: str, verbose: bool = False) -> dict:
        """Look an item up.

        Longer text that is not part of the description.

        Args:
            item_id: Which item.
            verbose: Show everything.
        """
        if item_id not in self.stock:
            raise ToolError(f"Not found: {item_id}")
        return {"item_id": item_id, "stock": self.stock[item_id]}

    @tool(ToolKind.WRITE, tags=("shop", "orders"), name="buy")
    def _buy_impl(
        self,
        item_id: str,
        count: int,
        when: Date | None = None,
        at: DateTime | None = None,
        speed: Literal["slow", "fast"] | None = None,
        tags: list[str] | None = None,
        extra: dict | None = None,
        price: float | None = None,
    ) -> dict:
        """Buy an item.

        Args:
            item_id: Which item.
            count: How many.
        """
        self.stock[item_id] -= count
        return {"left": self.stock[item_id]}

    def helper(self) -> None:
        """Not a tool."""


def test_spec_is_derived_from_signature_and_docstring() -> None:
    spec = spec_of(Shop.lookup)
    assert spec.name == "lookup" and spec.kind is ToolKind.READ and spec.tags == ["shop"]
    assert spec.description == "Look an item up."
    assert [(p.name, p.type, p.required, p.description) for p in spec.parameters] == [
        ("item_id", "string", True, "Which item."),
        ("verbose", "boolean", False, "Show everything."),
    ]
    buy = spec_of(Shop._buy_impl)
    assert buy.name == "buy" and buy.kind is ToolKind.WRITE
    assert {p.name: p.type for p in buy.parameters} == {
        "item_id": "string",
        "count": "integer",
        "when": "date",
        "at": "datetime",
        "speed": "enum[slow|fast]",
        "tags": "array[string]",
        "extra": "object",
        "price": "number",
    }
    assert [p.name for p in buy.parameters if p.required] == ["item_id", "count"]


def test_json_schema_shape() -> None:
    schema = spec_of(Shop._buy_impl).json_schema()
    fn = schema["function"]
    assert schema["type"] == "function" and fn["name"] == "buy"
    props = fn["parameters"]["properties"]
    assert props["speed"] == {"type": "string", "enum": ["slow", "fast"]}
    assert props["when"] == {"type": "string", "format": "date"}
    assert props["at"] == {"type": "string", "format": "date-time"}
    assert props["tags"] == {"type": "array", "items": {"type": "string"}}
    assert props["item_id"]["description"] == "Which item."
    assert fn["parameters"]["required"] == ["item_id", "count"]
    assert fn["parameters"]["additionalProperties"] is False


def test_toolkit_collects_tools_and_restricts() -> None:
    assert {s.name for s in Shop().specs} == {"lookup", "buy"}
    assert [s["function"]["name"] for s in Shop(only=["lookup"]).schemas()] == ["lookup"]
    assert Shop().spec("helper") is None
    with pytest.raises(KeyError):
        Shop(only=["nope"])


@pytest.mark.parametrize(
    "args,fragment",
    [
        ({}, "missing required argument 'item_id'"),
        ({"item_id": 1}, "argument 'item_id' of lookup must be string"),
        ({"item_id": "p1", "verbose": "yes"}, "must be boolean"),
        ({"item_id": "p1", "colour": "red"}, "unknown argument(s) for lookup: colour"),
        ([], "must be a JSON object"),
    ],
)
def test_argument_errors_come_back_as_results(args, fragment) -> None:
    result = Shop().call("lookup", args)
    assert isinstance(result, ToolResult) and not result.ok
    assert result.error.startswith("Invalid arguments") and fragment in result.error


def test_type_checks() -> None:
    buy = spec_of(Shop._buy_impl)
    assert validate_arguments(buy, {"item_id": "p1", "count": True}) is not None  # bool is not int
    assert validate_arguments(buy, {"item_id": "p1", "count": 1, "price": 2}) is None  # int is a number
    assert validate_arguments(buy, {"item_id": "p1", "count": 1, "speed": "warp"}) is not None
    assert validate_arguments(buy, {"item_id": "p1", "count": 1, "tags": ["a", 2]}) is not None
    assert validate_arguments(buy, {"item_id": "p1", "count": 1, "speed": None}) is None  # null = omitted


def test_unknown_tool_and_tool_errors_are_results() -> None:
    shop = Shop()
    assert shop.call("teleport", {}) == ToolResult(ok=False, error="Unknown tool: teleport")
    missing = shop.call("lookup", {"item_id": "p9"})
    assert not missing.ok and missing.error == "Not found: p9"
    assert missing.content() == '{"error": "Not found: p9"}'
    assert Shop(only=["lookup"]).call("buy", {"item_id": "p1", "count": 1}).error == "Unknown tool: buy"


def test_successful_call() -> None:
    shop = Shop()
    result = shop.call("buy", {"item_id": "p1", "count": 2, "speed": None})
    assert result.ok and result.output == {"left": 1}
    assert shop.call("lookup", {"item_id": "p1"}).content() == '{"item_id": "p1", "stock": 1}'


def test_optional_enum_keeps_its_own_order() -> None:
    """typing caches `Literal[...] | None` by the set of values; the spec reads the written order."""

    @tool(ToolKind.READ)
    def first(order: Literal["x", "y", "z"] | None = None) -> None:
        """First."""

    @tool(ToolKind.READ)
    def second(order: Literal["z", "y", "x"] | None = None) -> None:
        """Second."""

    assert spec_of(first).parameters[0].type == "enum[x|y|z]"
    assert spec_of(second).parameters[0].type == "enum[z|y|x]"


def test_toolkits_share_tables_per_selection_but_hand_out_their_own_schema_lists():
    from longview.domains.personal import make_env

    a = make_env("commerce", [], tools=["search_products"])
    b = make_env("commerce", [])
    assert {s["function"]["name"] for s in a.schemas()} == {"search_products", "get_user_confirmation"}
    assert len(b.schemas()) > len(a.schemas())
    a.schemas().clear()  # a caller's list is its own
    assert len(a.schemas()) == 2
    assert a.schemas()[0] is make_env("commerce", [], tools=["search_products"]).schemas()[0]  # shared, read-only dicts


def test_a_tool_gets_its_own_copy_of_the_arguments():
    class Tags(Toolkit):
        def __init__(self) -> None:
            self.kept: list[list[str]] = []
            super().__init__()

        @tool(ToolKind.WRITE)
        def tag(self, labels: list[str]) -> dict:
            """Store labels.

            Args:
              labels: labels to keep
            """
            labels.append("added-by-tool")
            self.kept.append(labels)
            return {"ok": True}

    env, args = Tags(), {"labels": ["a"]}
    assert env.call("tag", args).ok
    assert args == {"labels": ["a"]}  # the caller's (an agent's) objects are never the env's
    assert env.kept == [["a", "added-by-tool"]]
