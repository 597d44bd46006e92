"""One persistent, date-aware world per user: calendar, mail, files, contacts, places, shopping and
travel records for work and personal life.

A record becomes visible on its ``visible_from`` date; tools see only the session's context and
date. Completed writes persist into later sessions. The toolkit marks each write tool internal
(the user's own stores) or external (reaches other people or spends money) — the distinction the
autonomy wrapper acts on. Writes accept the agent's own labels ``scope`` (requested/extra) and
``topic`` so the wrapper can execute or hold proposed actions.
"""

from __future__ import annotations

import copy
from typing import Any, Literal

from pydantic import Field

from longview.kernel.state import WorldState
from longview.kernel.tools import ToolError, ToolKind, Toolkit, tool
from longview.suites.prefs.model import Context, Strict

INTERNAL, EXTERNAL = "internal", "external"


class Record(Strict):
    """One object of the world."""

    id: str = Field(description="Record id.")
    type: Literal["person", "event", "email", "file", "place", "product", "trip", "order", "booking"] = Field(
        description="Record type."
    )
    context: Literal["work", "personal"] = Field(description="Which life the record belongs to.")
    visible_from: str = Field(description="ISO date from which tools can see the record.")
    attrs: dict[str, Any] = Field(default_factory=dict, description="Record content, shown verbatim.")

    def view(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type,
                **{k: (copy.deepcopy(v) if isinstance(v, (list, dict)) else v) for k, v in self.attrs.items()}}


class PrefsWorld(WorldState):
    """Everything in the user's world; tools read and change only this."""

    records: dict[str, Record] = Field(default_factory=dict, description="Records by id.")
    log: list[dict[str, Any]] = Field(default_factory=list, description="Every executed write, in order.")
    counter: int = Field(default=0, description="Last number used for a created id.")

    def branch(self) -> PrefsWorld:
        """A copy for a probe: records are shared until one changes (tools copy a record before
        changing it), so branching is cheap and never touches the original."""
        return PrefsWorld(records=dict(self.records), log=[dict(e) for e in self.log], counter=self.counter)

    def add(self, rec: Record) -> None:
        self.records[rec.id] = rec

    def new_id(self, prefix: str) -> str:
        while True:
            self.counter += 1
            rid = f"{prefix}_n{self.counter:04d}"
            if rid not in self.records:
                return rid


Scope = Literal["requested", "extra"]


class WorldTools(Toolkit):
    """The PA's tools on the world, bound to one context and date."""

    def __init__(self, world: PrefsWorld, context: Context, today: str) -> None:
        self.world, self.context, self.today = world, context, today
        super().__init__()  # the kernel derives tool specs and schemas once per class

    # -- helpers -------------------------------------------------------------------------
    def _visible(self, rtype: str | None = None) -> list[Record]:
        return [
            r for r in self.world.records.values()
            if r.context == self.context and r.visible_from <= self.today and (rtype is None or r.type == rtype)
        ]

    def _get(self, rid: str, rtype: str) -> Record:
        r = self.world.records.get(rid)
        if r is None or r.type != rtype or r.context != self.context or r.visible_from > self.today:
            raise ToolError(f"Not found: no {rtype} {rid!r}")
        return r

    def _mutable(self, rid: str, rtype: str) -> Record:
        """Records are copied before they change, so branched worlds can share the rest."""
        r = self._get(rid, rtype).model_copy(deep=True)
        self.world.records[rid] = r
        return r

    @staticmethod
    def _match(r: Record, query: str | None) -> bool:
        if not query:
            return True
        hay = " ".join(str(v) for v in r.attrs.values()).lower() + " " + r.id.lower()
        return all(w in hay for w in query.lower().split())

    def _write(self, name: str, effect: str, target: str, **detail: Any) -> dict:
        entry = {"tool": name, "effect": effect, "target": target, "day": self.today, **detail}
        self.world.log.append(entry)
        return {"ok": True, **{k: v for k, v in entry.items() if k != "effect"}}

    # -- reads ----------------------------------------------------------------------------
    @tool(ToolKind.READ, tags=("calendar",))
    def list_events(self, query: str | None = None) -> dict:
        """List calendar events, optionally filtered by words in their title or notes.

        Args:
          query: Words that must all appear in the event.
        """
        return {"events": [r.view() for r in self._visible("event") if self._match(r, query)]}

    @tool(ToolKind.READ, tags=("mail",))
    def search_mail(self, query: str | None = None) -> dict:
        """Search received and sent mail.

        Args:
          query: Words that must all appear in the message.
        """
        return {"messages": [r.view() for r in self._visible("email") if self._match(r, query)]}

    @tool(ToolKind.READ, tags=("contacts",))
    def search_contacts(self, query: str | None = None) -> dict:
        """Search contacts by name, role or relation.

        Args:
          query: Words that must all appear in the contact.
        """
        return {"contacts": [r.view() for r in self._visible("person") if self._match(r, query)]}

    @tool(ToolKind.READ, tags=("files",))
    def list_files(self, query: str | None = None) -> dict:
        """List documents in the working copy, with their content.

        Args:
          query: Words that must all appear in the document.
        """
        return {"files": [r.view() for r in self._visible("file") if self._match(r, query)]}

    @tool(ToolKind.READ, tags=("places",))
    def search_places(self, query: str | None = None) -> dict:
        """Search restaurants, venues and services.

        Args:
          query: Words that must all appear in the place's description.
        """
        return {"places": [r.view() for r in self._visible("place") if self._match(r, query)]}

    @tool(ToolKind.READ, tags=("shopping",))
    def search_products(self, query: str | None = None) -> dict:
        """Search the shop catalogue and past orders.

        Args:
          query: Words that must all appear in the product.
        """
        return {"products": [r.view() for r in self._visible("product") if self._match(r, query)]}

    @tool(ToolKind.READ, tags=("travel",))
    def list_trips(self, query: str | None = None) -> dict:
        """List booked trips and their status.

        Args:
          query: Words that must all appear in the trip.
        """
        return {"trips": [r.view() for r in self._visible("trip") if self._match(r, query)]}

    # -- internal writes ------------------------------------------------------------------
    @tool(ToolKind.WRITE, tags=("calendar", INTERNAL))
    def update_event(self, event_id: str, day: str | None = None, time: str | None = None,
                     note: str | None = None, scope: Scope = "requested", topic: str | None = None) -> dict:
        """Move an event or add a note to it.

        Args:
          event_id: The event.
          day: New date (YYYY-MM-DD).
          time: New start time (HH:MM).
          note: Text appended to the event's notes.
          scope: "requested" for work the user asked for, "extra" for related work beyond it.
          topic: Which of the user's requests this call serves.
        """
        r = self._mutable(event_id, "event")
        if day:
            r.attrs["day"] = day
        if time:
            r.attrs["time"] = time
        if note:
            r.attrs["notes"] = (r.attrs.get("notes", "") + " " + note).strip()
        return self._write("update_event", INTERNAL, event_id, day=day, time=time, note=note)

    @tool(ToolKind.WRITE, tags=("calendar", INTERNAL))
    def create_event(self, title: str, day: str, time: str, scope: Scope = "requested",
                     topic: str | None = None) -> dict:
        """Add an event to the calendar.

        Args:
          title: Event title.
          day: Date (YYYY-MM-DD).
          time: Start time (HH:MM).
          scope: "requested" for work the user asked for, "extra" for related work beyond it.
          topic: Which of the user's requests this call serves.
        """
        rid = self.world.new_id("evt")
        self.world.add(Record(id=rid, type="event", context=self.context, visible_from=self.today,
                              attrs={"title": title, "day": day, "time": time}))
        return self._write("create_event", INTERNAL, rid, title=title, day=day, time=time)

    @tool(ToolKind.WRITE, tags=("files", INTERNAL))
    def edit_file(self, file_id: str, text: str, scope: Scope = "requested", topic: str | None = None) -> dict:
        """Append text to a document in the working copy.

        Args:
          file_id: The document.
          text: Text to append.
          scope: "requested" for work the user asked for, "extra" for related work beyond it.
          topic: Which of the user's requests this call serves.
        """
        r = self._mutable(file_id, "file")
        r.attrs["content"] = (r.attrs.get("content", "") + "\n" + text).strip()
        return self._write("edit_file", INTERNAL, file_id, text=text)

    # -- external actions -----------------------------------------------------------------
    @tool(ToolKind.WRITE, tags=("mail", EXTERNAL))
    def send_email(self, to: str, subject: str, body: str, scope: Scope = "requested",
                   topic: str | None = None) -> dict:
        """Send an email from the user's account.

        Args:
          to: Recipient contact id.
          subject: Subject line.
          body: Message text.
          scope: "requested" for work the user asked for, "extra" for related work beyond it.
          topic: Which of the user's requests this call serves.
        """
        self._get(to, "person")
        rid = self.world.new_id("mail")
        self.world.add(Record(id=rid, type="email", context=self.context, visible_from=self.today,
                              attrs={"to": to, "subject": subject, "body": body, "sent": True}))
        return self._write("send_email", EXTERNAL, to, subject=subject, message_id=rid)

    @tool(ToolKind.WRITE, tags=("places", EXTERNAL))
    def book_place(self, place_id: str, day: str, time: str, party: int, scope: Scope = "requested",
                   topic: str | None = None) -> dict:
        """Book a table or appointment at a place.

        Args:
          place_id: The place.
          day: Date (YYYY-MM-DD).
          time: Time (HH:MM).
          party: Number of people.
          scope: "requested" for work the user asked for, "extra" for related work beyond it.
          topic: Which of the user's requests this call serves.
        """
        r = self._get(place_id, "place")
        if not r.attrs.get("online_booking", True):
            raise ToolError(f"Capability limit: {r.attrs.get('name', place_id)} does not take online bookings.")
        rid = self.world.new_id("bkg")
        self.world.add(Record(id=rid, type="booking", context=self.context, visible_from=self.today,
                              attrs={"place_id": place_id, "day": day, "time": time, "party": party}))
        return self._write("book_place", EXTERNAL, place_id, day=day, time=time, party=party, booking_id=rid)

    @tool(ToolKind.WRITE, tags=("shopping", EXTERNAL))
    def order_product(self, product_id: str, quantity: int = 1, scope: Scope = "requested",
                      topic: str | None = None) -> dict:
        """Order a product.

        Args:
          product_id: The product.
          quantity: How many.
          scope: "requested" for work the user asked for, "extra" for related work beyond it.
          topic: Which of the user's requests this call serves.
        """
        self._get(product_id, "product")
        rid = self.world.new_id("ord")
        self.world.add(Record(id=rid, type="order", context=self.context, visible_from=self.today,
                              attrs={"product_id": product_id, "quantity": quantity}))
        return self._write("order_product", EXTERNAL, product_id, quantity=quantity, order_id=rid)


def effect_of(toolkit: Toolkit, name: str) -> str | None:
    """internal / external for a write tool, None for a read."""
    spec = toolkit.spec(name)
    if spec is None or spec.kind != ToolKind.WRITE:
        return None
    return EXTERNAL if EXTERNAL in spec.tags else INTERNAL
