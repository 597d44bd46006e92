"""Task scenes: what each session asks for, the world records it needs, and its task kit.

A scene targets one (context, attribute) cell and makes the attribute's choice necessary to finish
the task, while every setting remains a reasonable way to do it (the request is preference-neutral).
The *kit* is the task's solution — records, the answer, the parts a reply may contain, the calls
that do the work — and never the target setting: the reference agents read it to solve the task,
the checks read it to know what a reply refers to, the wrapper never sees it.
"""

from __future__ import annotations

import random
from typing import Any, Literal

from pydantic import Field

from longview.suites.prefs.model import Context, IsoDate, Strict
from longview.suites.prefs.world import Record

SceneKind = Literal["accumulation", "change", "probe_final", "probe_pre"]
Role = Literal["read", "task", "internal", "external", "extra", "blocked", "recovery"]


class Supplement(Strict):
    category: Literal["background", "caveat", "boundary", "consequence", "alternative"] = Field(
        description="Kind of supporting move.")
    text: str = Field(description="The supporting sentence.")


class Question(Strict):
    slot: str = Field(description="The withheld required fact.")
    text: str = Field(description="How the PA would ask for it.")
    answer: str = Field(description="What the user answers when asked.")


class PlannedCall(Strict):
    name: str = Field(description="World tool.")
    args: dict = Field(default_factory=dict, description="Arguments.")
    role: Role = Field(default="task", description="What the call is for in this task.")
    topic: str | None = Field(default=None, description="Which requested topic it serves.")


class Kit(Strict):
    """The task's solution (never the target setting)."""

    answer: str = Field(description="The task result in one sentence.")
    basis: str = Field(default="", description="Why the answer holds.")
    supplements: list[Supplement] = Field(default_factory=list, description="Supporting moves.")
    confidence: Literal["low", "medium", "high"] | None = Field(default=None, description="Confidence the facts support.")
    empathy: str = Field(default="", description="An acknowledgement of the user's situation.")
    term: str = Field(default="", description="A term the user may not know.")
    term_note: str = Field(default="", description="What the term means.")
    steps: list[str] = Field(default_factory=list, description="Ordered steps.")
    options: list[str] = Field(default_factory=list, description="Distinct viable options, recommended first.")
    questions: list[Question] = Field(default_factory=list, description="Withheld required facts.")
    calls: list[PlannedCall] = Field(default_factory=list, description="Calls that do the work, in order.")
    infer_calls: list[PlannedCall] = Field(default_factory=list, description="Work done on defaults without asking.")
    topics: list[str] = Field(default_factory=list, description="Topics the request raises, in order.")
    topic_texts: dict[str, str] = Field(default_factory=dict, description="Per-topic report sentence.")
    handoff: str = Field(default="", description="What is blocked and what the user must do next.")
    notify: str = Field(default="", description="The outreach message about the event.")
    extra_note: str = Field(default="", description="Label for the extra work.")
    named_ids: list[str] = Field(default_factory=list, description="Record ids the request names.")
    event: Record | None = Field(default=None, description="Record that appears during the session (outreach trigger).")


class Scene(Strict):
    """One session's task."""

    sid: str = Field(description="Session id.")
    user: str = Field(description="User id.")
    context: Literal["work", "personal"] = Field(description="Context.")
    attribute: str = Field(description="The attribute whose choice the task makes necessary.")
    kind: Literal["accumulation", "change", "probe_final", "probe_pre"] = Field(description="Session kind.")
    day: IsoDate = Field(description="ISO date.")
    request: str = Field(description="The opening message (a user request, or an event notice for outreach).")
    opening: Literal["user", "event"] = Field(default="user", description="Who opens the session.")
    noun: str = Field(default="", description="Everyday name of the task, used by the user's reactions.")
    kit: Kit = Field(description="The task's solution.")
    records: list[Record] = Field(default_factory=list, description="Records the scene adds to the world.")


# ------------------------------------------------------------------------------------------
# Entity pools (fictional)
POOLS: dict[str, dict[str, list[Any]]] = {
    "work": {
        "people": [("Priya Raman", "project lead"), ("Tomas Berg", "finance partner"), ("Ada Okoye", "client manager"),
                   ("Marcus Lee", "team member"), ("Helen Park", "director"), ("Jonah Reyes", "vendor contact")],
        "events": ["budget review", "client check-in", "sprint planning", "board prep session", "vendor onboarding",
                   "quarterly forecast meeting", "hiring panel", "design critique", "release go/no-go"],
        "places": [("Lantern Room", "meeting venue"), ("Copper Kettle", "cafe"), ("Harbour Grill", "restaurant"),
                   ("Northside Hub", "coworking space"), ("Olive & Thyme", "restaurant"), ("The Atrium", "event hall")],
        "products": ["printer toner", "whiteboard markers", "HDMI adapters", "notebooks", "desk lamps", "headsets"],
        "files": ["forecast draft", "onboarding checklist", "vendor notes", "launch plan", "meeting minutes"],
        "howto": [("submit the travel expense claim", "cost centre code", "the budget line your team charges costs to",
                   ["Open the expense form", "Enter the cost centre code", "Attach the receipts", "Send it to finance"]),
                  ("request a purchase order", "PO threshold", "the amount above which a purchase needs approval",
                   ["Check the amount against the PO threshold", "Fill in the request", "Get sign-off", "Submit it"]),
                  ("book the shared room", "resource calendar", "the calendar that holds rooms rather than people",
                   ["Open the resource calendar", "Pick a free slot", "Add the room to the invite"]),
                  ("set up the data export", "CSV delimiter", "the character that separates columns in the file",
                   ["Open the export settings", "Choose the CSV delimiter", "Run the export", "Check the file"])],
        "moods": ["This week has been brutal. ", "I'm swamped and a bit frazzled. ", "Honestly, I'm stressed about this one. "],
    },
    "personal": {
        "people": [("Sam Whitlow", "sister"), ("Leo Marsh", "neighbour"), ("Nina Cole", "friend"),
                   ("Ruth Ames", "mother"), ("Dev Patel", "climbing partner"), ("Kit Moreno", "cousin")],
        "events": ["dentist appointment", "yoga class", "car service", "book club", "parents' anniversary dinner",
                   "vet visit", "piano lesson", "boiler inspection", "school concert"],
        "places": [("Juniper Bistro", "restaurant"), ("Sunny Side Bakery", "bakery"), ("Riverside Trattoria", "restaurant"),
                   ("Pine Hollow Spa", "spa"), ("Green Fork", "restaurant"), ("Maple Hall", "venue")],
        "products": ["coffee beans", "dog food", "running socks", "printer paper", "light bulbs", "plant food"],
        "files": ["packing list", "home budget", "gift ideas", "renovation notes", "recipe collection"],
        "howto": [("descale the espresso machine", "descaling cycle", "a rinse that dissolves mineral build-up",
                   ["Empty the water tank", "Add the descaler", "Start the descaling cycle", "Rinse twice"]),
                  ("set up the new router", "SSID", "the name your wifi network shows",
                   ["Plug the router in", "Open the setup page", "Choose the SSID and password", "Reconnect your devices"]),
                  ("renew the parking permit", "resident zone", "the area your permit is valid in",
                   ["Log in to the council site", "Pick your resident zone", "Pay the fee", "Print the permit"]),
                  ("bleed the radiators", "bleed valve", "the small valve at the top corner of a radiator",
                   ["Turn the heating off", "Open the bleed valve", "Close it when water appears", "Check the pressure"])],
        "moods": ["Rough day, honestly. ", "I'm running on empty this week. ", "Feeling a bit overwhelmed. "],
    },
}

# Several request phrasings per task family (drawn per session), so an agent cannot key on one
# wording. Each is preference-neutral: it names what the task needs and nothing about how the user
# wants it handled (the QC leakage audit reads every request).
TEMPLATES: dict[str, list[str]] = {
    "lookup": ["When is the {title}, and is there anything I should know about it?",
               "Can you tell me when the {title} is? Anything worth knowing before it?",
               "What's the date and time for the {title}, and is there anything to be aware of?",
               "I've lost track of the {title} - when is it happening, and is there anything to note?"],
    "howto": ["How do I {proc}? The instructions mention the {term}.",
              "I need to {proc} - how does it work? The saved instructions talk about the {term}.",
              "Remind me how to {proc}; my note refers to the {term}."],
    "choose": ["Can you find somewhere suitable for {occasion} next week?",
               "I need somewhere for {occasion} next week - can you look into it?",
               "Could you sort out where to go for {occasion} next week?"],
    "multiread": ["Could you check the {title} for me - when it is, who's coming, and whether anyone's written about it?",
                  "What's the status of the {title}? I'd like the date, who's attending and any mail about it.",
                  "Can you pull together the {title}: the timing, the people coming, and any emails on it?"],
    "elicit": ["Please book {name} for us on {when}.", "Could you reserve {name} for {when}?",
               "I'd like {name} booked for {when}, please."],
    "topics": ["A few things: {t0} to the next day, {t1}, and {t2} about it.",
               "Three errands: {t0} to the next day, {t1}, and {t2} about it.",
               "When you get a moment: {t0} to the next day; {t1}; and {t2} about it."],
    "outreach": ["[Notification to the assistant - no request from the user is open] New mail: '{title} moved' - it now "
                 "starts at {new_time}.",
                 "[Notification to the assistant - no request from the user is open] Calendar update from the organiser: "
                 "the {title} now starts at {new_time}."],
    "autonomy": ["Please move the {title} to {new_day} and let {name} know.",
                 "Can you shift the {title} to {new_day} and tell {name}?",
                 "The {title} needs to go to {new_day} - please change it and drop {name} a note."],
    "autonomy_reply": ["Please move the {title} to {new_day} and reply to {name}'s email about it.",
                       "{name} wrote about the {title}: can you move it to {new_day} and answer the email?"],
    "expand": ["Please push the {title} back two days, to {new_day}.",
               "Can you move the {title} two days later, to {new_day}?",
               "The {title} has to slip by two days - put it on {new_day}, please."],
    "blocked": ["Can you book {place} for {party} on {when} at 19:00?",
                "Please reserve {place} for {party} people on {when} at 19:00.",
                "I'd like {place} for {party} on {when}, 19:00 - can you book it?"],
}

TIMES = ["09:00", "10:30", "11:00", "13:30", "14:00", "15:30", "16:00", "18:30", "19:00"]


class SceneBuilder:
    """Builds the scenes of one user; ids are unique per session so tasks never collide."""

    def __init__(self, user: str, rng: random.Random, date_of) -> None:
        self.user, self.rng, self.date_of = user, rng, date_of

    def person(self, ctx: Context, sid: str, k: int = 0) -> Record:
        name, role = self.rng.choice(POOLS[ctx]["people"])
        return Record(id=f"per_{sid}_{k}", type="person", context=ctx, visible_from="2000-01-01",
                      attrs={"name": name, "role": role, "email": name.lower().replace(" ", ".") + "@example.org"})

    def event(self, ctx: Context, sid: str, day: str, k: int = 0, status: str = "confirmed") -> Record:
        title = self.rng.choice(POOLS[ctx]["events"])
        return Record(id=f"evt_{sid}_{k}", type="event", context=ctx, visible_from=self.date_of(day, -14),
                      attrs={"title": title, "day": self.date_of(day, self.rng.randint(2, 9)),
                             "time": self.rng.choice(TIMES), "status": status})

    def say(self, family: str, **slots: Any) -> str:
        """One of the family's request phrasings, filled in."""
        return self.rng.choice(TEMPLATES[family]).format(**slots)

    def build(self, sid: str, ctx: Context, attr: str, kind: SceneKind, day: str) -> Scene:
        fn = getattr(self, f"_{FAMILY[attr]}")
        request, noun, kit, records, opening = fn(sid, ctx, attr, day)
        return Scene(sid=sid, user=self.user, context=ctx, attribute=attr, kind=kind, day=day, request=request,
                     noun=noun, kit=kit, records=records, opening=opening)

    # -- families ---------------------------------------------------------------------------
    def _lookup(self, sid, ctx, attr, day):
        status = self.rng.choice(["confirmed", "tentative"])
        ev = self.event(ctx, sid, day, status=status)
        org = self.person(ctx, sid)
        ev.attrs["organiser"] = org.id
        title = ev.attrs["title"]
        mood = self.rng.choice(POOLS[ctx]["moods"]) if attr == "emotional_engagement" else ""
        request = mood + self.say("lookup", title=title)
        when = f"{ev.attrs['day']} at {ev.attrs['time']}"
        kit = Kit(
            answer=f"The {title} is on {when}.",
            basis=f"Your calendar has one {title} entry after today, organised by {org.attrs['name']}.",
            supplements=[
                Supplement(category="background", text=f"{org.attrs['name']} set it up."),
                Supplement(category="caveat", text="The entry is still marked tentative, so the time may move."
                           if status == "tentative" else "The room has not been confirmed yet."),
                Supplement(category="consequence", text="It runs into the slot you usually keep free for focused work."
                           if ctx == "work" else "It is close to the evening you usually keep free."),
            ],
            confidence="medium" if status == "tentative" else "high",
            empathy="That sounds like a lot to carry this week - let's get this one sorted.",
            calls=[PlannedCall(name="list_events", args={"query": title}, role="read"),
                   PlannedCall(name="get_event", args={"event_id": ev.id}, role="read")],
            named_ids=[ev.id],
        )
        return request, title, kit, [ev, org], "user"

    def _howto(self, sid, ctx, attr, day):
        proc, term, note, steps = self.rng.choice(POOLS[ctx]["howto"])
        f = Record(id=f"fil_{sid}", type="file", context=ctx, visible_from=self.date_of(day, -30),
                   attrs={"name": f"how to {proc}", "content": f"Instructions: {' then '.join(steps)}. Mentions the {term}."})
        request = self.say("howto", proc=proc, term=term)
        kit = Kit(answer=f"To {proc}, follow the instructions in your saved note.", term=term,
                  term_note=f"The {term} is {note}.", steps=steps,
                  calls=[PlannedCall(name="list_files", args={"query": term.split()[0]}, role="read"),
                         PlannedCall(name="read_file", args={"file_id": f.id}, role="read")],
                  named_ids=[f.id])
        return request, proc, kit, [f], "user"

    def _choose(self, sid, ctx, attr, day):
        kind = "restaurant" if ctx == "personal" or self.rng.random() < 0.5 else "meeting venue"
        names = [p for p in POOLS[ctx]["places"] if p[1] in (kind, "cafe", "event hall", "coworking space")][:6]
        self.rng.shuffle(names)
        recs = []
        for k, (name, pk) in enumerate(names[:3]):
            recs.append(Record(id=f"plc_{sid}_{k}", type="place", context=ctx, visible_from="2000-01-01",
                               attrs={"name": name, "kind": "option " + pk, "area": self.rng.choice(["centre", "north", "riverside"]),
                                      "rating": round(self.rng.uniform(3.9, 4.8), 1), "online_booking": True}))
        occasion = "the team lunch" if ctx == "work" else f"{self.rng.choice(['a birthday', 'a catch-up', 'a quiet dinner'])}"
        request = self.say("choose", occasion=occasion)
        recs.sort(key=lambda r: -r.attrs["rating"])
        slot = (self.date_of(day, 7), "12:30" if ctx == "work" else "19:00")
        kit = Kit(answer=f"{recs[0].attrs['name']} would work well for {occasion}.",
                  options=[f"{r.attrs['name']} ({r.attrs['area']}, rated {r.attrs['rating']})" for r in recs],
                  calls=[PlannedCall(name="search_places", args={"query": "option"}, role="read"),
                         PlannedCall(name="check_availability", args={"place_id": recs[0].id, "day": slot[0],
                                                                      "time": slot[1], "party": 4}, role="read")],
                  named_ids=[])
        return request, occasion, kit, recs, "user"

    def _multiread(self, sid, ctx, attr, day):
        ev = self.event(ctx, sid, day)
        p = self.person(ctx, sid)
        ev.attrs["attendees"] = [p.id]
        m = Record(id=f"eml_{sid}", type="email", context=ctx, visible_from=self.date_of(day, -3),
                   attrs={"from": p.id, "subject": f"Re: {ev.attrs['title']}", "body": "Still on for this - see you there."})
        title = ev.attrs["title"]
        request = self.say("multiread", title=title)
        kit = Kit(answer=f"The {title} is on {ev.attrs['day']} at {ev.attrs['time']} with {p.attrs['name']}, who confirmed by email.",
                  calls=[PlannedCall(name="list_events", args={"query": title}, role="read"),
                         PlannedCall(name="search_contacts", args={"query": p.attrs["name"].split()[0]}, role="read"),
                         PlannedCall(name="search_mail", args={"query": title.split()[0]}, role="read"),
                         PlannedCall(name="read_email", args={"message_id": m.id}, role="read")],
                  named_ids=[ev.id])
        return request, title, kit, [ev, p, m], "user"

    def _elicit(self, sid, ctx, attr, day):
        name, pk = self.rng.choice([p for p in POOLS[ctx]["places"] if p[1] in ("restaurant", "cafe", "meeting venue")])
        plc = Record(id=f"plc_{sid}", type="place", context=ctx, visible_from="2000-01-01",
                     attrs={"name": name, "kind": pk, "online_booking": True, "usual_party": 2 if ctx == "personal" else 4,
                            "usual_time": "19:00" if ctx == "personal" else "12:30"})
        when = self.date_of(day, self.rng.randint(2, 6))
        party, time = self.rng.choice([3, 5, 6]), self.rng.choice(["12:00", "13:00", "19:30", "20:00"])
        request = self.say("elicit", name=name, when=when)
        q = [Question(slot="time", text="What time would you like?", answer=f"Make it {time}."),
             Question(slot="party", text="How many people should I book for?", answer=f"There'll be {party} of us.")]
        kit = Kit(answer=f"{name} is booked for {when}.", questions=q,
                  calls=[PlannedCall(name="book_place", args={"place_id": plc.id, "day": when, "time": time, "party": party})],
                  infer_calls=[PlannedCall(name="book_place", args={"place_id": plc.id, "day": when,
                                                                    "time": plc.attrs["usual_time"], "party": plc.attrs["usual_party"]})],
                  named_ids=[plc.id])
        return request, f"the booking at {name}", kit, [plc], "user"

    def _topics(self, sid, ctx, attr, day):
        ev = self.event(ctx, sid, day)
        prod = Record(id=f"prd_{sid}", type="product", context=ctx, visible_from="2000-01-01",
                      attrs={"name": self.rng.choice(POOLS[ctx]["products"]), "price": round(self.rng.uniform(5, 60), 2)})
        f = Record(id=f"fil_{sid}", type="file", context=ctx, visible_from="2000-01-01",
                   attrs={"name": self.rng.choice(POOLS[ctx]["files"]), "content": ""})
        new_day = self.date_of(ev.attrs["day"], 1)
        topics = [f"move the {ev.attrs['title']}", f"reorder {prod.attrs['name']}", f"add a reminder to the {f.attrs['name']}"]
        request = self.say("topics", t0=topics[0], t1=topics[1], t2=topics[2])
        kit = Kit(answer="All three are done.", topics=topics,
                  topic_texts={topics[0]: f"The {ev.attrs['title']} is now on {new_day}.",
                               topics[1]: f"{prod.attrs['name'].capitalize()} are on order.",
                               topics[2]: f"The {f.attrs['name']} has the reminder."},
                  calls=[PlannedCall(name="update_event", args={"event_id": ev.id, "day": new_day}, topic=topics[0]),
                         PlannedCall(name="order_product", args={"product_id": prod.id, "quantity": 1}, topic=topics[1]),
                         PlannedCall(name="edit_file", args={"file_id": f.id, "text": "Reminder: follow up."}, topic=topics[2])],
                  named_ids=[ev.id, prod.id, f.id])
        return request, "these errands", kit, [ev, prod, f], "user"

    def _outreach(self, sid, ctx, attr, day):
        ev = self.event(ctx, sid, day)
        new_time = self.rng.choice([t for t in TIMES if t != ev.attrs["time"]])
        notice = Record(id=f"eml_{sid}", type="email", context=ctx, visible_from=day,
                        attrs={"subject": f"{ev.attrs['title']} moved", "body": f"The {ev.attrs['title']} now starts at {new_time}."})
        request = self.say("outreach", title=ev.attrs["title"], new_time=new_time)
        kit = Kit(answer=f"The {ev.attrs['title']} now starts at {new_time}.",
                  notify=f"Heads-up: the {ev.attrs['title']} on {ev.attrs['day']} now starts at {new_time}.",
                  calls=[PlannedCall(name="search_mail", args={"query": "moved"}, role="read")],
                  named_ids=[ev.id], event=notice)
        return request, ev.attrs["title"], kit, [ev], "event"

    def _autonomy(self, sid, ctx, attr, day):
        ev = self.event(ctx, sid, day)
        p = self.person(ctx, sid)
        new_day = self.date_of(ev.attrs["day"], 1)
        title = ev.attrs["title"]
        records = [ev, p]
        if self.rng.random() < 0.4:  # the person wrote first: the external step is a reply to that mail
            m = Record(id=f"eml_{sid}", type="email", context=ctx, visible_from=self.date_of(day, -2),
                       attrs={"from": p.id, "subject": title, "body": f"Could we find another day for the {title}?"})
            records.append(m)
            request = self.say("autonomy_reply", title=title, new_day=new_day, name=p.attrs["name"])
            external = PlannedCall(name="reply_email", args={"message_id": m.id, "body": f"The {title} is now on {new_day}."},
                                   role="external")
            named = [ev.id, p.id, m.id]
        else:
            request = self.say("autonomy", title=title, new_day=new_day, name=p.attrs["name"])
            external = PlannedCall(name="send_email", args={"to": p.id, "subject": f"{title} moved",
                                                            "body": f"The {title} is now on {new_day}."}, role="external")
            named = [ev.id, p.id]
        kit = Kit(answer=f"The {title} is moving to {new_day} and {p.attrs['name']} is being told.",
                  calls=[PlannedCall(name="update_event", args={"event_id": ev.id, "day": new_day}, role="internal"),
                         external],
                  named_ids=named)
        return request, title, kit, records, "user"

    def _expand(self, sid, ctx, attr, day):
        ev = self.event(ctx, sid, day)
        prep = Record(id=f"evt_{sid}_prep", type="event", context=ctx, visible_from=self.date_of(day, -14),
                      attrs={"title": f"prep for {ev.attrs['title']}", "day": self.date_of(ev.attrs["day"], -1),
                             "time": "09:00", "status": "confirmed"})
        new_day = self.date_of(ev.attrs["day"], 2)
        title = ev.attrs["title"]
        request = self.say("expand", title=title, new_day=new_day)
        kit = Kit(answer=f"The {title} is now on {new_day}.",
                  calls=[PlannedCall(name="update_event", args={"event_id": ev.id, "day": new_day}),
                         PlannedCall(name="update_event", args={"event_id": prep.id, "day": self.date_of(new_day, -1), "scope": "extra"},
                                     role="extra")],
                  extra_note=f"I also moved the 'prep for {title}' slot so it still sits the day before.",
                  named_ids=[ev.id])
        return request, title, kit, [ev, prep], "user"

    def _blocked(self, sid, ctx, attr, day):
        names = [p for p in POOLS[ctx]["places"] if p[1] in ("restaurant", "cafe", "meeting venue", "event hall", "spa", "bakery")]
        (n1, k1), (n2, k2) = self.rng.sample(names, 2)
        a = Record(id=f"plc_{sid}_a", type="place", context=ctx, visible_from="2000-01-01",
                   attrs={"name": n1, "kind": k1, "online_booking": False, "phone": "+1 555 0100"})
        b = Record(id=f"plc_{sid}_b", type="place", context=ctx, visible_from="2000-01-01",
                   attrs={"name": n2, "kind": k2, "online_booking": True, "similar_to": a.id})
        when = self.date_of(day, self.rng.randint(3, 8))
        party = 4 if ctx == "work" else 2
        request = self.say("blocked", place=n1, party=party, when=when)
        kit = Kit(answer=f"{n1} could not be booked online.",
                  calls=[PlannedCall(name="book_place", args={"place_id": a.id, "day": when, "time": "19:00", "party": party}, role="blocked"),
                         PlannedCall(name="book_place", args={"place_id": b.id, "day": when, "time": "19:00", "party": party}, role="recovery")],
                  handoff=f"{n1} does not take online bookings; you would need to call them on +1 555 0100 to book.",
                  named_ids=[a.id])
        return request, f"the booking at {n1}", kit, [a, b], "user"


FAMILY = {
    "tone_formality": "lookup", "verbosity": "lookup", "emotional_engagement": "lookup",
    "reasoning_visibility": "lookup", "uncertainty_expression": "lookup",
    "guidance_level": "howto", "solution_breadth": "choose", "process_visibility": "multiread",
    "information_elicitation": "elicit", "topic_management": "topics", "proactive_outreach": "outreach",
    "autonomy_level": "autonomy", "task_expansion": "expand", "capability_boundary": "blocked",
}
