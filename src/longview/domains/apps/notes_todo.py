"""Simple Note and Todoist, with AppWorld's API names, arguments and response shapes."""

from __future__ import annotations

from typing import Any, Literal

from longview.domains.apps.base import AppBase, find, matches, page
from longview.domains.apps.state import Note, TodoLabel, TodoProject, TodoSection, TodoTask
from longview.kernel.tools import ToolError, ToolKind, tool

R, W = ToolKind.READ, ToolKind.WRITE


class NotesApp(AppBase):
    @tool(W, tags=("simple_note",), name="simple_note__login")
    def sn_login(self, username: str, password: str) -> dict[str, Any]:
        """Login to your Simple Note account; returns an access_token for the other calls.

        Args:
          username: Your account email.
          password: Your password.
        """
        return self._login("simple_note", username, password)

    @tool(W, tags=("simple_note",), name="simple_note__logout")
    def sn_logout(self, access_token: str) -> dict[str, Any]:
        """Logout from your Simple Note account.

        Args:
          access_token: Token from simple_note__login.
        """
        return self._logout("simple_note", access_token)

    @tool(R, tags=("simple_note",), name="simple_note__search_notes")
    def search_notes(self, access_token: str, query: str = "", tags: list[str] | None = None,
                     page_index: int = 0, page_limit: int = 5) -> list[dict[str, Any]]:
        """Search your notes (titles, tags; contents are not shown).

        Args:
          access_token: Token from simple_note__login.
          query: Search query for the notes.
          tags: Keep notes having any of these tags.
          page_index: Page to return, from 0.
          page_limit: Results per page (1-20).
        """
        me = self._user("simple_note", access_token)
        notes = [n for n in self.state.notes if n.owner == me and matches(query, n.title, " ".join(n.tags))]
        if tags:
            want = {t.lower() for t in tags}
            notes = [n for n in notes if want & {t.lower() for t in n.tags}]
        notes.sort(key=lambda n: (not n.pinned, n.updated_at), reverse=False)
        return [n.model_dump(include={"note_id", "title", "tags", "created_at", "updated_at", "pinned"})
                for n in page(notes, page_index, min(page_limit, 20))]

    @tool(R, tags=("simple_note",), name="simple_note__show_note")
    def show_note(self, access_token: str, note_id: int) -> dict[str, Any]:
        """Show a note with its content.

        Args:
          access_token: Token from simple_note__login.
          note_id: ID of the note.
        """
        me = self._user("simple_note", access_token)
        return find(self.state.notes, "note_id", note_id, me, "Note").model_dump(exclude={"owner"})

    @tool(W, tags=("simple_note",), name="simple_note__create_note")
    def create_note(self, access_token: str, title: str, content: str, tags: list[str] | None = None,
                    pinned: bool = False) -> dict[str, Any]:
        """Create a new note.

        Args:
          access_token: Token from simple_note__login.
          title: Title of the note.
          content: Content of the note.
          tags: Tags for the note.
          pinned: Pinned status.
        """
        me = self._user("simple_note", access_token)
        if not title.strip():
            raise ToolError("title must not be empty.")
        n = Note(note_id=self.state.next_id(), owner=me, title=title, content=content,
                 tags=[t.strip() for t in tags or [] if t.strip()], pinned=pinned,
                 created_at=self.state.now, updated_at=self.state.now)
        self.state.notes.append(n)
        return {"message": "Note created.", "note_id": n.note_id}

    @tool(W, tags=("simple_note",), name="simple_note__update_note")
    def update_note(self, access_token: str, note_id: int, title: str | None = None, content: str | None = None,
                    tags: list[str] | None = None, pinned: bool | None = None) -> dict[str, Any]:
        """Update a note's title, content, tags and/or pinned status.

        Args:
          access_token: Token from simple_note__login.
          note_id: ID of the note.
          title: New title.
          content: New content (replaces the old one).
          tags: New tags.
          pinned: New pinned status.
        """
        me = self._user("simple_note", access_token)
        n = find(self.state.notes, "note_id", note_id, me, "Note")
        for k, v in (("title", title), ("content", content), ("tags", tags), ("pinned", pinned)):
            if v is not None:
                setattr(n, k, v)
        n.updated_at = self.state.now
        return {"message": "Note updated."}

    @tool(W, tags=("simple_note",), name="simple_note__add_content_to_note")
    def add_content_to_note(self, access_token: str, note_id: int, added_content: str,
                            append_or_prepend: Literal["append", "prepend"]) -> dict[str, Any]:
        """Append or prepend content to a note (a new line separates old and new content).

        Args:
          access_token: Token from simple_note__login.
          note_id: ID of the note.
          added_content: Content to add.
          append_or_prepend: append or prepend.
        """
        me = self._user("simple_note", access_token)
        n = find(self.state.notes, "note_id", note_id, me, "Note")
        n.content = n.content + "\n" + added_content if append_or_prepend == "append" else added_content + "\n" + n.content
        n.updated_at = self.state.now
        return {"message": f"Content {append_or_prepend}ed to note."}

    @tool(W, tags=("simple_note",), name="simple_note__delete_note")
    def delete_note(self, access_token: str, note_id: int) -> dict[str, Any]:
        """Delete a note.

        Args:
          access_token: Token from simple_note__login.
          note_id: ID of the note.
        """
        me = self._user("simple_note", access_token)
        self.state.notes.remove(find(self.state.notes, "note_id", note_id, me, "Note"))
        return {"message": "Note deleted."}


class TodoApp(AppBase):
    @tool(W, tags=("todoist",), name="todoist__login")
    def td_login(self, username: str, password: str) -> dict[str, Any]:
        """Login to your Todoist account; returns an access_token.

        Args:
          username: Your account email.
          password: Your password.
        """
        return self._login("todoist", username, password)

    @tool(W, tags=("todoist",), name="todoist__create_project")
    def create_project(self, access_token: str, name: str, color: str = "grey",
                       is_favorite: bool = False) -> dict[str, Any]:
        """Create a project.

        Args:
          access_token: Token from todoist__login.
          name: Project name.
          color: Project color.
          is_favorite: Favorite flag.
        """
        me = self._user("todoist", access_token)
        p = TodoProject(project_id=self.state.next_id(), owner=me, name=name, color=color, is_favorite=is_favorite)
        self.state.projects.append(p)
        return {"message": "Project created.", "project_id": p.project_id}

    @tool(R, tags=("todoist",), name="todoist__show_projects")
    def show_projects(self, access_token: str, query: str = "") -> list[dict[str, Any]]:
        """List your projects.

        Args:
          access_token: Token from todoist__login.
          query: Filter by name.
        """
        me = self._user("todoist", access_token)
        return [p.model_dump(exclude={"owner"}) for p in self.state.projects if p.owner == me and matches(query, p.name)]

    @tool(W, tags=("todoist",), name="todoist__create_section")
    def create_section(self, access_token: str, project_id: int, name: str) -> dict[str, Any]:
        """Create a section in a project.

        Args:
          access_token: Token from todoist__login.
          project_id: Project id.
          name: Section name.
        """
        me = self._user("todoist", access_token)
        find(self.state.projects, "project_id", project_id, me, "Project")
        s = TodoSection(section_id=self.state.next_id(), project_id=project_id, name=name)
        self.state.sections.append(s)
        return {"message": "Section created.", "section_id": s.section_id}

    @tool(R, tags=("todoist",), name="todoist__show_sections")
    def show_sections(self, access_token: str, project_id: int) -> list[dict[str, Any]]:
        """List the sections of a project.

        Args:
          access_token: Token from todoist__login.
          project_id: Project id.
        """
        me = self._user("todoist", access_token)
        find(self.state.projects, "project_id", project_id, me, "Project")
        return [s.model_dump() for s in self.state.sections if s.project_id == project_id]

    @tool(W, tags=("todoist",), name="todoist__create_task")
    def create_task(self, access_token: str, title: str, project_id: int | None = None, section_id: int | None = None,
                    description: str = "", due_date: str | None = None, priority: int = 1) -> dict[str, Any]:
        """Create a task.

        Args:
          access_token: Token from todoist__login.
          title: Task title.
          project_id: Project id (inbox if omitted).
          section_id: Section id.
          description: Task description.
          due_date: Due date (YYYY-MM-DD).
          priority: 1 (normal) to 4 (urgent).
        """
        me = self._user("todoist", access_token)
        if project_id is not None:
            find(self.state.projects, "project_id", project_id, me, "Project")
        if section_id is not None:
            find(self.state.sections, "section_id", section_id, None, "Section")
        t = TodoTask(task_id=self.state.next_id(), owner=me, project_id=project_id, section_id=section_id,
                     title=title, description=description, due_date=due_date, priority=priority)
        self.state.tasks.append(t)
        return {"message": "Task created.", "task_id": t.task_id}

    @tool(W, tags=("todoist",), name="todoist__create_sub_task")
    def create_sub_task(self, access_token: str, task_id: int, title: str, description: str = "",
                        due_date: str | None = None) -> dict[str, Any]:
        """Create a sub-task under a task.

        Args:
          access_token: Token from todoist__login.
          task_id: Parent task id.
          title: Sub-task title.
          description: Description.
          due_date: Due date (YYYY-MM-DD).
        """
        me = self._user("todoist", access_token)
        parent = find(self.state.tasks, "task_id", task_id, me, "Task")
        t = TodoTask(task_id=self.state.next_id(), owner=me, project_id=parent.project_id, parent_task_id=task_id,
                     title=title, description=description, due_date=due_date)
        self.state.tasks.append(t)
        return {"message": "Sub-task created.", "sub_task_id": t.task_id}

    @tool(W, tags=("todoist",), name="todoist__update_task")
    def update_task(self, access_token: str, task_id: int, title: str | None = None, description: str | None = None,
                    due_date: str | None = None, priority: int | None = None,
                    completed: bool | None = None) -> dict[str, Any]:
        """Update a task.

        Args:
          access_token: Token from todoist__login.
          task_id: Task id.
          title: New title.
          description: New description.
          due_date: New due date.
          priority: New priority.
          completed: Completion status.
        """
        me = self._user("todoist", access_token)
        t = find(self.state.tasks, "task_id", task_id, me, "Task")
        for k, v in (("title", title), ("description", description), ("due_date", due_date),
                     ("priority", priority), ("completed", completed)):
            if v is not None:
                setattr(t, k, v)
        return {"message": "Task updated."}

    @tool(W, tags=("todoist",), name="todoist__delete_task")
    def delete_task(self, access_token: str, task_id: int) -> dict[str, Any]:
        """Delete a task.

        Args:
          access_token: Token from todoist__login.
          task_id: Task id.
        """
        me = self._user("todoist", access_token)
        self.state.tasks.remove(find(self.state.tasks, "task_id", task_id, me, "Task"))
        return {"message": "Task deleted."}

    @tool(R, tags=("todoist",), name="todoist__show_tasks")
    def show_tasks(self, access_token: str, project_id: int | None = None, query: str = "") -> list[dict[str, Any]]:
        """List your tasks, optionally in one project.

        Args:
          access_token: Token from todoist__login.
          project_id: Project id.
          query: Filter by title.
        """
        me = self._user("todoist", access_token)
        return [t.model_dump(exclude={"owner"}) for t in self.state.tasks
                if t.owner == me and (project_id is None or t.project_id == project_id) and matches(query, t.title)]

    @tool(R, tags=("todoist",), name="todoist__show_task")
    def show_task(self, access_token: str, task_id: int) -> dict[str, Any]:
        """Show one task.

        Args:
          access_token: Token from todoist__login.
          task_id: Task id.
        """
        me = self._user("todoist", access_token)
        return find(self.state.tasks, "task_id", task_id, me, "Task").model_dump(exclude={"owner"})

    @tool(W, tags=("todoist",), name="todoist__create_label")
    def create_label(self, access_token: str, name: str) -> dict[str, Any]:
        """Create a label.

        Args:
          access_token: Token from todoist__login.
          name: Label name.
        """
        me = self._user("todoist", access_token)
        if any(lb.owner == me and lb.name == name for lb in self.state.labels):
            raise ToolError(f"A label named {name} already exists.")
        lb = TodoLabel(label_id=self.state.next_id(), owner=me, name=name)
        self.state.labels.append(lb)
        return {"message": "Label created.", "label_id": lb.label_id}

    @tool(R, tags=("todoist",), name="todoist__show_labels")
    def show_labels(self, access_token: str) -> list[dict[str, Any]]:
        """List your labels.

        Args:
          access_token: Token from todoist__login.
        """
        me = self._user("todoist", access_token)
        return [lb.model_dump(exclude={"owner"}) for lb in self.state.labels if lb.owner == me]

    @tool(W, tags=("todoist",), name="todoist__delete_label")
    def delete_label(self, access_token: str, label_id: int) -> dict[str, Any]:
        """Delete a label (it is removed from every task).

        Args:
          access_token: Token from todoist__login.
          label_id: Label id.
        """
        me = self._user("todoist", access_token)
        lb = find(self.state.labels, "label_id", label_id, me, "Label")
        self.state.labels.remove(lb)
        for t in self.state.tasks:
            if label_id in t.label_ids:
                t.label_ids.remove(label_id)
                t.labels = [n for n in t.labels if n != lb.name]
        return {"message": "Label deleted."}

    @tool(W, tags=("todoist",), name="todoist__add_label_to_task")
    def add_label_to_task(self, access_token: str, task_id: int, label_id: int) -> dict[str, Any]:
        """Add a label to a task.

        Args:
          access_token: Token from todoist__login.
          task_id: Task id.
          label_id: Label id (from todoist__create_label).
        """
        me = self._user("todoist", access_token)
        t = find(self.state.tasks, "task_id", task_id, me, "Task")
        lb = find(self.state.labels, "label_id", label_id, me, "Label")
        if label_id not in t.label_ids:
            t.label_ids.append(label_id)
            t.labels.append(lb.name)
        return {"message": "Label added to task."}

    @tool(W, tags=("todoist",), name="todoist__remove_label_from_task")
    def remove_label_from_task(self, access_token: str, task_id: int, label_id: int) -> dict[str, Any]:
        """Remove a label from a task.

        Args:
          access_token: Token from todoist__login.
          task_id: Task id.
          label_id: Label id.
        """
        me = self._user("todoist", access_token)
        t = find(self.state.tasks, "task_id", task_id, me, "Task")
        lb = find(self.state.labels, "label_id", label_id, me, "Label")
        if label_id not in t.label_ids:
            raise ToolError("The task does not have this label.")
        t.label_ids.remove(label_id)
        t.labels = [n for n in t.labels if n != lb.name]
        return {"message": "Label removed from task."}

    @tool(W, tags=("todoist",), name="todoist__assign_or_unassign_task")
    def assign_or_unassign_task(self, access_token: str, task_id: int, assignee_email: str | None = None) -> dict[str, Any]:
        """Assign a task to someone (or unassign it when no email is given).

        Args:
          access_token: Token from todoist__login.
          task_id: Task id.
          assignee_email: Assignee's email; omit to unassign.
        """
        me = self._user("todoist", access_token)
        t = find(self.state.tasks, "task_id", task_id, me, "Task")
        t.assignee_email = assignee_email
        return {"message": "Task assigned." if assignee_email else "Task unassigned."}

    @tool(W, tags=("todoist",), name="todoist__post_task_comment")
    def post_task_comment(self, access_token: str, task_id: int, content: str) -> dict[str, Any]:
        """Post a comment on a task.

        Args:
          access_token: Token from todoist__login.
          task_id: Task id.
          content: Comment text.
        """
        me = self._user("todoist", access_token)
        t = find(self.state.tasks, "task_id", task_id, me, "Task")
        cid = self.state.next_id()
        t.comments.append({"task_comment_id": cid, "content": content, "created_at": self.state.now})
        return {"message": "Comment posted.", "task_comment_id": cid}

    @tool(R, tags=("todoist",), name="todoist__show_task_comments")
    def show_task_comments(self, access_token: str, task_id: int) -> list[dict[str, Any]]:
        """List a task's comments.

        Args:
          access_token: Token from todoist__login.
          task_id: Task id.
        """
        me = self._user("todoist", access_token)
        return list(find(self.state.tasks, "task_id", task_id, me, "Task").comments)

    @tool(W, tags=("todoist",), name="todoist__delete_task_comment")
    def delete_task_comment(self, access_token: str, task_comment_id: int) -> dict[str, Any]:
        """Delete a task comment.

        Args:
          access_token: Token from todoist__login.
          task_comment_id: Comment id.
        """
        me = self._user("todoist", access_token)
        for t in self.state.tasks:
            if t.owner == me:
                for c in t.comments:
                    if c.get("task_comment_id") == task_comment_id:
                        t.comments.remove(c)
                        return {"message": "Comment deleted."}
        raise ToolError(f"Comment with task_comment_id={task_comment_id} not found.")

    @tool(W, tags=("todoist",), name="todoist__delete_section")
    def delete_section(self, access_token: str, section_id: int) -> dict[str, Any]:
        """Delete a section (its tasks stay in the project).

        Args:
          access_token: Token from todoist__login.
          section_id: Section id.
        """
        me = self._user("todoist", access_token)
        sec = find(self.state.sections, "section_id", section_id, None, "Section")
        find(self.state.projects, "project_id", sec.project_id, me, "Section")
        self.state.sections.remove(sec)
        for t in self.state.tasks:
            if t.section_id == section_id:
                t.section_id = None
        return {"message": "Section deleted."}

    @tool(W, tags=("todoist",), name="todoist__delete_project")
    def delete_project(self, access_token: str, project_id: int) -> dict[str, Any]:
        """Delete a project with its sections and tasks.

        Args:
          access_token: Token from todoist__login.
          project_id: Project id.
        """
        me = self._user("todoist", access_token)
        self.state.projects.remove(find(self.state.projects, "project_id", project_id, me, "Project"))
        self.state.sections = [x for x in self.state.sections if x.project_id != project_id]
        self.state.tasks = [t for t in self.state.tasks if t.project_id != project_id]
        return {"message": "Project deleted."}
