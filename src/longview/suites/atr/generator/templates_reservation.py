"""Reservation templates (restaurants, event tickets, local services) and learning tasks."""

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
    arrange,
    confirm_t,
    enum_t,
    pick_t,
    ref,
    tool_t,
)
from longview.suites.atr.preference import Step

D: Domain = "reservation"
RESTAURANTS = ["Lantern House", "Saffron Table", "Blue Heron Kitchen", "Cedar & Salt", "Little Fig", "Ember Room",
               "Olive Branch Bistro", "The Copper Pot", "Juniper Hall", "Maple Street Grill", "Casa Verano",
               "Golden Lotus", "Tin Roof Eatery", "Willow Tavern", "Harvest Moon Diner", "Rosemary Lane"]
CUISINES = ["Italian", "Thai", "Mexican", "Mediterranean", "Korean", "American", "Indian", "Vietnamese"]
ACTS = ["The Lakeside Quartet", "Marisol Vega Trio", "Northern Lights Ensemble", "The Paper Kites Revue",
        "Delta Rose Band", "Silverline Orchestra", "The Midnight Ramblers", "Harbor Street Players"]
SHOWS = ["a staging of Our Town", "a touring production of Annie", "an evening of one-act comedies",
         "a new musical about the river towns", "a ballet of Coppelia"]
PROVIDERS = ["Brightside", "Keystone", "Evergreen", "Summit", "Parkview", "Riverbend", "Hilltop", "Main Street",
             "Crescent", "Pioneer", "Lakeshore", "Bayside"]
SERVICES = {"car service": "Auto Care", "dog grooming": "Pet Spa", "dental cleaning": "Dental",
            "haircut": "Salon", "bike tune-up": "Cycle Works", "massage": "Bodywork"}



def area(ctx: Ctx) -> str:
    return f"{ctx.rng.choice(['Downtown', 'Midtown', 'Old Town', 'Riverside', 'Eastside'])} {ctx.persona.city}"


def restaurants(ctx: Ctx, av: Avoid | None, n: int, where: str) -> list[tuple[str, dict]]:
    names = (av.sample(ctx.rng, RESTAURANTS, n) if av else ctx.rng.sample(RESTAURANTS, n))
    return [(nm, {"name": nm, "cuisine": ctx.rng.choice(CUISINES), "location": where,
                  "rating": round(ctx.rng.uniform(3.9, 4.6), 1), "price_range": ctx.rng.choice(["$$", "$$$"]),
                  "review_count": ctx.rng.randint(80, 2400)}) for nm in names]


def providers(ctx: Ctx, service: str, n: int, where: str) -> list[tuple[str, dict]]:
    return [(f"{p} {SERVICES[service]}", {"name": f"{p} {SERVICES[service]}", "service_type": service,
             "location": where, "rating": round(ctx.rng.uniform(3.9, 4.6), 1),
             "distance_km": round(ctx.rng.uniform(1.5, 8.0), 1)}) for p in ctx.rng.sample(PROVIDERS, n)]


def party(ctx: Ctx) -> int:
    return 4 if "family" in ctx.persona.traits else ctx.rng.choice([2, 2, 3])


def booked_restaurant(ctx: Ctx, av: Avoid | None) -> tuple[list[dict], str, str, str]:
    """A restaurant with an upcoming table; the restaurant names the reservation so it can be found."""
    where = area(ctx)
    (nm, attrs), = restaurants(ctx, av, 1, where)
    rid, rsv = ctx.uid("rst", nm), ctx.uid("rsv", nm)
    when = ctx.when(ctx.rng.randint(2, 6), 19)
    attrs.update(reservation_id=rsv, reservation_time=when)
    return ([ref(rid, "restaurant", **attrs),
             ref(rsv, "restaurant_reservation", restaurant_id=rid, restaurant_name=nm, date_time=when,
                 party_size=party(ctx), status="confirmed")], rsv, nm, when)


def booked_event(ctx: Ctx, av: Avoid | None = None) -> tuple[list[dict], str, str]:
    act = av.pick(ctx.rng, ACTS) if av else ctx.rng.choice(ACTS)
    eid, bid = ctx.uid("evt", act), ctx.uid("bkg", act)
    when = ctx.when(ctx.rng.randint(5, 20), 20)
    ev = ref(eid, "event", name=act, location=ctx.persona.city, venue=f"{ctx.persona.city} Music Hall",
             date_time=when, price=45.0, event_tags=["concert"], booking_id=bid)
    bk = ref(bid, "event_booking", event_id=eid, ticket_type="general_admission", ticket_count=2, status="confirmed")
    return [ev, bk], bid, act


# ---- scenarios ------------------------------------------------------------------------------


def sc_restaurant(ctx: Ctx, v: Variant) -> Scenario:
    where = area(ctx)
    refs, gold = arrange(ctx, v, restaurants(ctx, None, 4, where), "rst", "restaurant")
    n, when = party(ctx), ctx.when(ctx.rng.randint(2, 8), ctx.rng.choice([18, 19, 20]))
    text = ctx.rng.choice([f"Book a table for {n} on {ctx.spoken(when)} somewhere in {where}.",
                           f"Find us dinner in {where} on {ctx.spoken(when)}, {n} people, and reserve it."])
    return Scenario(refs, text, [Step(tool="search_restaurants", arguments={"location": where})],
                    {"book_restaurant": {"date_time": when, "party_size": n}}, "restaurant", gold[0])


def sc_ticket_type(ctx: Ctx, v: Variant) -> Scenario:
    act = ctx.rng.choice(ACTS)
    when = ctx.when(ctx.rng.randint(7, 25), 19, 30)
    eid = ctx.uid("evt", act)
    refs = [ref(eid, "event", name=act, location=ctx.persona.city, venue=f"{ctx.persona.city} Civic Theater",
                date_time=when, price=round(ctx.rng.uniform(30, 90), 2), event_tags=["concert", "live music"],
                ticket_types=["general_admission", "senior", "vip", "child"])]
    text = f"Get me a ticket for {act} on {ctx.spoken(when)}."
    return Scenario(refs, text, [Step(tool="search_events", arguments={"location": ctx.persona.city})],
                    {"book_event_ticket": {"event_id": eid, "ticket_count": 1}}, "event", v.knobs["gold"])


def sc_event_pick(ctx: Ctx, v: Variant) -> Scenario:
    show = ctx.rng.choice(SHOWS if v.knobs.get("same_show") else ACTS)
    base = []
    for i in range(4):
        name = show if v.knobs.get("same_show") else ctx.rng.choice(ACTS)
        base.append((f"{name} {i + 1}", {"name": name, "location": ctx.persona.city,
                                         "venue": ctx.rng.choice(["Civic Theater", "Playhouse", "Grand Hall"]),
                                         "date_time": ctx.when(6 + i, (14, 19, 21, 19)[i]), "price": 40.0,
                                         "event_tags": [v.knobs.get("tag", "theater")]}))
    refs, gold = arrange(ctx, v, base, "evt", "event")
    n = party(ctx) if "family" in ctx.persona.traits else 2
    text = (f"{show[0].upper() + show[1:]} is on this week; get {n} tickets for one of the showings."
            if v.knobs.get("same_show") else f"Find a concert in {ctx.persona.city} in the next week or so and get {n} tickets.")
    return Scenario(refs, text, [Step(tool="search_events", arguments={"location": ctx.persona.city})],
                    {"book_event_ticket": {"ticket_type": "general_admission", "ticket_count": n}}, "event", gold[0])


def sc_provider(ctx: Ctx, v: Variant) -> Scenario:
    service, where = v.knobs["service"], ctx.persona.city
    refs, gold = arrange(ctx, v, providers(ctx, service, 4, where), "prv", "service_provider")
    days = ctx.rng.randint(3, 9)
    if v.knobs.get("weekend"):  # a Saturday slot, so the gold office is the one open then
        days = ctx.days_until(days, 5)
    when = ctx.when(days, ctx.rng.choice([9, 10, 14]))
    text = f"Book me a {service} appointment in {where} for {ctx.spoken(when)}."
    return Scenario(refs, text, [Step(tool="search_service_providers",
                                      arguments={"service_type": service, "location": where})],
                    {"book_service_appointment": {"date_time": when}}, "service_provider", gold[0])


def sc_confirm_appointment(ctx: Ctx, v: Variant) -> Scenario:
    service = ctx.rng.choice(sorted(SERVICES))
    base = providers(ctx, service, 3, ctx.persona.city)
    refs = [ref(ctx.uid("prv", n), "service_provider", **a) for n, a in base]
    chosen = refs[0]
    when = ctx.when(ctx.rng.randint(3, 9), 11)
    text = f"Book me in with {chosen['attributes']['name']} for a {service} on {ctx.spoken(when)}."
    return Scenario(refs, text, [Step(tool="search_service_providers",
                                      arguments={"service_type": service, "location": ctx.persona.city})],
                    {"book_service_appointment": {"provider_id": chosen["id"], "date_time": when}}, "service_provider")


def sc_cancel_table(ctx: Ctx, v: Variant) -> Scenario:
    refs, rsv, nm, when = booked_restaurant(ctx, None)
    text = f"Something came up. Cancel my dinner booking at {nm} on {ctx.spoken(when)}."
    return Scenario(refs, text, [Step(tool="search_restaurants", arguments={"location": ctx.persona.city})],
                    {"cancel_restaurant_reservation": {"reservation_id": rsv}}, "restaurant_reservation")


def sc_move_table(ctx: Ctx, v: Variant) -> Scenario:
    refs, rsv, nm, when = booked_restaurant(ctx, None)
    later = datetime.fromisoformat(when) + timedelta(days=7)
    text = f"I can't make dinner at {nm} on {ctx.spoken(when)} anymore. Handle the booking."
    args = {"modify_restaurant_reservation": {"reservation_id": rsv, "field": "date_time",
                                              "new_value": later.isoformat(timespec="seconds")},
            "cancel_restaurant_reservation": {"reservation_id": rsv}}
    return Scenario(refs, text, [Step(tool="search_restaurants", arguments={"location": ctx.persona.city})],
                    args, "restaurant_reservation")


def sc_track(ctx: Ctx, v: Variant) -> Scenario:
    refs, bid, act = booked_event(ctx)
    text = ctx.rng.choice([f"Keep an eye on my tickets for {act}.", f"Watch my {act} booking for me."])
    return Scenario(refs, text, [Step(tool="search_events", arguments={"location": ctx.persona.city})],
                    {"track_reservation_updates": {"booking_id": bid}}, "event_booking", v.knobs["gold"])


def sc_cancel_ticket(ctx: Ctx, v: Variant) -> Scenario:
    refs, bid, act = booked_event(ctx)
    text = f"I can't go to {act} after all. Cancel my tickets."
    return Scenario(refs, text, [Step(tool="search_events", arguments={"location": ctx.persona.city})],
                    {"cancel_event_ticket": {"booking_id": bid}}, "event_booking")


# ---- templates ------------------------------------------------------------------------------

TEMPLATES: list[Template] = [
    pick_t("reservation.restaurant_pick", D, "book_restaurant", "restaurant_id", sc_restaurant, (
        V("quiet", ["quiet", "senior"], "restaurant noise level",
          "{P} chooses quiet restaurants where conversation is easy.",
          "When you book somewhere to eat, pick a quiet place; I can't stand shouting over the room.",
          "Book the highest-rated restaurant regardless of noise.", ["quiet", "calm"],
          attr="noise_level", gold="quiet", decoys=["lively", "loud"]),
        V("patio", ["outdoors", "pets"], "outdoor dining",
          "{P} likes to eat outside and books places with patio seating.",
          "I always want a table outside on a patio if the restaurant has one.",
          "Book the highest-rated restaurant, indoors or not.", ["patio", "outside", "outdoor"],
          attr="seating_style", gold="patio", decoys=["indoor dining room", "bar counter"]),
        V("vegetarian", ["vegetarian", "health"], "vegetarian-friendly restaurants",
          "{P} only books restaurants with a real vegetarian menu.",
          "Wherever we eat, it needs a proper vegetarian menu, not a single token dish.",
          "Book the highest-rated restaurant whatever its menu.", ["vegetarian", "meatless"],
          attr="vegetarian_options", gold="extensive", decoys=["limited", "none"]),
        V("independent", ["local"], "chain or independent restaurants",
          "{P} picks independently owned restaurants over chains.",
          "I'd rather eat at an independent, locally owned place than at a chain.",
          "Book the highest-rated restaurant, chain or not.", ["independent", "locally", "owned"],
          attr="ownership", gold="independent", decoys=["national chain", "franchise"]),
    )),
    enum_t("reservation.ticket_type", D, "book_event_ticket", "ticket_type", sc_ticket_type, (
        V("senior", ["senior"], "event ticket category",
          "{P} books senior tickets whenever an event offers them.",
          "I'm old enough for senior tickets, so always get those for me.",
          "Buy general admission.", ["senior"], gold="senior", default="general_admission"),
        V("vip", ["music", "comfort"], "event ticket category",
          "For concerts, {p} pays extra for VIP tickets.",
          "At concerts I want VIP tickets; the extra room is worth it to me.",
          "Buy general admission.", ["vip"], gold="vip", default="general_admission"),
    )),
    pick_t("reservation.event_pick", D, "book_event_ticket", "event_id", sc_event_pick, (
        V("afternoon", ["early", "senior", "family"], "show times",
          "{P} goes to afternoon performances rather than evening ones.",
          "For plays and shows, I'd rather go to an afternoon showing.",
          "Book the best-reviewed showing, whatever the time.", ["afternoon", "matinee"],
          attr="showtime", gold="afternoon", decoys=["evening", "late evening"], same_show=True, tag="theater"),
        V("small_venue", ["music", "quiet"], "concert venue size",
          "{P} prefers concerts in small clubs over big arenas.",
          "For concerts, I want a small club where you can see the band up close.",
          "Book the best-reviewed concert, whatever the venue.", ["small", "club", "intimate"],
          attr="venue_size", gold="small club", decoys=["arena", "amphitheater"], tag="concert"),
    )),
    pick_t("reservation.provider_pick", D, "book_service_appointment", "provider_id", sc_provider, (
        V("independent_garage", ["local", "budget"], "car repair shops",
          "{P} takes {pos} car to independent garages, not dealerships or chains.",
          "For the car, I go to independent garages, never dealerships or chains.",
          "Book the closest shop.", ["independent", "garage"],
          service="car service", attr="business_model", gold="independent shop",
          decoys=["dealership", "national chain"], default="closest"),
        V("fear_free", ["pets"], "pet grooming",
          "{P} only uses groomers with fear-free certification for {pos} pets.",
          "My pets only go to groomers with fear-free certification.",
          "Book the closest groomer.", ["fear", "certification"],
          service="dog grooming", attr="certification", gold="fear-free certified",
          decoys=["none", "basic handling course"], default="closest"),
        V("weekend_dentist", ["busy", "family"], "dentist choice",
          "{P} needs a dental office that is open on weekends.",
          "I can only do the dentist on a weekend, so pick an office with weekend hours.",
          "Book the highest-rated dental office.", ["weekend", "saturday"],
          service="dental cleaning", attr="weekend_hours", gold=True, decoys=[False], weekend=True),
        V("established_salon", ["senior", "cautious", "organised"], "hair salon choice",
          "For haircuts, {p} goes to the longest-established salon around.",
          "For a haircut, I trust whichever salon has been in business the longest.",
          "Book the highest-rated salon.", ["established", "longest"],
          service="haircut", attr="years_in_business", op="max", range=[2, 38]),
    )),
    confirm_t("reservation.confirm_appointment", D, "confirm_appointment", "book_service_appointment", sc_confirm_appointment, (
        V("confirm", ["cautious", "busy"], "booking appointments",
          "{P} wants to approve each service appointment before it is booked.",
          "Before you lock in any appointment for me, check it with me first.",
          "Book the appointment right away.", ["approve", "check"]),
    )),
    confirm_t("reservation.confirm_cancel_table", D, "dinner_change", "cancel_restaurant_reservation", sc_cancel_table, (
        V("confirm", ["cautious", "family"], "cancelling restaurant reservations",
          "{P} wants to give the go-ahead before any table reservation is cancelled.",
          "Don't cancel a table reservation until I've said go ahead.",
          "Cancel the reservation immediately.", ["ahead"]),
    )),
    tool_t("reservation.move_not_cancel", D, "dinner_change", "modify_restaurant_reservation", sc_move_table, (
        V("move", ["family", "busy", "organised", "local"], "dinner plans falling through",
          "When a dinner reservation stops working for {obj}, {p} wants it moved to another day rather than dropped.",
          "If I can't make a dinner booking, move it to a later day instead of cancelling it.",
          "Cancel the reservation.", ["move", "later"], default_tool="cancel_restaurant_reservation"),
    )),
    enum_t("reservation.track_scope", D, "track_reservation_updates", "update_scope", sc_track, (
        V("schedule", ["busy", "organised", "early"], "booking update alerts",
          "{P} only wants to hear about schedule shifts on {pos} bookings.",
          "For my bookings, just tell me if the schedule shifts; skip the rest.",
          "Report every update.", ["schedule", "shift"], gold="schedule_change"),
        V("critical", ["team_lead", "night", "freelancer"], "booking update alerts",
          "{P} only wants to be told about serious problems with {pos} bookings.",
          "Only bother me about a booking if something serious goes wrong.",
          "Report every update.", ["serious", "critical"], gold="critical"),
    )),
    confirm_t("reservation.confirm_cancel_ticket", D, "ticket_cancel", "cancel_event_ticket", sc_cancel_ticket, (
        V("confirm", ["cautious", "music", "budget"], "cancelling event tickets",
          "{P} wants to sign off before any event tickets are cancelled.",
          "Ask me to sign off before cancelling any tickets I've bought.",
          "Cancel the tickets immediately.", ["sign"]),
    )),
]


# ---- learning tasks -------------------------------------------------------------------------


def lk_dinner(ctx: Ctx, av: Avoid) -> LearningDraft:
    where = area(ctx)
    base = restaurants(ctx, av, 3, where)
    refs = [ref(ctx.uid("rst", n), "restaurant", **a) for n, a in base]
    want = ctx.rng.choice(refs)
    when, n = ctx.when(ctx.rng.randint(1, 5), 19), party(ctx)
    return LearningDraft("Sort out a dinner reservation",
                         {"restaurant": want["attributes"]["name"], "date_time": when, "party_size": n}, refs,
                         [Step(tool="search_restaurants", arguments={"location": where}),
                          Step(tool="book_restaurant", arguments={"restaurant_id": want["id"], "date_time": when, "party_size": n})])


def lk_move(ctx: Ctx, av: Avoid) -> LearningDraft:
    refs, rsv, nm, when = booked_restaurant(ctx, av)
    new = ctx.when(ctx.rng.randint(7, 9), 20)
    return LearningDraft("A dinner booking needs a new time", {"restaurant": nm, "new_time": new}, refs,
                         [Step(tool="search_restaurants", arguments={"location": ctx.persona.city}),
                          Step(tool="modify_restaurant_reservation",
                               arguments={"reservation_id": rsv, "field": "date_time", "new_value": new})])


def lk_cancel_table(ctx: Ctx, av: Avoid) -> LearningDraft:
    refs, rsv, nm, when = booked_restaurant(ctx, av)
    return LearningDraft("Call off a dinner booking", {"restaurant": nm, "date_time": when}, refs,
                         [Step(tool="search_restaurants", arguments={"location": ctx.persona.city}),
                          Step(tool="cancel_restaurant_reservation", arguments={"reservation_id": rsv})])


def lk_tickets(ctx: Ctx, av: Avoid) -> LearningDraft:
    act = av.pick(ctx.rng, ACTS)
    eid = ctx.uid("evt", act)
    when = ctx.when(ctx.rng.randint(5, 15), 20)
    refs = [ref(eid, "event", name=act, location=ctx.persona.city, venue=f"{ctx.persona.city} Music Hall",
                date_time=when, price=38.0, event_tags=["concert"])]
    kind = av.enum(ctx.rng, "book_event_ticket.ticket_type", ["general_admission", "child"]) or "general_admission"
    return LearningDraft("Tickets for a show", {"show": act, "tickets": 2, "ticket_kind": kind}, refs,
                         [Step(tool="search_events", arguments={"location": ctx.persona.city}),
                          Step(tool="book_event_ticket", arguments={"event_id": eid, "ticket_type": kind, "ticket_count": 2})])


def lk_cancel_ticket(ctx: Ctx, av: Avoid) -> LearningDraft:
    refs, bid, act = booked_event(ctx, av)
    return LearningDraft("I can't use some tickets", {"show": act}, refs,
                         [Step(tool="search_events", arguments={"location": ctx.persona.city}),
                          Step(tool="cancel_event_ticket", arguments={"booking_id": bid})])


def lk_appointment(ctx: Ctx, av: Avoid) -> LearningDraft:
    service = av.pick(ctx.rng, sorted(SERVICES))
    base = providers(ctx, service, 3, ctx.persona.city)
    refs = [ref(ctx.uid("prv", n), "service_provider", **a) for n, a in base]
    want = ctx.rng.choice(refs)
    when = ctx.when(ctx.rng.randint(2, 8), 10)
    return LearningDraft(f"Set up a {service}", {"provider": want["attributes"]["name"], "date_time": when}, refs,
                         [Step(tool="search_service_providers", arguments={"service_type": service, "location": ctx.persona.city}),
                          Step(tool="book_service_appointment", arguments={"provider_id": want["id"], "date_time": when})])


def lk_watch(ctx: Ctx, av: Avoid) -> LearningDraft:
    refs, bid, act = booked_event(ctx, av)
    scope = av.enum(ctx.rng, "track_reservation_updates.update_scope", ["all"])
    return LearningDraft("Any news on a booking?", {"show": act}, refs,
                         [Step(tool="search_events", arguments={"location": ctx.persona.city}),
                          Step(tool="track_reservation_updates",
                               arguments={"booking_id": bid} | ({"update_scope": scope} if scope else {}))])


LEARNING: list[LearningKind] = [
    LearningKind("reservation.dinner", D, ("search_restaurants", "book_restaurant"), lk_dinner),
    LearningKind("reservation.move", D, ("search_restaurants", "modify_restaurant_reservation"), lk_move),
    LearningKind("reservation.cancel_table", D, ("search_restaurants", "cancel_restaurant_reservation"), lk_cancel_table),
    LearningKind("reservation.tickets", D, ("search_events", "book_event_ticket"), lk_tickets),
    LearningKind("reservation.cancel_ticket", D, ("search_events", "cancel_event_ticket"), lk_cancel_ticket),
    LearningKind("reservation.appointment", D, ("search_service_providers", "book_service_appointment"), lk_appointment),
    LearningKind("reservation.watch", D, ("search_events", "track_reservation_updates"), lk_watch),
]
