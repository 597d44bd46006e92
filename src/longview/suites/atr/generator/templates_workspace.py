"""Workspace templates (file organisation, clean-up, documents, trackers) and learning tasks."""

from __future__ import annotations

from longview.suites.atr.dataset import Domain
from longview.suites.atr.generator.templates import (
    Avoid,
    Ctx,
    LearningDraft,
    LearningKind,
    Scenario,
    Template,
    V,
    Variant,
    confirm_t,
    enum_t,
    pick_t,
    ref,
    tool_t,
)
from longview.suites.atr.preference import Step

D: Domain = "workspace"
FILE_STEMS = [("site_photos", "image"), ("budget_draft", "xlsx"), ("meeting_minutes", "docx"), ("invoice", "pdf"),
              ("inventory", "csv"), ("floor_plan", "pdf"), ("notes", "txt"), ("timetable", "xlsx"),
              ("proposal", "docx"), ("receipt_scan", "image")]
OWNERS = ["Jordan", "Riley", "Sam", "Morgan"]
EXT = {"image": "jpg", "xlsx": "xlsx", "docx": "docx", "pdf": "pdf", "csv": "csv", "txt": "txt"}



def files(ctx: Ctx, where: str, n: int, year: int | None = None, av: Avoid | None = None) -> list[dict]:
    stems = av.sample(ctx.rng, FILE_STEMS, n) if av else ctx.rng.sample(FILE_STEMS, n)
    out = []
    for stem, kind in stems:
        yr = year or ctx.rng.choice([2024, 2025])
        name = f"{stem}_{yr}.{EXT[kind]}"
        out.append(ref(ctx.uid("fil", f"{stem} {yr}"), "file", name=name, file_type=kind, location=where,
                       owner=ctx.rng.choice(OWNERS), labels=[], archived=False, modified=f"{yr}-0{ctx.rng.randint(1, 9)}-1{ctx.rng.randint(0, 9)}"))
    return out


def file_folders(ctx: Ctx, names: list[tuple[str, str]]) -> list[dict]:
    return [ref(ctx.uid("fld", n), "folder", name=n, purpose=p) for n, p in names]


def tracker(ctx: Ctx, title: str, items: list[str]) -> dict:
    entries = [{"entry_id": ctx.uid("ent", it), "title": it, "status": ctx.rng.choice(["open", "underway"])} for it in items]
    return ref(ctx.uid("trk", title), "tracker", title=title, entries=entries)


def where(ctx: Ctx) -> str:
    return ctx.rng.choice(["Drive/Current", "Documents/Work", "Desktop/To sort", "Drive/Team"])


# ---- scenarios ------------------------------------------------------------------------------


def sc_classify(ctx: Ctx, v: Variant) -> Scenario:
    loc = where(ctx)
    fs = files(ctx, loc, 4)
    text = ctx.rng.choice([f"The files in {loc} are a mess. Sort them into categories.",
                           f"Organise everything sitting in {loc}."])
    return Scenario(fs, text, [Step(tool="list_files", arguments={"location": loc})],
                    {"classify_files": {"file_ids": sorted(f["id"] for f in fs)}}, "file", v.knobs["gold"])


def _cleanup(ctx: Ctx) -> tuple[list[dict], list[dict], str, str]:
    loc = where(ctx)
    old = files(ctx, loc, 3, year=2019)
    fl = file_folders(ctx, [("Archive", "long-term storage"), ("Active", "current work"), ("Shared", "team handoffs")])
    return old, fl, loc, f"Clear out the old 2019 files in {loc}."


def sc_archive_not_delete(ctx: Ctx, v: Variant) -> Scenario:
    old, fl, loc, text = _cleanup(ctx)
    ids = sorted(f["id"] for f in old)
    args = {"archive_files": {"file_ids": ids, "folder_id": fl[0]["id"]}, "delete_files": {"file_ids": ids}}
    return Scenario([*old, *fl], text, [Step(tool="list_files", arguments={"location": loc}), Step(tool="list_file_folders")],
                    args, "file")


def sc_confirm_delete(ctx: Ctx, v: Variant) -> Scenario:
    loc = where(ctx)
    junk = files(ctx, loc, 2, year=2020)
    keep = files(ctx, loc, 1, year=2025)
    text = f"Delete {junk[0]['attributes']['name']} and {junk[1]['attributes']['name']} from {loc}; I don't need them."
    return Scenario([*junk, *keep], text, [Step(tool="list_files", arguments={"location": loc})],
                    {"delete_files": {"file_ids": sorted(f["id"] for f in junk)}}, "file")


def sc_doc_type(ctx: Ctx, v: Variant) -> Scenario:
    subject = ctx.rng.choice(v.knobs["subjects"])
    loc = ctx.rng.choice(["Documents/Work", "Documents/Home"])
    existing = ref(ctx.uid("doc", "reading list"), "document", title="Reading list", doc_type="note", location=loc,
                   content_brief="books to borrow")
    text = v.knobs["ask"].format(s=subject)
    title = v.knobs["title"].format(s=subject)
    return Scenario([existing], text, [Step(tool="search_documents", arguments={"location": loc})],
                    {"create_document": {"title": title, "location": loc, "content_brief": text}}, "document", v.knobs["gold"])


def sc_tracker_action(ctx: Ctx, v: Variant) -> Scenario:
    items = ctx.rng.sample(["Roof estimate", "Grant application", "Website refresh", "Vendor contract", "Garden bed rebuild"], 3)
    trk = tracker(ctx, ctx.rng.choice(["Open items", "Household projects", "Team action log"]), items)
    entry = trk["attributes"]["entries"][0]
    text = f"Log where things stand with the {entry['title'].lower()} in my {trk['attributes']['title'].lower()} tracker."
    args = {"update_tracker": {"tracker_id": trk["id"], "entry_id": entry["entry_id"],
                               "entry_payload": "Waiting on a reply; follow up Friday."}}
    return Scenario([trk], text, [Step(tool="list_trackers")], args, "tracker", v.knobs["gold"])


def sc_log_not_doc(ctx: Ctx, v: Variant) -> Scenario:
    project = ctx.rng.choice(["the kitchen remodel", "the grant proposal", "the community mural", "the data migration"])
    trk = tracker(ctx, "Progress log", ["Kickoff", "Midpoint review"])
    loc = "Documents/Work"
    text = f"Write down what I got done on {project} this week: drafted the plan and booked the contractor."
    args = {"update_tracker": {"tracker_id": trk["id"], "update_action": "create_entry", "entry_payload": text},
            "create_document": {"doc_type": "note", "title": f"Weekly notes: {project}", "location": loc}}
    return Scenario([trk], text, [Step(tool="list_trackers"), Step(tool="search_documents", arguments={"location": loc})],
                    args, "tracker")


def sc_move(ctx: Ctx, v: Variant) -> Scenario:
    loc = "Desktop/To sort"
    (stem, kind), = [v.knobs["file"]]
    f = ref(ctx.uid("fil", stem), "file", name=f"{stem}.{EXT[kind]}", file_type=kind, location=loc,
            owner=ctx.persona.first_name, labels=[], archived=False, modified="2026-01-15")
    fl = file_folders(ctx, v.knobs["folders"])
    gold = [x["id"] for x in fl if x["attributes"]["name"] == v.knobs["gold"]]
    text = v.knobs["ask"].format(f=f["attributes"]["name"])
    return Scenario([f, *fl, *files(ctx, loc, 1)], text,
                    [Step(tool="list_files", arguments={"location": loc}), Step(tool="list_file_folders")],
                    {"move_files": {"file_ids": [f["id"]]}}, "folder", gold[0])


# ---- templates ------------------------------------------------------------------------------

TEMPLATES: list[Template] = [
    enum_t("workspace.classify", D, "classify_files", "scheme", sc_classify, (
        V("by_project", ["team_lead", "freelancer", "organised"], "file organisation scheme",
          "{P} organises work files by project.", "Group my files by the project they belong to.",
          "Sort the files by file type.", ["project"], gold="by_project", default="by_type"),
        V("by_date", ["organised", "senior", "student"], "file organisation scheme",
          "{P} organises files by date.", "I keep files sorted by when they're from.",
          "Sort the files by file type.", ["date", "when"], gold="by_date", default="by_type"),
        V("by_owner", ["team_lead"], "file organisation scheme",
          "{P} organises shared files by who owns them.", "On shared drives, sort files by whose they are.",
          "Sort the files by file type.", ["owner", "whose"], gold="by_owner", default="by_type"),
    )),
    tool_t("workspace.archive_not_delete", D, "cleanup", "archive_files", sc_archive_not_delete, (
        V("archive", ["cautious", "organised", "freelancer"], "clearing out old files",
          "{P} never has old files deleted; they get archived.", "Don't delete old files; archive them.",
          "Delete the old files.", ["archive", "archived"], default_tool="delete_files"),
    )),
    confirm_t("workspace.confirm_delete", D, "cleanup", "delete_files", sc_confirm_delete, (
        V("confirm", ["cautious", "senior", "team_lead"], "deleting files",
          "{P} wants to approve every file deletion first.", "Check with me before deleting any file.",
          "Delete the files right away.", ["approve", "check"]),
    )),
    enum_t("workspace.doc_type", D, "create_document", "doc_type", sc_doc_type, (
        V("memo", ["team_lead"], "meeting write-ups",
          "{P} writes meeting summaries up as formal memos.", "Meeting write-ups should be formal memos.",
          "Create a note.", ["memo", "formal"], gold="memo", default="note",
          subjects=["budget", "staffing", "safety"], ask="Write up today's {s} meeting.", title="{s} meeting summary"),
        V("template", ["organised", "work_travel", "family"], "reusable checklists",
          "{P} saves any checklist {p} will reuse as a template.", "Checklists I'll use again should be saved as templates.",
          "Create a note.", ["template", "reuse"], gold="template", default="note",
          subjects=["camping", "business", "beach"], ask="Make me a packing checklist for {s} trips.",
          title="{s} packing checklist"),
    )),
    enum_t("workspace.tracker_action", D, "update_tracker", "update_action", sc_tracker_action, (
        V("next_action", ["organised", "team_lead", "busy"], "tracker entries",
          "When {p} logs progress on a tracked item, {p} wants the next step recorded.",
          "When you log an item in my trackers, write down the next step to take.",
          "Update the entry's status.", ["next", "step"], gold="record_next_action", default="update_status"),
    )),
    tool_t("workspace.log_not_doc", D, "log", "update_tracker", sc_log_not_doc, (
        V("log", ["organised", "fitness", "cooking"], "weekly progress notes",
          "{P} adds progress notes to {pos} existing log rather than starting new documents.",
          "Progress notes go into my existing log; don't start a new document each time.",
          "Create a new note document.", ["existing", "log"], default_tool="create_document"),
    )),
    pick_t("workspace.move_folder", D, "move_files", "folder_id", sc_move, (
        V("contracts_legal", ["freelancer"], "filing signed contracts",
          "Signed contracts go into {pos} Legal folder.", "Once a contract is signed, it belongs in my Legal folder.",
          "Move it to the folder named Clients.", ["legal"], attr="name", gold="Legal",
          default=("named", "name", "Clients"), file=("signed_contract_northwind", "pdf"),
          folders=[("Legal", "binding documents"), ("Clients", "client work"), ("Finance", "money")],
          ask="File {f} away properly."),
        V("school_family", ["family"], "filing school forms",
          "School forms go into {pos} Family folder.", "Forms from the kids' school belong in the Family folder.",
          "Move it to the folder named School.", ["family"], attr="name", gold="Family",
          default=("named", "name", "School"), file=("field_trip_permission_form", "pdf"),
          folders=[("Family", "household and kids"), ("School", "courses"), ("Finance", "money")],
          ask="Put {f} in the right folder."),
    )),
]


# ---- learning tasks -------------------------------------------------------------------------


def lk_classify(ctx: Ctx, av: Avoid) -> LearningDraft:
    loc = where(ctx)
    fs = files(ctx, loc, 3, av=av)
    scheme = av.enum(ctx.rng, "classify_files.scheme", ["by_type", "by_priority"]) or "by_type"
    return LearningDraft("Get a folder under control", {"folder": loc, "grouping": scheme}, fs,
                         [Step(tool="list_files", arguments={"location": loc}),
                          Step(tool="classify_files", arguments={"file_ids": sorted(f["id"] for f in fs), "scheme": scheme})])


def lk_archive(ctx: Ctx, av: Avoid) -> LearningDraft:
    loc = where(ctx)
    fs = files(ctx, loc, 2, year=2021, av=av)
    fl = file_folders(ctx, [("Cold storage", "old material"), ("Active", "current work")])
    return LearningDraft("Put away last year's material", {"folder": loc, "destination": "Cold storage"}, [*fs, *fl],
                         [Step(tool="list_files", arguments={"location": loc}), Step(tool="list_file_folders"),
                          Step(tool="archive_files", arguments={"file_ids": sorted(f["id"] for f in fs), "folder_id": fl[0]["id"]})])


def lk_delete(ctx: Ctx, av: Avoid) -> LearningDraft:
    loc = "Downloads"
    fs = files(ctx, loc, 3, av=av)
    dup = fs[0]
    return LearningDraft("Get rid of a duplicate download", {"file": dup["attributes"]["name"]}, fs,
                         [Step(tool="list_files", arguments={"location": loc}), Step(tool="delete_files", arguments={"file_ids": [dup["id"]]})])


def lk_create(ctx: Ctx, av: Avoid) -> LearningDraft:
    kind = av.enum(ctx.rng, "create_document.doc_type", ["note", "spreadsheet", "report"]) or "note"
    title = av.pick(ctx.rng, ["Holiday gift ideas", "Neighborhood contacts", "Q3 expense summary", "Book club picks"])
    return LearningDraft("Start a new document", {"title": title, "kind": kind, "folder": "Documents/Home"}, [],
                         [Step(tool="create_document", arguments={"doc_type": kind, "title": title, "location": "Documents/Home"})])


def lk_tracker(ctx: Ctx, av: Avoid) -> LearningDraft:
    items = av.sample(ctx.rng, ["Furnace service", "Passport renewal", "Insurance claim", "Tax paperwork"], 2)
    trk = tracker(ctx, "Open items", items)
    entry = trk["attributes"]["entries"][0]
    action = av.enum(ctx.rng, "update_tracker.update_action", ["update_status", "close_entry"]) or "update_status"
    return LearningDraft("Update one of my lists", {"item": entry["title"], "update": action}, [trk],
                         [Step(tool="list_trackers"),
                          Step(tool="update_tracker", arguments={"tracker_id": trk["id"], "entry_id": entry["entry_id"],
                                                                 "update_action": action, "entry_payload": "done for now"})])


def lk_move(ctx: Ctx, av: Avoid) -> LearningDraft:
    loc = "Desktop/To sort"
    fs = files(ctx, loc, 2, av=av)
    fl = file_folders(ctx, [(n, p) for n, p in [("Photos", "pictures"), ("Projects", "ongoing work"), ("Finance", "money")]
                            if av.ok(n) and av.ok(p)] or [("Projects", "ongoing work")])
    return LearningDraft("Move some files off my desktop", {"file": fs[0]["attributes"]["name"], "to": fl[0]["attributes"]["name"]},
                         [*fs, *fl], [Step(tool="list_files", arguments={"location": loc}), Step(tool="list_file_folders"),
                                      Step(tool="move_files", arguments={"file_ids": [fs[0]["id"]], "folder_id": fl[0]["id"]})])


LEARNING: list[LearningKind] = [
    LearningKind("workspace.classify", D, ("list_files", "classify_files"), lk_classify),
    LearningKind("workspace.archive", D, ("list_files", "list_file_folders", "archive_files"), lk_archive),
    LearningKind("workspace.delete", D, ("list_files", "delete_files"), lk_delete),
    LearningKind("workspace.create", D, ("create_document",), lk_create),
    LearningKind("workspace.tracker", D, ("list_trackers", "update_tracker"), lk_tracker),
    LearningKind("workspace.move", D, ("list_files", "list_file_folders", "move_files"), lk_move),
]
