"""Gmail, Phone (contacts, text messages, alarms) and a calendar, with AppWorld-style APIs."""

from __future__ import annotations

from typing import Any

from longview.domains.apps.base import AppBase, find, matches, page
from longview.domains.apps.state import Alarm, Contact, Email, Event, TextMessage
from longview.kernel.tools import ToolError, ToolKind, tool

R, W = ToolKind.READ, ToolKind.WRITE


class MailApp(AppBase):
    @tool(W, tags=("gmail",), name="gmail__login")
    def gm_login(self, username: str, password: str) -> dict[str, Any]:
        """Login to your Gmail account; returns an access_token.

        Args:
          username: Your email address.
          password: Your password.
        """
        return self._login("gmail", username, password)

    def _mail(self, me: str, email_addresses: list[str], subject: str, body: str, cc: list[str] | None,
              draft: bool) -> Email:
        if not email_addresses:
            raise ToolError("At least one recipient is required.")
        eid = self.state.next_id()
        e = Email(email_id=eid, thread_id=eid, sender=me, recipients=email_addresses, cc=cc or [], subject=subject,
                  body=body, draft=draft, sent_at="" if draft else self.state.now)
        self.state.emails.append(e)
        return e

    @tool(W, tags=("gmail",), name="gmail__send_email")
    def send_email(self, access_token: str, email_addresses: list[str], subject: str, body: str,
                   cc_email_addresses: list[str] | None = None) -> dict[str, Any]:
        """Send an email.

        Args:
          access_token: Token from gmail__login.
          email_addresses: Recipients.
          subject: Subject line.
          body: Body text.
          cc_email_addresses: CC recipients.
        """
        e = self._mail(self._user("gmail", access_token), email_addresses, subject, body, cc_email_addresses, False)
        return {"message": "Email sent.", "sent_email_thread_id": e.thread_id, "sent_email_id": e.email_id}

    @tool(W, tags=("gmail",), name="gmail__create_draft")
    def create_draft(self, access_token: str, recipient_email_addresses: list[str], body: str,
                     subject: str | None = None, belongs_to_email_thread_id: int | None = None) -> dict[str, Any]:
        """Create an email draft (AppWorld's argument names: recipients are recipient_email_addresses).

        Args:
          access_token: Token from gmail__login.
          recipient_email_addresses: Recipients.
          body: Body text.
          subject: Subject line ("(no subject)" when omitted).
          belongs_to_email_thread_id: The thread the draft belongs to (a reply or forward).
        """
        me = self._user("gmail", access_token)
        if belongs_to_email_thread_id is not None and not any(
                m.thread_id == belongs_to_email_thread_id and not m.draft for m in self.state.emails):
            raise ToolError(f"Email thread {belongs_to_email_thread_id} not found.")
        e = self._mail(me, recipient_email_addresses, subject or "(no subject)", body, None, True)
        if belongs_to_email_thread_id is not None:
            e.thread_id = belongs_to_email_thread_id
        return {"message": "Draft created.", "draft_id": e.email_id}

    @tool(W, tags=("gmail",), name="gmail__send_email_from_draft")
    def send_email_from_draft(self, access_token: str, draft_id: int) -> dict[str, Any]:
        """Send a draft.

        Args:
          access_token: Token from gmail__login.
          draft_id: Draft id.
        """
        me = self._user("gmail", access_token)
        e = find([m for m in self.state.emails if m.sender == me and m.draft], "email_id", draft_id, None, "Draft")
        e.draft, e.sent_at = False, self.state.now
        return {"message": "Sent email from your draft.", "sent_email_thread_id": e.thread_id,
                "sent_email_id": e.email_id}

    @tool(W, tags=("gmail",), name="gmail__update_draft")
    def update_draft(self, access_token: str, draft_id: int, email_addresses: list[str] | None = None,
                     subject: str | None = None, body: str | None = None) -> dict[str, Any]:
        """Update a draft's recipients, subject or body.

        Args:
          access_token: Token from gmail__login.
          draft_id: Draft id.
          email_addresses: New recipients.
          subject: New subject.
          body: New body.
        """
        me = self._user("gmail", access_token)
        e = find([m for m in self.state.emails if m.sender == me and m.draft], "email_id", draft_id, None, "Draft")
        if email_addresses is not None:
            e.recipients = email_addresses
        if subject is not None:
            e.subject = subject
        if body is not None:
            e.body = body
        return {"message": "Draft updated."}

    @tool(R, tags=("gmail",), name="gmail__show_drafts")
    def show_drafts(self, access_token: str, query: str = "") -> list[dict[str, Any]]:
        """List your drafts.

        Args:
          access_token: Token from gmail__login.
          query: Search query.
        """
        me = self._user("gmail", access_token)
        return [dict(m.model_dump(), draft_id=m.email_id) for m in self.state.emails
                if m.sender == me and m.draft and matches(query, m.subject, m.body)]

    @tool(R, tags=("gmail",), name="gmail__show_thread")
    def show_thread(self, access_token: str, email_thread_id: int) -> dict[str, Any]:
        """Show an email thread with its emails.

        Args:
          access_token: Token from gmail__login.
          email_thread_id: Thread id.
        """
        me = self._user("gmail", access_token)
        emails = [m for m in self.state.emails if m.thread_id == email_thread_id and not m.draft
                  and (me == m.sender or me in m.recipients + m.cc)]
        if not emails:
            raise ToolError(f"Email thread {email_thread_id} not found.")
        return {"email_thread_id": email_thread_id, "subject": emails[0].subject,
                "emails": [m.model_dump() for m in emails]}

    @tool(R, tags=("gmail",), name="gmail__show_outbox_threads")
    def show_outbox_threads(self, access_token: str, query: str = "", page_index: int = 0,
                            page_limit: int = 5) -> list[dict[str, Any]]:
        """List sent email threads.

        Args:
          access_token: Token from gmail__login.
          query: Search query.
          page_index: Page, from 0.
          page_limit: Results per page.
        """
        me = self._user("gmail", access_token)
        sent = [m for m in self.state.emails if m.sender == me and not m.draft and matches(query, m.subject, m.body)]
        return [m.model_dump() for m in page(sent, page_index, page_limit)]

    @tool(R, tags=("gmail",), name="gmail__show_inbox_threads")
    def show_inbox_threads(self, access_token: str, query: str = "", page_index: int = 0,
                           page_limit: int = 5) -> list[dict[str, Any]]:
        """List received email threads.

        Args:
          access_token: Token from gmail__login.
          query: Search query.
          page_index: Page, from 0.
          page_limit: Results per page.
        """
        me = self._user("gmail", access_token)
        inbox = [m for m in self.state.emails if me in m.recipients + m.cc and matches(query, m.subject, m.body)]
        return [m.model_dump() for m in page(inbox, page_index, page_limit)]

    @tool(R, tags=("gmail",), name="gmail__show_email")
    def show_email(self, access_token: str, email_id: int) -> dict[str, Any]:
        """Show one email.

        Args:
          access_token: Token from gmail__login.
          email_id: Email id.
        """
        me = self._user("gmail", access_token)
        e = find(self.state.emails, "email_id", email_id, None, "Email")
        if me != e.sender and me not in e.recipients + e.cc:
            raise ToolError("Email not found.")
        return e.model_dump()


class PhoneApp(AppBase):
    @tool(W, tags=("phone",), name="phone__login")
    def ph_login(self, username: str, password: str) -> dict[str, Any]:
        """Login to your phone account (username is your phone number); returns an access_token.

        Args:
          username: Your phone number.
          password: Your password.
        """
        return self._login("phone", username, password)

    @tool(R, tags=("phone",), name="phone__search_contacts")
    def search_contacts(self, access_token: str, query: str = "", relationship: str | None = None) -> list[dict[str, Any]]:
        """Search your contacts.

        Args:
          access_token: Token from phone__login.
          query: Name, phone or email to search.
          relationship: Filter by relationship.
        """
        me = self._user("phone", access_token)
        out = [c for c in self.state.contacts if c.owner == me
               and matches(query, c.first_name, c.last_name, c.phone_number, c.email)
               and (relationship is None or relationship in c.relationships)]
        return [c.model_dump(exclude={"owner"}) for c in out]

    @tool(W, tags=("phone",), name="phone__add_contact")
    def add_contact(self, access_token: str, first_name: str, phone_number: str, last_name: str = "",
                    email: str = "", relationships: list[str] | None = None) -> dict[str, Any]:
        """Add a contact.

        Args:
          access_token: Token from phone__login.
          first_name: First name.
          phone_number: Phone number.
          last_name: Last name.
          email: Email.
          relationships: Relationships (friend, coworker...).
        """
        me = self._user("phone", access_token)
        c = Contact(contact_id=self.state.next_id(), owner=me, first_name=first_name, last_name=last_name,
                    phone_number=phone_number, email=email, relationships=relationships or [])
        self.state.contacts.append(c)
        return {"message": "Contact added.", "contact_id": c.contact_id}

    @tool(W, tags=("phone",), name="phone__send_text_message")
    def send_text_message(self, access_token: str, phone_number: str, message: str) -> dict[str, Any]:
        """Send a text message.

        Args:
          access_token: Token from phone__login.
          phone_number: Receiver's phone number.
          message: Message text.
        """
        me = self._user("phone", access_token)
        if not message.strip():
            raise ToolError("message must not be empty.")
        t = TextMessage(text_message_id=self.state.next_id(), sender=me, receiver=phone_number, message=message,
                        sent_at=self.state.now)
        self.state.texts.append(t)
        return {"message": "Text message sent.", "text_message_id": t.text_message_id}

    @tool(R, tags=("phone",), name="phone__search_text_messages")
    def search_text_messages(self, access_token: str, query: str = "", phone_number: str | None = None) -> list[dict[str, Any]]:
        """Search text messages you sent or received.

        Args:
          access_token: Token from phone__login.
          query: Text to search.
          phone_number: The other party's number.
        """
        me = self._user("phone", access_token)
        out = [t for t in self.state.texts if me in (t.sender, t.receiver) and matches(query, t.message)
               and (phone_number is None or phone_number in (t.sender, t.receiver))]
        return [t.model_dump() for t in out]

    @tool(R, tags=("phone",), name="phone__show_text_message_window")
    def show_text_message_window(self, access_token: str, phone_number: str) -> list[dict[str, Any]]:
        """The conversation with one phone number, oldest first.

        Args:
          access_token: Token from phone__login.
          phone_number: The other party's number.
        """
        me = self._user("phone", access_token)
        return [t.model_dump() for t in self.state.texts
                if {t.sender, t.receiver} == {me, phone_number} or (t.sender == t.receiver == me == phone_number)]

    @tool(R, tags=("phone",), name="phone__get_current_date_and_time")
    def get_current_date_and_time(self, access_token: str) -> dict[str, Any]:
        """The current date and time.

        Args:
          access_token: Token from phone__login.
        """
        self._user("phone", access_token)
        d, t = self.state.now.split("T")
        return {"date": d, "time": t[:5]}

    @tool(W, tags=("phone",), name="phone__create_alarm")
    def create_alarm(self, access_token: str, time: str, label: str = "",
                     repeat_days: list[str] | None = None) -> dict[str, Any]:
        """Create an alarm.

        Args:
          access_token: Token from phone__login.
          time: HH:MM.
          label: Alarm label.
          repeat_days: Days to repeat on.
        """
        me = self._user("phone", access_token)
        a = Alarm(alarm_id=self.state.next_id(), owner=me, time=time, label=label, repeat_days=repeat_days or [])
        self.state.alarms.append(a)
        return {"message": "Alarm created.", "alarm_id": a.alarm_id}


class CalendarApp(AppBase):
    @tool(W, tags=("calendar",), name="calendar__login")
    def cal_login(self, username: str, password: str) -> dict[str, Any]:
        """Login to your calendar; returns an access_token.

        Args:
          username: Your account email.
          password: Your password.
        """
        return self._login("calendar", username, password)

    @tool(W, tags=("calendar",), name="calendar__create_event")
    def create_event(self, access_token: str, title: str, start: str, end: str, location: str = "",
                     description: str = "", attendees: list[str] | None = None) -> dict[str, Any]:
        """Create a calendar event.

        Args:
          access_token: Token from calendar__login.
          title: Event title.
          start: Start (YYYY-MM-DDTHH:MM).
          end: End (YYYY-MM-DDTHH:MM).
          location: Location.
          description: Description.
          attendees: Attendee emails.
        """
        me = self._user("calendar", access_token)
        if end <= start:
            raise ToolError("end must be after start.")
        e = Event(event_id=self.state.next_id(), owner=me, title=title, start=start, end=end, location=location,
                  description=description, attendees=attendees or [])
        self.state.events.append(e)
        return {"message": "Event created.", "event_id": e.event_id}

    @tool(R, tags=("calendar",), name="calendar__show_events")
    def show_events(self, access_token: str, query: str = "", date: str | None = None) -> list[dict[str, Any]]:
        """List your events.

        Args:
          access_token: Token from calendar__login.
          query: Search query.
          date: Only events starting on this date (YYYY-MM-DD).
        """
        me = self._user("calendar", access_token)
        return [e.model_dump(exclude={"owner"}) for e in self.state.events if e.owner == me
                and matches(query, e.title, e.description) and (date is None or e.start.startswith(date))]

    @tool(W, tags=("calendar",), name="calendar__delete_event")
    def delete_event(self, access_token: str, event_id: int) -> dict[str, Any]:
        """Delete an event.

        Args:
          access_token: Token from calendar__login.
          event_id: Event id.
        """
        me = self._user("calendar", access_token)
        self.state.events.remove(find(self.state.events, "event_id", event_id, me, "Event"))
        return {"message": "Event deleted."}
