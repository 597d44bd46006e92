"""Scheduling templates (invites, reminders, clashes, tracking, cancelling) and learning tasks."""

from __future__ import annotations

from datetime import datetime, timedelta

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
    ref,
    tool_t,
)
from longview.suites.atr.preference import Step

D: Domain = "scheduling"
MEETINGS = ["Budget review", "Quarterly planning", "Team retrospective", "Vendor check-in", "Project kickoff",
            "Design critique", "Neighborhood association meeting", "Parent-teacher conference", "Board prep session"]
PEOPLE = ["Alex Moreno", "Bianca Reyes", "Chris Odell", "Dev Patel", "Erin Shaw", "Felix Grant", "Gwen Lowe"]
ERRANDS = ["prescription pickup", "library book return", "car registration renewal", "dry cleaning pickup",
           "passport photo appointment window"]



def cal_event(ctx: Ctx, title: str, start: str, hours: float = 1.0, **extra) -> dict:
    end = (datetime.fromisoformat(start) + timedelta(hours=hours)).isoformat(timespec="seconds")
    attrs = {"title": title, "start_time": start, "end_time": end, "participants": ctx.rng.sample(PEOPLE, 2),
             "location": ctx.rng.choice(["Conference room B", "Video call", "Community center"]),
             "calendar": "work", "status": "confirmed"} | extra
    return ref(ctx.uid("evt", title), "calendar_event", **attrs)


def background(ctx: Ctx, n: int, av: Avoid | None = None) -> list[dict]:
    titles = av.sample(ctx.rng, MEETINGS, n) if av else ctx.rng.sample(MEETINGS, n)
    return [cal_event(ctx, t, ctx.when(ctx.rng.randint(1, 6), ctx.rng.choice([9, 11, 14]))) for t in titles]


def end_of(ev: dict, shift: timedelta) -> tuple[str, str]:
    s = datetime.fromisoformat(ev["attributes"]["start_time"]) + shift
    e = datetime.fromisoformat(ev["attributes"]["end_time"]) + shift
    return s.isoformat(timespec="seconds"), e.isoformat(timespec="seconds")


# ---- scenarios ------------------------------------------------------------------------------


def sc_invite(ctx: Ctx, v: Variant) -> Scenario:
    k = v.knobs
    who = ctx.rng.choice(k["organizers"])
    title = ctx.rng.choice(k["titles"])
    inv = cal_event(ctx, title, ctx.when(ctx.rng.randint(2, 8), k["hour"]), calendar="invites", status="pending",
                    organizer=who)
    text = f"{who} invited me to the {title.lower()} on {ctx.spoken(inv['attributes']['start_time'])}. Respond to the invite."
    return Scenario([inv, *background(ctx, 2)], text, [Step(tool="list_events", arguments={"calendar": "invites"})],
                    {"respond_to_event_invite": {"event_id": inv["id"]}}, "calendar_event", k["gold"])


def sc_reminder(ctx: Ctx, v: Variant) -> Scenario:
    ev = cal_event(ctx, ctx.rng.choice(MEETINGS), ctx.when(ctx.rng.randint(2, 8), 10))
    text = f"Remind me about the {ev['attributes']['title'].lower()} on {ctx.spoken(ev['attributes']['start_time'])}."
    return Scenario([ev, *background(ctx, 2)], text, [Step(tool="list_events")],
                    {"set_reminder": {"target_id": ev["id"]}}, "calendar_event", v.knobs["gold"])


def sc_errand(ctx: Ctx, v: Variant) -> Scenario:
    errand = ctx.rng.choice(ERRANDS)
    start = ctx.when(ctx.rng.randint(2, 6), ctx.rng.choice([12, 16, 17]))
    end = (datetime.fromisoformat(start) + timedelta(hours=1)).isoformat(timespec="seconds")
    act = ref(ctx.uid("act", errand), "event", name=errand, title=errand, start_time=start, end_time=end,
              calendar="personal", status="open", source="errands app")
    text = f"Don't let me forget the {errand} on {ctx.spoken(start)}."
    a = act["attributes"]
    args = {"set_reminder": {"target_id": act["id"]},
            "create_event": {"title": errand, "start_time": a["start_time"], "end_time": a["end_time"]}}
    return Scenario([act, *background(ctx, 2)], text, [Step(tool="list_events")], args, "event")


def sc_clash(ctx: Ctx, v: Variant) -> Scenario:
    day, hour = ctx.rng.randint(2, 6), ctx.rng.choice([10, 14])
    a, b = ctx.rng.sample(MEETINGS, 2)
    ea = cal_event(ctx, a, ctx.when(day, hour))
    eb = cal_event(ctx, b, ctx.when(day, hour, 30))
    text = f"My {a.lower()} and {b.lower()} overlap on {ctx.spoken(ctx.date(day))}. Sort it out."
    args = {"find_alternative_slots": {"target_id": ea["id"]}, "cancel_event": {"event_id": ea["id"]}}
    return Scenario([ea, eb, *background(ctx, 1)], text, [Step(tool="list_events")], args, "calendar_event")


def sc_one_on_one(ctx: Ctx, v: Variant) -> Scenario:
    who = ctx.rng.choice(PEOPLE)
    ev = cal_event(ctx, f"One-on-one with {who}", ctx.when(ctx.rng.randint(2, 6), 15), 0.5, participants=[who],
                   recurrence="weekly")
    s, e = end_of(ev, timedelta(days=1))
    text = f"I can't make my one-on-one with {who} on {ctx.spoken(ev['attributes']['start_time'])}. Deal with it."
    args = {"reschedule_event": {"event_id": ev["id"], "new_start_time": s, "new_end_time": e},
            "cancel_event": {"event_id": ev["id"]}}
    return Scenario([ev, *background(ctx, 2)], text, [Step(tool="list_events")], args, "calendar_event")


def sc_track(ctx: Ctx, v: Variant) -> Scenario:
    ev = cal_event(ctx, ctx.rng.choice(MEETINGS), ctx.when(ctx.rng.randint(3, 10), 13))
    text = f"Keep an eye on the {ev['attributes']['title'].lower()} for me."
    return Scenario([ev, *background(ctx, 2)], text, [Step(tool="list_events")],
                    {"track_event_updates": {"target_id": ev["id"]}}, "calendar_event", v.knobs["gold"])


def sc_cancel(ctx: Ctx, v: Variant) -> Scenario:
    ev = cal_event(ctx, ctx.rng.choice(MEETINGS), ctx.when(ctx.rng.randint(2, 8), 11))
    text = f"Cancel the {ev['attributes']['title'].lower()} on {ctx.spoken(ev['attributes']['start_time'])}."
    return Scenario([ev, *background(ctx, 2)], text, [Step(tool="list_events")],
                    {"cancel_event": {"event_id": ev["id"]}}, "calendar_event")


# ---- templates ------------------------------------------------------------------------------

TEMPLATES: list[Template] = [
    enum_t("scheduling.invite_response", D, "respond_to_event_invite", "response", sc_invite, (
        V("tentative_evening", ["family", "busy"], "answering evening invitations",
          "{P} answers after-hours invitations as tentative until {p} has checked family plans.",
          "For anything in the evening, mark me as tentative until I've checked with my family.",
          "Accept the invitation.", ["tentative", "maybe"], gold="tentative", default="accept", hour=19,
          organizers=["Dana Whitaker", "Grant Ellison", "Priscilla Hunt"],
          titles=["Networking mixer", "Team dinner", "Evening strategy session"]),
        V("decline_demos", ["busy", "team_lead", "cautious"], "sales demo invitations",
          "{P} declines sales demos from vendors.", "Vendor demos are a no for me; decline them.",
          "Accept the invitation.", ["decline", "no"], gold="decline", default="accept", hour=11,
          organizers=["Nimbus Software", "Brightpath CRM", "Quanta Analytics"],
          titles=["Product demo", "Platform walkthrough", "Feature showcase"]),
    )),
    enum_t("scheduling.reminder_cadence", D, "set_reminder", "cadence", sc_reminder, (
        V("before_event", ["organised", "busy", "senior"], "reminder timing",
          "{P} likes reminders that go off shortly before the event starts.",
          "Set my reminders to go off right before things start.",
          "Set a one-time reminder.", ["before", "shortly", "right"], gold="before_event"),
        V("daily", ["health", "fitness", "student"], "reminder timing",
          "{P} wants reminders to repeat every day until the thing happens.",
          "Make my reminders repeat every day until it's done.",
          "Set a one-time reminder.", ["daily", "repeat", "every"], gold="daily"),
    )),
    tool_t("scheduling.reminder_not_event", D, "errand", "set_reminder", sc_errand, (
        V("private", ["privacy", "organised", "busy"], "personal errands on the calendar",
          "{P} keeps personal errands as private reminders, not calendar events others can see.",
          "Errands are private to me; use a reminder, not a calendar event people can see.",
          "Create a calendar event.", ["private", "reminder"], default_tool="create_event"),
    )),
    tool_t("scheduling.clash", D, "clash", "find_alternative_slots", sc_clash, (
        V("alternatives", ["busy", "team_lead", "organised"], "calendar clashes",
          "When two commitments collide, {p} wants other times found rather than anything being dropped.",
          "If two things clash, find another time for one of them; don't drop anything.",
          "Cancel one of the clashing events.", ["alternative", "another"], default_tool="cancel_event"),
    )),
    tool_t("scheduling.push_one_on_one", D, "clash", "reschedule_event", sc_one_on_one, (
        V("push", ["team_lead", "family"], "missed one-on-one meetings",
          "When {p} can't attend a recurring one-on-one, {p} wants it pushed to the next day rather than cancelled.",
          "If I miss a one-on-one, push it to the next day; don't cancel it.",
          "Cancel that occurrence.", ["push", "next"], default_tool="cancel_event"),
    )),
    enum_t("scheduling.track_scope", D, "track_event_updates", "update_scope", sc_track, (
        V("schedule", ["busy", "organised", "team_lead"], "meeting change notifications",
          "For meetings, {p} only wants to hear when the time moves.", "For meetings, just tell me if the time moves.",
          "Report every update.", ["schedule", "moves"], gold="schedule_change"),
        V("critical", ["night", "freelancer", "work_travel"], "meeting change notifications",
          "For meetings, {p} only wants to hear about serious problems.", "For meetings, only flag something serious.",
          "Report every update.", ["serious", "critical"], gold="critical"),
    )),
    confirm_t("scheduling.confirm_cancel", D, "cancel_event", "cancel_event", sc_cancel, (
        V("confirm", ["cautious", "team_lead", "senior"], "cancelling calendar events",
          "{P} wants to approve each calendar cancellation before it goes out.",
          "Before anything comes off my calendar, check with me.",
          "Cancel the event right away.", ["approve", "check"]),
    )),
]


# ---- learning tasks -------------------------------------------------------------------------


def lk_invite(ctx: Ctx, av: Avoid) -> LearningDraft:
    title = av.pick(ctx.rng, MEETINGS)
    who = ctx.rng.choice(PEOPLE)
    inv = cal_event(ctx, title, ctx.when(ctx.rng.randint(2, 7), 10), calendar="invites", status="pending", organizer=who)
    resp = av.enum(ctx.rng, "respond_to_event_invite.response", ["accept", "decline"]) or "accept"
    return LearningDraft("Deal with a meeting invite", {"from": who, "answer": resp}, [inv, *background(ctx, 1, av)],
                         [Step(tool="list_events", arguments={"calendar": "invites"}),
                          Step(tool="respond_to_event_invite", arguments={"event_id": inv["id"], "response": resp})])


def lk_reminder(ctx: Ctx, av: Avoid) -> LearningDraft:
    evs = background(ctx, 2, av)
    ev = evs[0]
    at = ctx.when(1, 8)
    cad = av.enum(ctx.rng, "set_reminder.cadence", ["once", "weekly"])
    args = {"target_id": ev["id"], "remind_at": at} | ({"cadence": cad} if cad else {})
    return LearningDraft("Make sure I remember something coming up", {"event": ev["attributes"]["title"], "remind_at": at}, evs,
                         [Step(tool="list_events"), Step(tool="set_reminder", arguments=args)])


def lk_create(ctx: Ctx, av: Avoid) -> LearningDraft:
    title = av.pick(ctx.rng, ["Coffee with Gwen", "Study group", "Garage sale planning", "Choir rehearsal"])
    s = ctx.when(ctx.rng.randint(2, 6), 16)
    e = (datetime.fromisoformat(s) + timedelta(hours=1)).isoformat(timespec="seconds")
    return LearningDraft("Put something on my calendar", {"title": title, "start": s, "end": e}, [],
                         [Step(tool="check_conflicts", arguments={"start_time": s, "end_time": e}),
                          Step(tool="create_event", arguments={"title": title, "start_time": s, "end_time": e})])


def lk_reschedule(ctx: Ctx, av: Avoid) -> LearningDraft:
    evs = background(ctx, 2, av)
    ev = evs[0]
    s, e = end_of(ev, timedelta(hours=2))
    return LearningDraft("A meeting needs a new time", {"meeting": ev["attributes"]["title"], "new_start": s}, evs,
                         [Step(tool="list_events"),
                          Step(tool="reschedule_event", arguments={"event_id": ev["id"], "new_start_time": s, "new_end_time": e})])


def lk_alternatives(ctx: Ctx, av: Avoid) -> LearningDraft:
    evs = background(ctx, 2, av)
    ev = evs[1]
    return LearningDraft("What other times could work?", {"meeting": ev["attributes"]["title"]}, evs,
                         [Step(tool="list_events"), Step(tool="find_alternative_slots", arguments={"target_id": ev["id"]})])


def lk_cancel(ctx: Ctx, av: Avoid) -> LearningDraft:
    evs = background(ctx, 2, av)
    ev = evs[0]
    return LearningDraft("Clear something off my week", {"meeting": ev["attributes"]["title"]}, evs,
                         [Step(tool="list_events"), Step(tool="cancel_event", arguments={"event_id": ev["id"]})])


def lk_watch(ctx: Ctx, av: Avoid) -> LearningDraft:
    evs = background(ctx, 2, av)
    ev = evs[0]
    scope = av.enum(ctx.rng, "track_event_updates.update_scope", ["all"])
    return LearningDraft("Stay on top of a meeting", {"meeting": ev["attributes"]["title"]}, evs,
                         [Step(tool="list_events"),
                          Step(tool="track_event_updates", arguments={"target_id": ev["id"]} | ({"update_scope": scope} if scope else {}))])


LEARNING: list[LearningKind] = [
    LearningKind("scheduling.invite", D, ("list_events", "respond_to_event_invite"), lk_invite),
    LearningKind("scheduling.reminder", D, ("list_events", "set_reminder"), lk_reminder),
    LearningKind("scheduling.create", D, ("check_conflicts", "create_event"), lk_create),
    LearningKind("scheduling.reschedule", D, ("list_events", "reschedule_event"), lk_reschedule),
    LearningKind("scheduling.alternatives", D, ("list_events", "find_alternative_slots"), lk_alternatives),
    LearningKind("scheduling.cancel", D, ("list_events", "cancel_event"), lk_cancel),
    LearningKind("scheduling.watch", D, ("list_events", "track_event_updates"), lk_watch),
]
