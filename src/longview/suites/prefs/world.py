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

    @tool(ToolKind.READ, tags=("calendar",))
    def get_event(self, event_id: str) -> dict:
        """One calendar event in full (time, status, organiser, attendees, notes).

        Args:
          event_id: The event.
        """
        return {"event": self._get(event_id, "event").view()}

    @tool(ToolKind.READ, tags=("mail",))
    def read_email(self, message_id: str) -> dict:
        """One mail message in full.

        Args:
          message_id: The message.
        """
        return {"message": self._get(message_id, "email").view()}

    @tool(ToolKind.READ, tags=("files",))
    def read_file(self, file_id: str) -> dict:
        """One document in full.

        Args:
          file_id: The document.
        """
        return {"file": self._get(file_id, "file").view()}

    @tool(ToolKind.READ, tags=("places",))
    def get_place(self, place_id: str) -> dict:
        """One place in full (area, rating, whether it takes online bookings, phone).

        Args:
          place_id: The place.
        """
        return {"place": self._get(place_id, "place").view()}

    @tool(ToolKind.READ, tags=("places",))
    def check_availability(self, place_id: str, day: str, time: str, party: int = 2) -> dict:
        """Whether a place can be booked online for a date, time and party (no booking is made).

        Args:
          place_id: The place.
          day: Date (YYYY-MM-DD).
          time: Time (HH:MM).
          party: Number of people.
        """
        r = self._get(place_id, "place")
        taken = any(b.type == "booking" and b.attrs.get("place_id") == place_id and b.attrs.get("day") == day
                    and b.attrs.get("time") == time for b in self.world.records.values())
        online = bool(r.attrs.get("online_booking", True))
        return {"place_id": place_id, "day": day, "time": time, "party": party, "online_booking": online,
                "available": online and not taken}

    @tool(ToolKind.READ, tags=("shopping",))
    def list_orders(self, query: str | None = None) -> dict:
        """List orders placed from the user's account.

        Args:
          query: Words that must all appear in the order.
        """
        return {"orders": [r.view() for r in self._visible("order") if self._match(r, query)]}

    @tool(ToolKind.READ, tags=("places",))
    def list_bookings(self, query: str | None = None) -> dict:
        """List the user's bookings at places.

        Args:
          query: Words that must all appear in the booking.
        """
        return {"bookings": [r.view() for r in self._visible("booking") if self._match(r, query)]}

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

    @tool(ToolKind.WRITE, tags=("calendar", INTERNAL))
    def cancel_event(self, event_id: str, scope: Scope = "requested", topic: str | None = None) -> dict:
        """Mark a calendar event cancelled (it stays in the calendar, struck through).

        Args:
          event_id: The event.
          scope: "requested" for work the user asked for, "extra" for related work beyond it.
          topic: Which of the user's requests this call serves.
        """
        r = self._mutable(event_id, "event")
        r.attrs["status"] = "cancelled"
        return self._write("cancel_event", INTERNAL, event_id)

    @tool(ToolKind.WRITE, tags=("files", INTERNAL))
    def create_file(self, name: str, text: str, scope: Scope = "requested", topic: str | None = None) -> dict:
        """Create a document in the working copy.

        Args:
          name: Document name.
          text: Its content.
          scope: "requested" for work the user asked for, "extra" for related work beyond it.
          topic: Which of the user's requests this call serves.
        """
        rid = self.world.new_id("fil")
        self.world.add(Record(id=rid, type="file", context=self.context, visible_from=self.today,
                              attrs={"name": name, "content": text}))
        return self._write("create_file", INTERNAL, rid, file_name=name)

    @tool(ToolKind.WRITE, tags=("contacts", INTERNAL))
    def add_contact(self, name: str, email: str, role: str = "", scope: Scope = "requested",
                    topic: str | None = None) -> dict:
        """Add a person to the user's contacts.

        Args:
          name: Full name.
          email: Email address.
          role: Who they are to the user.
          scope: "requested" for work the user asked for, "extra" for related work beyond it.
          topic: Which of the user's requests this call serves.
        """
        rid = self.world.new_id("per")
        self.world.add(Record(id=rid, type="person", context=self.context, visible_from=self.today,
                              attrs={"name": name, "email": email, "role": role}))
        return self._write("add_contact", INTERNAL, rid, contact_name=name)

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


    @tool(ToolKind.WRITE, tags=("mail", EXTERNAL))
    def reply_email(self, message_id: str, body: str, scope: Scope = "requested", topic: str | None = None) -> dict:
        """Reply to a received message (to its sender).

        Args:
          message_id: The message replied to.
          body: Reply text.
          scope: "requested" for work the user asked for, "extra" for related work beyond it.
          topic: Which of the user's requests this call serves.
        """
        m = self._get(message_id, "email")
        sender = m.attrs.get("from")
        if not sender:
            raise ToolError(f"Message {message_id!r} has no sender to reply to")
        rid = self.world.new_id("mail")
        self.world.add(Record(id=rid, type="email", context=self.context, visible_from=self.today,
                              attrs={"to": sender, "subject": "Re: " + str(m.attrs.get("subject", "")), "body": body,
                                     "sent": True, "in_reply_to": message_id}))
        return self._write("reply_email", EXTERNAL, str(sender), message_id=rid)

    @tool(ToolKind.WRITE, tags=("places", EXTERNAL))
    def cancel_booking(self, booking_id: str, scope: Scope = "requested", topic: str | None = None) -> dict:
        """Cancel a booking at a place (the place is told).

        Args:
          booking_id: The booking.
          scope: "requested" for work the user asked for, "extra" for related work beyond it.
          topic: Which of the user's requests this call serves.
        """
        r = self._mutable(booking_id, "booking")
        r.attrs["status"] = "cancelled"
        return self._write("cancel_booking", EXTERNAL, booking_id)


def effect_of(toolkit: Toolkit, name: str) -> str | None:
    """internal / external for a write tool, None for a read."""
    spec = toolkit.spec(name)
    if spec is None or spec.kind != ToolKind.WRITE:
        return None
    return EXTERNAL if EXTERNAL in spec.tags else INTERNAL
