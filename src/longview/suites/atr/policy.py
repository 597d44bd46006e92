"""The scripted reference policy for ATR test sessions: pure functions, no I/O.

A reference agent acts only through tools: it runs :func:`discovery_plan`, collects the records the
calls returned with :func:`records_from_outputs`, then emits the batches :func:`decide` returns for
a behaviour (the rule's preference for the oracle, its counterfactual default for the passive
agent). The policy never reads a session's labels or gold value; objects are always chosen among
discovered records, so a wrong id fails in the environment exactly as it would for an LLM agent.

Imported ATRBench sessions carry no frame and no structured rules: :func:`oracle_behaviour` and
:func:`blind_default` derive behaviours for them, and :func:`infer_frame` their base arguments.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime, timedelta
from typing import Any, Literal

from longview.suites.atr.dataset import CheckType, Reference, StandingRule, TestSession
from longview.suites.atr.preference import Preference, Selector, Step, TaskFrame

CONFIRM_TOOL = "get_user_confirmation"


def discovery_plan(session: TestSession) -> list[Step]:
    """The READ calls that surface the session's candidates: the frame's, else the domain's."""
    if session.frame is not None:  # a frame's plan is complete, even when empty
        return [s.model_copy(deep=True) for s in session.frame.discovery]
    from longview.domains.personal import discovery_steps

    steps = discovery_steps(session.domain, session.local_env.references)
    return [s if isinstance(s, Step) else Step.model_validate(s if isinstance(s, dict) else s.model_dump()) for s in steps]


def _is_record(x: Any) -> bool:
    return (
        isinstance(x, dict)
        and isinstance(x.get("id"), str)
        and isinstance(x.get("type"), str)
        and isinstance(x.get("attributes"), dict)
    )


def records_from_outputs(outputs: list[Any]) -> list[dict]:
    """Every ``{"id","type","attributes"}`` record found at any depth, first sighting kept."""
    seen: dict[str, dict] = {}

    def walk(x: Any) -> None:
        if _is_record(x):
            seen.setdefault(x["id"], {"id": x["id"], "type": x["type"], "attributes": x["attributes"]})
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    for out in outputs:
        walk(out)
    return list(seen.values())


# ---- selection --------------------------------------------------------------------------------


def _value(rec: dict, attribute: str) -> Any:
    return rec["id"] if attribute == "id" else rec["attributes"].get(attribute)


def _contains(have: Any, want: Any) -> bool:
    if isinstance(have, list):
        return any(_contains(h, want) for h in have)
    if isinstance(have, str) and isinstance(want, str):
        return want.lower() in have.lower()
    return have == want


def _passes(rec: dict, sel: Selector) -> bool:
    v = _value(rec, sel.attribute)
    if sel.op == "eq":
        return v == sel.value
    if sel.op == "ne":
        return v != sel.value
    if sel.op == "contains":
        return v is not None and _contains(v, sel.value)
    if sel.op == "in":
        return v in (sel.value or [])
    raise ValueError(sel.op)


def select(records: list[dict], sel: Selector) -> list[dict]:
    """Records chosen by ``sel``, sorted by id (filters keep all passing, max/min keep one)."""
    pool = sorted(records, key=lambda r: r["id"])
    if sel.op in ("max", "min"):
        nums = [r for r in pool if isinstance(_value(r, sel.attribute), (int, float))]
        if not nums:
            return []
        best = (max if sel.op == "max" else min)(_value(r, sel.attribute) for r in nums)
        kept = [r for r in nums if _value(r, sel.attribute) == best]
        if sel.then is not None and len(kept) > 1:
            kept = select(kept, sel.then) or kept
        return kept[:1]
    kept = [r for r in pool if _passes(r, sel)]
    if sel.then is not None and len(kept) > 1:
        kept = select(kept, sel.then) or kept
    return kept


# ---- decisions --------------------------------------------------------------------------------


def _safe_fields(tool: str) -> set[str]:
    from longview.domains.personal import safe_fields

    return set(safe_fields(tool))


def decision_call(session: TestSession, behaviour: Preference, records: list[dict]) -> Step:
    """The decision call: the frame's base arguments for the tool plus the decision slot."""
    frame = session.frame or infer_frame(session, [behaviour.tool])
    args = dict(frame.arguments.get(behaviour.tool, {}))
    if behaviour.param and behaviour.select is not None:
        types = {frame.candidate_type} if frame.candidate_type else set(PARAM_TYPES.get(behaviour.param, ()))
        pool = [r for r in records if not types or r["type"] in types]
        ids = [r["id"] for r in select(pool, behaviour.select)]
        if ids:
            args[behaviour.param] = ids if behaviour.param.endswith("_ids") else ids[0]
    elif behaviour.param and behaviour.value is not None:
        args[behaviour.param] = behaviour.value
    elif behaviour.param:
        args.pop(behaviour.param, None)  # the default leaves an optional slot out
    if session.frame is None and args.get("update_action") == "create_entry":
        args.pop("entry_id", None)  # a new tracker entry gets its id from the tool
    return Step(tool=behaviour.tool, arguments=args)


def decide(session: TestSession, behaviour: Preference, records: list[dict]) -> list[list[Step]]:
    """Batches emitted after discovery: [confirmation] when ``behaviour.confirm``, then the call."""
    call = decision_call(session, behaviour, records)
    batches: list[list[Step]] = []
    if behaviour.confirm:
        safe = _safe_fields(call.tool)
        params = {k: v for k, v in call.arguments.items() if k in safe}
        batches.append([Step(tool=CONFIRM_TOOL, arguments={"target_tool": call.tool, "target_params": params})])
    batches.append([call])
    return batches


# ---- imported ATRBench sessions ---------------------------------------------------------------

# Where an id slot's objects live, by parameter name (ATRBench's reference types).
PARAM_TYPES: dict[str, tuple[str, ...]] = {
    "product_id": ("product",),
    "product_ids": ("product",),
    "order_id": ("order", "product"),
    "subscription_id": ("subscription",),
    "restaurant_id": ("restaurant",),
    "reservation_id": ("restaurant_reservation", "reservation"),
    "event_id": ("event", "calendar_event"),
    "booking_id": ("event_booking", "flight_booking", "hotel_booking", "transport_booking", "booking"),
    "provider_id": ("service_provider",),
    "appointment_id": ("service_appointment", "appointment"),
    "flight_offer_id": ("flight_offer",),
    "hotel_offer_id": ("hotel_offer",),
    "transport_offer_id": ("transport_offer",),
    "destination_ids": ("destination",),
    "selected_stop_ids": ("trip_stop",),
    "selected_alternative_stop_ids": ("trip_stop",),
    "trip_id": ("trip",),
    "message_ids": ("message",),
    "label_ids": ("label",),
    "folder_id": ("folder", "message_folder", "file_folder"),
    "draft_id": ("draft",),
    "file_ids": ("file",),
    "document_id": ("document",),
    "tracker_id": ("tracker",),
    "target_id": ("calendar_event", "event"),
}

# Base values for non-decision parameters of imported sessions. Counts are 1 (one item, one
# ticket, one traveller); a datetime is taken from the first reference that carries one.
_FALLBACK_TIME = "2026-06-15T19:00:00"
_COUNT_PARAMS = {"quantity", "party_size", "ticket_count", "passenger_count", "guest_count", "room_count"}
# Optional in the signature but needed by the tool body: a message needs a recipient or a thread,
# and every tracker action except create_entry names an existing entry.
_NEEDED_OPTIONAL: dict[str, tuple[str, ...]] = {
    "send_message": ("thread_id",),
    "draft_message": ("thread_id",),
    "update_tracker": ("entry_id",),
}


def _first_attr(session: TestSession, keys: tuple[str, ...]) -> Any:
    for ref in session.local_env.references:
        for k in keys:
            if ref.attributes.get(k) not in (None, "", []):
                return ref.attributes[k]
    return None


def _refs_of(session: TestSession, param: str) -> list[dict]:
    types = PARAM_TYPES.get(param, ())
    return [r.model_dump() for r in session.local_env.references if r.type in types]


def _words(text: Any) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", str(text).lower()) if len(w) > 2}


def _shared(session: TestSession, text: Any) -> int:
    """How many words of ``text`` the instruction uses: what the user is talking about."""
    return len(_words(session.instruction) & _words(text))


def _by_relevance(session: TestSession) -> list[Reference]:
    """References the instruction talks about first (words shared with their text), then by id."""

    def score(ref: Reference) -> int:
        return _shared(session, " ".join(v for v in ref.attributes.values() if isinstance(v, str)))

    return sorted(session.local_env.references, key=lambda r: (-score(r), r.id))


def _base_id(session: TestSession, param: str) -> str | None:
    """An object for a non-decision id slot, from the most relevant reference.

    An id a reference names under the slot's own key comes first (a product's ``order_id``, a
    stop's ``trip_id``, a message's ``thread_id``): the environment knows those objects, while a
    product is not an order. Otherwise a reference of the slot's type.
    """
    refs = _by_relevance(session)
    for ref in refs:
        named = ref.attributes.get(param)
        if isinstance(named, str) and named:
            return named
    types = PARAM_TYPES.get(param, ())
    return next((r.id for r in refs if r.type in types), None)


def _open_entry(session: TestSession, tracker_id: Any) -> str | None:
    """The tracker entry to change: among those not yet done (else all), the one the instruction
    talks about most; ties go to the first."""
    tracker = next((r for r in session.local_env.references if r.id == tracker_id), None)
    entries = tracker.attributes.get("entries") if tracker else None
    entries = [e for e in entries or [] if isinstance(e, dict) and e.get("entry_id")]
    pending = [e for e in entries if e.get("status") not in ("done", "closed")] or entries
    if not pending:
        return None
    return max(pending, key=lambda e: _shared(session, e.get("payload", "")))["entry_id"]


def _an_hour_later(when: Any) -> Any:
    try:
        return (datetime.fromisoformat(str(when)) + timedelta(hours=1)).isoformat()
    except ValueError:
        return when


def infer_frame(session: TestSession, tools: list[str]) -> TaskFrame:
    """A frame for a session without one: base arguments for ``tools`` from its references.

    Choices (documented because scores depend on them): counts are 1; datetimes come from the first
    reference with a ``date_time``/``start_time``/``departure_date`` (else a fixed evening slot), an
    end time is an hour after; free text (body, title, replanning goal...) is a neutral phrase built
    from the instruction; id slots get an object of the reference the instruction talks about most
    (:func:`_base_id`); enums are left out unless required, then their first value. Only required
    parameters are filled, plus those a tool body needs anyway (:data:`_NEEDED_OPTIONAL`).
    """
    from longview.domains.personal import tool_spec

    when = _first_attr(session, ("date_time", "start_time", "departure_date")) or _FALLBACK_TIME
    if isinstance(when, str) and len(when) == 10:
        when = f"{when}T09:00:00"
    place = _first_attr(session, ("location", "destination", "city")) or "nearby"
    args: dict[str, dict[str, Any]] = {}
    for name in tools:
        spec = tool_spec(name)
        base: dict[str, Any] = {}
        for p in spec.parameters if spec else []:
            if not p.required and p.name not in _NEEDED_OPTIONAL.get(name, ()):
                continue
            if p.name in _COUNT_PARAMS or p.type == "integer":
                base[p.name] = 1
            elif p.type == "datetime":  # an end (end_time, new_end_time) must come after the start
                base[p.name] = _an_hour_later(when) if p.name.endswith("end_time") else when
            elif p.type == "date":
                base[p.name] = str(when)[:10]
            elif p.name == "entry_id":
                entry = _open_entry(session, base.get("tracker_id"))
                if entry:
                    base[p.name] = entry
            elif p.name.endswith("_id") or p.name.endswith("_ids"):
                found = _base_id(session, p.name)
                if found:
                    base[p.name] = [found] if p.name.endswith("_ids") else found
            elif p.type.startswith("enum["):
                base[p.name] = p.type[5:-1].split("|")[0]
            elif p.type.startswith("array"):
                base[p.name] = [session.instruction[:80]]
            elif p.name in ("location", "destination", "origin"):
                base[p.name] = str(place)
            elif p.name == "target_tool":
                continue
            else:
                base[p.name] = session.instruction[:120]
        args[name] = base
    return TaskFrame(arguments=args)


def _id_selector(ids: list[str]) -> Selector:
    return Selector(attribute="id", op="in", value=sorted(ids))


def oracle_behaviour(session: TestSession, rule: StandingRule) -> Preference:
    """A behaviour reproducing the session's gold action; objects are still found by discovery."""
    gold = session.required_action
    check = rule.check_type
    if check is CheckType.TOOL_IDENTITY:
        return Preference(tool=gold.tool)
    if check is CheckType.CONFIRM:
        target = str(gold.arguments.get("target_tool") or rule.action_step.param)
        params = gold.arguments.get("target_params") or {}
        id_slots = {k: v for k, v in params.items() if k.endswith(("_id", "_ids"))}
        if id_slots:
            (param, ids), *_ = sorted(id_slots.items())
            return Preference(tool=target, param=param, select=_id_selector(ids if isinstance(ids, list) else [ids]), confirm=True)
        return Preference(tool=target, confirm=True)
    param = rule.action_step.param or (gold.compare_args[0] if gold.compare_args else None)
    value = gold.arguments.get(param) if param else None
    if check is CheckType.PARAM_ID and param:
        ids = value if isinstance(value, list) else [value]
        return Preference(tool=gold.tool, param=param, select=_id_selector([str(i) for i in ids]))
    return Preference(tool=gold.tool, param=param, value=value)


# Same-goal tool families (ontology check_type_coverage): the first member that is not the gold
# tool is what a rule-blind agent reaches for.
TOOL_FAMILIES: list[tuple[str, ...]] = [
    ("place_order", "build_shopping_list", "compare_products"),
    ("cancel_subscription", "pause_subscription", "change_subscription_plan"),
    ("book_flight", "book_ground_transport"),
    ("plan_trip", "shortlist_destinations"),
    ("send_message", "draft_message", "send_draft"),
    ("set_message_priority", "archive_messages", "label_messages"),
    ("create_event", "set_reminder"),
    ("cancel_event", "reschedule_event", "find_alternative_slots", "respond_to_event_invite"),
    ("delete_files", "archive_files", "move_files"),
    ("create_document", "update_tracker"),
    ("cancel_restaurant_reservation", "modify_restaurant_reservation"),
    ("book_restaurant", "book_event_ticket", "book_service_appointment"),
]

# The enum value a rule-blind agent most often takes, by tool.param (None = leave it out).
BLIND_ENUMS: dict[str, Any] = {
    "return_order.resolution_type": "refund",
    "change_subscription_plan.new_plan": "pro",
    "review_recurring_charges.focus": "all",
    "track_order.update_scope": "all",
    "track_reservation_updates.update_scope": "all",
    "track_trip_updates.update_scope": "all",
    "track_event_updates.update_scope": "all",
    "book_event_ticket.ticket_type": "general_admission",
    "book_flight.seat_preference": None,
    "replan_trip.replacement_type": "swap_all_stops",
    "set_message_priority.priority": "high",
    "draft_message.language": "en",
    "send_message.language": "en",
    "respond_to_event_invite.response": "accept",
    "set_reminder.cadence": "once",
    "classify_files.scheme": "by_type",
    "create_document.doc_type": "note",
    "update_tracker.update_action": "update_status",
}


def blind_default(session: TestSession, rule: StandingRule | None = None) -> Preference:
    """A generic rule-blind behaviour for a session (no rule knowledge beyond its binding).

    Ids: the highest-rated candidate, else the cheapest, else the first by id. Enums: the value a
    helpful agent most often takes (:data:`BLIND_ENUMS`). tool_identity: the first same-goal
    alternative of the gold tool. confirm: the target tool, called directly.
    """
    gold = session.required_action
    check = rule.check_type if rule else None
    if check is CheckType.CONFIRM or gold.tool == CONFIRM_TOOL:
        return Preference(tool=str(gold.arguments.get("target_tool")))
    if check is CheckType.TOOL_IDENTITY or not gold.compare_args:
        for fam in TOOL_FAMILIES:
            if gold.tool in fam:
                alt = next(t for t in fam if t != gold.tool)
                if alt in session.local_env.tools:
                    return Preference(tool=alt)
        others = [t for t in session.local_env.tools if t != gold.tool]
        return Preference(tool=others[0] if others else gold.tool)
    param = gold.compare_args[0]
    if param.endswith(("_id", "_ids")):
        refs = _refs_of(session, param)
        attrs = Counter(k for r in refs for k, v in r["attributes"].items() if isinstance(v, (int, float)))
        picks: tuple[tuple[str, Literal["max", "min"]], ...] = (("rating", "max"), ("price", "min"), ("price_per_night", "min"))
        for key, op in picks:
            if attrs.get(key):
                return Preference(tool=gold.tool, param=param, select=Selector(attribute=key, op=op))
        return Preference(tool=gold.tool, param=param, select=Selector(attribute="id", op="ne", value=None))
    return Preference(tool=gold.tool, param=param, value=BLIND_ENUMS.get(f"{gold.tool}.{param}"))
