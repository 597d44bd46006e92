"""Travel: destinations, trip plans, flights, hotels, ground transport and replanning."""

from __future__ import annotations

from typing import Literal

from longview.domains.personal.base import (
    PersonalToolkit,
    Record,
    any_filter,
    describe_filters,
    number_filter,
    positive_int,
    tag_filter,
    text_filter,
)
from longview.kernel.tools import ToolError, ToolKind, tool

PLAN = ("travel", "planning")
FLT = ("travel", "flight")
HOT = ("travel", "hotel")
GND = ("travel", "ground_transport")

DESTINATION = ("destination",)
STOP = ("trip_stop",)
FLIGHT_OFFER = ("flight_offer",)
HOTEL_OFFER = ("hotel_offer",)
TRANSPORT_OFFER = ("transport_offer",)
TRIP = ("trip", "itinerary")
# Created bookings get the first type; "booking" is accepted from pre-loaded references.
FLIGHT_BOOKING = ("flight_booking", "booking")
HOTEL_BOOKING = ("hotel_booking", "booking")
TRANSPORT_BOOKING = ("transport_booking", "booking")
ANY_BOOKING = ("flight_booking", "hotel_booking", "transport_booking", "booking")
SEATS = ("window", "aisle", "middle")

Sort = Literal["relevance", "price_asc", "price_desc"]


class TravelToolkit(PersonalToolkit):
    DOMAIN = "travel"

    # ---- planning ----------------------------------------------------------------------------

    @tool(ToolKind.READ, tags=PLAN)
    def search_destinations(self, destination_constraints: list[str] | None = None) -> dict:
        """Find candidate destinations; each constraint is matched against name, region and tags.

        Args:
            destination_constraints: Wishes such as ["quiet", "cultural"]; a destination matching any qualifies.
        """
        check = any_filter(("name", "region", "tags"), destination_constraints)
        filters = describe_filters(destination_constraints=destination_constraints)
        return self.search(DESTINATION, [check], filters=filters)

    @tool(ToolKind.WRITE, tags=PLAN)
    def plan_trip(
        self,
        destination: str,
        duration_days: int | None = None,
        traveler_count: int | None = None,
        selected_stop_ids: list[str] | None = None,
        include_daily_breakdown: bool | None = None,
        include_stopovers: bool | None = None,
        include_budget_summary: bool | None = None,
    ) -> dict:
        """Draft a trip itinerary for a destination, optionally built around chosen stops.

        Args:
            destination: Where the trip goes.
            duration_days: Length of the trip in days.
            traveler_count: Number of travelers.
            selected_stop_ids: Ids of stops (from search_trip_stops) the plan must include.
            include_daily_breakdown: Lay the plan out day by day.
            include_stopovers: Add stopovers on the way.
            include_budget_summary: Add an estimated budget.
        """
        stops = list(selected_stop_ids or [])
        for s in stops:
            self.need(s, STOP)
        rec = self.create(
            "trp_",
            TRIP[0],
            destination=destination,
            duration_days=positive_int(duration_days or 1, "duration_days"),
            traveler_count=positive_int(traveler_count or 1, "traveler_count"),
            stop_ids=stops,
            include_daily_breakdown=bool(include_daily_breakdown),
            include_stopovers=bool(include_stopovers),
            include_budget_summary=bool(include_budget_summary),
            status="planned",
        )
        return self.confirmation("trip_id", rec)

    @tool(ToolKind.WRITE, tags=PLAN)
    def shortlist_destinations(self, destination_ids: list[str]) -> dict:
        """Record the final short list of destinations recommended to the user.

        Args:
            destination_ids: Ids of the chosen destinations (from search_destinations).
        """
        self.need_all(destination_ids, DESTINATION, "destination_ids")
        rec = self.create("shl_", "destination_shortlist", destination_ids=list(destination_ids))
        return self.confirmation("shortlist_id", rec)

    @tool(ToolKind.READ, tags=PLAN)
    def search_trip_stops(self, destination: str, stop_tags: list[str] | None = None) -> dict:
        """Find places to visit at a destination, optionally by theme tags.

        Args:
            destination: City or area; matched against each stop's name and location.
            stop_tags: Themes wanted; a stop sharing any of them qualifies.
        """
        checks = [text_filter(("location", "name"), destination), tag_filter("tags", stop_tags, also="stop_type")]
        return self.search(STOP, checks, filters=describe_filters(destination=destination, stop_tags=stop_tags))

    # ---- offers ------------------------------------------------------------------------------

    @tool(ToolKind.READ, tags=FLT)
    def search_flights(
        self, origin: str, destination: str, passenger_count: int, sort_by: Sort | None = None
    ) -> dict:
        """Find flight offers between two places with enough free seats.

        Args:
            origin: Departure city or airport.
            destination: Arrival city or airport.
            passenger_count: Number of passengers.
            sort_by: Result order.
        """
        return self._route_offers(FLIGHT_OFFER, origin, destination, passenger_count, sort_by)

    @tool(ToolKind.READ, tags=HOT)
    def search_hotels(self, location: str, guest_count: int, room_count: int, sort_by: Sort | None = None) -> dict:
        """Find hotel offers in an area that can host the guests in the given number of rooms.

        Args:
            location: City or area.
            guest_count: Number of guests.
            room_count: Number of rooms.
            sort_by: Result order (price is per night).
        """
        rooms, guests = positive_int(room_count, "room_count"), positive_int(guest_count, "guest_count")

        def fits(attrs: dict) -> bool:
            per_room = attrs.get("max_guests_per_room")
            return not (isinstance(per_room, int) and per_room * rooms < guests)

        checks = [
            text_filter(("location",), location),
            number_filter("available_rooms", rooms, at_most=False),
            fits,
        ]
        return self.search(HOTEL_OFFER, checks, sort_by, filters=describe_filters(location=location))

    @tool(ToolKind.READ, tags=GND)
    def search_ground_transport(
        self, origin: str, destination: str, passenger_count: int, sort_by: Sort | None = None
    ) -> dict:
        """Find train, bus or car-transfer offers between two places with enough free seats.

        Args:
            origin: Departure place.
            destination: Arrival place.
            passenger_count: Number of passengers.
            sort_by: Result order.
        """
        return self._route_offers(TRANSPORT_OFFER, origin, destination, passenger_count, sort_by)

    def _route_offers(
        self, types: tuple[str, ...], origin: str, destination: str, passengers: int, sort_by: str | None
    ) -> dict:
        seats = positive_int(passengers, "passenger_count")
        checks = [
            text_filter(("origin",), origin),
            text_filter(("destination",), destination),
            number_filter("available_seats", seats, at_most=False),
        ]
        return self.search(types, checks, sort_by, filters=describe_filters(origin=origin, destination=destination))

    # ---- bookings ----------------------------------------------------------------------------

    @tool(ToolKind.WRITE, tags=FLT)
    def book_flight(
        self,
        flight_offer_id: str,
        traveler_info: str | None = None,
        seat_preference: Literal["window", "aisle", "middle"] | None = None,
        payment_method: str | None = None,
    ) -> dict:
        """Book a flight offer; traveler and payment details default to the saved ones.

        Args:
            flight_offer_id: Id of the flight offer.
            traveler_info: Traveler details, if not the saved profile.
            seat_preference: Preferred seat.
            payment_method: Payment method, if not the saved one.
        """
        rec = self._book(
            flight_offer_id,
            FLIGHT_OFFER,
            FLIGHT_BOOKING[0],
            traveler_info=self.identity("traveler_info", traveler_info),
            seat_preference=seat_preference,
            payment_method=self.identity("payment_method", payment_method),
        )
        return self.confirmation("booking_id", rec)

    @tool(ToolKind.WRITE, tags=HOT)
    def book_hotel(
        self, hotel_offer_id: str, guest_info: str | None = None, payment_method: str | None = None
    ) -> dict:
        """Book a hotel offer; guest and payment details default to the saved ones.

        Args:
            hotel_offer_id: Id of the hotel offer.
            guest_info: Guest details, if not the saved profile.
            payment_method: Payment method, if not the saved one.
        """
        rec = self._book(
            hotel_offer_id,
            HOTEL_OFFER,
            HOTEL_BOOKING[0],
            guest_info=self.identity("guest_info", guest_info),
            payment_method=self.identity("payment_method", payment_method),
        )
        return self.confirmation("booking_id", rec)

    @tool(ToolKind.WRITE, tags=GND)
    def book_ground_transport(
        self, transport_offer_id: str, traveler_info: str | None = None, payment_method: str | None = None
    ) -> dict:
        """Book a train, bus or car-transfer offer; traveler and payment details default to the saved ones.

        Args:
            transport_offer_id: Id of the transport offer.
            traveler_info: Traveler details, if not the saved profile.
            payment_method: Payment method, if not the saved one.
        """
        rec = self._book(
            transport_offer_id,
            TRANSPORT_OFFER,
            TRANSPORT_BOOKING[0],
            traveler_info=self.identity("traveler_info", traveler_info),
            payment_method=self.identity("payment_method", payment_method),
        )
        return self.confirmation("booking_id", rec)

    def _book(self, offer_id: str, offer_types: tuple[str, ...], booking_type: str, **fields: object) -> Record:
        offer = self.need(offer_id, offer_types)
        stock = "available_rooms" if booking_type == HOTEL_BOOKING[0] else "available_seats"
        if offer is not None and offer.attributes.get(stock) == 0:
            raise ToolError(f"{offer_id} is sold out")
        return self.create("bkg_", booking_type, offer_id=offer_id, **fields, status="confirmed")

    @tool(ToolKind.WRITE, tags=FLT)
    def modify_flight_booking(
        self, booking_id: str, field: Literal["seat_preference", "traveler_info"], new_value: str
    ) -> dict:
        """Change the seat preference or traveler details of a flight booking.

        Args:
            booking_id: Id of the flight booking.
            field: Which field to change.
            new_value: The new value.
        """
        rec = self.need_record(booking_id, FLIGHT_BOOKING)
        self.change_field(rec, field, new_value, choices={"seat_preference": SEATS})
        return self.confirmation("booking_id", rec)

    @tool(ToolKind.WRITE, tags=HOT)
    def modify_hotel_booking(
        self, booking_id: str, field: Literal["room_count", "guest_info"], new_value: str
    ) -> dict:
        """Change the number of rooms or guest details of a hotel booking.

        Args:
            booking_id: Id of the hotel booking.
            field: Which field to change.
            new_value: The new value.
        """
        rec = self.need_record(booking_id, HOTEL_BOOKING)
        self.change_field(rec, field, new_value, ints=("room_count",))
        return self.confirmation("booking_id", rec)

    @tool(ToolKind.WRITE, tags=FLT)
    def cancel_flight_booking(self, booking_id: str) -> dict:
        """Cancel a flight booking.

        Args:
            booking_id: Id of the flight booking.
        """
        return self.cancel(booking_id, FLIGHT_BOOKING, "booking_id")

    @tool(ToolKind.WRITE, tags=HOT)
    def cancel_hotel_booking(self, booking_id: str) -> dict:
        """Cancel a hotel booking.

        Args:
            booking_id: Id of the hotel booking.
        """
        return self.cancel(booking_id, HOTEL_BOOKING, "booking_id")

    @tool(ToolKind.WRITE, tags=GND)
    def cancel_ground_transport_booking(self, booking_id: str) -> dict:
        """Cancel a train, bus or car-transfer booking.

        Args:
            booking_id: Id of the transport booking.
        """
        return self.cancel(booking_id, TRANSPORT_BOOKING, "booking_id")

    # ---- follow-up ---------------------------------------------------------------------------

    @tool(ToolKind.READ, tags=("travel", "tracking"))
    def track_trip_updates(
        self,
        trip_id: str | None = None,
        booking_id: str | None = None,
        update_scope: Literal["critical", "all", "price_change", "schedule_change"] | None = None,
    ) -> dict:
        """Check a trip or a booked trip component for changes; pass exactly one id.

        Args:
            trip_id: Id of a trip or itinerary.
            booking_id: Id of a flight, hotel or transport booking.
            update_scope: Which kinds of updates to report.
        """
        if bool(trip_id) == bool(booking_id):
            raise ToolError("pass exactly one of trip_id, booking_id")
        id_ = str(trip_id or booking_id)
        rec = self.need(id_, TRIP if trip_id else ANY_BOOKING)
        related = self.mentions(id_)
        # Stops that fell through are the updates worth surfacing.
        updates = [
            {"item_id": r["id"], "change": "disrupted"}
            for r in related
            if r["attributes"].get("stop_status") == "disrupted"
            or r["attributes"].get("availability") == "unavailable"
        ]
        return self.tracking(id_, rec, update_scope, updates=updates, related=related)

    @tool(ToolKind.WRITE, tags=("travel", "replanning"))
    def replan_trip(
        self,
        trip_id: str,
        disrupted_item_id: str | None = None,
        *,  # keyword-only so the required goal can keep its ontology position
        replanning_goal: str,
        selected_alternative_stop_ids: list[str] | None = None,
        replacement_type: Literal["swap_single_stop", "swap_all_stops"] | None = None,
    ) -> dict:
        """Adjust a trip after a disruption, optionally swapping in chosen replacement stops.

        Args:
            trip_id: Id of the trip to adjust.
            disrupted_item_id: Id of the stop or booking that fell through.
            replanning_goal: What the new plan should achieve.
            selected_alternative_stop_ids: Ids of replacement stops (from search_trip_stops).
            replacement_type: Replace one stop or all of them.
        """
        trip = self.need_record(trip_id, TRIP)
        if disrupted_item_id:
            self.need(disrupted_item_id, STOP + ANY_BOOKING)
        alternatives = list(selected_alternative_stop_ids or [])
        for s in alternatives:
            self.need(s, STOP)
        if replacement_type == "swap_single_stop" and len(alternatives) > 1:
            raise ToolError("swap_single_stop takes at most one replacement stop")
        stops = [s for s in trip.attributes.get("stop_ids", []) if s != disrupted_item_id] + alternatives
        trip.attributes.update(stop_ids=stops, status="replanned", last_replanning_goal=replanning_goal)
        rec = self.create(
            "rpl_",
            "trip_replan",
            trip_id=trip_id,
            disrupted_item_id=disrupted_item_id,
            selected_alternative_stop_ids=alternatives,
            replacement_type=replacement_type or "swap_single_stop",
            replanning_goal=replanning_goal,
        )
        return self.confirmation("replan_id", rec)
