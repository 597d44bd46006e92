"""Commerce templates (products, orders, subscriptions) and commerce learning tasks."""

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

D: Domain = "commerce"
BRANDS = ["Northfield", "Copper Kettle", "Harbor Lane", "Sunpeak", "Bluestem", "Oakhaven", "Greywell",
          "Marigold", "Tidewater", "Cinderhill", "Larkspur", "Redwing", "Juniper Row", "Stonebridge"]
SERVICES = [("StreamNest", "video streaming"), ("Melody Cloud", "music streaming"), ("FreshCrate", "meal kits"),
            ("PageTurn", "audiobooks"), ("CloudVault", "photo storage"), ("FitLoop", "workout classes"),
            ("Morning Ledger", "digital newspaper"), ("PuzzleBox", "game subscription")]
PROBLEMS = ["cracked", "with a missing part", "in the wrong size", "not working at all", "badly scratched"]
TIERS = ["basic", "pro", "premium", "enterprise"]



def products(ctx: Ctx, item: str, n: int, price: float) -> list[tuple[str, dict]]:
    brands = ctx.rng.sample(BRANDS, n)
    return [(f"{b} {item.title()}", {"name": f"{b} {item.title()}", "category": item,
             "price": round(price * ctx.rng.uniform(0.8, 1.3), 2), "rating": round(ctx.rng.uniform(3.9, 4.6), 1),
             "review_count": ctx.rng.randint(40, 3000), "stock_status": "in_stock"}) for b in brands]


def product_with_order(ctx: Ctx, item: str, status: str) -> tuple[list[dict], str]:
    """A bought product and its order; the product names the order so the agent can find it."""
    (name, attrs), = products(ctx, item, 1, 35.0)
    oid = ctx.uid("ord", name)
    pid = ctx.uid("prod", name)
    attrs.update(order_id=oid, order_status=status, ordered_on=ctx.date(-6))
    order = ref(oid, "order", product_id=pid, product_name=name, quantity=1, status=status, order_date=ctx.date(-6))
    return [ref(pid, "product", **attrs), order], oid


def subscriptions(ctx: Ctx, n: int, plan: str = "pro", av: Avoid | None = None) -> list[dict]:
    out = []
    for name, kind in (av.sample(ctx.rng, SERVICES, n) if av else ctx.rng.sample(SERVICES, n)):
        out.append(ref(ctx.uid("sub", name), "subscription", name=name, service=kind, plan=plan, status="active",
                       monthly_price=round(ctx.rng.uniform(6, 30), 2), renews_on=ctx.date(ctx.rng.randint(5, 25))))
    return out


# ---- scenarios ------------------------------------------------------------------------------


def sc_product(ctx: Ctx, v: Variant) -> Scenario:
    item = ctx.rng.choice(v.knobs["items"])
    refs, gold = arrange(ctx, v, products(ctx, item, 4, v.knobs.get("price", 20.0)), "prod", "product")
    text = ctx.rng.choice([f"We're out of {item}. Could you order some for me?",
                           f"Please get {item} delivered this week, one unit is plenty.",
                           f"Order {item} for me, just one."])
    return Scenario(refs, text, [Step(tool="search_products", arguments={"category": item})],
                    {"place_order": {"quantity": 1}}, "product", gold[0])


def sc_return(ctx: Ctx, v: Variant) -> Scenario:
    item = ctx.rng.choice(["desk lamp", "blender", "rain jacket", "wireless speaker", "hiking boots", "cookware set"])
    refs, oid = product_with_order(ctx, item, "delivered")
    text = f"The {item} from my recent order arrived {ctx.rng.choice(PROBLEMS)}. Please start a return for it."
    return Scenario(refs, text, [Step(tool="search_products", arguments={"category": item})],
                    {"return_order": {"order_id": oid}}, "order", v.knobs["gold"])


def sc_plan(ctx: Ctx, v: Variant) -> Scenario:
    subs = subscriptions(ctx, 3, plan=v.knobs["current"])
    target = subs[0]
    name = target["attributes"]["name"]
    text = ctx.rng.choice(v.knobs["asks"]).format(s=name)
    return Scenario(subs, text, [Step(tool="review_recurring_charges")],
                    {"change_subscription_plan": {"subscription_id": target["id"]}}, "subscription", v.knobs["gold"])


def sc_stop_sub(ctx: Ctx, v: Variant) -> Scenario:
    subs = subscriptions(ctx, 3)
    sid, name = subs[0]["id"], subs[0]["attributes"]["name"]
    text = ctx.rng.choice([f"I haven't touched {name} in months. Stop it for me.",
                           f"{name} isn't getting any use these days; deal with it so I stop paying."])
    args = {t: {"subscription_id": sid} for t in ("pause_subscription", "cancel_subscription")}
    return Scenario(subs, text, [Step(tool="review_recurring_charges")], args, "subscription")


def sc_cancel_sub(ctx: Ctx, v: Variant) -> Scenario:
    subs = subscriptions(ctx, 3)
    sid, name = subs[0]["id"], subs[0]["attributes"]["name"]
    text = f"Cancel my {name} subscription, I'm done with it."
    return Scenario(subs, text, [Step(tool="review_recurring_charges")],
                    {"cancel_subscription": {"subscription_id": sid}}, "subscription")


def sc_cancel_order(ctx: Ctx, v: Variant) -> Scenario:
    item = ctx.rng.choice(["standing desk", "air fryer", "bookshelf", "camping stove", "printer"])
    refs, oid = product_with_order(ctx, item, "processing")
    text = f"I don't need the {item} anymore, I found one secondhand. Cancel that order."
    return Scenario(refs, text, [Step(tool="search_products", arguments={"category": item})],
                    {"cancel_order": {"order_id": oid}}, "order")


DISHES = [("lasagna", ["ricotta", "lasagna noodles", "crushed tomatoes"]),
          ("a lentil curry", ["red lentils", "coconut milk", "curry paste"]),
          ("banana bread", ["bananas", "flour", "walnuts"]),
          ("tacos", ["tortillas", "black beans", "salsa"])]


def sc_list(ctx: Ctx, v: Variant) -> Scenario:
    dish, items = ctx.rng.choice(DISHES)
    refs = []
    for it in items:
        (name, attrs), = products(ctx, it, 1, 5.0)
        refs.append(ref(ctx.uid("prod", name), "product", **attrs))
    day = ctx.spoken(ctx.date(3))
    text = f"I'm making {dish} on {day} and need {items[0]}, {items[1]} and {items[2]}. Take care of the groceries."
    args = {"build_shopping_list": {"items": items}, "place_order": {"product_id": refs[0]["id"], "quantity": 1}}
    return Scenario(refs, text, [Step(tool="search_products", arguments={"category": items[0]})], args, "product")


def sc_compare(ctx: Ctx, v: Variant) -> Scenario:
    item = ctx.rng.choice(["dishwasher", "robot vacuum", "espresso machine", "monitor", "washing machine"])
    base = products(ctx, item, 3, 400.0)
    refs = [ref(ctx.uid("prod", n), "product", **a) for n, a in base]
    top = max(refs, key=lambda r: (r["attributes"]["rating"], r["id"]))
    text = ctx.rng.choice([f"Our {item} just died. Get us a new one.", f"I need a new {item}, please buy one."])
    args = {"compare_products": {"product_ids": sorted(r["id"] for r in refs)},
            "place_order": {"product_id": top["id"], "quantity": 1}}
    return Scenario(refs, text, [Step(tool="search_products", arguments={"category": item})], args, "product")


def sc_track(ctx: Ctx, v: Variant) -> Scenario:
    item = ctx.rng.choice(["bike helmet", "office chair", "garden hose", "rice cooker"])
    refs, oid = product_with_order(ctx, item, "shipped")
    text = ctx.rng.choice([f"Keep an eye on the {item} I ordered.", f"Watch the delivery of my {item} for me."])
    return Scenario(refs, text, [Step(tool="search_products", arguments={"category": item})],
                    {"track_order": {"order_id": oid}}, "order", v.knobs["gold"])


def sc_charges(ctx: Ctx, v: Variant) -> Scenario:
    subs = subscriptions(ctx, 4)
    text = ctx.rng.choice(["Go over my recurring charges for me.", "Take a look at what I'm paying for every month."])
    return Scenario(subs, text, [], {"review_recurring_charges": {}}, None, v.knobs["gold"])


# ---- templates ------------------------------------------------------------------------------

TEMPLATES: list[Template] = [
    pick_t("commerce.product_pick", D, "place_order", "product_id", sc_product, (
        V("local_produce", ["local", "cooking"], "produce sourcing",
          "When {p} buys fresh produce, {p} wants it grown on nearby farms.",
          "For fruit and vegetables, I'd rather have whatever was grown on a farm near here.",
          "Order the best-reviewed produce wherever it was grown.", ["local", "farm", "nearby"],
          items=["heirloom tomatoes", "salad greens", "sweet corn", "peaches"], attr="sourcing", gold="local farm",
          decoys=["imported", "national supplier"], price=6.0),
        V("unscented", ["health"], "cleaning product scents",
          "{P} only buys cleaning and laundry products with no added fragrance.",
          "Anything for cleaning or laundry has to be unscented in our house.",
          "Buy the top-rated cleaner whatever its scent.", ["fragrance", "unscented", "scent"],
          items=["laundry detergent", "dish soap", "all-purpose cleaner"], attr="scent", gold="fragrance-free",
          decoys=["lavender", "citrus", "fresh linen"], price=9.0),
        V("fair_trade", ["eco"], "coffee purchases",
          "{P} buys only fair-trade certified coffee.",
          "When I buy coffee, it has to be fair-trade certified.",
          "Buy the best-rated coffee without regard to certification.", ["fair", "trade", "certified"],
          items=["whole-bean coffee", "ground coffee"], attr="certification", gold="fair trade",
          decoys=["none", "conventional"], price=14.0),
        V("refurbished", ["eco", "budget"], "buying electronics new or refurbished",
          "For electronics, {p} goes for certified refurbished units over brand-new ones.",
          "If it's a gadget, I'd rather get a certified refurbished one than a brand-new one.",
          "Buy the best-rated new device.", ["refurbished"],
          items=["tablet", "noise-cancelling headphones", "e-reader"], attr="condition", gold="certified refurbished",
          decoys=["new"], price=180.0),
        V("grain_free", ["pets"], "pet food",
          "{P} feeds {pos} pets grain-free food only.",
          "Food for my pets has to be grain-free.",
          "Buy the top-rated pet food of any formula.", ["grain"],
          items=["dog food", "cat food"], attr="formula", gold="grain-free",
          decoys=["chicken and rice", "classic recipe"], price=32.0),
        V("low_sugar", ["family", "health"], "snacks for the kids",
          "For the kids' snacks, {p} picks whichever option has the least added sugar.",
          "With snacks for my kids, always go for the one with the least added sugar.",
          "Buy the most popular snack.", ["sugar"],
          items=["granola bars", "fruit snacks", "yogurt tubes"], attr="added_sugar_g", op="min", range=[2.0, 14.0],
          price=5.0),
    )),
    enum_t("commerce.return_resolution", D, "return_order", "resolution_type", sc_return, (
        V("exchange", ["organised", "family", "cooking", "tech"], "how returns are settled",
          "When something {p} ordered turns out faulty, {p} has it swapped for the same item.",
          "If something I ordered arrives broken, I want it swapped for a working one of the same thing.",
          "Request a refund.", ["exchange", "swap", "replacement"], gold="exchange", default="refund"),
        V("store_credit", ["budget", "local"], "how returns are settled",
          "{P} settles returns with store credit because {p} shops with the same sellers again.",
          "For returns, just take store credit; I always end up buying from them again.",
          "Request a refund.", ["credit"], gold="store_credit", default="refund"),
    )),
    enum_t("commerce.plan_change", D, "change_subscription_plan", "new_plan", sc_plan, (
        V("to_basic", ["budget"], "subscription plan tiers",
          "When {p} scales back a subscription, {p} drops it all the way to the basic tier.",
          "If I'm cutting back on a subscription, put it all the way down on the basic plan.",
          "Move down one tier.", ["basic", "bottom"], gold="basic", default="pro", current="premium",
          asks=["{s} is costing me more than it's worth. Move me to a less expensive plan.",
                "Scale back my {s} plan a bit, I'm paying too much."]),
        V("to_premium", ["work_travel", "tech", "busy"], "subscription plan tiers",
          "When {p} upgrades a subscription, {p} goes straight to the premium tier.",
          "If I'm upgrading a subscription, skip the middle and go to premium.",
          "Move up one tier.", ["premium", "top"], gold="premium", default="pro", current="basic",
          asks=["I keep hitting the limits on {s}. Upgrade my plan.", "Bump up my {s} plan, it's not enough."]),
    )),
    tool_t("commerce.pause_not_cancel", D, "subscription_stop", "pause_subscription", sc_stop_sub, (
        V("pause", ["budget", "organised", "work_travel"], "unused subscriptions",
          "When {p} stops using a subscription, {p} puts it on hold instead of ending it.",
          "If I'm not using a subscription, put it on hold rather than ending it; I often come back.",
          "Cancel the subscription.", ["pause", "hold"], default_tool="cancel_subscription"),
    )),
    confirm_t("commerce.confirm_cancel_subscription", D, "subscription_stop", "cancel_subscription", sc_cancel_sub, (
        V("confirm", ["cautious", "budget"], "cancelling subscriptions",
          "{P} wants to approve any subscription cancellation before it happens.",
          "Check with me before you cancel any subscription of mine.",
          "Cancel the subscription right away.", ["approve", "check"]),
    )),
    confirm_t("commerce.confirm_cancel_order", D, "order_cancel", "cancel_order", sc_cancel_order, (
        V("confirm", ["cautious", "organised", "freelancer"], "cancelling orders",
          "{P} wants to okay every order cancellation before it goes through.",
          "Run any order cancellation past me before you do it.",
          "Cancel the order immediately.", ["okay", "past"]),
    )),
    tool_t("commerce.list_first", D, "grocery_list", "build_shopping_list", sc_list, (
        V("list", ["cooking", "organised", "budget"], "grocery planning for recipes",
          "For groceries for a recipe, {p} wants a shopping list drawn up rather than orders placed.",
          "When I'm cooking something, make me a list of the groceries first; don't buy them yet.",
          "Order the ingredients straight away.", ["list"], default_tool="place_order"),
    )),
    tool_t("commerce.compare_first", D, "compare_first", "compare_products", sc_compare, (
        V("compare", ["tech", "cautious", "budget"], "big-ticket appliance purchases",
          "Before {p} buys an appliance or gadget, {p} wants the options laid side by side.",
          "For any appliance, show me the options side by side before buying anything.",
          "Order the top-rated model directly.", ["compare", "side"], default_tool="place_order"),
    )),
    enum_t("commerce.track_scope", D, "track_order", "update_scope", sc_track, (
        V("critical", ["busy", "team_lead"], "delivery notifications",
          "{P} only wants to hear about serious delivery problems, not routine shipping updates.",
          "For deliveries, only tell me if something has actually gone wrong.",
          "Report every shipping update.", ["critical", "wrong", "serious"], gold="critical"),
        V("schedule", ["organised", "family", "early"], "delivery notifications",
          "For deliveries, {p} only wants updates when the arrival day shifts.",
          "With packages, I only need to know if the arrival day moves.",
          "Report every shipping update.", ["schedule", "arrival", "shift"], gold="schedule_change"),
    )),
    enum_t("commerce.charges_focus", D, "review_recurring_charges", "focus", sc_charges, (
        V("price_change", ["budget", "senior"], "reviewing recurring bills",
          "When {p} reviews recurring charges, {p} looks for price increases first.",
          "When you check my recurring bills, what I care about is which prices went up.",
          "Review all charges.", ["price", "increase"], gold="price_change"),
        V("usage", ["organised", "tech"], "reviewing recurring bills",
          "{P} judges subscriptions by how much each one actually gets used.",
          "When you look at my subscriptions, tell me how much I actually use each one.",
          "Review all charges.", ["usage"], gold="usage"),
    )),
]


# ---- learning tasks -------------------------------------------------------------------------

ITEMS = ["phone charger", "notebooks", "water bottle", "yoga mat", "printer paper", "batteries", "desk fan",
         "picture frames", "storage bins", "umbrella", "socks", "light bulbs", "tea kettle", "backpack"]


def _product_refs(ctx: Ctx, av: Avoid, n: int) -> tuple[list[dict], str]:
    item = av.pick(ctx.rng, ITEMS)
    refs = []
    for name, a in products(ctx, item, n, 15.0):
        refs.append(ref(ctx.uid("prod", name), "product", **a))
    return refs, item


def lk_buy(ctx: Ctx, av: Avoid) -> LearningDraft:
    refs, item = _product_refs(ctx, av, 3)
    want = ctx.rng.choice(refs)
    name = want["attributes"]["name"]
    return LearningDraft(f"Restock {item}", {"product": name, "quantity": 2}, refs, [
        Step(tool="search_products", arguments={"category": item}),
        Step(tool="place_order", arguments={"product_id": want["id"], "quantity": 2})])


def lk_return(ctx: Ctx, av: Avoid) -> LearningDraft:
    item = av.pick(ctx.rng, ITEMS)
    refs, oid = product_with_order(ctx, item, "delivered")
    res = av.enum(ctx.rng, "return_order.resolution_type", ["refund", "exchange", "store_credit"])
    args = {"order_id": oid} | ({"resolution_type": res} if res else {})
    params = {"item": item, "problem": ctx.rng.choice(PROBLEMS)} | ({"settle_as": res} if res else {})
    return LearningDraft("Something is wrong with a recent order", params, refs, [
        Step(tool="search_products", arguments={"category": item}), Step(tool="return_order", arguments=args)])


def lk_plan(ctx: Ctx, av: Avoid) -> LearningDraft:
    subs = subscriptions(ctx, 3, plan="pro", av=av)
    target = subs[0]
    plan = av.enum(ctx.rng, "change_subscription_plan.new_plan", ["basic", "premium", "enterprise"]) or "pro"
    return LearningDraft("Adjust one of my subscriptions", {"service": target["attributes"]["name"], "new_plan": plan},
                         subs, [Step(tool="review_recurring_charges"),
                                Step(tool="change_subscription_plan",
                                     arguments={"subscription_id": target["id"], "new_plan": plan})])


def lk_pause(ctx: Ctx, av: Avoid) -> LearningDraft:
    subs = subscriptions(ctx, 3, av=av)
    target = subs[0]
    until = ctx.date(ctx.rng.randint(30, 75))
    return LearningDraft("I'm away for two months and won't use one of my services",
                         {"service": target["attributes"]["name"], "until": until}, subs,
                         [Step(tool="review_recurring_charges"),
                          Step(tool="pause_subscription", arguments={"subscription_id": target["id"], "pause_until": until})])


def lk_cancel_sub(ctx: Ctx, av: Avoid) -> LearningDraft:
    subs = subscriptions(ctx, 3, av=av)
    target = subs[0]
    return LearningDraft("Trim my monthly bills", {"service_to_end": target["attributes"]["name"]}, subs,
                         [Step(tool="review_recurring_charges"),
                          Step(tool="cancel_subscription", arguments={"subscription_id": target["id"]})])


def lk_cancel_order(ctx: Ctx, av: Avoid) -> LearningDraft:
    item = av.pick(ctx.rng, ITEMS)
    refs, oid = product_with_order(ctx, item, "processing")
    return LearningDraft("Undo a purchase", {"item": item, "reason": "ordered it twice by mistake"}, refs,
                         [Step(tool="search_products", arguments={"category": item}),
                          Step(tool="cancel_order", arguments={"order_id": oid})])


def lk_list(ctx: Ctx, av: Avoid) -> LearningDraft:
    items = av.sample(ctx.rng, ["paper towels", "trash bags", "sponges", "toothpaste", "shampoo", "light bulbs",
                                "batteries", "tape"], 3)
    return LearningDraft("Plan a household supply run", {"items": items}, [],
                         [Step(tool="build_shopping_list", arguments={"items": items, "list_name": "Supply run"})])


def lk_compare(ctx: Ctx, av: Avoid) -> LearningDraft:
    item = av.pick(ctx.rng, ["office chair", "desk lamp", "bike lock", "suitcase", "rain jacket", "space heater"])
    refs = [ref(ctx.uid("prod", n), "product", **a) for n, a in products(ctx, item, 3, 60.0)]
    ids = sorted(r["id"] for r in refs)
    return LearningDraft(f"Help me think about a new {item}", {"item": item}, refs,
                         [Step(tool="search_products", arguments={"category": item}),
                          Step(tool="compare_products", arguments={"product_ids": ids})])


def lk_track(ctx: Ctx, av: Avoid) -> LearningDraft:
    item = av.pick(ctx.rng, ITEMS)
    refs, oid = product_with_order(ctx, item, "shipped")
    scope = av.enum(ctx.rng, "track_order.update_scope", ["all"])
    args = {"order_id": oid} | ({"update_scope": scope} if scope else {})
    return LearningDraft("Where is my package?", {"item": item}, refs,
                         [Step(tool="search_products", arguments={"category": item}), Step(tool="track_order", arguments=args)])


def lk_charges(ctx: Ctx, av: Avoid) -> LearningDraft:
    subs = subscriptions(ctx, 3, av=av)
    focus = av.enum(ctx.rng, "review_recurring_charges.focus", ["all", "tier"])
    return LearningDraft("Look at what I'm paying each month", {"services": len(subs)}, subs,
                         [Step(tool="review_recurring_charges", arguments={"focus": focus} if focus else {})])


LEARNING: list[LearningKind] = [
    LearningKind("commerce.buy", D, ("search_products", "place_order"), lk_buy),
    LearningKind("commerce.return", D, ("search_products", "return_order"), lk_return),
    LearningKind("commerce.plan", D, ("review_recurring_charges", "change_subscription_plan"), lk_plan),
    LearningKind("commerce.pause", D, ("review_recurring_charges", "pause_subscription"), lk_pause),
    LearningKind("commerce.cancel_sub", D, ("review_recurring_charges", "cancel_subscription"), lk_cancel_sub),
    LearningKind("commerce.cancel_order", D, ("search_products", "cancel_order"), lk_cancel_order),
    LearningKind("commerce.list", D, ("build_shopping_list",), lk_list),
    LearningKind("commerce.compare", D, ("search_products", "compare_products"), lk_compare),
    LearningKind("commerce.track", D, ("search_products", "track_order"), lk_track),
    LearningKind("commerce.charges", D, ("review_recurring_charges",), lk_charges),
]
