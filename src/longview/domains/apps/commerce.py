"""Splitwise (expense splitting), Spotify (music) and Amazon (shopping), AppWorld-style."""

from __future__ import annotations

from typing import Any

from longview.domains.apps.base import AppBase, find, matches, page
from longview.domains.apps.state import Expense, Order, SplitGroup
from longview.kernel.tools import ToolError, ToolKind, tool

R, W = ToolKind.READ, ToolKind.WRITE


class SplitwiseApp(AppBase):
    @tool(W, tags=("splitwise",), name="splitwise__login")
    def sw_login(self, username: str, password: str) -> dict[str, Any]:
        """Login to Splitwise; returns an access_token.

        Args:
          username: Your email.
          password: Your password.
        """
        return self._login("splitwise", username, password)

    @tool(W, tags=("splitwise",), name="splitwise__create_group")
    def create_group(self, access_token: str, name: str, member_emails: list[str]) -> dict[str, Any]:
        """Create a group (you are added automatically).

        Args:
          access_token: Token from splitwise__login.
          name: Group name.
          member_emails: Members' emails.
        """
        me = self._user("splitwise", access_token)
        g = SplitGroup(group_id=self.state.next_id(), name=name, owner=me,
                       member_emails=[me] + [m for m in member_emails if m != me])
        self.state.groups.append(g)
        return {"message": "Group created.", "group_id": g.group_id}

    @tool(W, tags=("splitwise",), name="splitwise__add_member_to_group")
    def add_member_to_group(self, access_token: str, group_id: int, user_email: str) -> dict[str, Any]:
        """Add a member to a group.

        Args:
          access_token: Token from splitwise__login.
          group_id: Group id.
          user_email: Member's email.
        """
        me = self._user("splitwise", access_token)
        g = find(self.state.groups, "group_id", group_id, me, "Group")
        if user_email not in g.member_emails:
            g.member_emails.append(user_email)
        return {"message": "Member added."}

    @tool(W, tags=("splitwise",), name="splitwise__record_expense")
    def record_expense(self, access_token: str, paid_amount: float, payer_email: str, debtor_emails: list[str],
                       debt_amounts: list[float], description: str = "", group_id: int | None = None) -> dict[str, Any]:
        """Record an expense paid by one person and owed by others.

        Args:
          access_token: Token from splitwise__login.
          paid_amount: Total paid.
          payer_email: Who paid.
          debtor_emails: Who owes.
          debt_amounts: How much each debtor owes, in the same order.
          description: What it was for.
          group_id: Group id.
        """
        me = self._user("splitwise", access_token)
        if len(debtor_emails) != len(debt_amounts):
            raise ToolError("debtor_emails and debt_amounts must have the same length.")
        if group_id is not None:
            find(self.state.groups, "group_id", group_id, me, "Group")
        e = Expense(expense_id=self.state.next_id(), group_id=group_id, description=description,
                    paid_amount=paid_amount, payer_email=payer_email, debtor_emails=debtor_emails,
                    debt_amounts=debt_amounts)
        self.state.expenses.append(e)
        return {"message": "Expense recorded.", "expense_id": e.expense_id}

    @tool(R, tags=("splitwise",), name="splitwise__show_group_balance")
    def show_group_balance(self, access_token: str, group_id: int) -> dict[str, Any]:
        """Net balance of each member of a group (positive: is owed).

        Args:
          access_token: Token from splitwise__login.
          group_id: Group id.
        """
        me = self._user("splitwise", access_token)
        g = find(self.state.groups, "group_id", group_id, me, "Group")
        bal = {m: 0.0 for m in g.member_emails}
        for e in self.state.expenses:
            if e.group_id == group_id:
                for d, a in zip(e.debtor_emails, e.debt_amounts, strict=False):
                    bal[e.payer_email] = bal.get(e.payer_email, 0.0) + a
                    bal[d] = bal.get(d, 0.0) - a
        return {"group_id": group_id, "balances": {k: round(v, 2) for k, v in bal.items()}}


class SpotifyApp(AppBase):
    @tool(W, tags=("spotify",), name="spotify__login")
    def sp_login(self, username: str, password: str) -> dict[str, Any]:
        """Login to Spotify; returns an access_token.

        Args:
          username: Your email.
          password: Your password.
        """
        return self._login("spotify", username, password)

    @tool(R, tags=("spotify",), name="spotify__search_songs")
    def search_songs(self, access_token: str, query: str = "", genre: str | None = None, page_index: int = 0,
                     page_limit: int = 5) -> list[dict[str, Any]]:
        """Search the song catalog.

        Args:
          access_token: Token from spotify__login.
          query: Title or artist.
          genre: Genre filter.
          page_index: Page, from 0.
          page_limit: Results per page.
        """
        self._user("spotify", access_token)
        hits = [s for s in self.state.songs if matches(query, s.title, s.artist)
                and (genre is None or s.genre.lower() == genre.lower())]
        return [s.model_dump() for s in page(hits, page_index, page_limit)]

    @tool(W, tags=("spotify",), name="spotify__like_song")
    def like_song(self, access_token: str, song_id: int) -> dict[str, Any]:
        """Like a song.

        Args:
          access_token: Token from spotify__login.
          song_id: Song id.
        """
        me = self._user("spotify", access_token)
        find(self.state.songs, "song_id", song_id, None, "Song")
        liked = self.state.liked_songs.setdefault(me, [])
        if song_id not in liked:
            liked.append(song_id)
        return {"message": "Song liked."}

    @tool(R, tags=("spotify",), name="spotify__show_liked_songs")
    def show_liked_songs(self, access_token: str) -> list[dict[str, Any]]:
        """Your liked songs.

        Args:
          access_token: Token from spotify__login.
        """
        me = self._user("spotify", access_token)
        return [find(self.state.songs, "song_id", i, None, "Song").model_dump() for i in self.state.liked_songs.get(me, [])]


class AmazonApp(AppBase):
    @tool(W, tags=("amazon",), name="amazon__login")
    def am_login(self, username: str, password: str) -> dict[str, Any]:
        """Login to Amazon; returns an access_token.

        Args:
          username: Your email.
          password: Your password.
        """
        return self._login("amazon", username, password)

    @tool(R, tags=("amazon",), name="amazon__search_products")
    def search_products(self, access_token: str, query: str = "", max_price: float | None = None,
                        page_index: int = 0, page_limit: int = 5) -> list[dict[str, Any]]:
        """Search products.

        Args:
          access_token: Token from amazon__login.
          query: Search query.
          max_price: Highest price.
          page_index: Page, from 0.
          page_limit: Results per page.
        """
        self._user("amazon", access_token)
        hits = [p for p in self.state.products if matches(query, p.name, p.product_type, p.description)
                and (max_price is None or p.price <= max_price)]
        return [p.model_dump() for p in page(hits, page_index, page_limit)]

    @tool(R, tags=("amazon",), name="amazon__show_product")
    def show_product(self, access_token: str, product_id: int) -> dict[str, Any]:
        """Show a product.

        Args:
          access_token: Token from amazon__login.
          product_id: Product id.
        """
        self._user("amazon", access_token)
        return find(self.state.products, "product_id", product_id, None, "Product").model_dump()

    @tool(W, tags=("amazon",), name="amazon__add_product_to_cart")
    def add_product_to_cart(self, access_token: str, product_id: int, quantity: int = 1) -> dict[str, Any]:
        """Add a product to your cart.

        Args:
          access_token: Token from amazon__login.
          product_id: Product id.
          quantity: Quantity.
        """
        me = self._user("amazon", access_token)
        p = find(self.state.products, "product_id", product_id, None, "Product")
        if quantity < 1 or quantity > p.stock:
            raise ToolError(f"quantity must be between 1 and {p.stock}.")
        cart = self.state.cart.setdefault(me, {})
        cart[str(product_id)] = cart.get(str(product_id), 0) + quantity
        return {"message": "Product added to cart."}

    @tool(R, tags=("amazon",), name="amazon__show_cart")
    def show_cart(self, access_token: str) -> dict[str, Any]:
        """Show your cart.

        Args:
          access_token: Token from amazon__login.
        """
        me = self._user("amazon", access_token)
        items = [{"product_id": int(k), "quantity": v} for k, v in self.state.cart.get(me, {}).items()]
        return {"cart_items": items}

    @tool(W, tags=("amazon",), name="amazon__place_order")
    def place_order(self, access_token: str, address: str = "") -> dict[str, Any]:
        """Place an order for everything in your cart.

        Args:
          access_token: Token from amazon__login.
          address: Shipping address.
        """
        me = self._user("amazon", access_token)
        cart = self.state.cart.get(me) or {}
        if not cart:
            raise ToolError("Your cart is empty.")
        items, total = [], 0.0
        for k, q in cart.items():
            p = find(self.state.products, "product_id", int(k), None, "Product")
            p.stock -= q
            items.append({"product_id": p.product_id, "name": p.name, "quantity": q})
            total += p.price * q
        o = Order(order_id=self.state.next_id(), owner=me, items=items, total=round(total, 2), address=address)
        self.state.orders.append(o)
        self.state.cart[me] = {}
        return {"message": "Order placed.", "order_id": o.order_id}

    @tool(R, tags=("amazon",), name="amazon__show_order")
    def show_order(self, access_token: str, order_id: int) -> dict[str, Any]:
        """Show an order.

        Args:
          access_token: Token from amazon__login.
          order_id: Order id.
        """
        me = self._user("amazon", access_token)
        return find(self.state.orders, "order_id", order_id, me, "Order").model_dump(exclude={"owner"})
