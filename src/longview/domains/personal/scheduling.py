"""Scheduling: calendar lookup, conflicts, events, invitations and reminders."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from longview.domains.personal.base import (
    PersonalToolkit,
    Record,
    describe_filters,
    parse_datetime,
    tag_filter,
    text_filter,
)
from longview.kernel.tools import DateTime, ToolError, ToolKind, tool

SCH = ("scheduling",)
# Calendar items: "event" references come from apps (planned activities), "calendar_event" from
# the calendar itself; created events are calendar_events.
EVENTS = ("calendar_event", "event")
INACTIVE = ("cancelled", "declined")


class SchedulingToolkit(PersonalToolkit):
    DOMAIN = "scheduling"

    @tool(ToolKind.READ, tags=SCH)
    def list_events(
        self,
        calendar: Literal["primary", "work", "personal", "invites"] | None = None,
        participants: list[str] | None = None,
    ) -> dict:
        """List calendar items with their times, optionally from one calendar or with given people.

        Args:
            calendar: Which calendar to list.
            participants: People who should be attending; an event with any of them qualifies.
        """
        # As in the release: an event without a calendar is on "default"; cancelled events are not listed.
        checks = [text_filter(("calendar",), calendar, default="default"), tag_filter("participants", participants)]
        return self.search(
            EVENTS,
            checks,
            filters=describe_filters(calendar=calendar, participants=participants),
            keep=lambda r: r.attributes.get("status") != "cancelled",
        )

    @tool(ToolKind.READ, tags=SCH)
    def check_conflicts(
        self, start_time: DateTime, end_time: DateTime, participants: list[str] | None = None
    ) -> dict:
        """Check whether a time window overlaps anything already on the calendar.

        Args:
            start_time: Start of the proposed window.
            end_time: End of the proposed window.
            participants: People who would attend.
        """
        start, end = self._window(start_time, end_time)
        clashes = self._overlapping(start, end)
        return {
            "has_conflict": bool(clashes),
            "conflicts": [r.view() for r in clashes],
            "participants": list(participants or []),
        }

    @tool(ToolKind.WRITE, tags=SCH)
    def create_event(
        self,
        title: str,
        start_time: DateTime,
        end_time: DateTime,
        participants: list[str] | None = None,
        location: str | None = None,
    ) -> dict:
        """Put a new event on the calendar, shared with any participants.

        Args:
            title: Event title.
            start_time: Start time.
            end_time: End time.
            participants: People to invite.
            location: Where it happens.
        """
        self._window(start_time, end_time)
        rec = self.create(
            "evt_",
            "calendar_event",
            title=title,
            start_time=start_time,
            end_time=end_time,
            participants=list(participants or []),
            location=location or "",
            calendar="primary",
            status="confirmed",
        )
        return self.confirmation("event_id", rec)

    @tool(ToolKind.WRITE, tags=SCH)
    def reschedule_event(self, event_id: str, new_start_time: DateTime, new_end_time: DateTime) -> dict:
        """Move an event to a new time window.

        Args:
            event_id: Id of the event.
            new_start_time: New start time.
            new_end_time: New end time.
        """
        rec = self.need_record(event_id, EVENTS)
        self._window(new_start_time, new_end_time)
        if rec.attributes.get("status") == "cancelled":
            raise ToolError(f"{event_id} is cancelled")
        rec.attributes.update(start_time=new_start_time, end_time=new_end_time)
        return self.confirmation("event_id", rec)

    @tool(ToolKind.WRITE, tags=SCH)
    def modify_event(
        self, event_id: str, field: Literal["title", "location", "participants"], new_value: str
    ) -> dict:
        """Change an event's title, location or participants (comma-separated); not its time.

        Args:
            event_id: Id of the event.
            field: Which field to change.
            new_value: The new value.
        """
        rec = self.need_record(event_id, EVENTS)
        self.change_field(rec, field, new_value)
        if field == "participants":
            rec.attributes[field] = [p.strip() for p in new_value.split(",") if p.strip()]
        return self.confirmation("event_id", rec)

    @tool(ToolKind.WRITE, tags=SCH)
    def respond_to_event_invite(self, event_id: str, response: Literal["accept", "decline", "tentative"]) -> dict:
        """Answer an invitation: accept, decline or tentative.

        Args:
            event_id: Id of the invited event.
            response: The answer.
        """
        rec = self.need_record(event_id, EVENTS)
        status = {"accept": "accepted", "decline": "declined", "tentative": "tentative"}[response]
        self.set_status(rec, status)
        return self.confirmation("event_id", rec, response=response)

    @tool(ToolKind.WRITE, tags=SCH)
    def cancel_event(self, event_id: str) -> dict:
        """Remove an event from the calendar.

        Args:
            event_id: Id of the event.
        """
        return self.cancel(event_id, EVENTS, "event_id")

    @tool(ToolKind.WRITE, tags=("scheduling", "reminder"))
    def set_reminder(
        self,
        target_id: str,
        remind_at: DateTime | None = None,
        cadence: Literal["once", "daily", "weekly", "monthly", "before_event"] | None = None,
    ) -> dict:
        """Add a private reminder for the user to an existing calendar item.

        Args:
            target_id: Id of the event or activity to be reminded of.
            remind_at: When the (first) reminder fires.
            cadence: How often it fires.
        """
        self.need(target_id, EVENTS)
        if remind_at:
            parse_datetime(remind_at, "remind_at")
        rec = self.create("rem_", "reminder", target_id=target_id, remind_at=remind_at, cadence=cadence or "once")
        return self.confirmation("reminder_id", rec)

    @tool(ToolKind.READ, tags=("scheduling", "tracking"))
    def track_event_updates(
        self, target_id: str, update_scope: Literal["critical", "all", "schedule_change"] | None = None
    ) -> dict:
        """Watch an event or activity and report its current state and any changes.

        Args:
            target_id: Id of the event or activity.
            update_scope: Which kinds of updates to report.
        """
        rec = self.need(target_id, EVENTS)
        return self.tracking(target_id, rec, update_scope)

    @tool(ToolKind.READ, tags=("scheduling", "fallback"))
    def find_alternative_slots(self, target_id: str) -> dict:
        """Suggest nearby free time windows of the same length for an event that cannot happen as planned.

        Args:
            target_id: Id of the affected event or activity.
        """
        rec = self.need(target_id, EVENTS)
        if rec is None or not {"start_time", "end_time"} <= rec.attributes.keys():
            raise ToolError(f"{target_id} has no start_time/end_time to work from")
        start, end = self._window(rec.attributes["start_time"], rec.attributes["end_time"])
        tz = datetime.fromisoformat(rec.attributes["start_time"]).tzinfo  # keep the event's offset
        slots = []
        # Try the same day at later hours, then the following days at the original time.
        for shift in [timedelta(hours=h) for h in (1, 2, 3)] + [timedelta(days=d) for d in (1, 2, 7)]:
            s, e = start + shift, end + shift
            if not self._overlapping(s, e, ignore=target_id):
                slots.append(
                    {"start_time": s.replace(tzinfo=tz).isoformat(), "end_time": e.replace(tzinfo=tz).isoformat()}
                )
            if len(slots) == 3:
                break
        return {"target_id": target_id, "slots": slots}

    # ---- helpers -----------------------------------------------------------------------------

    def _window(self, start: str, end: str) -> tuple[datetime, datetime]:
        s, e = parse_datetime(start, "start_time"), parse_datetime(end, "end_time")
        if e <= s:
            raise ToolError("end_time must be after start_time")
        return s, e

    def _overlapping(self, start: datetime, end: datetime, ignore: str | None = None) -> list[Record]:
        """Active calendar items whose window intersects [start, end)."""
        out = []
        for r in self.of_type(*EVENTS):
            a = r.attributes
            if r.id == ignore or a.get("status") in INACTIVE or not a.get("start_time") or not a.get("end_time"):
                continue
            try:
                s, e = parse_datetime(a["start_time"], "start_time"), parse_datetime(a["end_time"], "end_time")
            except ToolError:
                continue  # a malformed stored time cannot conflict
            if s < end and start < e:
                out.append(r)
        return out
