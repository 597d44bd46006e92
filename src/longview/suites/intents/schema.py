"""The task format of the intents suite (pydantic, strict): personas x sessions with hidden intents
and checklists, one persistent workspace and app state per episode.

An :class:`Episode` is one persona's 20 sessions in order. A :class:`Session` opens with an
underspecified ``request``; its :class:`HiddenIntent` s are what the user wants but does not say,
each labelled with where it can be recovered (an earlier ``session``, a ``workspace`` artifact, or
only by ``ask`` ing) and carrying the words of a targeted question. Its :class:`ChecklistItem` s are
the completion criteria: a deterministic :class:`Check` over final state, tool history or files, or
a rubric item for a judge model (with a deterministic ``proxy`` check where one exists).
"""

from __future__ import annotations

from typing import Any, Literal, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from longview.domains.apps.state import APPS
from longview.kernel.ids import id_problem

MAX_PATH_PARTS = 16
MAX_PATH_LEN = 512

Collection = Literal["any", "notes", "tasks", "projects", "emails", "texts", "contacts", "alarms", "events",
                     "groups", "expenses", "orders", "liked_songs"]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _invalid(loc: tuple, value: Any, message: str) -> None:
    """Fail validation at ``loc`` (relative to the model; pydantic prefixes any outer location)."""
    raise ValidationError.from_exception_data("intents", [
        {"type": "value_error", "loc": loc, "input": value, "ctx": {"error": ValueError(message)}}])


def workspace_path(value: str) -> str:
    """``value`` if it is a safe workspace-relative path (the runner writes it under the cell's
    workspace): '/'-separated, not absolute, no '.' or '..' parts, no backslashes or control
    characters, bounded length and depth. Else ValueError saying why."""
    if not value or len(value) > MAX_PATH_LEN:
        raise ValueError(f"a workspace-relative path of 1-{MAX_PATH_LEN} characters")
    if value.startswith("/"):
        raise ValueError(f"a workspace-relative path, not an absolute one (got {value[:60]!r})")
    parts = value.split("/")
    if len(parts) > MAX_PATH_PARTS:
        raise ValueError(f"a workspace path at most {MAX_PATH_PARTS} folders deep")
    for part in parts:
        problem = id_problem(part, max_len=200, alphabet=False)
        if problem:
            raise ValueError(f"a workspace-relative path whose every part is {problem.removeprefix('an ')} "
                             f"(part {part[:60]!r})")
    return value


class Check(Strict):
    """One deterministic check. Text matching is case-insensitive substring matching."""

    kind: Literal["reply_contains", "file_contains", "record_contains", "tool_called"] = Field(
        description="reply_contains: an agent reply in scope has every `all` string; file_contains: workspace "
        "file `path` exists and has every `all` string and no `none` string; record_contains: some app record "
        "of `collection` (any: every collection) has the `where` field values and every `all` string in its JSON; tool_called: a "
        "successful call of `tool` whose arguments contain every `args` value.")
    all: list[str] = Field(default_factory=list, description="Strings that must all occur.")
    none: list[str] = Field(default_factory=list, description="Strings that must not occur.")
    path: str | None = Field(default=None, description="file_contains: workspace-relative path.")
    collection: Collection | None = Field(default=None, description="record_contains: app collection.")
    where: dict[str, Any] = Field(default_factory=dict, description="record_contains: field -> required value.")
    tool: str | None = Field(default=None, description="tool_called: tool name.")
    args: dict[str, Any] = Field(default_factory=dict, description="tool_called: argument -> required value "
                                 "(strings: substring match).")

    @model_validator(mode="after")
    def _fields_for_kind(self) -> Check:
        need = {"file_contains": "path", "record_contains": "collection", "tool_called": "tool"}.get(self.kind)
        if need and getattr(self, need) is None:
            raise ValueError(f"a {self.kind} check needs '{need}'")
        return self


class Action(Strict):
    """One tool call of a reference agent's script (never shown to the agent under test).

    String arguments may reference ``$login:<app>`` (the access token of the persona's account) or
    ``$<save>.<field>`` (a field of an earlier action's output saved under ``save``)."""

    tool: str = Field(description="Tool name.")
    args: dict[str, Any] = Field(default_factory=dict, description="Arguments.")
    save: str | None = Field(default=None, description="Name to save the output under.")


class HiddenIntent(Strict):
    """A requirement the user holds but did not state in the request."""

    id: str = Field(description="Intent id, unique within the session (I1, I2...).")
    content: str = Field(description="The requirement in the user's words; what the user says when providing it.")
    recoverable_from: Literal["session", "workspace", "ask", "unlabelled"] = Field(
        description="Where it can be recovered: an earlier session, a workspace artifact, or only by asking "
        "(unlabelled: imported tasks, which do not say).")
    source: str | None = Field(default=None, description="session: the earlier session id; workspace: the file path.")
    cue: str | None = Field(default=None, description="The distinctive text that carries it in its source "
                            "(QC: present in the source, absent from the request and, for ask, from every "
                            "earlier session and workspace file).")
    question: str = Field(description="The words of a targeted question about it; a question covering most of "
                          "its content words elicits the intent.")
    satisfied_by: list[Check] = Field(default_factory=list, description="Deterministic checks that all pass "
                                      "once the intent is satisfied (empty: judged by a model, by the rule-script "
                                      "keys that test it, or not judged).")
    actions: list[Action] = Field(default_factory=list, description="Reference script that satisfies it.")
    reply: str = Field(default="", description="Reference reply fragment that reports it.")
    initially_provided: bool = Field(default=False, description="Imported tasks: already stated at the start "
                                     "(π-Bench status 'provided'); counts in PROC's denominator, never open.")

    @model_validator(mode="after")
    def _source_for_label(self) -> HiddenIntent:
        if self.recoverable_from in ("session", "workspace") and not (self.source and self.cue):
            raise ValueError(f"an intent recoverable from {self.recoverable_from} needs 'source' and 'cue'")
        return self


class ChecklistItem(Strict):
    """One completion criterion."""

    id: str = Field(description="Item id, unique within the session.")
    text: str = Field(description="The criterion in words.")
    weight: float = Field(default=1.0, gt=0, le=1e6, allow_inf_nan=False, description="Weight in the session's COMP.")
    check: Check | None = Field(default=None, description="Deterministic check; None makes it a rubric item.")
    proxy: Check | None = Field(default=None, description="Rubric items: a deterministic stand-in used when no "
                                "judge model runs.")


class Session(Strict):
    """One task of an episode."""

    id: str = Field(description="Session id, unique within the episode.")
    title: str = Field(description="Short title.")
    request: str = Field(description="The initial, underspecified user request.")
    depends_on: list[str] = Field(default_factory=list, description="Earlier sessions this one builds on "
                                  "(its direct prerequisites; they have no checklist).")
    apps: list[str] = Field(default_factory=list, description="Apps the session's work uses (its breakdown "
                            "category); the agent gets every app of the persona in every session.")
    assets: dict[str, str] = Field(default_factory=dict, description="Files copied into the workspace at session "
                                   "start: workspace-relative path -> text.")
    hidden_intents: list[HiddenIntent] = Field(min_length=1, description="Hidden intents, in the order the user "
                                               "volunteers them.")
    checklist: list[ChecklistItem] = Field(default_factory=list, description="Completion criteria (empty for "
                                           "prerequisite sessions).")
    base_actions: list[Action] = Field(default_factory=list, description="Reference script for the literal request.")
    base_reply: str = Field(default="", description="Reference reply for the literal request.")
    rule_script: str | None = Field(default=None, description="Imported tasks: path of a rule script "
                                    "`score(tools_history) -> {key: 0|1}`; each key is one checklist criterion.")
    rule_tools: list[str] = Field(default_factory=list, description="Imported tasks: tool names (as the task "
                                  "spells them) whose calls the rule script sees.")
    tool_prefix: str = Field(default="", description="Prefix the task's tool names carry (mcp_appworld_).")
    files_read: list[str] = Field(default_factory=list, description="Workspace files judges see as context.")
    task_type: str = Field(default="", description="Breakdown key: the task's type (π-Bench's task_type; built-in: "
                           "empty, derived from the dependency structure).")
    category: str = Field(default="", description="Breakdown key: the task's category (built-in: empty, derived "
                          "from the artifact's app).")
    difficulty: str = Field(default="", description="Breakdown key: the task's difficulty (π-Bench's "
                            "metadata.difficulty), empty when unknown.")

    @field_validator("assets")
    @classmethod
    def _asset_paths(cls, v: dict[str, str]) -> dict[str, str]:
        for path in v:
            workspace_path(path)
        return v


class Account(Strict):
    email: str = Field(description="Login (email; phone number for the phone app).")
    password: str = Field(description="Password.")


class WorkspaceFile(Strict):
    """A file in the episode's workspace at the start."""

    path: str = Field(description="Workspace-relative path ('/'-separated; no '..', no absolute paths).")
    text: str | None = Field(default=None, description="Text content (csv, md, txt...).")
    pdf_lines: list[str] | None = Field(default=None, description="Lines of a generated one-page PDF.")

    @field_validator("path")
    @classmethod
    def _safe_path(cls, v: str) -> str:
        return workspace_path(v)

    @model_validator(mode="after")
    def _one_body(self) -> WorkspaceFile:
        if (self.text is None) == (self.pdf_lines is None):
            raise ValueError("give exactly one of 'text' or 'pdf_lines'")
        return self


class Persona(Strict):
    id: str = Field(description="Persona id (the replication unit).")
    name: str = Field(pattern=r"\S", description="Display name (its first word is the account's first name).")
    profile: str = Field(description="Who the user is: background and habits, shown to the agent.")
    accounts: dict[str, Account] = Field(default_factory=dict, description="App -> the persona's account.")


class Episode(Strict):
    """One persona's sessions in order, sharing a workspace and app state."""

    persona: Persona = Field(description="The user.")
    files: list[WorkspaceFile] = Field(default_factory=list, description="Workspace at the episode start.")
    seed: dict[str, list[dict[str, Any]]] = Field(default_factory=dict, description="App records at the start "
                                                  "(contacts, songs, products...), by AppsState list field; each "
                                                  "record is validated as that app's record type.")
    sessions: list[Session] = Field(min_length=1, description="Sessions in order.")

    @model_validator(mode="after")
    def _order_and_dependencies(self) -> Episode:
        seen: set[str] = set()
        by_id = {s.id: s for s in self.sessions}
        known = _known_tools()
        for s in self.sessions:
            if s.id in seen:
                raise ValueError(f"duplicate session id {s.id}")
            for d in s.depends_on:
                if d not in seen:
                    raise ValueError(f"session {s.id}: depends_on {d} is not an earlier session")
                if by_id[d].checklist:
                    raise ValueError(f"session {s.id}: prerequisite {d} must have an empty checklist")
            if s.depends_on and not s.checklist:
                raise ValueError(f"session {s.id}: a session with depends_on needs a checklist")
            unknown = [a for a in s.apps if a not in APPS]
            if unknown:
                raise ValueError(f"session {s.id}: unknown app {unknown[0]!r} (known: {', '.join(APPS)})")
            scripts = [("base_actions", a) for a in s.base_actions]
            scripts += [(f"hidden intent {h.id}", a) for h in s.hidden_intents for a in h.actions]
            bad = next(((where, a.tool) for where, a in scripts if a.tool not in known), None)
            if bad:  # the reference script would fail at run time and its scores shift silently
                raise ValueError(f"session {s.id}: {bad[0]}: unknown tool {bad[1]!r}")
            for kind, ids in (("hidden intent", [h.id for h in s.hidden_intents]), ("checklist item", [c.id for c in s.checklist])):
                dup = next((i for n, i in enumerate(ids) if i in ids[:n]), None)
                if dup is not None:  # scores are kept per id: a second one would silently replace the first
                    raise ValueError(f"session {s.id}: duplicate {kind} id {dup!r}")
            seen.add(s.id)
        self._check_seed()
        # A path that is a file must not also be a folder of another path (the runner could not write both).
        paths = [f.path for f in self.files] + [p for s in self.sessions for p in s.assets]
        folders = {"/".join(p.split("/")[:k]) for p in paths for k in range(1, p.count("/") + 1)}
        clash = sorted(set(paths) & folders)
        if clash:
            raise ValueError(f"workspace path {clash[0]!r} is both a file and a folder of another file")
        return self

    def _check_seed(self) -> None:
        """Seed records become the apps' state when the episode starts: check them as such now."""
        from longview.domains.apps.state import AppsState

        lists = {k for k, f in AppsState.model_fields.items() if get_origin(f.annotation) is list}
        for key, rows in self.seed.items():
            if key not in lists:
                _invalid(("seed", key), key, f"an app record list ({', '.join(sorted(lists))})")
            try:
                AppsState.model_validate({key: rows})
            except ValidationError as e:
                err = e.errors()[0]
                _invalid(("seed", *err["loc"]), err.get("input"), err["msg"])


def _known_tools() -> set[str]:
    """Every tool an episode's apps and workspace offer (a reference script may name only these)."""
    from longview.domains.apps import AppsToolkit
    from longview.kernel.tools import tool_table

    return set(tool_table(AppsToolkit))


class Dataset(Strict):
    """The built-in (or a user's) set of episodes."""

    version: Literal[1] = Field(default=1, description="Format version (1, the only one so far).")
    episodes: list[Episode] = Field(min_length=1, description="One per persona.")
