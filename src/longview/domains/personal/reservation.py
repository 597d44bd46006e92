"""Reservation: restaurants, event tickets and local service appointments."""

from __future__ import annotations

from typing import Literal

from longview.domains.personal.base import (
    PersonalToolkit,
    describe_filters,
    parse_datetime,
    positive_int,
    tag_filter,
    text_filter,
)
from longview.kernel.tools import DateTime, ToolError, ToolKind, tool

RST = ("reservation", "restaurant")
EVT = ("reservation", "event")
SVC = ("reservation", "local_service")

RESTAURANT = ("restaurant",)
EVENT = ("event",)
PROVIDER = ("service_provider",)
# Bookings created here get the first type; the others are accepted from pre-loaded references.
RESERVATION = ("restaurant_reservation", "reservation")
TICKET = ("event_booking", "booking")
APPOINTMENT = ("service_appointment", "appointment")
TICKET_TYPES = ("general_admission", "senior", "vip", "child")


class ReservationToolkit(PersonalToolkit):
    DOMAIN = "reservation"

    # ---- restaurants -------------------------------------------------------------------------

    @tool(ToolKind.READ, tags=RST)
    def search_restaurants(
        self,
        location: str,
        cuisine: str | None = None,
        # Not "Literal[...] | None": typing caches unions by *set*-equal Literal args, so this
        # would reuse search_products' union and its enum order.
        sort_by: Literal["relevance", "rating", "price_asc", "price_desc"] = None,  # type: ignore[assignment]
    ) -> dict:
        """Find restaurants that take reservations in an area, optionally by cuisine.

        Args:
            location: Area or city.
            cuisine: Kind of food.
            sort_by: Result order.
        """
        checks = [text_filter(("location",), location), text_filter(("cuisine",), cuisine, default="unknown")]
        return self.search(RESTAURANT, checks, sort_by, filters=describe_filters(location=location, cuisine=cuisine))

    @tool(ToolKind.WRITE, tags=RST)
    def book_restaurant(
        self, restaurant_id: str, date_time: DateTime, party_size: int, contact_info: str | None = None
    ) -> dict:
        """Reserve a table at a restaurant; contact details default to the saved ones.

        Args:
            restaurant_id: Id of the restaurant.
            date_time: Reservation date and time.
            party_size: Number of guests.
            contact_info: Contact details for the booking, if not the saved ones.
        """
        self.need(restaurant_id, RESTAURANT)
        parse_datetime(date_time, "date_time")
        rec = self.create(
            "rsv_",
            RESERVATION[0],
            restaurant_id=restaurant_id,
            date_time=date_time,
            party_size=positive_int(party_size, "party_size"),
            contact_info=self.identity("contact_info", contact_info),
            status="confirmed",
        )
        return self.confirmation("reservation_id", rec)

    @tool(ToolKind.WRITE, tags=RST)
    def modify_restaurant_reservation(
        self, reservation_id: str, field: Literal["date_time", "party_size", "contact_info"], new_value: str
    ) -> dict:
        """Change the time, party size or contact details of a table reservation.

        Args:
            reservation_id: Id of the reservation.
            field: Which field to change.
            new_value: The new value.
        """
        rec = self.need_record(reservation_id, RESERVATION)
        self.change_field(rec, field, new_value, ints=("party_size",), datetimes=("date_time",))
        return self.confirmation("reservation_id", rec)

    @tool(ToolKind.WRITE, tags=RST)
    def cancel_restaurant_reservation(self, reservation_id: str) -> dict:
        """Cancel a table reservation.

        Args:
            reservation_id: Id of the reservation.
        """
        return self.cancel(reservation_id, RESERVATION, "reservation_id")

    # ---- events ------------------------------------------------------------------------------

    @tool(ToolKind.READ, tags=EVT)
    def search_events(self, location: str | None = None, event_tags: list[str] | None = None) -> dict:
        """Find ticketed events and activities, optionally by place and theme tags.

        Args:
            location: Area or city.
            event_tags: Themes wanted, e.g. ["jazz"]; an event matching any of them qualifies.
        """
        checks = [text_filter(("location",), location), tag_filter("event_tags", event_tags, also="event_type")]
        return self.search(EVENT, checks, filters=describe_filters(location=location, event_tags=event_tags))

    @tool(ToolKind.WRITE, tags=EVT)
    def book_event_ticket(
        self,
        event_id: str,
        ticket_type: Literal["general_admission", "senior", "vip", "child"],
        ticket_count: int,
        contact_info: str | None = None,
    ) -> dict:
        """Get tickets for an event; contact details default to the saved ones.

        Args:
            event_id: Id of the event.
            ticket_type: Ticket category.
            ticket_count: Number of tickets.
            contact_info: Contact details for the booking, if not the saved ones.
        """
        self.need(event_id, EVENT)
        rec = self.create(
            "bkg_",
            TICKET[0],
            event_id=event_id,
            ticket_type=ticket_type,
            ticket_count=positive_int(ticket_count, "ticket_count"),
            contact_info=self.identity("contact_info", contact_info),
            status="confirmed",
        )
        return self.confirmation("booking_id", rec)

    @tool(ToolKind.WRITE, tags=EVT)
    def cancel_event_ticket(self, booking_id: str) -> dict:
        """Cancel an event ticket booking.

        Args:
            booking_id: Id of the ticket booking.
        """
        return self.cancel(booking_id, TICKET, "booking_id")

    @tool(ToolKind.WRITE, tags=EVT)
    def modify_event_ticket(
        self, booking_id: str, field: Literal["ticket_type", "ticket_count", "contact_info"], new_value: str
    ) -> dict:
        """Change the ticket category, number of tickets or contact details of a booking.

        Args:
            booking_id: Id of the ticket booking.
            field: Which field to change.
            new_value: The new value.
        """
        rec = self.need_record(booking_id, TICKET)
        self.change_field(rec, field, new_value, ints=("ticket_count",), choices={"ticket_type": TICKET_TYPES})
        return self.confirmation("booking_id", rec)

    # ---- local services ----------------------------------------------------------------------

    @tool(ToolKind.READ, tags=SVC)
    def search_service_providers(
        self, service_type: str, location: str, sort_by: Literal["relevance", "distance", "rating"] | None = None
    ) -> dict:
        """Find local businesses offering a service by appointment in an area.

        Args:
            service_type: Service wanted, e.g. "haircut".
            location: Area or city.
            sort_by: Result order.
        """
        checks = [text_filter(("service_type",), service_type, default="other"), text_filter(("location",), location)]
        filters = describe_filters(service_type=service_type, location=location)
        return self.search(PROVIDER, checks, sort_by, filters=filters)

    @tool(ToolKind.WRITE, tags=SVC)
    def book_service_appointment(
        self, provider_id: str, date_time: DateTime, contact_info: str | None = None
    ) -> dict:
        """Book an appointment with a service provider; contact details default to the saved ones.

        Args:
            provider_id: Id of the provider.
            date_time: Appointment date and time.
            contact_info: Contact details for the booking, if not the saved ones.
        """
        self.need(provider_id, PROVIDER)
        parse_datetime(date_time, "date_time")
        rec = self.create(
            "apt_",
            APPOINTMENT[0],
            provider_id=provider_id,
            date_time=date_time,
            contact_info=self.identity("contact_info", contact_info),
            status="confirmed",
        )
        return self.confirmation("appointment_id", rec)

    @tool(ToolKind.WRITE, tags=SVC)
    def modify_service_appointment(
        self, appointment_id: str, field: Literal["date_time", "contact_info"], new_value: str
    ) -> dict:
        """Move an appointment or change its contact details.

        Args:
            appointment_id: Id of the appointment.
            field: Which field to change.
            new_value: The new value.
        """
        rec = self.need_record(appointment_id, APPOINTMENT)
        self.change_field(rec, field, new_value, datetimes=("date_time",))
        return self.confirmation("appointment_id", rec)

    @tool(ToolKind.WRITE, tags=SVC)
    def cancel_service_appointment(self, appointment_id: str) -> dict:
        """Cancel a service appointment.

        Args:
            appointment_id: Id of the appointment.
        """
        return self.cancel(appointment_id, APPOINTMENT, "appointment_id")

    @tool(ToolKind.READ, tags=("reservation", "tracking"))
    def track_reservation_updates(
        self,
        reservation_id: str | None = None,
        booking_id: str | None = None,
        appointment_id: str | None = None,
        update_scope: Literal["critical", "all", "schedule_change"] | None = None,
    ) -> dict:
        """Check a table reservation, ticket booking or appointment for changes; pass exactly one id.

        Args:
            reservation_id: Id of a table reservation.
            booking_id: Id of an event ticket booking.
            appointment_id: Id of a service appointment.
            update_scope: Which kinds of updates to report.
        """
        slots = ((reservation_id, RESERVATION), (booking_id, TICKET), (appointment_id, APPOINTMENT))
        given = [(i, t) for i, t in slots if i]
        if len(given) != 1:
            raise ToolError("pass exactly one of reservation_id, booking_id, appointment_id")
        (id_, types), = given
        rec = self.need(id_, types)
        return self.tracking(id_, rec, update_scope)
