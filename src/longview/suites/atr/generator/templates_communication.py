"""Communication templates (replies, priorities, folders, labels, sending) and learning tasks."""

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

D: Domain = "communication"
PEOPLE = ["Dana Whitaker", "Luis Ortega", "Amara Cole", "Grant Ellison", "Yuki Tanaka", "Rosa Delgado",
          "Martin Kowal", "Priscilla Hunt", "Omar Farouk", "Jenna Marsh", "Theo Lindqvist", "Carmen Ruiz"]
TOPICS = [("the Thursday planning call", "I can join but will be ten minutes late"),
          ("the shared budget spreadsheet", "I've added my numbers and it's ready for review"),
          ("borrowing the folding tables", "they can pick them up on Saturday"),
          ("the volunteer roster", "I can cover the early shift"),
          ("the community cleanup day", "I'm happy with their suggestion"),
          ("the carpool rota", "I can drive on Wednesdays")]
STORES = ["Bramble Outfitters", "Kettle & Co", "Northside Hardware", "Pixel Depot", "Greenleaf Market"]



def message(ctx: Ctx, sender: str, subject: str, body: str, **extra) -> dict:
    mid = ctx.uid("msg", sender)
    attrs = {"sender": sender, "subject": subject, "body": body, "thread_id": mid.replace("msg_", "thr_", 1),
             "folder": "inbox", "labels": [], "archived": False,
             "timestamp": ctx.when(0, ctx.rng.randint(7, 11), ctx.rng.choice([5, 20, 40]))}
    return ref(mid, "message", **(attrs | extra))


def inbox_noise(ctx: Ctx, n: int, av: Avoid | None = None, skip: str = "") -> list[dict]:
    people = [p for p in PEOPLE if p != skip]
    people = av.sample(ctx.rng, people, n) if av else ctx.rng.sample(people, n)
    return [message(ctx, p, subj, f"Quick note about {subj}.") for p, (subj, _) in zip(people, ctx.rng.sample(TOPICS, n), strict=True)]


def folders(ctx: Ctx, names: list[tuple[str, str]]) -> list[dict]:
    return [ref(ctx.uid("fld", n), "folder", name=n, purpose=p) for n, p in names]


def labels(ctx: Ctx, names: list[tuple[str, str]]) -> list[dict]:
    return [ref(ctx.uid("lbl", n), "label", name=n, topic=t) for n, t in names]


# ---- scenarios ------------------------------------------------------------------------------


def _reply_setup(ctx: Ctx) -> tuple[list[dict], dict, str, str]:
    who = ctx.rng.choice(PEOPLE)
    subj, point = ctx.rng.choice(TOPICS)
    msg = message(ctx, who, f"Re: {subj}", f"Hi {ctx.persona.first_name}, where do you stand on {subj}?")
    return [msg, *inbox_noise(ctx, 2, skip=who)], msg, who, f"{who.split()[0]} asked about {subj}. Reply and tell them {point}."


def sc_draft_first(ctx: Ctx, v: Variant) -> Scenario:
    refs, msg, who, text = _reply_setup(ctx)
    body = {"thread_id": msg["attributes"]["thread_id"], "body": "Reply with the requested update."}
    return Scenario(refs, text, [Step(tool="search_messages", arguments={"sender": who})],
                    {"draft_message": dict(body), "send_message": dict(body)}, "message")


def sc_confirm_send(ctx: Ctx, v: Variant) -> Scenario:
    refs, msg, who, text = _reply_setup(ctx)
    body = {"thread_id": msg["attributes"]["thread_id"], "body": "Reply with the requested update."}
    return Scenario(refs, text, [Step(tool="search_messages", arguments={"sender": who})], {"send_message": body}, "message")


def sc_language(ctx: Ctx, v: Variant) -> Scenario:
    news = ctx.rng.choice(["the garden is blooming", "her knee is better", "she is planning a visit in the spring"])
    msg = message(ctx, "Grandma Zhao", "News from home", f"Grandma writes that {news}.")
    reply = ctx.rng.choice(["I'll call her this weekend", "work is going well", "I'd love to see her photos"])
    text = f"Grandma sent a note saying {news}. Write a reply letting her know {reply}."
    return Scenario([msg, *inbox_noise(ctx, 2)], text, [Step(tool="search_messages", arguments={"sender": "Grandma"})],
                    {"draft_message": {"thread_id": msg["attributes"]["thread_id"], "body": f"Reply: {reply}."}},
                    "message", v.knobs["gold"])


def sc_priority(ctx: Ctx, v: Variant) -> Scenario:
    who = ctx.rng.choice(STORES + ["Facilities Desk", "Parking Office"])
    subj = ctx.rng.choice(["URGENT: account details needed", "URGENT - read today", "Action required: URGENT update"])
    msg = message(ctx, who, subj, "Please respond as soon as possible.")
    text = f"There's a message from {who} marked urgent. Set its priority."
    return Scenario([msg, *inbox_noise(ctx, 2)], text, [Step(tool="search_messages", arguments={"sender": who})],
                    {"set_message_priority": {"message_ids": [msg["id"]]}}, "message", v.knobs["gold"])


def sc_archive_folder(ctx: Ctx, v: Variant) -> Scenario:
    sender = ctx.rng.choice(STORES) if v.knobs["kind"] == "receipts" else ctx.rng.choice(["The Civic Digest", "Weekly Byte", "Garden Notes"])
    subj = "Your order receipt" if v.knobs["kind"] == "receipts" else "This week's issue"
    msgs = [message(ctx, sender, f"{subj} #{i}", "Details inside.") for i in (1, 2)]
    fl = folders(ctx, v.knobs["folders"])
    gold = [f["id"] for f in fl if f["attributes"]["name"] == v.knobs["gold"]]
    text = v.knobs["ask"].format(s=sender)
    return Scenario([*msgs, *fl, *inbox_noise(ctx, 1)], text,
                    [Step(tool="search_messages", arguments={"sender": sender}), Step(tool="list_message_folders")],
                    {"archive_messages": {"message_ids": sorted(m["id"] for m in msgs)}}, "folder", gold[0])


def sc_label(ctx: Ctx, v: Variant) -> Scenario:
    sender = v.knobs["sender"]
    msgs = [message(ctx, sender, s, "Details inside.") for s in v.knobs["subjects"]]
    lb = labels(ctx, v.knobs["labels"])
    gold = [lab["id"] for lab in lb if lab["attributes"]["name"] == v.knobs["gold"]]
    text = f"Label the emails from {sender}."
    return Scenario([*msgs, *lb, *inbox_noise(ctx, 1)], text,
                    [Step(tool="search_messages", arguments={"sender": sender}), Step(tool="list_labels")],
                    {"label_messages": {"message_ids": sorted(m["id"] for m in msgs)}}, "label", gold)


def sc_promo(ctx: Ctx, v: Variant) -> Scenario:
    store = ctx.rng.choice(STORES)
    msgs = [message(ctx, store, s, "See what's new this week.") for s in ("Spring sale starts now", "New arrivals")]
    lb = labels(ctx, [("Deals", "coupons and sales"), ("Work", "job related"), ("Travel", "trip plans")])
    deals = lb[0]["id"]
    ids = sorted(m["id"] for m in msgs)
    text = f"The emails from {store} are cluttering my inbox. Take care of them."
    return Scenario([*msgs, *lb], text, [Step(tool="search_messages", arguments={"sender": store}), Step(tool="list_labels")],
                    {"label_messages": {"message_ids": ids, "label_ids": [deals]}, "archive_messages": {"message_ids": ids}},
                    "message")


def sc_send_draft(ctx: Ctx, v: Variant) -> Scenario:
    who = ctx.rng.choice(PEOPLE)
    subj, point = ctx.rng.choice(TOPICS)
    did = ctx.uid("dft", who)
    draft = ref(did, "draft", recipient=who, subject=subj, body=f"Hi {who.split()[0]}, {point}.", folder="drafts",
                status="draft", thread_id=did.replace("dft_", "thr_", 1))
    text = f"Send the draft to {who.split()[0]} about {subj}."
    return Scenario([draft, *inbox_noise(ctx, 2, skip=who)], text,
                    [Step(tool="search_messages", arguments={"folder": "drafts"})], {"send_draft": {"draft_id": did}}, "draft")


# ---- templates ------------------------------------------------------------------------------

TEMPLATES: list[Template] = [
    tool_t("communication.draft_first", D, "sending", "draft_message", sc_draft_first, (
        V("draft", ["cautious", "freelancer", "team_lead"], "reviewing replies before sending",
          "{P} wants every reply saved as a draft so {p} can look it over before it goes out.",
          "Write my replies as drafts; I want to read them before anything goes out.",
          "Send the reply directly.", ["draft", "read"], default_tool="send_message"),
    )),
    confirm_t("communication.confirm_send", D, "sending", "send_message", sc_confirm_send, (
        V("confirm", ["cautious", "senior", "freelancer"], "sending messages on my behalf",
          "{P} wants to approve every message before it is sent in {pos} name.",
          "Nothing goes out in my name until I've approved it.",
          "Send the message right away.", ["approve"]),
    )),
    confirm_t("communication.confirm_send_draft", D, "sending", "send_draft", sc_send_draft, (
        V("confirm", ["cautious", "team_lead", "organised"], "sending saved drafts",
          "{P} gives a final okay before any saved draft is sent.",
          "Even if a draft is ready, get my final okay before sending it.",
          "Send the draft immediately.", ["okay", "final"]),
    )),
    enum_t("communication.language", D, "draft_message", "language", sc_language, (
        V("zh", ["zh"], "language for family messages",
          "{P} writes to {pos} grandmother in Chinese.", "Anything to my grandma should be written in Chinese.",
          "Write the reply in English.", ["chinese"], gold="zh"),
    )),
    enum_t("communication.priority", D, "set_message_priority", "priority", sc_priority, (
        V("normal", ["organised", "busy", "cautious", "team_lead"], "email priority levels",
          "{P} does not let senders decide urgency: mail they label urgent stays at normal priority.",
          "Don't bump mail up just because the sender shouts that it's urgent; leave it at normal.",
          "Set it to high priority.", ["normal"], gold="normal", default="high"),
    )),
    pick_t("communication.archive_folder", D, "archive_messages", "folder_id", sc_archive_folder, (
        V("receipts", ["organised", "budget", "family"], "filing email receipts",
          "{P} files archived purchase receipts in {pos} Household admin folder.",
          "Receipts I archive belong in my Household admin folder.",
          "Archive them into the folder named Receipts.", ["household", "admin"],
          kind="receipts", attr="name", gold="Household admin", default=("named", "name", "Receipts"),
          folders=[("Household admin", "home paperwork"), ("Receipts", "shopping"), ("Old projects", "finished work")],
          ask="Archive the receipts from {s} in my inbox."),
        V("reading", ["culture", "student", "night"], "filing newsletters",
          "{P} archives newsletters into {pos} Weekend reading folder.",
          "Newsletters go in my Weekend reading folder when you archive them.",
          "Archive them into the folder named Newsletters.", ["weekend", "reading"],
          kind="newsletters", attr="name", gold="Weekend reading", default=("named", "name", "Newsletters"),
          folders=[("Weekend reading", "things to read later"), ("Newsletters", "subscriptions"), ("Old projects", "finished work")],
          ask="Archive the issues from {s} sitting in my inbox."),
    )),
    pick_t("communication.label_pick", D, "label_messages", "label_ids", sc_label, (
        V("school_family", ["family"], "email labels",
          "Emails from the kids' school get {pos} Family label.", "Anything from the kids' school gets the Family label.",
          "Use the label named School.", ["family"], attr="name", gold="Family", default=("named", "name", "School"),
          sender="Maple Grove Elementary", subjects=["Field trip form", "Picture day"],
          labels=[("Family", "home and kids"), ("School", "courses"), ("Work", "job related")]),
        V("client_billing", ["freelancer"], "email labels",
          "Payment notices from clients get {pos} Billing label.", "When a client writes about payment, label it Billing.",
          "Use the label named Clients.", ["billing"], attr="name", gold="Billing", default=("named", "name", "Clients"),
          sender="Northwind Studio", subjects=["Invoice 2231 paid", "Payment schedule"],
          labels=[("Billing", "money matters"), ("Clients", "client projects"), ("Personal", "friends")]),
    )),
    tool_t("communication.promo_label", D, "promo", "label_messages", sc_promo, (
        V("keep_deals", ["budget"], "promotional emails",
          "{P} keeps store promotions under {pos} Deals label instead of clearing them out.",
          "Store promotions aren't junk to me; put them under Deals instead of clearing them away.",
          "Archive the promotions.", ["deals", "promotion"], default_tool="archive_messages"),
    )),
]


# ---- learning tasks -------------------------------------------------------------------------


def lk_send(ctx: Ctx, av: Avoid) -> LearningDraft:
    noise = inbox_noise(ctx, 3, av)
    target = noise[0]
    who = target["attributes"]["sender"]
    point = av.pick(ctx.rng, [p for _, p in TOPICS])
    return LearningDraft("Answer a quick question from someone", {"reply_to": who, "say": point}, noise,
                         [Step(tool="search_messages", arguments={"sender": who}),
                          Step(tool="send_message", arguments={"thread_id": target["attributes"]["thread_id"], "body": point})])


def lk_draft(ctx: Ctx, av: Avoid) -> LearningDraft:
    noise = inbox_noise(ctx, 3, av)
    target = noise[1]
    who = target["attributes"]["sender"]
    lang = av.enum(ctx.rng, "draft_message.language", ["en"])
    args = {"thread_id": target["attributes"]["thread_id"], "body": "Thanks, more soon."} | ({"language": lang} if lang else {})
    return LearningDraft("Start a reply I'll finish afterwards", {"reply_to": who}, noise,
                         [Step(tool="search_messages", arguments={"sender": who}), Step(tool="draft_message", arguments=args)])


def lk_triage(ctx: Ctx, av: Avoid) -> LearningDraft:
    noise = inbox_noise(ctx, 3, av)
    top, old = noise[0], noise[2]
    pr = av.enum(ctx.rng, "set_message_priority.priority", ["high", "low"]) or "medium"
    return LearningDraft("Tidy up my inbox", {"important_sender": top["attributes"]["sender"], "level": pr,
                                              "done_with": old["attributes"]["sender"]}, noise,
                         [Step(tool="search_messages", arguments={"folder": "inbox"}),
                          Step(tool="set_message_priority", arguments={"message_ids": [top["id"]], "priority": pr}),
                          Step(tool="archive_messages", arguments={"message_ids": [old["id"]]})])


def lk_label(ctx: Ctx, av: Avoid) -> LearningDraft:
    noise = inbox_noise(ctx, 2, av)
    lb = labels(ctx, [(n, t) for n, t in [("Volunteering", "community"), ("Projects", "ongoing work"), ("Friends", "social")]
                      if av.ok(n) and av.ok(t)] or [("Projects", "ongoing work")])
    target = noise[0]
    want = ctx.rng.choice(lb)
    return LearningDraft("Tag a thread so I can find it", {"sender": target["attributes"]["sender"],
                                                           "label": want["attributes"]["name"]}, [*noise, *lb],
                         [Step(tool="list_labels"),
                          Step(tool="label_messages", arguments={"message_ids": [target["id"]], "label_ids": [want["id"]]})])


def lk_file(ctx: Ctx, av: Avoid) -> LearningDraft:
    noise = inbox_noise(ctx, 2, av)
    fl = folders(ctx, [(n, p) for n, p in [("Trips", "travel plans"), ("Community", "neighbourhood things"), ("Car", "vehicle")]
                       if av.ok(n) and av.ok(p)] or [("Community", "neighbourhood things")])
    target, want = noise[0], ctx.rng.choice(fl)
    return LearningDraft("File an email away", {"sender": target["attributes"]["sender"],
                                                                "folder": want["attributes"]["name"]}, [*noise, *fl],
                         [Step(tool="list_message_folders"),
                          Step(tool="archive_messages", arguments={"message_ids": [target["id"]], "folder_id": want["id"]})])


def lk_send_draft(ctx: Ctx, av: Avoid) -> LearningDraft:
    who = av.pick(ctx.rng, PEOPLE)
    did = ctx.uid("dft", who)
    draft = ref(did, "draft", recipient=who, subject="Catching up", body="Good to hear from you.", folder="drafts",
                status="draft", thread_id=did.replace("dft_", "thr_", 1))
    return LearningDraft("That note I wrote earlier can go", {"recipient": who}, [draft],
                         [Step(tool="search_messages", arguments={"folder": "drafts"}), Step(tool="send_draft", arguments={"draft_id": did})])


LEARNING: list[LearningKind] = [
    LearningKind("communication.send", D, ("search_messages", "send_message"), lk_send),
    LearningKind("communication.draft", D, ("search_messages", "draft_message"), lk_draft),
    LearningKind("communication.triage", D, ("search_messages", "set_message_priority", "archive_messages"), lk_triage),
    LearningKind("communication.label", D, ("list_labels", "label_messages"), lk_label),
    LearningKind("communication.file", D, ("list_message_folders", "archive_messages"), lk_file),
    LearningKind("communication.send_draft", D, ("search_messages", "send_draft"), lk_send_draft),
]
