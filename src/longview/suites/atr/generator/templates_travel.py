"""Travel templates (flights, hotels, ground transport, trip plans) and learning tasks."""

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
    arrange,
    confirm_t,
    enum_t,
    pick_t,
    ref,
    tool_t,
)
from longview.suites.atr.preference import Step

D: Domain = "travel"
AIRLINES = ["Skyway", "Pelican Airlines", "Zephyr Jet", "Cardinal Air", "Summit Airways", "Bluebird Air"]
FAR_CITIES = ["Denver", "Boston", "Miami", "Phoenix", "Nashville", "San Diego", "Minneapolis", "Baltimore",
              "Salt Lake City", "Raleigh", "Kansas City", "Pittsburgh"]
SHORT_ROUTES = [("Milwaukee", "Chicago"), ("Philadelphia", "Washington"), ("San Diego", "Los Angeles"),
                ("Portland", "Seattle"), ("Providence", "Boston"), ("Baltimore", "New York"),
                ("Charlotte", "Raleigh"), ("Sacramento", "San Francisco")]
TRIP_CITIES = ["Santa Fe", "Savannah", "Quebec City", "Asheville", "Lisbon", "Kyoto", "Montreal", "Charleston"]
HOTELS = ["Harborview Inn", "The Wren", "Alder House", "Parkside Suites", "Meridian Hotel", "Cobblestone Lodge",
          "Foxglove Rooms", "The Station Hotel", "Granite Court", "Beacon Stay"]
STOP_NAMES = {
    "nature": ["Riverside Botanical Garden", "Ridge Trail Overlook", "Heron Marsh Preserve", "Cedar Falls Park"],
    "museum": ["City History Museum", "Old Mill Heritage Site", "Regional Art Museum", "Maritime Museum"],
    "live music": ["Blue Note Cellar", "Bandstand Square", "Riverboat Jazz Hall", "Fiddle & Bow Pub"],
    "food market": ["Central Market Hall", "Night Food Market", "Harbor Fish Market", "Spice Street Bazaar"],
    "shopping": ["Grand Arcade Mall", "Designer Outlet Row", "Main Street Boutiques"],
    "landmark": ["Clock Tower Plaza", "Observation Deck", "Cathedral Square", "Harbour Bridge Walk"],
}



def far(ctx: Ctx, av: Avoid | None = None) -> str:
    options = [c for c in FAR_CITIES if c != ctx.persona.city]
    return av.pick(ctx.rng, options) if av else ctx.rng.choice(options)


def flights(ctx: Ctx, origin: str, dest: str, day: int, n: int, airlines: list[str] | None = None) -> list[tuple[str, dict]]:
    names = airlines or ctx.rng.sample(AIRLINES, n)
    return [(f"{a} {origin} {dest}", {"airline": a, "origin": origin, "destination": dest,
             "departure_date": ctx.date(day), "departure_time": f"{ctx.rng.choice([7, 9, 13, 16, 19]):02d}:{ctx.rng.choice(['05', '30', '45'])}",
             "price": round(ctx.rng.uniform(180, 420), 2), "stops": 0, "available_seats": ctx.rng.randint(4, 40)})
            for a in names]


def hotels(ctx: Ctx, city: str, n: int, av: Avoid | None = None) -> list[tuple[str, dict]]:
    names = av.sample(ctx.rng, HOTELS, n) if av else ctx.rng.sample(HOTELS, n)
    return [(nm, {"name": nm, "location": city, "price_per_night": round(ctx.rng.uniform(120, 260), 2),
                  "rating": round(ctx.rng.uniform(3.9, 4.6), 1), "available_rooms": ctx.rng.randint(2, 9),
                  "max_guests_per_room": 4, "amenities": sorted(ctx.rng.sample(["wifi", "gym", "breakfast", "pool", "desk"], 2))})
            for nm in names]


def stop_pool(ctx: Ctx, city: str, themes: list[str], av: Avoid | None) -> list[tuple[str, dict]]:
    out = []
    for theme in themes:
        names = [n for n in STOP_NAMES[theme] if not av or (av.ok(n) and av.ok(theme))]
        if not names:
            continue
        nm = ctx.rng.choice(names)
        out.append((f"{nm} {city}", {"name": nm, "location": city, "tags": [theme],
                                     "rating": round(ctx.rng.uniform(4.0, 4.6), 1), "visit_duration_hours": ctx.rng.choice([1, 2, 3])}))
    return out


def trip_with_stops(ctx: Ctx, av: Avoid | None) -> tuple[list[dict], str, str, list[dict]]:
    """A planned trip and its stops; each stop names the trip so the trip id can be found."""
    city = av.pick(ctx.rng, TRIP_CITIES) if av else ctx.rng.choice(TRIP_CITIES)
    tid = ctx.uid("trip", city)
    themes = ctx.rng.sample(["landmark", "shopping"] + ([] if av else ["museum", "nature"]), 2)
    pool = stop_pool(ctx, city, themes, av) or stop_pool(ctx, city, ["landmark"], None)
    stops = [ref(ctx.uid("stop", n), "trip_stop", **a, trip_id=tid) for n, a in pool]
    trip = ref(tid, "trip", destination=city, duration_days=3, stop_ids=[s["id"] for s in stops], status="planned",
               start_date=ctx.date(20))
    return [trip, *stops], tid, city, stops


def route(ctx: Ctx) -> tuple[str, str]:
    mine = [r for r in SHORT_ROUTES if r[0] == ctx.persona.city]
    return mine[0] if mine else ctx.rng.choice(SHORT_ROUTES)


# ---- scenarios ------------------------------------------------------------------------------


def sc_flight(ctx: Ctx, v: Variant) -> Scenario:
    dest, day = far(ctx), ctx.rng.randint(10, 30)
    base = flights(ctx, ctx.persona.city, dest, day, 4)
    refs, gold = arrange(ctx, v, base, "flt", "flight_offer")
    text = ctx.rng.choice([f"I need to fly from {ctx.persona.city} to {dest} on {ctx.spoken(ctx.date(day))}. Book it.",
                           f"Book me a flight to {dest} for {ctx.spoken(ctx.date(day))}, leaving from {ctx.persona.city}."])
    disc = [Step(tool="search_flights", arguments={"origin": ctx.persona.city, "destination": dest, "passenger_count": 1})]
    return Scenario(refs, text, disc, {"book_flight": {}}, "flight_offer", gold[0])


def sc_seat(ctx: Ctx, v: Variant) -> Scenario:
    dest, day = far(ctx), ctx.rng.randint(10, 30)
    (nm, a), = flights(ctx, ctx.persona.city, dest, day, 1)
    fid = ctx.uid("flt", nm)
    text = f"Book the {a['airline']} flight from {ctx.persona.city} to {dest} on {ctx.spoken(ctx.date(day))}."
    disc = [Step(tool="search_flights", arguments={"origin": ctx.persona.city, "destination": dest, "passenger_count": 1})]
    return Scenario([ref(fid, "flight_offer", **a)], text, disc, {"book_flight": {"flight_offer_id": fid}},
                    "flight_offer", v.knobs["gold"])


def sc_hotel(ctx: Ctx, v: Variant) -> Scenario:
    city, day = far(ctx), ctx.rng.randint(10, 30)
    nights = ctx.rng.choice([2, 3, 4])
    base = hotels(ctx, city, 4)
    for _, a in base:
        a.update(check_in_date=ctx.date(day), check_out_date=ctx.date(day + nights))
    refs, gold = arrange(ctx, v, base, "hotel", "hotel_offer")
    text = f"I'll be in {city} from {ctx.spoken(ctx.date(day))} to {ctx.spoken(ctx.date(day + nights))}. Book me a place to stay."
    disc = [Step(tool="search_hotels", arguments={"location": city, "guest_count": 1, "room_count": 1})]
    return Scenario(refs, text, disc, {"book_hotel": {}}, "hotel_offer", gold[0])


def ground(ctx: Ctx, origin: str, dest: str, day: int, mode: str, price: float) -> tuple[str, dict]:
    return (f"{mode} {origin} {dest}", {"mode": mode, "origin": origin, "destination": dest, "departure_date": ctx.date(day),
            "departure_time": f"{ctx.rng.choice([8, 10, 12, 15]):02d}:15", "price": price, "available_seats": ctx.rng.randint(5, 60),
            "duration_hours": round(ctx.rng.uniform(1.5, 3.5), 1)})


def sc_train_vs_flight(ctx: Ctx, v: Variant) -> Scenario:
    o, d = route(ctx)
    day = ctx.rng.randint(7, 21)
    fl = [ref(ctx.uid("flt", n), "flight_offer", **a) for n, a in flights(ctx, o, d, day, 2)]
    tr = ground(ctx, o, d, day, "train", round(ctx.rng.uniform(40, 90), 2))
    train = ref(ctx.uid("gnd", tr[0]), "transport_offer", **tr[1])
    cheapest = min(fl, key=lambda r: (r["attributes"]["price"], r["id"]))
    text = f"I need to get from {o} to {d} on {ctx.spoken(ctx.date(day))} for a meeting. Book my travel."
    disc = [Step(tool="search_flights", arguments={"origin": o, "destination": d, "passenger_count": 1}),
            Step(tool="search_ground_transport", arguments={"origin": o, "destination": d, "passenger_count": 1})]
    args = {"book_flight": {"flight_offer_id": cheapest["id"]}, "book_ground_transport": {"transport_offer_id": train["id"]}}
    return Scenario([*fl, train], text, disc, args, None)


def sc_ground_pick(ctx: Ctx, v: Variant) -> Scenario:
    o, d = route(ctx)
    day = ctx.rng.randint(7, 21)
    base = [ground(ctx, o, d, day, m, 50.0) for m in ("train", "bus", "shuttle van", "bus")]
    base = [(f"{n} {i}", a) for i, (n, a) in enumerate(base)]
    refs, gold = arrange(ctx, v, base, "gnd", "transport_offer")
    text = f"Get me from {o} to {d} over land on {ctx.spoken(ctx.date(day))}; book a seat."
    disc = [Step(tool="search_ground_transport", arguments={"origin": o, "destination": d, "passenger_count": 1})]
    return Scenario(refs, text, disc, {"book_ground_transport": {}}, "transport_offer", gold[0])


def sc_stops(ctx: Ctx, v: Variant) -> Scenario:
    city = ctx.rng.choice(TRIP_CITIES)
    theme = v.knobs["gold"]
    others = [t for t in STOP_NAMES if t != theme]
    base = [(f"{nm} {city}", {"name": nm, "location": city, "tags": [theme], "visit_duration_hours": 2})
            for nm in ctx.rng.sample(STOP_NAMES[theme], 2)]
    for t in ctx.rng.sample(others, 3):
        nm = ctx.rng.choice(STOP_NAMES[t])
        base.append((f"{nm} {city}", {"name": nm, "location": city, "tags": [t], "visit_duration_hours": 2}))
    refs, gold = arrange(ctx, v, base, "stop", "trip_stop", n_gold=2)
    days = ctx.rng.choice([2, 3])
    text = f"Put together a {days}-day plan for my trip to {city}, with the stops worth making."
    disc = [Step(tool="search_trip_stops", arguments={"destination": city})]
    return Scenario(refs, text, disc, {"plan_trip": {"destination": city, "duration_days": days}}, "trip_stop", sorted(gold))


def sc_replan(ctx: Ctx, v: Variant) -> Scenario:
    refs, tid, city, stops = trip_with_stops(ctx, None)
    broken = stops[0]
    broken["attributes"]["stop_status"] = "disrupted"
    text = f"{broken['attributes']['name']} on my {city} trip is closed that week. Rework the plan."
    args = {"replan_trip": {"trip_id": tid, "disrupted_item_id": broken["id"],
                            "replanning_goal": f"work around the closure of {broken['attributes']['name']}"}}
    return Scenario(refs, text, [Step(tool="search_trip_stops", arguments={"destination": city})], args, "trip",
                    v.knobs["gold"])


def sc_track(ctx: Ctx, v: Variant) -> Scenario:
    refs, tid, city, _ = trip_with_stops(ctx, None)
    text = ctx.rng.choice([f"Keep watch on my {city} trip.", f"Follow my {city} itinerary for anything I should know."])
    return Scenario(refs, text, [Step(tool="search_trip_stops", arguments={"destination": city})],
                    {"track_trip_updates": {"trip_id": tid}}, "trip", v.knobs["gold"])


DESTS = ["Outer Banks", "Door County", "Sedona", "Mackinac Island", "Big Sur", "Lake Placid", "Bar Harbor",
         "Taos", "Key West", "Jackson Hole", "Napa Valley", "Cape May"]


def sc_shortlist(ctx: Ctx, v: Variant) -> Scenario:
    base = [(nm, {"name": nm, "region": "USA", "tags": ["getaway"]}) for nm in ctx.rng.sample(DESTS, 5)]
    refs, gold = arrange(ctx, v, base, "dest", "destination", n_gold=2)
    season = ctx.rng.choice(["spring", "fall", "long-weekend"])
    text = f"Suggest a few places for a {season} getaway and shortlist the ones worth considering."
    return Scenario(refs, text, [Step(tool="search_destinations")], {"shortlist_destinations": {}}, "destination",
                    sorted(gold))


def _booked(ctx: Ctx, kind: str) -> tuple[list[dict], str, str]:
    dest, day = far(ctx), ctx.rng.randint(10, 30)
    if kind == "flight":
        (nm, a), = flights(ctx, ctx.persona.city, dest, day, 1)
        oid, bid = ctx.uid("flt", nm), ctx.uid("bkg", nm)
        a["booking_id"] = bid
        return [ref(oid, "flight_offer", **a), ref(bid, "flight_booking", offer_id=oid, status="confirmed")], bid, \
            f"Plans changed. Cancel my flight to {dest} on {ctx.spoken(ctx.date(day))}."
    (nm, a), = hotels(ctx, dest, 1)
    oid, bid = ctx.uid("hotel", nm), ctx.uid("bkg", nm)
    a.update(booking_id=bid, check_in_date=ctx.date(day), check_out_date=ctx.date(day + 2))
    return [ref(oid, "hotel_offer", **a), ref(bid, "hotel_booking", offer_id=oid, status="confirmed")], bid, \
        f"My {dest} trip is off. Cancel the hotel I booked there for {ctx.spoken(ctx.date(day))}."


def sc_cancel_flight(ctx: Ctx, v: Variant) -> Scenario:
    refs, bid, text = _booked(ctx, "flight")
    a = refs[0]["attributes"]
    disc = [Step(tool="search_flights", arguments={"origin": a["origin"], "destination": a["destination"], "passenger_count": 1})]
    return Scenario(refs, text, disc, {"cancel_flight_booking": {"booking_id": bid}}, "flight_booking")


def sc_cancel_hotel(ctx: Ctx, v: Variant) -> Scenario:
    refs, bid, text = _booked(ctx, "hotel")
    a = refs[0]["attributes"]
    disc = [Step(tool="search_hotels", arguments={"location": a["location"], "guest_count": 1, "room_count": 1})]
    return Scenario(refs, text, disc, {"cancel_hotel_booking": {"booking_id": bid}}, "hotel_booking")


# ---- templates ------------------------------------------------------------------------------

TEMPLATES: list[Template] = [
    pick_t("travel.flight_pick", D, "book_flight", "flight_offer_id", sc_flight, (
        V("nonstop", ["busy", "work_travel", "comfort"], "flight layovers",
          "{P} only flies nonstop.", "Book me nonstop flights; I don't do layovers.",
          "Book the cheapest flight even with a connection.", ["nonstop", "direct"],
          attr="stops", gold=0, decoys=[1, 2], default="cheapest", price=260.0),
        V("morning", ["early"], "flight departure times",
          "{P} takes morning flights whenever one is available.", "I want to fly out in the morning whenever I can.",
          "Book the cheapest flight at any hour.", ["morning"],
          attr="departure_period", gold="morning", decoys=["evening", "red-eye", "afternoon"], default="cheapest",
          price=260.0),
        V("airline", ["work_travel"], "airline choice",
          "{P} flies Cardinal Air to keep {pos} frequent-flyer status.",
          "Put me on Cardinal Air; I'm keeping my status with them.",
          "Book the cheapest airline.", ["cardinal"],
          attr="airline", gold="Cardinal Air", decoys=["Skyway", "Pelican Airlines", "Zephyr Jet"], default="cheapest",
          price=260.0),
    )),
    enum_t("travel.seat", D, "book_flight", "seat_preference", sc_seat, (
        V("aisle", ["comfort", "senior"], "airplane seats",
          "{P} always sits on the aisle when flying.", "Get me an aisle seat on every flight.",
          "Leave the seat to the airline.", ["aisle"], gold="aisle"),
        V("window", ["outdoors", "culture", "night"], "airplane seats",
          "{P} takes a window seat on every flight.", "I always want the window seat when I fly.",
          "Leave the seat to the airline.", ["window"], gold="window"),
    )),
    pick_t("travel.hotel_pick", D, "book_hotel", "hotel_offer_id", sc_hotel, (
        V("kitchenette", ["cooking", "family", "vegetarian", "health"], "hotel kitchen access",
          "{P} books lodging with a kitchenette so {p} can cook for {obj}self.",
          "Wherever I stay, I need a kitchenette so I can make my own meals.",
          "Book the highest-rated hotel.", ["kitchenette", "kitchen"],
          attr="amenities", op="contains", gold="kitchenette"),
        V("quiet_area", ["quiet", "early"], "hotel neighbourhood",
          "{P} picks hotels on quiet residential streets.",
          "I want to stay somewhere on a quiet residential street, away from nightlife.",
          "Book the highest-rated hotel wherever it is.", ["residential", "quiet"],
          attr="neighborhood_profile", gold="quiet residential street",
          decoys=["nightlife district", "next to the convention center"]),
        V("pets", ["pets"], "pet-friendly lodging",
          "{P} only books places that take {pos} dog.",
          "My dog travels with me, so the place has to take pets.",
          "Book the highest-rated hotel.", ["pet", "dog"], attr="pets_allowed", gold=True, decoys=[False]),
        V("guesthouse", ["local", "culture"], "type of lodging",
          "{P} stays in small family-run guesthouses rather than big hotels.",
          "I'd rather stay in a small family-run guesthouse than a big hotel.",
          "Book the highest-rated hotel.", ["guesthouse", "family", "run"],
          attr="category", gold="family-run guesthouse", decoys=["chain hotel", "resort"]),
    )),
    tool_t("travel.train_not_fly", D, "train", "book_ground_transport", sc_train_vs_flight, (
        V("train", ["eco", "comfort"], "short-distance travel",
          "For trips that take a few hours by rail, {p} takes the train instead of flying.",
          "If a train can get me there in a few hours, book the train, not a flight.",
          "Book the cheapest flight.", ["train", "rail"], default_tool="book_flight"),
    )),
    pick_t("travel.ground_pick", D, "book_ground_transport", "transport_offer_id", sc_ground_pick, (
        V("train", ["eco", "comfort", "work_travel"], "train or bus",
          "For ground travel between cities, {p} goes by train over buses.",
          "Between cities, put me on a train rather than a bus.",
          "Book the cheapest option.", ["train", "rail"],
          attr="mode", gold="train", decoys=["bus", "shuttle van"], default="cheapest", price=45.0),
    )),
    pick_t("travel.stop_pick", D, "plan_trip", "selected_stop_ids", sc_stops, (
        V("nature", ["outdoors"], "sightseeing stops",
          "On city trips, {p} wants the itinerary built around parks and nature spots.",
          "When I visit a city, plan it around parks, gardens and nature spots.",
          "Include the highest-rated stop.", ["nature", "park", "garden"], attr="tags", op="contains", gold="nature"),
        V("museum", ["culture"], "sightseeing stops",
          "{P} builds trips around museums and heritage sites.",
          "When I travel, plan the days around museums and heritage sites.",
          "Include the highest-rated stop.", ["museum", "heritage"], attr="tags", op="contains", gold="museum"),
        V("music", ["music"], "sightseeing stops",
          "{P} plans trips around live music venues.", "On a trip, I want the evenings at live music spots.",
          "Include the highest-rated stop.", ["music"], attr="tags", op="contains", gold="live music"),
        V("markets", ["cooking"], "sightseeing stops",
          "{P} builds trips around food markets.", "When I travel, plan the days around the food markets.",
          "Include the highest-rated stop.", ["market"], attr="tags", op="contains", gold="food market"),
    )),
    enum_t("travel.replan_type", D, "replan_trip", "replacement_type", sc_replan, (
        V("single", ["organised", "cautious", "culture"], "trip replanning after disruptions",
          "When one stop on a trip falls through, {p} wants only that stop replaced and the rest left alone.",
          "If one stop on a trip falls through, swap out just that one and leave the rest of my plan as it is.",
          "Rework every stop of the plan.", ["single", "just"], gold="swap_single_stop", default="swap_all_stops"),
    )),
    enum_t("travel.track_scope", D, "track_trip_updates", "update_scope", sc_track, (
        V("price", ["budget", "student"], "trip alerts",
          "{P} only wants trip alerts about price changes.", "For trips, just alert me when prices change.",
          "Report every update.", ["price"], gold="price_change"),
        V("schedule", ["busy", "work_travel", "family"], "trip alerts",
          "{P} only wants trip alerts when timings change.", "For my trips, only tell me when the timing changes.",
          "Report every update.", ["timing", "schedule"], gold="schedule_change"),
    )),
    pick_t("travel.shortlist", D, "shortlist_destinations", "destination_ids", sc_shortlist, (
        V("uncrowded", ["quiet", "outdoors"], "vacation destination ideas",
          "{P} only considers getaway spots that stay uncrowded.",
          "For getaways, only suggest places that aren't overrun with crowds.",
          "Shortlist the best-rated destinations.", ["crowd", "uncrowded"],
          attr="crowd_level", gold="low", decoys=["high", "very high"]),
        V("coastal", ["outdoors", "family"], "vacation destination ideas",
          "{P} wants getaways on the coast.", "For a getaway, I want to be by the sea.",
          "Shortlist the best-rated destinations.", ["coast", "sea", "beach"],
          attr="setting", gold="coastal", decoys=["mountains", "desert", "countryside"]),
    )),
    confirm_t("travel.confirm_cancel_flight", D, "travel_cancel", "cancel_flight_booking", sc_cancel_flight, (
        V("confirm", ["cautious", "work_travel"], "cancelling flights",
          "{P} wants to approve any flight cancellation before it is made.",
          "Check with me before you cancel any flight of mine.",
          "Cancel the flight right away.", ["approve", "check"]),
    )),
    confirm_t("travel.confirm_cancel_hotel", D, "travel_cancel", "cancel_hotel_booking", sc_cancel_hotel, (
        V("confirm", ["cautious", "budget"], "cancelling hotel stays",
          "{P} wants a final word before a hotel booking is cancelled.",
          "Let me have the final word before any hotel booking is cancelled.",
          "Cancel the hotel right away.", ["final", "word"]),
    )),
]


# ---- learning tasks -------------------------------------------------------------------------


def lk_flight(ctx: Ctx, av: Avoid) -> LearningDraft:
    dest, day = far(ctx, av), ctx.rng.randint(8, 30)
    refs = [ref(ctx.uid("flt", n), "flight_offer", **a) for n, a in flights(ctx, ctx.persona.city, dest, day, 3)]
    want = ctx.rng.choice(refs)
    seat = av.enum(ctx.rng, "book_flight.seat_preference", ["middle"])
    args = {"flight_offer_id": want["id"]} | ({"seat_preference": seat} if seat else {})
    return LearningDraft(f"Get me to {dest}", {"airline": want["attributes"]["airline"], "date": ctx.date(day)}
                         | ({"seat": seat} if seat else {}), refs,
                         [Step(tool="search_flights", arguments={"origin": ctx.persona.city, "destination": dest, "passenger_count": 1}),
                          Step(tool="book_flight", arguments=args)])


def lk_hotel(ctx: Ctx, av: Avoid) -> LearningDraft:
    city, day = far(ctx, av), ctx.rng.randint(8, 30)
    refs = [ref(ctx.uid("hotel", n), "hotel_offer", **a) for n, a in hotels(ctx, city, 3, av)]
    want = ctx.rng.choice(refs)
    return LearningDraft(f"Somewhere to stay in {city}", {"hotel": want["attributes"]["name"], "check_in": ctx.date(day)}, refs,
                         [Step(tool="search_hotels", arguments={"location": city, "guest_count": 1, "room_count": 1}),
                          Step(tool="book_hotel", arguments={"hotel_offer_id": want["id"]})])


def lk_ground(ctx: Ctx, av: Avoid) -> LearningDraft:
    o, d = route(ctx)
    day = ctx.rng.randint(5, 20)
    modes = [m for m in ("bus", "shuttle van") if av.ok(m)] or ["bus"]
    base = [ground(ctx, o, d, day, m, round(ctx.rng.uniform(20, 60), 2)) for m in modes]
    refs = [ref(ctx.uid("gnd", f"{n} {i}"), "transport_offer", **a) for i, (n, a) in enumerate(base)]
    want = refs[0]
    return LearningDraft(f"Getting to {d}", {"mode": want["attributes"]["mode"], "date": ctx.date(day)}, refs,
                         [Step(tool="search_ground_transport", arguments={"origin": o, "destination": d, "passenger_count": 1}),
                          Step(tool="book_ground_transport", arguments={"transport_offer_id": want["id"]})])


def lk_plan(ctx: Ctx, av: Avoid) -> LearningDraft:
    city = av.pick(ctx.rng, TRIP_CITIES)
    refs = [ref(ctx.uid("stop", n), "trip_stop", **a) for n, a in stop_pool(ctx, city, ["landmark", "shopping"], av)]
    chosen = [r["id"] for r in refs if r["attributes"]["name"]][:1]
    names = [r["attributes"]["name"] for r in refs if r["id"] in chosen]
    return LearningDraft(f"Two days in {city}", {"must_see": names, "days": 2}, refs,
                         [Step(tool="search_trip_stops", arguments={"destination": city}),
                          Step(tool="plan_trip", arguments={"destination": city, "duration_days": 2, "selected_stop_ids": chosen})])


def lk_replan(ctx: Ctx, av: Avoid) -> LearningDraft:
    refs, tid, city, stops = trip_with_stops(ctx, av)
    broken = stops[0]
    broken["attributes"]["stop_status"] = "disrupted"
    rtype = av.enum(ctx.rng, "replan_trip.replacement_type", ["swap_all_stops"])
    args = {"trip_id": tid, "disrupted_item_id": broken["id"], "replanning_goal": "keep the trip on track"}
    return LearningDraft(f"News about my {city} trip", {"affected_stop": broken["attributes"]["name"]}, refs,
                         [Step(tool="track_trip_updates", arguments={"trip_id": tid}),
                          Step(tool="replan_trip", arguments=args | ({"replacement_type": rtype} if rtype else {}))])


def lk_shortlist(ctx: Ctx, av: Avoid) -> LearningDraft:
    names = av.sample(ctx.rng, DESTS, 3)
    refs = [ref(ctx.uid("dest", n), "destination", name=n, region="USA", tags=["getaway"]) for n in names]
    pick = sorted(r["id"] for r in refs[:2])
    return LearningDraft("Ideas for a long weekend away", {"candidates": [names[0], names[1]]}, refs,
                         [Step(tool="search_destinations"), Step(tool="shortlist_destinations", arguments={"destination_ids": pick})])


def lk_cancel_flight(ctx: Ctx, av: Avoid) -> LearningDraft:
    refs, bid, _ = _booked(ctx, "flight")
    a = refs[0]["attributes"]
    return LearningDraft("A trip is off", {"flight_to": a["destination"], "date": a["departure_date"]}, refs,
                         [Step(tool="search_flights", arguments={"origin": a["origin"], "destination": a["destination"], "passenger_count": 1}),
                          Step(tool="cancel_flight_booking", arguments={"booking_id": bid})])


def lk_cancel_hotel(ctx: Ctx, av: Avoid) -> LearningDraft:
    refs, bid, _ = _booked(ctx, "hotel")
    a = refs[0]["attributes"]
    return LearningDraft("Undo a hotel booking", {"hotel": a["name"], "city": a["location"]}, refs,
                         [Step(tool="search_hotels", arguments={"location": a["location"], "guest_count": 1, "room_count": 1}),
                          Step(tool="cancel_hotel_booking", arguments={"booking_id": bid})])


def lk_watch(ctx: Ctx, av: Avoid) -> LearningDraft:
    refs, tid, city, _ = trip_with_stops(ctx, av)
    scope = av.enum(ctx.rng, "track_trip_updates.update_scope", ["all", "critical"])
    return LearningDraft(f"Anything new about {city}?", {"trip": city}, refs,
                         [Step(tool="search_trip_stops", arguments={"destination": city}),
                          Step(tool="track_trip_updates", arguments={"trip_id": tid} | ({"update_scope": scope} if scope else {}))])


LEARNING: list[LearningKind] = [
    LearningKind("travel.flight", D, ("search_flights", "book_flight"), lk_flight),
    LearningKind("travel.hotel", D, ("search_hotels", "book_hotel"), lk_hotel),
    LearningKind("travel.ground", D, ("search_ground_transport", "book_ground_transport"), lk_ground),
    LearningKind("travel.plan", D, ("search_trip_stops", "plan_trip"), lk_plan),
    LearningKind("travel.replan", D, ("track_trip_updates", "replan_trip"), lk_replan),
    LearningKind("travel.shortlist", D, ("search_destinations", "shortlist_destinations"), lk_shortlist),
    LearningKind("travel.cancel_flight", D, ("search_flights", "cancel_flight_booking"), lk_cancel_flight),
    LearningKind("travel.cancel_hotel", D, ("search_hotels", "cancel_hotel_booking"), lk_cancel_hotel),
    LearningKind("travel.watch", D, ("search_trip_stops", "track_trip_updates"), lk_watch),
]
