"""Workspace: files, folders, documents and trackers."""

from __future__ import annotations

from typing import Any, Literal

from longview.domains.personal.base import PersonalToolkit, describe_filters, text_filter
from longview.kernel.tools import ToolError, ToolKind, tool

FILES = ("workspace", "files")
DOCS = ("workspace", "document")
TRK = ("workspace", "tracker")
FILE = ("file",)
FOLDER = ("folder",)
DOCUMENT = ("document",)
TRACKER = ("tracker",)

DocType = Literal["note", "memo", "spreadsheet", "report", "template"]


class WorkspaceToolkit(PersonalToolkit):
    DOMAIN = "workspace"

    @tool(ToolKind.READ, tags=FILES)
    def list_files(
        self,
        location: str | None = None,
        file_type: Literal["pdf", "docx", "xlsx", "image", "txt", "csv"] | None = None,
    ) -> dict:
        """List the user's files, optionally only those under a location or of one file type.

        Args:
            location: Folder path or part of it.
            file_type: Kind of file.
        """
        # As in the release: a file without a location/type reads as "/" / "other".
        checks = [text_filter(("location",), location, default="/"), text_filter(("file_type",), file_type, default="other")]
        return self.search(FILE, checks, filters=describe_filters(location=location, file_type=file_type))

    @tool(ToolKind.READ, tags=DOCS)
    def search_documents(self, location: str | None = None, doc_type: DocType | None = None) -> dict:
        """Find documents such as notes, memos, spreadsheets, reports and templates (trackers are
        listed separately).

        Args:
            location: Folder path or part of it.
            doc_type: Kind of document.
        """
        # As in the release: a document without a location/type reads as "/" / "note".
        checks = [text_filter(("location",), location, default="/"), text_filter(("doc_type",), doc_type, default="note")]
        return self.search(DOCUMENT, checks, filters=describe_filters(location=location, doc_type=doc_type))

    @tool(ToolKind.WRITE, tags=FILES)
    def classify_files(
        self, file_ids: list[str], scheme: Literal["by_project", "by_type", "by_date", "by_owner", "by_priority"]
    ) -> dict:
        """Categorise files according to a classification scheme.

        Args:
            file_ids: Ids of the files.
            scheme: How to categorise them.
        """
        for rec in self.need_all(file_ids, FILE, "file_ids"):
            rec.attributes["classification"] = scheme
        return {"file_ids": list(file_ids), "scheme": scheme}

    @tool(ToolKind.WRITE, tags=FILES)
    def move_files(self, file_ids: list[str], folder_id: str) -> dict:
        """Move files into a folder.

        Args:
            file_ids: Ids of the files.
            folder_id: Id of the destination folder (from list_file_folders).
        """
        folder = self.need(folder_id, FOLDER)
        for rec in self.need_all(file_ids, FILE, "file_ids"):
            rec.attributes["folder_id"] = folder_id
            if folder is not None and folder.attributes.get("name"):
                rec.attributes["location"] = folder.attributes["name"]
        return {"file_ids": list(file_ids), "folder_id": folder_id}

    @tool(ToolKind.WRITE, tags=FILES)
    def archive_files(self, file_ids: list[str], folder_id: str) -> dict:
        """Archive files into a folder, keeping them retrievable.

        Args:
            file_ids: Ids of the files.
            folder_id: Id of the archive folder (from list_file_folders).
        """
        self.need(folder_id, FOLDER)
        for rec in self.need_all(file_ids, FILE, "file_ids"):
            rec.attributes.update(archived=True, folder_id=folder_id)
        return {"file_ids": list(file_ids), "folder_id": folder_id, "archived": True}

    @tool(ToolKind.READ, tags=TRK)
    def list_trackers(self) -> dict:
        """List the user's ongoing trackers, logs and checklists with their entries."""
        return self.listing(self.of_type(*TRACKER))

    @tool(ToolKind.READ, tags=FILES)
    def list_file_folders(self) -> dict:
        """List the folders files can be moved or archived into, with their ids and purpose."""
        return self.listing(self.of_type(*FOLDER))

    @tool(ToolKind.WRITE, tags=FILES)
    def delete_files(self, file_ids: list[str]) -> dict:
        """Delete files permanently.

        Args:
            file_ids: Ids of the files.
        """
        self.need_all(file_ids, FILE, "file_ids")  # check every id before deleting any
        for file_id in file_ids:
            self.db.records.pop(file_id, None)
            self.db.mentioned_ids.pop(file_id, None)
        return {"file_ids": list(file_ids), "deleted": True}

    @tool(ToolKind.WRITE, tags=DOCS)
    def create_document(
        self, doc_type: DocType, title: str, location: str, content_brief: str | None = None
    ) -> dict:
        """Create a new document of the given kind (not a tracker entry, not a folder).

        Args:
            doc_type: Kind of document.
            title: Document title.
            location: Folder path to create it in.
            content_brief: What the document should contain.
        """
        fields = {"title": title, "doc_type": doc_type, "location": location, "content_brief": content_brief or ""}
        rec = self.create("doc_", "document", **fields)
        return self.confirmation("document_id", rec)

    @tool(ToolKind.WRITE, tags=DOCS)
    def update_document(self, document_id: str, content_delta: str) -> dict:
        """Add or change content in an existing document.

        Args:
            document_id: Id of the document.
            content_delta: The change to make.
        """
        rec = self.need_record(document_id, DOCUMENT)
        rec.attributes.setdefault("updates", []).append(content_delta)
        return self.confirmation("document_id", rec)

    @tool(ToolKind.WRITE, tags=TRK)
    def update_tracker(
        self,
        tracker_id: str,
        entry_id: str | None = None,
        *,  # keyword-only so the required action can keep its ontology position
        update_action: Literal["create_entry", "update_status", "record_next_action", "close_entry"],
        entry_payload: str | None = None,
    ) -> dict:
        """Add an entry to an existing tracker, or update, annotate or close one of its entries.

        Args:
            tracker_id: Id of the tracker (from list_trackers).
            entry_id: Id of the entry to change; leave out when creating an entry.
            update_action: What to do.
            entry_payload: Text of the new entry, new status or next action.
        """
        tracker = self.need_record(tracker_id, TRACKER)
        entries = tracker.attributes.setdefault("entries", [])
        if update_action == "create_entry":
            if entry_id:
                raise ToolError("leave entry_id out for create_entry; a new id is generated")
            entry = {"entry_id": self.db.new_id("ent_"), "status": "open", "payload": entry_payload or ""}
            entries.append(entry)
            self.db.index(entry)
            return {"tracker_id": tracker_id, "action": update_action, "entry": dict(entry)}
        if not entry_id:
            raise ToolError(f"{update_action} needs the entry_id of an existing entry")
        found: dict[str, Any] | None = next(
            (e for e in entries if isinstance(e, dict) and e.get("entry_id") == entry_id), None
        )
        if found is None:
            raise ToolError(f"Not found: {entry_id} (no such entry in {tracker_id})")
        if update_action == "update_status":
            found["status"] = entry_payload or found.get("status", "open")
        elif update_action == "record_next_action":
            found["next_action"] = entry_payload or ""
        else:
            found["status"] = "closed"
        return {"tracker_id": tracker_id, "action": update_action, "entry": dict(found)}
