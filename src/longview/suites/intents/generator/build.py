"""Build the built-in episodes from the personas: 20 sessions each, in six dependency groups
(three of 2 prerequisites + 1 dependent, three of 1 + 1) and five independent sessions.

Every session produces one artifact (a note, a workspace file, a Todoist project, an email, text
messages, a calendar event, a Splitwise group, an order, liked songs) from the literal request;
each hidden intent is one more concrete detail the artifact must carry (a ``phrase``), checked
deterministically where the artifact lives. Intents are recoverable from an earlier session (the
prerequisite's request states the preference), from a workspace file (preferences.md,
contacts.csv or policies.pdf), or only by asking.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from longview.suites.intents.generator.personas import PERSONAS, PRODUCTS, SONGS
from longview.suites.intents.schema import (
    Account,
    Action,
    Check,
    ChecklistItem,
    Dataset,
    Episode,
    HiddenIntent,
    Persona,
    Session,
    WorkspaceFile,
)

APPS_ALL = ("simple_note", "todoist", "gmail", "phone", "calendar", "splitwise", "spotify", "amazon")
KINDS = ("note", "file", "todo", "email", "sms", "event", "expense", "shop", "music", "note", "file", "todo")

# slot: (what the user says, the targeted question's words, the phrase the artifact must carry)
SLOTS = {
    "owner": ("Name {v} as the owner in it.", "who should be named as the owner", "Owner: {v}"),
    "tag": ("Mark it with the label {v}.", "which label it should be marked with", "Label: {v}"),
    "risk": ("Flag this risk in it: {v}.", "which risk should be flagged", "Risk: {v}"),
    "step": ("Add the next step: {v}.", "what the next step should be", "Next step: {v}"),
    "budget": ("Keep the budget cap at {v}.", "what budget cap applies", "Budget cap: {v}"),
    "audience": ("It is meant for {v}.", "who it is meant for as audience", "For: {v}"),
    "section": ("Start with a section called {v}.", "which section title should come first", "Section: {v}"),
}
SLOT_VOCAB = {"owner": "people", "tag": "tags", "risk": "risks", "step": "steps", "budget": "amounts",
              "audience": "audiences", "section": "sections"}


@dataclass
class Artifact:
    """How one session's artifact is made, extended by a phrase, and checked."""

    kind: str
    apps: list[str]
    label: str  # how the request names it
    base: list[Action]
    base_checks: list[tuple[str, Check]]
    add: Callable[[str, int], list[Action]]  # (phrase, k) -> the actions that carry it
    has: Callable[[str], Check]  # (phrase) -> the check that finds it
    assets: dict[str, str] = field(default_factory=dict)


def _note(title: str, body: str) -> Artifact:
    where = {"title": title}
    return Artifact(
        "note", ["simple_note"], f"create a Simple Note titled '{title}' saying: {body.rstrip('.')}",
        [Action(tool="simple_note__create_note", args={"access_token": "$login:simple_note", "title": title,
                                                        "content": body}, save="note")],
        [(f"A Simple Note titled '{title}' exists with the requested content.",
          Check(kind="record_contains", collection="notes", where=where, all=[body.split(".")[0]]))],
        lambda p, k: [Action(tool="simple_note__add_content_to_note", args={
            "access_token": "$login:simple_note", "note_id": "$note.note_id", "added_content": p,
            "append_or_prepend": "append"})],
        lambda p: Check(kind="record_contains", collection="notes", where=where, all=[p]))


def _file(path: str, body: str, assets: dict[str, str] | None = None) -> Artifact:
    end = "-- end of document --"
    return Artifact(
        "file", [], f"write the file {path} in the workspace, starting with: {body.splitlines()[-1].rstrip('.')}",
        [Action(tool="write_file", args={"path": path, "content": body + "\n\n" + end})],
        [(f"The workspace file {path} exists with the requested content.",
          Check(kind="file_contains", path=path, all=[body.split(".")[0]]))],
        lambda p, k: [Action(tool="edit_file", args={"path": path, "old_text": end, "new_text": p + "\n" + end})],
        lambda p: Check(kind="file_contains", path=path, all=[p]), assets=assets or {})


def _todo(project: str, tasks: list[str]) -> Artifact:
    base = [Action(tool="todoist__create_project", args={"access_token": "$login:todoist", "name": project},
                   save="proj")]
    base += [Action(tool="todoist__create_task", args={"access_token": "$login:todoist", "title": t,
                                                        "project_id": "$proj.project_id"}) for t in tasks]
    return Artifact(
        "todo", ["todoist"], f"set up a Todoist project '{project}' with the tasks {', '.join(tasks)}", base,
        [(f"A Todoist project '{project}' exists.", Check(kind="record_contains", collection="projects",
                                                           where={"name": project})),
         (f"The project has the task '{tasks[0]}'.", Check(kind="record_contains", collection="tasks", all=[tasks[0]]))],
        lambda p, k: [Action(tool="todoist__create_task", args={"access_token": "$login:todoist", "title": p,
                                                                 "project_id": "$proj.project_id"})],
        lambda p: Check(kind="record_contains", collection="tasks", all=[p]))


def _email(to: str, subject: str, body: str) -> Artifact:
    return Artifact(
        "email", ["gmail"], f"email {to} with the subject '{subject}' and the line: {body.rstrip('.')}",
        [Action(tool="gmail__send_email", args={"access_token": "$login:gmail", "email_addresses": [to],
                                                 "subject": subject, "body": body})],
        [(f"An email to {to} with the subject '{subject}' was sent.",
          Check(kind="record_contains", collection="emails", all=[subject, to]))],
        lambda p, k: [Action(tool="gmail__send_email", args={"access_token": "$login:gmail", "email_addresses": [to],
                                                              "subject": f"Re: {subject}", "body": p})],
        lambda p: Check(kind="record_contains", collection="emails", all=[to, p]))


def _sms(number: str, who: str, msg: str) -> Artifact:
    return Artifact(
        "sms", ["phone"], f"text {who} at {number}: {msg.rstrip('.')}",
        [Action(tool="phone__send_text_message", args={"access_token": "$login:phone", "phone_number": number,
                                                        "message": msg})],
        [(f"A text message was sent to {number}.", Check(kind="record_contains", collection="texts",
                                                         where={"receiver": number}))],
        lambda p, k: [Action(tool="phone__send_text_message", args={"access_token": "$login:phone",
                                                                     "phone_number": number, "message": p})],
        lambda p: Check(kind="record_contains", collection="texts", where={"receiver": number}, all=[p]))


def _event(title: str, start: str, end: str) -> Artifact:
    return Artifact(
        "event", ["calendar"], f"put a calendar event '{title}' in my calendar from {start} to {end}",
        [Action(tool="calendar__create_event", args={"access_token": "$login:calendar", "title": title,
                                                      "start": start, "end": end}, save="ev")],
        [(f"A calendar event '{title}' starting {start} exists.",
          Check(kind="record_contains", collection="events", where={"title": title, "start": start}))],
        lambda p, k: [Action(tool="calendar__create_event", args={
            "access_token": "$login:calendar", "title": f"{title} - {p}", "start": start, "end": end,
            "description": p})],
        lambda p: Check(kind="record_contains", collection="events", all=[p]))


def _expense(group: str, me: str, members: list[str]) -> Artifact:
    return Artifact(
        "expense", ["splitwise"], f"create a Splitwise group '{group}' with {', '.join(members)}",
        [Action(tool="splitwise__create_group", args={"access_token": "$login:splitwise", "name": group,
                                                       "member_emails": members}, save="grp")],
        [(f"A Splitwise group '{group}' with every member exists.",
          Check(kind="record_contains", collection="groups", where={"name": group}, all=members))],
        lambda p, k: [Action(tool="splitwise__record_expense", args={
            "access_token": "$login:splitwise", "group_id": "$grp.group_id", "description": p,
            "paid_amount": 30.0 * (k + 1), "payer_email": me, "debtor_emails": members,
            "debt_amounts": [round(30.0 * (k + 1) / (len(members) + 1), 2)] * len(members)})],
        lambda p: Check(kind="record_contains", collection="any", all=[p]))  # a group name or an expense


def _shop(first: tuple[int, str], rest: list[tuple[int, str]]) -> Artifact:
    def buy(pid: int) -> list[Action]:
        return [Action(tool="amazon__add_product_to_cart", args={"access_token": "$login:amazon", "product_id": pid}),
                Action(tool="amazon__place_order", args={"access_token": "$login:amazon"})]

    names = {n: i for i, n in rest}
    return Artifact(
        "shop", ["amazon"], f"order the '{first[1]}' on Amazon", buy(first[0]),
        [(f"An order containing '{first[1]}' was placed.", Check(kind="record_contains", collection="orders",
                                                                  all=[first[1]]))],
        lambda p, k: buy(names[p]) if p in names else [],
        lambda p: Check(kind="record_contains", collection="orders", all=[p]))


def _music(first: tuple[int, str], rest: list[tuple[int, str]]) -> Artifact:
    ids = {n: i for i, n in rest}
    like = lambda i: [Action(tool="spotify__like_song", args={"access_token": "$login:spotify", "song_id": i})]  # noqa: E731
    return Artifact(
        "music", ["spotify"], f"like the song '{first[1]}' on Spotify", like(first[0]),
        [(f"'{first[1]}' is among the liked songs.", Check(kind="record_contains", collection="liked_songs",
                                                           all=[first[1]]))],
        lambda p, k: like(ids[p]) if p in ids else [],
        lambda p: Check(kind="record_contains", collection="liked_songs", all=[p]))


SCHEDULE = ["pA", "pA", "i", "dA", "pB", "i", "dB", "pC", "pC", "dC", "i", "pD", "dD", "pE", "pE", "dE", "i",
            "pF", "dF", "i"]
WS_FILES = ("preferences.md", "standing_instructions.csv", "policies.pdf")
GENERIC_SLOTS = ("tag", "ref", "deadline", "budget", "risk", "step", "audience", "section")
MONTHS = ("March", "April", "May", "June")


def product_id(i: int) -> int:
    """Catalogue ids as a store has them, not 1, 2, 3: an agent that orders whatever small ids it can
    guess must not hit the products a session wants."""
    return 4000 + 37 * i


def _email_of(name: str) -> str:
    import unicodedata

    name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    parts = [p for p in name.replace(".", "").split() if p not in ("Dr", "Partner")]
    return f"{parts[0].lower()}.{parts[-1].lower()}@example.org"


class EpisodeBuilder:
    def __init__(self, pd: dict, seed: int) -> None:
        self.pd, self.rng = pd, random.Random(seed)
        self.used: set[str] = set()
        self.pools = {k: list(pd[v]) for k, v in SLOT_VOCAB.items()}
        for pool in self.pools.values():
            self.rng.shuffle(pool)
        self.slot_turn = 0
        self.products = [(product_id(i), n) for i, (n, _, _) in enumerate(PRODUCTS)]
        self.songs = [(i + 1, t) for i, (t, _, _) in enumerate(SONGS)]
        self.rng.shuffle(self.products)
        self.rng.shuffle(self.songs)
        self.ws_lines: dict[str, list[tuple[str, str]]] = {f: [] for f in WS_FILES}
        self.ws_turn = 0
        self.forbidden = set(pd["people"]) | set(pd["topics"]) | {pd["name"]} | {_email_of(p) for p in pd["people"]}

    # --- values ------------------------------------------------------------------------------
    def _clashes(self, v: str) -> bool:
        low = v.lower()
        return any(low in u.lower() or u.lower() in low for u in self.used | self.forbidden)

    def _fresh(self, make) -> str:
        for _ in range(200):
            v = make()
            if not self._clashes(v):
                self.used.add(v)
                return v
        raise RuntimeError("vocabulary exhausted")

    def intent_value(self, kind: str, topic: str) -> tuple[str, str, str]:
        """(value, what the user says, targeted question words) for one hidden intent."""
        if kind == "shop":
            v = self._fresh(lambda: self.products.pop()[1])
            return v, f"Also order the {v}; I always keep a spare.", "which other product should be ordered too"
        if kind == "music":
            v = self._fresh(lambda: self.songs.pop()[1])
            return v, f"Also like the song {v}.", "which other song should be liked too"
        for _ in range(len(GENERIC_SLOTS) * 3):
            slot = GENERIC_SLOTS[self.slot_turn % len(GENERIC_SLOTS)]
            self.slot_turn += 1
            if slot == "tag":
                slug = topic.split()[0].lower().replace("-", "")[:4]
                v = self._fresh(lambda slug=slug: f"{slug}-{self.rng.randint(10, 99)}")
                return v, f"Mark it with the label {v}.", "which label it should be marked with"
            if slot == "ref":
                v = self._fresh(lambda: f"REF-{self.rng.randint(1000, 9999)}")
                return v, f"Quote our reference number {v} in it.", "which reference number to quote"
            if slot == "deadline":
                v = self._fresh(lambda: f"{self.rng.randint(2, 28)} {self.rng.choice(MONTHS)}")
                return v, f"State the deadline {v} in it.", "what the deadline is"
            if slot == "budget":
                cur = self.pd["amounts"][0].split()[0]
                v = self._fresh(lambda cur=cur: f"{cur} {self.rng.randint(2, 95) * 100:,}")
                return v, f"Keep the budget cap at {v} and say so.", "what budget cap applies"
            pool = self.pools[slot]
            while pool and self._clashes(pool[-1]):
                pool.pop()
            if not pool:
                continue
            v = pool.pop()
            self.used.add(v)
            says, question, _ = SLOTS[slot]
            return v, says.format(v=v), question
        raise RuntimeError("no slot left")

    # --- artifacts ---------------------------------------------------------------------------
    def artifact(self, kind: str, topic: str, idx: int) -> Artifact:
        name = self.pd["name"]
        title = f"{topic.title()} - {name.split()[0]}"
        body = f"{topic.capitalize()} summary for {name}."
        people = self.pd["people"]
        if kind == "note":
            return _note(title, body)
        if kind == "file":
            return _file(f"{topic.replace(' ', '_')}.md", f"# {topic.capitalize()}\n\n{body}")
        if kind == "todo":
            return _todo(f"{topic.capitalize()} {idx + 1:02d}", [f"Draft the {topic} plan", f"Review the {topic} plan"])
        if kind == "email":
            to = _email_of(people[idx % len(people)])
            return _email(to, f"{topic.capitalize()} update", body)
        if kind == "sms":
            who = people[idx % len(people)]
            return _sms(f"555020{idx:04d}", who, f"Hi {who.split()[-2] if who.startswith(('Dr', 'Partner')) else who.split()[0]}, quick note about the {topic}.")
        if kind == "event":
            day = 3 + idx
            return _event(f"{topic.capitalize()} session", f"2026-03-{day:02d}T10:00", f"2026-03-{day:02d}T11:00")
        if kind == "expense":
            members = [_email_of(p) for p in people[:3]]
            return _expense(f"{topic.capitalize()} costs", self.pd["email"], members)
        if kind == "shop":
            first = self.products.pop()
            self.used.add(first[1])
            return _shop(first, list(self.products))
        if kind == "music":
            first = self.songs.pop()
            self.used.add(first[1])
            return _music(first, list(self.songs))
        raise ValueError(kind)

    # --- sessions ----------------------------------------------------------------------------
    def build(self) -> Episode:
        pd = self.pd
        kinds = [KINDS[i % len(KINDS)] for i in range(len(SCHEDULE))]
        topics = [pd["topics"][i % len(pd["topics"])] for i in range(len(SCHEDULE))]
        sids = [f"{pd['id']}_s{i + 1:02d}" for i in range(len(SCHEDULE))]
        dep_index = {g: next(i for i, e in enumerate(SCHEDULE) if e == "d" + g) for g in "ABCDEF"}
        prefs: dict[str, list[tuple[str, str, str, str]]] = {g: [] for g in "ABCDEF"}  # value, says, question, prereq
        sessions: list[Session] = []
        for idx, entry in enumerate(SCHEDULE):
            kind, topic, sid = kinds[idx], topics[idx], sids[idx]
            art = self.artifact(kind, topic, idx)
            intents: list[tuple[str, str, str, str, str | None]] = []  # value, says, question, label, source
            extra = ""
            if entry.startswith("p"):
                g = entry[1]
                dk, dt = kinds[dep_index[g]], topics[dep_index[g]]
                v, says, q = self.intent_value(dk, dt)
                prefs[g].append((v, says, q, sid))
                extra = f" Also, for later: whenever we get to the {dt}, remember this: {says}"
                for _ in range(self.rng.choice((1, 2, 2))):
                    intents.append((*self.intent_value(kind, topic), "ask", None))
            else:
                if entry.startswith("d"):
                    for v, says, q, src in prefs[entry[1]]:
                        intents.append((v, f"As I told you before: {says}", q, "session", src))
                v, says, q = self.intent_value(kind, topic)
                f = WS_FILES[self.ws_turn % len(WS_FILES)]
                self.ws_turn += 1
                self.ws_lines[f].append((topic, says))
                intents.append((v, says, q, "workspace", f))
                n_ask = self.rng.choice((0, 1, 1)) if entry.startswith("d") else self.rng.choice((1, 2, 2))
                for _ in range(n_ask):
                    intents.append((*self.intent_value(kind, topic), "ask", None))
            sessions.append(self.session(sid, idx, entry, topic, art, intents, extra,
                                         [sids[i] for i, e in enumerate(SCHEDULE) if entry.startswith("d")
                                          and e == "p" + entry[1]]))
        self.refuse_blanket_orders(sessions)
        return Episode(persona=self.persona(), files=self.files(), seed=self.seed(), sessions=sessions)

    def refuse_blanket_orders(self, sessions: list[Session]) -> None:
        """An order check is met only by an order holding nothing the session did not ask for: with
        real tools offered, an agent that orders whatever ids it can guess (product 1, 2, 3...) would
        otherwise 'complete' an order intent by luck."""
        catalogue = {n for n, _, _ in PRODUCTS}
        for s in sessions:
            checks = [c.check for c in s.checklist if c.check] + [k for i in s.hidden_intents for k in i.satisfied_by]
            orders = [c for c in checks if c.kind == "record_contains" and c.collection == "orders"]
            wanted = {w for c in orders for w in c.all}
            for c in orders:
                c.none = sorted(catalogue - wanted)

    def session(self, sid: str, idx: int, entry: str, topic: str, art: Artifact, intents: list, extra: str,
                deps: list[str]) -> Session:
        his = []
        for n, (v, says, q, label, src) in enumerate(intents):
            his.append(HiddenIntent(
                id=f"I{n + 1}", content=says, recoverable_from=label, source=src, cue=v, question=q,
                satisfied_by=[art.has(v)], actions=art.add(v, n), reply=f"I also included {v}."))
        checklist: list[ChecklistItem] = []
        if not entry.startswith("p"):
            for k, (text, chk) in enumerate(art.base_checks):
                checklist.append(ChecklistItem(id=f"C{k + 1}", text=text, check=chk))
            for h in his:
                checklist.append(ChecklistItem(id=f"C{len(checklist) + 1}", text=f"The result carries '{h.cue}'.",
                                               check=art.has(h.cue or "")))
            checklist.append(ChecklistItem(
                id=f"C{len(checklist) + 1}", weight=0.5, text="The final reply tells the user what was done.",
                proxy=Check(kind="reply_contains", all=["done"])))
            if entry.startswith("d"):
                checklist.append(ChecklistItem(
                    id=f"C{len(checklist) + 1}", weight=0.5,
                    text="The result is consistent with what was agreed in the earlier sessions."))
        request = f"For the {topic}, please {art.label}.{extra}"
        return Session(id=sid, title=f"{topic} ({art.kind})", request=request, depends_on=deps, apps=art.apps,
                       hidden_intents=his, checklist=checklist, base_actions=art.base,
                       base_reply=f"Done: I did as asked ({art.kind}).")

    def persona(self) -> Persona:
        pd = self.pd
        pw = f"pw-{pd['id'][:3]}-{self.rng.randint(1000, 9999)}"
        accounts = {app: Account(email=pd["phone"] if app == "phone" else pd["email"], password=pw) for app in APPS_ALL}
        return Persona(id=pd["id"], name=pd["name"], profile=pd["profile"], accounts=accounts)

    def files(self) -> list[WorkspaceFile]:
        md = ["# My standing preferences", ""] + [f"- For the {t}: {s}" for t, s in self.ws_lines["preferences.md"]]
        rows = ["topic,instruction"] + [f"{t},\"{s}\"" for t, s in self.ws_lines["standing_instructions.csv"]]
        pdf = ["Team policies (internal)", ""] + [f"{t}: {s}" for t, s in self.ws_lines["policies.pdf"]]
        contacts = ["name,phone,email"] + [f"{p},555030{i:04d},{_email_of(p)}" for i, p in enumerate(self.pd["people"])]
        return [WorkspaceFile(path="preferences.md", text="\n".join(md) + "\n"),
                WorkspaceFile(path="standing_instructions.csv", text="\n".join(rows) + "\n"),
                WorkspaceFile(path="policies.pdf", pdf_lines=pdf),
                WorkspaceFile(path="contacts.csv", text="\n".join(contacts) + "\n")]

    def seed(self) -> dict[str, list[dict]]:
        songs = [{"song_id": i + 1, "title": t, "artist": a, "genre": g} for i, (t, a, g) in enumerate(SONGS)]
        products = [{"product_id": product_id(i), "name": n, "product_type": ty, "price": pr}
                    for i, (n, ty, pr) in enumerate(PRODUCTS)]
        return {"songs": songs, "products": products}


def build_dataset(seed: int = 7) -> Dataset:
    return Dataset(episodes=[EpisodeBuilder(pd, seed * 1000 + i).build() for i, pd in enumerate(PERSONAS)])
