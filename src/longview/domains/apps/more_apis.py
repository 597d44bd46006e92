"""AppWorld APIs that π-Bench's runnable tasks declare beyond the core ones: thread labels and read
state (Gmail), sub-task listing (Todoist), group expenses (Splitwise), the wish list (Amazon),
song reviews and followed artists (Spotify). Same names, arguments and answers as AppWorld's."""

from __future__ import annotations

from typing import Any

from longview.domains.apps.base import AppBase, find, page
from longview.kernel.tools import ToolError, ToolKind, tool

R, W = ToolKind.READ, ToolKind.WRITE


class MailThreadApis(AppBase):
    def _thread(self, access_token: str, email_thread_id: int) -> list[Any]:
        me = self._user("gmail", access_token)
        emails = [m for m in self.state.emails if m.thread_id == email_thread_id and not m.draft
                  and (me == m.sender or me in m.recipients + m.cc)]
        if not emails:
            raise ToolError(f"Email thread {email_thread_id} not found.")
        return emails

    @tool(W, tags=("gmail",), name="gmail__label_thread")
    def label_thread(self, access_token: str, email_thread_id: int, label: str) -> dict[str, Any]:
        """Add a label to every email of a thread.

        Args:
          access_token: Token from gmail__login.
          email_thread_id: Thread id.
          label: Label name.
        """
        if not label.strip():
            raise ToolError("label must not be empty.")
        for m in self._thread(access_token, email_thread_id):
            if label not in m.labels:
                m.labels.append(label)
        return {"message": "Thread labeled."}

    @tool(W, tags=("gmail",), name="gmail__unlabel_thread")
    def unlabel_thread(self, access_token: str, email_thread_id: int, label: str) -> dict[str, Any]:
        """Remove a label from every email of a thread.

        Args:
          access_token: Token from gmail__login.
          email_thread_id: Thread id.
          label: Label name.
        """
        for m in self._thread(access_token, email_thread_id):
            if label in m.labels:
                m.labels.remove(label)
        return {"message": "Thread unlabeled."}

    def _mark(self, access_token: str, email_thread_id: int, read: bool) -> dict[str, Any]:
        for m in self._thread(access_token, email_thread_id):
            m.read = read
        return {"message": f"Thread marked as {'read' if read else 'unread'}."}

    @tool(W, tags=("gmail",), name="gmail__mark_thread_read")
    def mark_thread_read(self, access_token: str, email_thread_id: int) -> dict[str, Any]:
        """Mark every email of a thread as read.

        Args:
          access_token: Token from gmail__login.
          email_thread_id: Thread id.
        """
        return self._mark(access_token, email_thread_id, True)

    @tool(W, tags=("gmail",), name="gmail__mark_thread_unread")
    def mark_thread_unread(self, access_token: str, email_thread_id: int) -> dict[str, Any]:
        """Mark every email of a thread as unread.

        Args:
          access_token: Token from gmail__login.
          email_thread_id: Thread id.
        """
        return self._mark(access_token, email_thread_id, False)


class TodoSubTaskApis(AppBase):
    @tool(R, tags=("todoist",), name="todoist__show_sub_tasks")
    def show_sub_tasks(self, access_token: str, task_id: int, page_index: int = 0,
                       page_limit: int = 20) -> list[dict[str, Any]]:
        """List the sub-tasks of a task.

        Args:
          access_token: Token from todoist__login.
          task_id: Parent task id.
          page_index: Page, from 0.
          page_limit: Results per page.
        """
        me = self._user("todoist", access_token)
        find(self.state.tasks, "task_id", task_id, me, "Task")
        subs = [t for t in self.state.tasks if t.parent_task_id == task_id and t.owner == me]
        return [{"sub_task_id": t.task_id, **t.model_dump(exclude={"task_id"})} for t in page(subs, page_index, page_limit)]


class SplitwiseExpenseApis(AppBase):
    def _expense(self, access_token: str, expense_id: int) -> Any:
        me = self._user("splitwise", access_token)
        e = find(self.state.expenses, "expense_id", expense_id, None, "Expense")
        mine = {g.group_id for g in self.state.groups if me in g.member_emails}
        if e.payer_email != me and me not in e.debtor_emails and e.group_id not in mine:
            raise ToolError(f"Expense with expense_id={expense_id} not found.")
        return e

    @tool(R, tags=("splitwise",), name="splitwise__show_groups")
    def show_groups(self, access_token: str, page_index: int = 0, page_limit: int = 20) -> list[dict[str, Any]]:
        """List the groups you are a member of.

        Args:
          access_token: Token from splitwise__login.
          page_index: Page, from 0.
          page_limit: Results per page.
        """
        me = self._user("splitwise", access_token)
        rows = [g for g in self.state.groups if me in g.member_emails]
        return [g.model_dump() for g in page(rows, page_index, page_limit)]

    @tool(R, tags=("splitwise",), name="splitwise__show_group_expenses")
    def show_group_expenses(self, access_token: str, group_id: int, page_index: int = 0,
                            page_limit: int = 20) -> list[dict[str, Any]]:
        """List the expenses recorded in a group.

        Args:
          access_token: Token from splitwise__login.
          group_id: Group id.
          page_index: Page, from 0.
          page_limit: Results per page.
        """
        me = self._user("splitwise", access_token)
        g = find(self.state.groups, "group_id", group_id, None, "Group")
        if me not in g.member_emails:
            raise ToolError(f"Group with group_id={group_id} not found.")
        rows = [e for e in self.state.expenses if e.group_id == group_id]
        return [e.model_dump() for e in page(rows, page_index, page_limit)]

    @tool(W, tags=("splitwise",), name="splitwise__update_expense")
    def update_expense(self, access_token: str, expense_id: int, description: str | None = None,
                       paid_amount: float | None = None, payer_email: str | None = None,
                       debtor_emails: list[str] | None = None, debt_amounts: list[float] | None = None) -> dict[str, Any]:
        """Update an expense; fields left out keep their value.

        Args:
          access_token: Token from splitwise__login.
          expense_id: Expense id.
          description: What it was for.
          paid_amount: Total paid.
          payer_email: Who paid.
          debtor_emails: Who owes.
          debt_amounts: How much each debtor owes, in the same order.
        """
        e = self._expense(access_token, expense_id)
        debtors = e.debtor_emails if debtor_emails is None else debtor_emails
        amounts = e.debt_amounts if debt_amounts is None else debt_amounts
        if len(debtors) != len(amounts):
            raise ToolError("debtor_emails and debt_amounts must have the same length.")
        if paid_amount is not None and paid_amount < 0:
            raise ToolError("paid_amount must be >= 0.")
        e.description = e.description if description is None else description
        e.paid_amount = e.paid_amount if paid_amount is None else paid_amount
        e.payer_email = e.payer_email if payer_email is None else payer_email
        e.debtor_emails, e.debt_amounts = list(debtors), list(amounts)
        return {"message": "Expense updated."}

    @tool(W, tags=("splitwise",), name="splitwise__delete_expense")
    def delete_expense(self, access_token: str, expense_id: int) -> dict[str, Any]:
        """Delete an expense.

        Args:
          access_token: Token from splitwise__login.
          expense_id: Expense id.
        """
        e = self._expense(access_token, expense_id)
        self.state.expenses.remove(e)
        return {"message": "Expense deleted."}


class WishListApis(AppBase):
    @tool(W, tags=("amazon",), name="amazon__add_product_to_wish_list")
    def add_product_to_wish_list(self, access_token: str, product_id: int) -> dict[str, Any]:
        """Add a product to your wish list.

        Args:
          access_token: Token from amazon__login.
          product_id: Product id.
        """
        me = self._user("amazon", access_token)
        find(self.state.products, "product_id", product_id, None, "Product")
        wish = self.state.wish_lists.setdefault(me, [])
        if product_id not in wish:
            wish.append(product_id)
        return {"message": "Product added to wish list."}


    @tool(R, tags=("amazon",), name="amazon__show_wish_list")
    def show_wish_list(self, access_token: str) -> list[dict[str, Any]]:
        """Show the products on your wish list.

        Args:
          access_token: Token from amazon__login.
        """
        me = self._user("amazon", access_token)
        by_id = {p.product_id: p for p in self.state.products}
        return [by_id[i].model_dump() for i in self.state.wish_lists.get(me, []) if i in by_id]


class SongApis(AppBase):
    @tool(W, tags=("spotify",), name="spotify__review_song")
    def review_song(self, access_token: str, song_id: int, rating: int, title: str = "",
                    text: str = "") -> dict[str, Any]:
        """Rate and review a song (rating 1-5).

        Args:
          access_token: Token from spotify__login.
          song_id: Song id.
          rating: Stars, 1 to 5.
          title: Review title.
          text: Review text.
        """
        me = self._user("spotify", access_token)
        find(self.state.songs, "song_id", song_id, None, "Song")
        if not 1 <= rating <= 5:
            raise ToolError("rating must be between 1 and 5.")
        rid = self.state.next_id()
        self.state.song_reviews.append({"song_review_id": rid, "song_id": song_id, "user_email": me,
                                        "rating": rating, "title": title, "text": text})
        return {"message": "Song reviewed.", "song_review_id": rid}

    @tool(W, tags=("spotify",), name="spotify__follow_artist")
    def follow_artist(self, access_token: str, artist_id: int) -> dict[str, Any]:
        """Follow an artist.

        Args:
          access_token: Token from spotify__login.
          artist_id: Artist id.
        """
        me = self._user("spotify", access_token)
        if artist_id < 1:
            raise ToolError(f"Artist with artist_id={artist_id} not found.")
        followed = self.state.followed_artists.setdefault(me, [])
        if artist_id not in followed:
            followed.append(artist_id)
        return {"message": "Artist followed."}
