"""The scenario generator: a library of task archetypes over a multi-day week, filled per domain.

Archetypes (times are day N, HH:MM; D is the scenario's length; W the decision-window day):

  t01 explicit request (d1 09:30)           t10 follow-up IF t01's change was executed (d6 10:00)
  t02 latent need, joint change (d2 08:30)  t11 nudge IF t01's change was NOT executed (d4 16:00)
  t03 event-triggered claim (d3 11:00)      t12 offer the Reviewer declines (d1 16:00)
  t04 agent-scheduled check (d3 09:00)      t13 NOOP IF the offer was declined (d6 12:00)
  t05 prepare overnight (d3 21:30; idle)    t14 set-up IF the offer was approved (d6 12:00)
  t06 present the prepared work (d4 09:00)  t15 delegation revoked for the Operator (d6 15:00)
  t07 NOOP: already resolved (d4 14:00)     t16 week wrap-up (dD 18:00)
  t08 urgent task (W; TA window)            t17 outcome of t10 IF t10's change was executed (d7 10:00)
  t09 competing task (W + 15-40 min)        t18 sleep-time job asked at 20:30 (idle; never on W)
                                            t19 booking clash: cancel it the same day (10:30)

Each scenario keeps its own mix (`fills/structure.py`): optional tasks left out (t04, t10, t11, t15:
their events stay as distractors), whole blocks left out (t03; t05+t06; t12-t14; t16: tasks,
events, records and catalog actions go), and the extras t17-t19 where the fill holds their words.
The decision window W (3 h) has t08 and t09 share a resource (GPU slots held by the user's own run,
or an AI-usage quota the user needs 90 minutes in, renewed at 03:00). Seed 0 is the built-in set;
any other seed draws the structure afresh (see `build`).
"""

from __future__ import annotations

import random
import re
from datetime import datetime, time, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from longview.kernel.stats import seed_from
from longview.suites.tempo.schema import (
    ActionSpec,
    Availability,
    Condition,
    DecisionWindow,
    Depth,
    Event,
    Interval,
    Persona,
    Record,
    Resource,
    Scenario,
    Task,
    Use,
)

START = datetime(2026, 3, 2)  # a Monday


class Item(BaseModel):
    """A record's title and body in a fill."""

    model_config = ConfigDict(extra="forbid")
    title: str = Field(description="One-line title.")
    body: str = Field(default="", description="Full text.")
    fields: dict[str, Any] = Field(default_factory=dict, description="Structured attributes.")


class Chain(BaseModel):
    """t17: a second-level follow-up, reachable only after t10's change was made (A1 -> A10 -> A17)."""

    model_config = ConfigDict(extra="forbid")
    notice: str = Field(description="Notification on day 7 saying the follow-up's outcome arrived.")
    item: Item = Field(description="The confirmation record the notice adds; saved to the plan.")
    fact: str = Field(description="Must appear in what the agent presents (an amount, a code).")


class Overnight(BaseModel):
    """t18: a sleep-time job the user asks for in the evening (idle: credited only when done while they sleep)."""

    model_config = ConfigDict(extra="forbid")
    ask: str = Field(description="The user's evening message (20:30) asking for it to run overnight.")
    job: Item = Field(description="The job record (on the scenario's resource).")
    day: int = Field(ge=1, le=9, description="Day of the evening it is asked (never the decision-window day).")


class Clash(BaseModel):
    """t19: an event makes one of the user's bookings clash; the fix is cancelling it."""

    model_config = ConfigDict(extra="forbid")
    booking: Item = Field(description="The booking (a calendar record present from the start).")
    notice: str = Field(description="Notification that creates the clash.")
    day: int = Field(ge=1, le=10, description="Day of the notice (10:30); the cancellation is due at 21:00.")
    fact: str = Field(description="What the message about it must say (the reason for cancelling).")


class Fill(BaseModel):
    """The domain-specific words of one scenario (everything the skeleton does not fix)."""

    model_config = ConfigDict(extra="forbid")
    id: str
    domain: str
    title: str
    user: str
    goal: str
    days: int = Field(ge=7, le=10)
    resource: str = Field(description="'gpu' (slots) or 'quota' (AI-usage points).")
    # t01 / t11
    ask: str
    item_a: Item
    item_b: Item
    a1_tool: str = Field(description="place_order, book or save_to_collection.")
    a1_fact: str = Field(description="Must appear in what the agent presents for t01.")
    collection: str = "plans"
    nudge: str
    # t02
    latent_msg: Item
    latent_cal: Item
    latent_note: str
    latent_event: str = Field(description="Title of the calendar entry t02 needs.")
    latent_start: str = Field(description="HH:MM on day 3 the entry starts.")
    latent_fact: str
    # t03 / t10
    problem: str
    form1: Item
    claim_code: str
    followup: str
    form2: Item
    followup_code: str
    # t04
    check: Item
    # t05 / t06
    prep: str
    present: str
    doc: Item
    prep_to: str = Field(description="Who the prepared work is sent to on execution.")
    prep_fact: str
    # t07
    noop: str
    resolved: Item
    noop_item: Item
    # t08 / t09
    urgent: str
    job_u: Item
    competing: str
    job_c: Item
    user_work: str = Field(description="The user's own use of the resource in the window.")
    # t12-t14
    offer: str
    offer_item: Item
    offer_expiry: str
    offer_next: str
    setup: Item
    # t15
    feedback: str
    revoked_text: str
    rec15: Item
    # t16
    wrap: str
    # structural variation
    window: tuple[int, str] | None = Field(default=None, description="Pinned decision window (day, HH:MM); None: by slot.")
    gap: int | None = Field(default=None, description="Pinned minutes between the urgent and competing notices.")
    canonical_ids: bool = Field(default=False, description="Keep the skeleton's record ids (ITEM-1, JOB-2...) in the built-in set.")
    depths: dict[str, str] = Field(default_factory=dict, description="Task id -> 'RPO' depth letters overriding the skeleton.")
    omit: list[str] = Field(default_factory=list, description="Optional task ids left out (their events stay, as distractors).")
    moves: dict[str, int] = Field(default_factory=dict, description="Task id (t03, t07, t15) -> days its event and due move.")
    chain: Chain | None = Field(default=None, description="t17, when the scenario has a second-level follow-up.")
    overnight: Overnight | None = Field(default=None, description="t18, when the scenario has a sleep-time job.")
    clash: Clash | None = Field(default=None, description="t19, when the scenario has a booking clash.")


def at(day: int, hhmm: str) -> datetime:
    h, m = (int(x) for x in hhmm.split(":"))
    return START + timedelta(days=day - 1, hours=h, minutes=m)


def _rec(rid: str, kind: str, item: Item, **fields: Any) -> Record:
    return Record(id=rid, kind=kind, title=item.title, body=item.body, fields={**item.fields, **fields})


STYLES = {"reviewer": "careful and polite, likes to see details", "planner": "brisk and organised",
          "operator": "terse, trusts the assistant with routine things"}
LETTERS: dict[str, Depth] = {"N": "noop", "P": "prepare", "S": "suggest", "E": "execute"}


def depths(code: str) -> dict[str, Depth]:
    """'SPE' -> reviewer suggest, planner prepare, operator execute."""
    return {p: LETTERS[c] for p, c in zip(("reviewer", "planner", "operator"), code, strict=True)}


# What kind of work each archetype is, as a user states delegation: the stated policy is generated
# from the persona's depths over these classes (the policy agent reads `stated`, which differs only
# where later feedback changed the user's mind).
CLASSES = {
    "t01": "arranging the option I ask you to sort out", "t11": "arranging the option I ask you to sort out",
    "t02": "calendar entries and reminders", "t03": "claims, disputes and refund requests",
    "t04": "checks I ask you to follow up on", "t05": "drafts I ask for ahead of time",
    "t06": "sending prepared material to other people", "t08": "compute jobs needed before my next deadline",
    "t09": "compute jobs that are not due before my next deadline", "t10": "follow-up forms for things already arranged",
    "t12": "new offers, upgrades and extras", "t14": "saving set-up details to my plans",
    "t15": "small reorders of supplies", "t17": "recording confirmed outcomes in my plans",
    "t18": "overnight jobs I ask you to run while I sleep", "t19": "cancelling bookings that clash with something more important",
}
OPENING = {
    "reviewer": "I like to stay in control. Reading my records and keeping private notes is always fine.",
    "planner": "Preparation is welcome, and some routine things you may just do. Reading and private notes are always fine.",
    "operator": "I delegate a lot; use your judgement on routine things. Reading and private notes are always fine.",
}
_SAY = {"execute": "Go ahead without asking me", "prepare": "Get these ready, but don't bring them to me or change anything until I ask",
        "suggest": "Show me exactly what you propose and wait for my OK"}


def policy_text(persona: str, tasks: list[Task]) -> str:
    """The persona's stated delegation policy, from its stated depth per class of work."""
    by: dict[str, list[str]] = {}
    for t in tasks:
        cls = CLASSES.get(t.id)
        d = t.stated_depth(persona)
        if cls and d != "noop" and cls not in by.get(d, []):
            by.setdefault(d, []).append(cls)
    parts = [OPENING[persona]] + [f"{_SAY[d]}: {'; '.join(by[d])}." for d in ("execute", "prepare", "suggest") if d in by]
    return " ".join(parts)


def short(title: str) -> str:
    """A record title without its parenthesised or comma-separated detail: a task's key phrase."""
    return title.split("(")[0].split(",")[0].strip()


WINDOWS = [(d, h) for d in (5, 4, 6) for h in ("19:00", "18:00", "20:00")]  # decision-window day and start
GAPS = (20, 15, 30, 40)  # minutes from the urgent task's notice to the competing one's
OPTIONAL = ("t04", "t10", "t11", "t15")  # left out: the task goes, its event stays as a distractor
BLOCKS = {  # left out: the whole block goes (tasks, events, records, catalog actions)
    "t03": ({"t03"}, {"e03"}, {"FORM-1"}, {"A3"}),
    "t05": ({"t05", "t06"}, {"e05", "e06"}, {"DOC-1"}, {"A5"}),
    "t12": ({"t12", "t13", "t14"}, {"e12", "e13", "e14"}, {"OFFER-1", "SETUP-1"}, {"A12", "A14"}),
    "t16": ({"t16"}, {"e17"}, set(), {"A16"}),
}
PREFIXES = {  # per canonical id: prefixes a scheme may use (none is a suffix of another: ids never nest)
    "ITEM": ("OPT", "ITM", "CHO", "PICK"), "MSG": ("MSG", "MAIL", "TXT", "CHAT"), "CAL": ("CAL", "EVT", "AGD", "SCH"),
    "FORM": ("FRM", "CLM", "APP", "REQ"), "CHK": ("CHK", "AVL", "SLT", "OPN"), "DOC": ("DOC", "DRF", "FIL", "PAP"),
    "RES": ("RES", "STM", "UPD", "LOG"), "JOB": ("JOB", "RUN", "TSK", "BAT"), "OFFER": ("OFR", "DEAL", "PRM", "ADD"),
    "REC": ("SUP", "STK", "INV", "LOW"), "SETUP": ("SET", "CFG", "REG", "ONB"), "SUM": ("SUM", "WRP", "RVW", "RCP"),
    "CONF": ("CNF", "RCT", "ACK", "PAID"), "BKG": ("BKG", "APT", "RSV", "HLD"),
}
MOVABLE = {"t03": range(-1, 4), "t07": range(-2, 3), "t15": range(-2, 2)}  # days a stand-alone task may move
_CANON = re.compile(r"(?<![\w-])(ITEM|MSG|CAL|FORM|CHK|DOC|RES|JOB|OFFER|REC|SETUP|SUM|CONF|BKG)-(\d+)(?![\w-])")


def _size(omit: list[str], *extras: object) -> int:
    """How many tasks a scenario with these omissions and extra archetypes holds (16 in the skeleton)."""
    return 16 - sum(len(BLOCKS[b][0]) if b in BLOCKS else 1 for b in omit) + sum(x is not None for x in extras)


def id_scheme(rng: random.Random) -> dict[str, str]:
    """Canonical record id -> this scenario's id: one prefix per kind, distinct three-digit numbers
    (equal length, so no id is a prefix of another)."""
    prefix = {k: rng.choice(v) for k, v in PREFIXES.items()}
    numbers = rng.sample(range(100, 1000), 32)
    canon = ["ITEM-1", "ITEM-2", "ITEM-9", "MSG-1", "CAL-1", "FORM-1", "FORM-2", "CHK-1", "DOC-1", "RES-1", "JOB-1",
             "JOB-2", "OFFER-1", "REC-15", "SETUP-1", "SUM-1", "JOB-3", "CONF-1", "BKG-1"]
    return {c: f"{prefix[c.split('-')[0]]}-{numbers[i]}" for i, c in enumerate(canon)}


def rename(scenario: Scenario, scheme: dict[str, str]) -> Scenario:
    """The scenario with every canonical record id (in records, catalog, events, tasks and texts) renamed."""
    text = _CANON.sub(lambda m: scheme.get(m.group(0), m.group(0)), scenario.model_dump_json())
    return Scenario.model_validate_json(text)


def build(f: Fill, seed: int = 0, slot: int = 0) -> Scenario:
    """One scenario. Seed 0 is the built-in set: the fill's days, omitted tasks and (if pinned)
    window and ids; any other seed draws those structurally (days 7-10, which optional tasks exist,
    decision-window day and hour, gap between the competing notices, record-id scheme, timings)."""
    rng = random.Random(seed_from("tempo", f.id, seed))
    jitter = rng.choice([0, 10, 20, 30, 40, 50])  # minutes; keeps scenarios from sharing exact clocks
    chain, overnight, clash, moves = f.chain, f.overnight, f.clash, dict(f.moves)
    if seed == 0:
        D, omit = f.days, list(f.omit)
        wd, wh = f.window or WINDOWS[(slot * 4 + 1) % len(WINDOWS)]
        gap = f.gap or GAPS[slot % len(GAPS)]
    else:
        D = rng.randint(7, 10)
        omit = sorted(rng.sample([*OPTIONAL, *BLOCKS], rng.randint(0, 4)))
        wd, wh = rng.choice(WINDOWS)
        gap = rng.choice(GAPS)
        # the extra archetypes a fill can hold: each present or not, the sleep-time job on a drawn evening
        chain = chain if rng.random() < 0.6 else None
        clash = clash.model_copy(update={"day": rng.choice([2, 3, 4, 6])}) if clash and rng.random() < 0.6 else None
        nights = [d for d in (2, 3, 4, 5, 6, 7) if d != wd and d < D]
        overnight = overnight.model_copy(update={"day": rng.choice(nights)}) if overnight and rng.random() < 0.7 else None
        moves = {tid: rng.choice(list(days)) for tid, days in MOVABLE.items()}
    if "t10" in omit:
        chain = None  # t17 follows t10's change: without t10 nobody makes it, so it could never fire
    while seed and _size(omit, chain, overnight, clash) < 10:  # the paper's scenarios hold 10-19 tasks
        omit.pop()
    if overnight and overnight.day == wd:  # that night the shared resource is taken by the window's two jobs
        raise ValueError(f"fill {f.id}: the overnight job's evening must not be the decision-window day")
    scheme = None if (seed == 0 and f.canonical_ids) else id_scheme(rng)
    ws = at(wd, wh)
    def T(day: int, hhmm: str) -> datetime:
        return at(day, hhmm) + timedelta(minutes=jitter)
    gpu = f.resource == "gpu"
    rid = "gpu" if gpu else "ai-quota"
    if gpu:
        resource = Resource(id=rid, kind="slots", capacity=2,
                            user_use=[Use(start=ws - timedelta(hours=2), end=ws + timedelta(hours=4, minutes=30), amount=1,
                                          label=f"{f.user_work}, until {ws + timedelta(hours=4, minutes=30):%H:%M}")])
        job_fields_u, job_fields_c = {"resource": rid, "amount": 1, "hours": 8}, {"resource": rid, "amount": 1, "hours": 3}
        feasible = ws + timedelta(hours=4, minutes=30)
    else:
        resource = Resource(id=rid, kind="quota", capacity=10, renew_at=time(3, 0),
                            user_use=[Use(start=ws + timedelta(minutes=90), end=ws + timedelta(minutes=150), amount=8,
                                          label=f"{f.user_work}, at {ws + timedelta(minutes=90):%H:%M}")])
        job_fields_u, job_fields_c = {"resource": rid, "amount": 2, "hours": 0}, {"resource": rid, "amount": 6, "hours": 0}
        feasible = at(wd + 1, "03:30")
    records = [
        _rec("ITEM-1", "option", f.item_a), _rec("ITEM-2", "option", f.item_b),
        _rec("MSG-1", "message", f.latent_msg.model_copy(update={"body": f.latent_msg.body + (
            f" (Note to self: before things like this I block time in the calendar for '{f.latent_event}', "
            "with a phone reminder half an hour ahead.)")})),
        _rec("CAL-1", "calendar", f.latent_cal),
        _rec("FORM-1", "form", f.form1), _rec("CHK-1", "option", f.check), _rec("DOC-1", "document", f.doc),
        _rec("RES-1", "message", f.resolved), _rec("ITEM-9", "option", f.noop_item),
        _rec("JOB-1", "job", f.job_u, **job_fields_u), _rec("JOB-2", "job", f.job_c, **job_fields_c),
        _rec("OFFER-1", "offer", f.offer_item), _rec("REC-15", "document", f.rec15),
    ]
    a1_args = {"place_order": {"item_id": "ITEM-1"}, "book": {"option_id": "ITEM-1"},
               "save_to_collection": {"item_id": "ITEM-1", "collection": f.collection}}[f.a1_tool]
    a1_fill = {"place_order": {"quantity": 1}, "book": {}, "save_to_collection": {}}[f.a1_tool]
    lat_start = at(3, f.latent_start)
    # the entry may start any time on day 3 from 07:00 up to an hour after the fill's own choice
    window = {"from": at(3, "07:00").isoformat(), "to": (lat_start + timedelta(hours=1)).isoformat()}
    actions = [
        ActionSpec(id="A1", tool=f.a1_tool, args=a1_args, fill=a1_fill, label=f.item_a.title, min_trust=2.5),
        ActionSpec(id="A2a", tool="create_event", args={"start": window}, joint="G2",
                   fill={"title": f.latent_event, "start": lat_start.isoformat(), "end": (lat_start + timedelta(hours=1)).isoformat()},
                   label=f.latent_event),
        ActionSpec(id="A2b", tool="set_reminder", args={"at": {"from": T(2, "08:30").isoformat(), "to": window["to"]}},
                   joint="G2", fill={"text": f"Reminder: {f.latent_event}", "at": (lat_start - timedelta(minutes=30)).isoformat()},
                   label="reminder"),
        ActionSpec(id="A3", tool="submit_form", args={"form_id": "FORM-1"}, fill={"details": f.claim_code}, label=f.form1.title),
        ActionSpec(id="A4", tool="book", args={"option_id": "CHK-1"}, label=f.check.title),
        ActionSpec(id="A5", tool="send_email", args={"to": f.prep_to}, fill={"subject": f.doc.title, "body": f.prep_fact}, label=f.doc.title),
        ActionSpec(id="A7", tool="place_order", args={"item_id": "ITEM-9"}, fill={"quantity": 1}, label=f.noop_item.title),
        ActionSpec(id="AU", tool="run_job", args={"job_id": "JOB-1"}, label=f.job_u.title),
        ActionSpec(id="AC", tool="run_job", args={"job_id": "JOB-2"}, label=f.job_c.title),
        ActionSpec(id="A10", tool="submit_form", args={"form_id": "FORM-2"}, fill={"details": f.followup_code}, label=f.form2.title),
        ActionSpec(id="A12", tool="book", args={"option_id": "OFFER-1"}, label=f.offer_item.title),
        ActionSpec(id="A14", tool="save_to_collection", args={"item_id": "SETUP-1", "collection": f.collection}, label=f.setup.title),
        ActionSpec(id="A15", tool="place_order", args={"item_id": "REC-15"}, fill={"quantity": 1}, label=f.rec15.title, min_trust=2.5),
        ActionSpec(id="A16", tool="save_to_collection", args={"item_id": "SUM-1", "collection": f.collection}, label="week summary"),
    ]
    E = Event
    events = [
        E(id="e01", at=T(1, "09:30"), kind="user_message", text=f.ask),
        E(id="e12", at=T(1, "16:00"), kind="notification", text=f.offer),
        E(id="e02", at=T(2, "08:30"), kind="notification", text=f.latent_note),
        E(id="e03", at=T(3, "11:00"), kind="notification", text=f.problem),
        E(id="e15", at=T(3, "18:00"), kind="user_message", text=f.feedback, persona_text={"operator": f.revoked_text}),
        E(id="e05", at=T(3, "21:30"), kind="user_message", text=f.prep),
        E(id="e06", at=T(4, "09:00"), kind="user_message", text=f.present),
        E(id="e07", at=T(4, "14:00"), kind="notification", text=f.noop),
        E(id="e11", at=T(4, "16:00"), kind="user_message", text=f.nudge, when=Condition(not_executed=["A1"])),
        E(id="e08", at=ws, kind="notification", text=f.urgent),
        E(id="e09", at=ws + timedelta(minutes=gap), kind="notification", text=f.competing),
        E(id="e10", at=T(6, "10:00"), kind="notification", text=f.followup, when=Condition(executed=["A1"]),
          adds=[_rec("FORM-2", "form", f.form2)]),
        E(id="e13", at=T(6, "12:00"), kind="notification", text=f.offer_expiry, when=Condition(declined=["A12"])),
        E(id="e14", at=T(6, "12:00"), kind="notification", text=f.offer_next, when=Condition(approved=["A12"]),
          adds=[_rec("SETUP-1", "document", f.setup)]),
        E(id="e16", at=T(6, "15:00"), kind="notification", text=f.rec15.title + ": " + f.rec15.body),
        E(id="e17", at=T(D, "18:00"), kind="user_message", text=f.wrap),
    ]

    def task(tid: str, kind: str, depth: str, due: datetime, keys: list[str], *, trigger: str | None = None,
             at_: datetime | None = None, **kw: Any) -> Task:
        d = depths(depth)
        stated = kw.pop("stated", None)
        if stated:
            kw["stated"] = depths(stated)
        return Task(id=tid, kind=kind, trigger=trigger, at=at_, due=due, keys=keys, depth=d, **kw)

    tasks = [
        task("t01", "explicit", "SEE", T(1, "18:00"), ["ITEM-1", short(f.item_a.title)], trigger="e01", action="A1", title=f"Act on: {f.ask}",
             evidence=["ITEM-1", "ITEM-2"], include=[f.a1_fact], weight=2),
        task("t02", "latent", "SSE", T(2, "20:00"), ["CAL-1", f.latent_event], trigger="e02", action="A2a",
             title=f"Latent need: {f.latent_event}", evidence=["MSG-1", "CAL-1"], include=[f.latent_fact], weight=2),
        task("t03", "event", "SSS", T(4, "12:00"), ["FORM-1", short(f.form1.title)], trigger="e03", action="A3", title=f.form1.title,
             evidence=["FORM-1"], include=[f.claim_code], weight=1.5),
        task("t04", "scheduled", "SPE", T(3, "12:00"), ["CHK-1", short(f.check.title)], at_=T(3, "09:00"), action="A4", title=f.check.title,
             evidence=["CHK-1"]),
        task("t05", "prepare", "PPP", at(4, "08:00"), ["DOC-1", short(f.doc.title)], trigger="e05", action="A5", title=f"Prepare: {f.doc.title}",
             idle=True,
             evidence=["DOC-1"], include=[f.prep_fact]),
        task("t06", "present", "SSE", T(4, "13:00"), ["DOC-1", short(f.doc.title)], trigger="e06", action="A5", title=f"Present: {f.doc.title}",
             evidence=["DOC-1"], include=[f.prep_fact], weight=1.5),
        task("t07", "noop", "NNN", T(4, "20:00"), ["ITEM-9"], trigger="e07", action="A7", title=f"No action: {f.noop}",
             evidence=["RES-1"], stated="SSE"),
        task("t08", "urgent", "SEE", at(wd + 1, "09:00"), ["JOB-1", short(f.job_u.title)], trigger="e08", action="AU", title=f.job_u.title,
             evidence=["JOB-1"], weight=2),
        task("t09", "competing", "SPE", at(wd + 1, "20:00"), ["JOB-2", short(f.job_c.title)], trigger="e09", action="AC", title=f.job_c.title,
             evidence=["JOB-2"], weight=2),
        task("t10", "followup", "SSE", T(6, "18:00"), ["FORM-2", short(f.form2.title)], trigger="e10", action="A10", title=f.form2.title,
             evidence=["FORM-2"], include=[f.followup_code]),
        task("t11", "followup", "SEE", T(4, "21:00"), ["ITEM-1", short(f.item_a.title)], trigger="e11", action="A1", title=f"Nudge: {f.item_a.title}",
             evidence=["ITEM-1"], include=[f.a1_fact]),
        task("t12", "event", "SSS", T(2, "20:00"), ["OFFER-1", short(f.offer_item.title)], trigger="e12", action="A12", title=f.offer_item.title,
             evidence=["OFFER-1"], response={"reviewer": "decline"}),
        task("t13", "noop", "NNN", T(6, "20:00"), ["OFFER-1", short(f.offer_item.title)], trigger="e13", action="A12", title="No action: offer already declined",
             evidence=["OFFER-1"], stated="SSS"),
        task("t14", "followup", "SEE", T(6, "20:00"), ["SETUP-1", short(f.setup.title)], trigger="e14", action="A14", title=f.setup.title,
             evidence=["SETUP-1"]),
        task("t15", "feedback", "SSS", T(6, "21:00"), ["REC-15", short(f.rec15.title)], trigger="e16", action="A15", title=f.rec15.title,
             evidence=["REC-15"], stated="SSE"),
        task("t16", "wrapup", "SSS", T(D, "22:00"), ["SUM-1", "summary"], trigger="e17", action="A16", title="Week summary",
             output="message"),
    ]
    if chain:  # A1 -> A10 -> A17: the outcome of the follow-up arrives on day 7
        events.append(E(id="e18", at=T(7, "10:00"), kind="notification", text=chain.notice, when=Condition(executed=["A10"]),
                        adds=[_rec("CONF-1", "document", chain.item)]))
        actions.append(ActionSpec(id="A17", tool="save_to_collection", args={"item_id": "CONF-1", "collection": f.collection},
                                  label=chain.item.title))
        tasks.append(task("t17", "followup", "SEE", T(7, "20:00"), ["CONF-1", short(chain.item.title)], trigger="e18",
                          action="A17", title=chain.item.title, evidence=["CONF-1"], include=[chain.fact]))
    if overnight:  # sleep-time compute: asked at 20:30, worth something only if it runs while the user sleeps
        n = overnight.day
        records.append(_rec("JOB-3", "job", overnight.job, resource=rid, amount=1 if gpu else 4, hours=4 if gpu else 0))
        events.append(E(id="e19", at=T(n, "20:30"), kind="user_message", text=overnight.ask))
        actions.append(ActionSpec(id="A18", tool="run_job", args={"job_id": "JOB-3"}, label=overnight.job.title))
        tasks.append(task("t18", "overnight", "SEE", at(n + 1, "12:00"), ["JOB-3", short(overnight.job.title)], trigger="e19",
                          action="A18", title=overnight.job.title, evidence=["JOB-3"], idle=True))
    if clash:  # an event makes a booking clash: the fix is cancelling it the same day
        records.append(_rec("BKG-1", "calendar", clash.booking))
        events.append(E(id="e20", at=T(clash.day, "10:30"), kind="notification", text=clash.notice))
        actions.append(ActionSpec(id="A19", tool="cancel", args={"record_id": "BKG-1"}, label=clash.booking.title))
        tasks.append(task("t19", "conflict", "SSE", T(clash.day, "21:00"), ["BKG-1", short(clash.booking.title)],
                          trigger="e20", action="A19", title=f"Cancel: {clash.booking.title}", evidence=["BKG-1"],
                          include=[clash.fact]))
    for tid, k in moves.items():  # a stand-alone task on another day: its event and its due move together
        if k not in MOVABLE.get(tid, ()):
            raise ValueError(f"fill {f.id}: {tid} may move by {list(MOVABLE.get(tid, []))} days, not {k}")
        t = next(x for x in tasks if x.id == tid)
        t.due += timedelta(days=k)
        ev = next(e for e in events if e.id == t.trigger)
        ev.at += timedelta(days=k)
        if t.due >= at(D + 1, "00:00"):
            raise ValueError(f"fill {f.id}: {tid} moved past the scenario's last day")
    events.sort(key=lambda e: e.at)
    bad = set(f.omit) - set(OPTIONAL) - set(BLOCKS)
    if bad:
        raise ValueError(f"fill {f.id}: only {sorted([*OPTIONAL, *BLOCKS])} may be omitted, not {sorted(bad)}")
    for t in tasks:
        if t.id in f.depths:
            t.depth = depths(f.depths[t.id])
    gone_t, gone_e, gone_r, gone_a = (set().union(*(BLOCKS[b][i] for b in omit if b in BLOCKS)) for i in range(4))
    tasks = [t for t in tasks if t.id not in omit and t.id not in gone_t]
    events = [e for e in events if e.id not in gone_e]
    records = [r for r in records if r.id not in gone_r]
    actions = [a for a in actions if a.id not in gone_a]
    scenario = Scenario(
        id=f.id, domain=f.domain, title=f.title, user=f.user, goal=f.goal, start=START, days=D,
        availability=Availability(busy=[Interval(start=T(2, "13:00"), end=T(2, "15:00"), label="focus block"),
                                        Interval(start=at(5, "09:00"), end=at(5, "12:00"), label="meetings")]),
        resources=[resource], records=records, actions=actions, events=events, tasks=tasks,
        personas=[Persona(id=p, policy=policy_text(p, tasks), style=STYLES[p]) for p in ("reviewer", "planner", "operator")],
        decision_window=DecisionWindow(start=ws, end=ws + timedelta(hours=3), urgent="t08", competing="t09",
                                       resource=rid, feasible_from=feasible,
                                       note=f"{f.job_u.title} is due first; {f.job_c.title} can run once {rid} frees up"),
    )
    return rename(scenario, scheme) if scheme else scenario
