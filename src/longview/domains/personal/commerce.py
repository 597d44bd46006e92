"""Commerce: products, orders, shopping lists and subscriptions."""

from __future__ import annotations

from typing import Literal

from longview.domains.personal.base import (
    PersonalToolkit,
    describe_filters,
    number_filter,
    parse_date,
    positive_int,
    text_filter,
)
from longview.kernel.tools import Date, ToolError, ToolKind, tool

C = ("commerce",)
SUB = ("commerce", "subscription")
PRODUCT = ("product",)
ORDER = ("order",)
SUBSCRIPTION = ("subscription",)


class CommerceToolkit(PersonalToolkit):
    DOMAIN = "commerce"

    @tool(ToolKind.READ, tags=C)
    def search_products(
        self,
        category: str | None = None,
        budget: float | None = None,
        sort_by: Literal["relevance", "price_asc", "price_desc", "rating"] | None = None,
    ) -> dict:
        """Find products for sale, optionally narrowed by category and a maximum price.

        Args:
            category: Kind of product wanted, e.g. "hiking poles".
            budget: Highest acceptable unit price.
            sort_by: Result order.
        """
        checks = [text_filter(("category",), category, default="unknown"), number_filter("price", budget, at_most=True)]
        return self.search(PRODUCT, checks, sort_by, filters=describe_filters(category=category, budget=budget))

    @tool(ToolKind.READ, tags=C)
    def compare_products(self, product_ids: list[str]) -> dict:
        """Put several products side by side (each with all its attributes).

        Args:
            product_ids: Ids of the products to compare (from search_products).
        """
        # As in the release: no ready-made "cheapest" or "best rated" pick, and an id that is not a
        # product gives a row with an error instead of failing the call.
        rows = []
        for pid in product_ids:
            rec = self.db.records.get(pid)
            rows.append(rec.view() if rec is not None and rec.type in PRODUCT else {"id": pid, "error": "not found"})
        return {"results": rows, "count": len(rows)}

    @tool(ToolKind.WRITE, tags=C)
    def build_shopping_list(self, items: list[str], list_name: str | None = None) -> dict:
        """Save a named shopping list made of the given items.

        Args:
            items: Item names to put on the list.
            list_name: Name for the list.
        """
        if not items:
            raise ToolError("items must not be empty")
        rec = self.create("lst_", "shopping_list", list_name=list_name or "Shopping list", items=list(items))
        return self.confirmation("list_id", rec)

    @tool(ToolKind.WRITE, tags=C)
    def place_order(
        self,
        product_id: str,
        quantity: int,
        shipping_address: str | None = None,
        payment_method: str | None = None,
    ) -> dict:
        """Buy a product; address and payment default to the ones saved for the user.

        Args:
            product_id: Id of the product to buy.
            quantity: Number of units.
            shipping_address: Delivery address, if not the saved one.
            payment_method: Payment method, if not the saved one.
        """
        self.need(product_id, PRODUCT)
        rec = self.create(
            "ord_",
            "order",
            product_id=product_id,
            quantity=positive_int(quantity, "quantity"),
            shipping_address=self.identity("shipping_address", shipping_address),
            payment_method=self.identity("payment_method", payment_method),
            status="placed",
        )
        return self.confirmation("order_id", rec)

    @tool(ToolKind.WRITE, tags=C)
    def modify_order(self, order_id: str, field: Literal["quantity", "shipping_address"], new_value: str) -> dict:
        """Change the quantity or delivery address of an order that has not shipped yet.

        Args:
            order_id: Id of the order.
            field: Which field to change.
            new_value: The new quantity or address.
        """
        rec = self.need_record(order_id, ORDER)
        closed = ("cancelled", "return_requested", "delivered")
        self.change_field(rec, field, new_value, ints=("quantity",), closed=closed)
        return self.confirmation("order_id", rec)

    @tool(ToolKind.WRITE, tags=C)
    def cancel_order(self, order_id: str) -> dict:
        """Cancel an order.

        Args:
            order_id: Id of the order.
        """
        return self.cancel(order_id, ORDER, "order_id")

    @tool(ToolKind.READ, tags=C)
    def track_order(
        self, order_id: str, update_scope: Literal["critical", "all", "schedule_change"] | None = None
    ) -> dict:
        """Look up where an order stands (fulfilment or delivery status).

        Args:
            order_id: Id of the order.
            update_scope: Which kinds of updates to report.
        """
        rec = self.need(order_id, ORDER)
        related = self.mentions(order_id)
        status = rec.attributes.get("status") if rec else None
        if status is None:
            # An order known only from a product's attributes carries its status there.
            found = (m["attributes"]["order_status"] for m in related if "order_status" in m["attributes"])
            status = next(found, "unknown")
        out = {
            "order_id": order_id,
            "status": status,
            "update_scope": update_scope or "all",
            "related": related,
        }
        if rec:
            out["order"] = rec.view()
        return out

    @tool(ToolKind.WRITE, tags=C)
    def return_order(
        self, order_id: str, resolution_type: Literal["refund", "exchange", "store_credit"] | None = None
    ) -> dict:
        """Start a return for an order, settled by refund, exchange or store credit.

        Args:
            order_id: Id of the order.
            resolution_type: How the return is settled (refund if omitted).
        """
        rec = self.need_record(order_id, ORDER)
        if rec.attributes.get("status") in ("cancelled", "returned"):
            raise ToolError(f"{order_id} is already {rec.attributes['status']}")
        rec.attributes["status"] = "return_requested"
        ret = self.create(
            "rtn_", "return", order_id=order_id, resolution_type=resolution_type or "refund", status="initiated"
        )
        return self.confirmation("return_id", ret)

    @tool(ToolKind.READ, tags=("commerce", "billing"))
    def review_recurring_charges(
        self, focus: Literal["price_change", "usage", "tier", "all"] | None = None
    ) -> dict:
        """Show the user's subscriptions and recurring charges.

        Args:
            focus: Which aspect of the charges to look at.
        """
        out = self.listing(self.of_type(*SUBSCRIPTION))
        out["focus"] = focus or "all"
        return out

    @tool(ToolKind.WRITE, tags=SUB)
    def pause_subscription(self, subscription_id: str, pause_until: Date | None = None) -> dict:
        """Put a subscription on hold, optionally until a given date.

        Args:
            subscription_id: Id of the subscription.
            pause_until: Date the pause ends.
        """
        rec = self.need_record(subscription_id, SUBSCRIPTION)
        if pause_until is not None:
            parse_date(pause_until, "pause_until")
            rec.attributes["paused_until"] = pause_until
        self.set_status(rec, "paused")
        return self.confirmation("subscription_id", rec)

    @tool(ToolKind.WRITE, tags=SUB)
    def resume_subscription(self, subscription_id: str) -> dict:
        """Restart a paused subscription.

        Args:
            subscription_id: Id of the subscription.
        """
        rec = self.need_record(subscription_id, SUBSCRIPTION)
        self.set_status(rec, "active")
        rec.attributes.pop("paused_until", None)
        return self.confirmation("subscription_id", rec)

    @tool(ToolKind.WRITE, tags=SUB)
    def change_subscription_plan(
        self, subscription_id: str, new_plan: Literal["basic", "pro", "premium", "enterprise"]
    ) -> dict:
        """Move a subscription to another tier.

        Args:
            subscription_id: Id of the subscription.
            new_plan: Target tier.
        """
        rec = self.need_record(subscription_id, SUBSCRIPTION)
        if rec.attributes.get("status") == "cancelled":
            raise ToolError(f"{subscription_id} is cancelled")
        rec.attributes["plan"] = new_plan
        return self.confirmation("subscription_id", rec)

    @tool(ToolKind.WRITE, tags=SUB)
    def cancel_subscription(self, subscription_id: str) -> dict:
        """End a subscription.

        Args:
            subscription_id: Id of the subscription.
        """
        return self.cancel(subscription_id, SUBSCRIPTION, "subscription_id")
