"""Communication: searching, prioritising, filing, labelling, drafting and sending messages."""

from __future__ import annotations

from typing import Literal

from longview.domains.personal.base import PersonalToolkit, Record, describe_filters, text_filter
from longview.kernel.tools import ToolError, ToolKind, tool

COM = ("communication",)
MESSAGE = ("message",)
DRAFT = ("draft",)
FOLDER = ("folder",)
LABEL = ("label",)

Language = Literal["en", "zh"]


class CommunicationToolkit(PersonalToolkit):
    DOMAIN = "communication"

    @tool(ToolKind.READ, tags=COM)
    def search_messages(
        self, sender: str | None = None, folder: Literal["inbox", "archive", "sent", "drafts"] | None = None
    ) -> dict:
        """Find messages by sender and/or mailbox folder (inbox, archive, sent, drafts).

        Args:
            sender: Sender name or address.
            folder: Mailbox folder to look in.
        """
        # As in the release: a message without a sender/folder reads as "unknown"/"inbox"; archived
        # messages show only when the archive folder is asked for. Draft records (longview's cohort
        # seeds some; the release has no such type) are searched alongside messages.
        archive = folder == "archive"

        def keep(r: Record) -> bool:
            return bool(r.attributes.get("archived")) == archive

        checks = [
            text_filter(("sender",), sender, default="unknown"),
            None if archive else text_filter(("folder",), folder, default="inbox"),
        ]
        return self.search(MESSAGE + DRAFT, checks, filters=describe_filters(sender=sender, folder=folder), keep=keep)

    @tool(ToolKind.WRITE, tags=COM)
    def set_message_priority(
        self, message_ids: list[str], priority: Literal["high", "medium", "low", "normal"]
    ) -> dict:
        """Give one or more messages a priority level.

        Args:
            message_ids: Ids of the messages.
            priority: Priority to set.
        """
        for rec in self.need_all(message_ids, MESSAGE, "message_ids"):
            rec.attributes["priority"] = priority
        return {"message_ids": list(message_ids), "priority": priority}

    @tool(ToolKind.WRITE, tags=COM)
    def archive_messages(self, message_ids: list[str], folder_id: str | None = None) -> dict:
        """Move messages out of the inbox into the archive, or into a user folder if one is given.

        Args:
            message_ids: Ids of the messages.
            folder_id: Id of a user folder (from list_message_folders).
        """
        if folder_id:
            self.need(folder_id, FOLDER)
        for rec in self.need_all(message_ids, MESSAGE, "message_ids"):
            rec.attributes.update(archived=True, folder="archive")
            if folder_id:
                rec.attributes["folder_id"] = folder_id
        return {"message_ids": list(message_ids), "archived": True, "folder_id": folder_id}

    @tool(ToolKind.READ, tags=COM)
    def list_labels(self) -> dict:
        """List the labels that can be applied to messages, with their ids."""
        return self.listing(self.of_type(*LABEL))

    @tool(ToolKind.READ, tags=COM)
    def list_message_folders(self) -> dict:
        """List the user's own message folders, with their ids and purpose."""
        return self.listing(self.of_type(*FOLDER))

    @tool(ToolKind.WRITE, tags=COM)
    def draft_message(
        self,
        recipient: str | None = None,
        subject: str | None = None,
        *,  # keyword-only so the required body can keep its ontology position
        body: str,
        thread_id: str | None = None,
        language: Language | None = None,
    ) -> dict:
        """Write a draft, either a new message to a recipient or a reply in an existing thread.

        Args:
            recipient: Who the message is for (needed unless thread_id is given).
            subject: Subject line.
            body: Message text.
            thread_id: Thread to reply in (needed unless recipient is given).
            language: Language of the message.
        """
        fields = self._compose(recipient, subject, body, thread_id, language)
        rec = self.create("dft_", "draft", **fields, folder="drafts", status="draft")
        return self.confirmation("draft_id", rec)

    @tool(ToolKind.WRITE, tags=COM)
    def send_message(
        self,
        recipient: str | None = None,
        subject: str | None = None,
        *,  # keyword-only so the required body can keep its ontology position
        body: str,
        thread_id: str | None = None,
        language: Language | None = None,
    ) -> dict:
        """Send a message right away, either to a recipient or as a reply in an existing thread.

        Args:
            recipient: Who the message is for (needed unless thread_id is given).
            subject: Subject line.
            body: Message text.
            thread_id: Thread to reply in (needed unless recipient is given).
            language: Language of the message.
        """
        fields = self._compose(recipient, subject, body, thread_id, language)
        sender = self.persona.get("name") or "me"
        rec = self.create("msg_", "message", **fields, sender=sender, folder="sent", status="sent")
        return self.confirmation("message_id", rec)

    @tool(ToolKind.WRITE, tags=COM)
    def label_messages(self, message_ids: list[str], label_ids: list[str]) -> dict:
        """Attach labels to messages.

        Args:
            message_ids: Ids of the messages.
            label_ids: Ids of the labels (from list_labels).
        """
        self.need_all(label_ids, LABEL, "label_ids")
        for rec in self.need_all(message_ids, MESSAGE, "message_ids"):
            labels = rec.attributes.setdefault("labels", [])
            labels.extend(label for label in label_ids if label not in labels)
        return {"message_ids": list(message_ids), "label_ids": list(label_ids)}

    @tool(ToolKind.WRITE, tags=COM)
    def send_draft(self, draft_id: str) -> dict:
        """Send a draft written earlier.

        Args:
            draft_id: Id of the draft (from draft_message).
        """
        rec = self.need_record(draft_id, DRAFT)
        if rec.attributes.get("status") == "sent":
            raise ToolError(f"{draft_id} was already sent")
        rec.attributes.update(status="sent", folder="sent")
        return self.confirmation("draft_id", rec)

    # ---- helpers -----------------------------------------------------------------------------


    def _compose(self, recipient, subject, body, thread_id, language) -> dict:
        """Check a new message's address and return its stored fields."""
        if not recipient and not thread_id:
            raise ToolError("give a recipient or a thread_id")
        if not body.strip():
            raise ToolError("body must not be empty")
        # A new conversation gets its own thread id so later replies can refer to it.
        thread = self._thread(thread_id) if thread_id else self.db.new_id("thr_")
        return {
            "recipient": recipient,
            "subject": subject,
            "body": body,
            "thread_id": thread,
            "language": language or "en",
        }

    def _thread(self, thread_id: str) -> str:
        """A known thread id; a message or draft id stands for the thread it belongs to."""
        rec = self.need(thread_id, MESSAGE + DRAFT)
        if rec is None:
            return thread_id
        return rec.attributes.get("thread_id") or rec.id
