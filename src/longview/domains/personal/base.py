"""Shared machinery of the six personal-assistant toolkits.

A session's world is a :class:`SessionDB` built from its ``local_env.references``. Every id an agent
passes must be known to it (a reference, an id mentioned in some reference's attributes, or an id a
tool created earlier); otherwise the tool fails with "Not found". Search/list tools filter loosely
and deterministically as the ATRBench release's environment does (empty with a hint when nothing
matches), and always hand back attributes verbatim.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from datetime import date, datetime
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from longview.kernel.state import WorldState
from longview.kernel.tools import ToolError, ToolKind, Toolkit, json_copy, tool, tool_table


class Record(BaseModel):
    """One object of the session: a pre-loaded reference or something a tool created."""

    id: str = Field(description="Object id.")
    type: str = Field(description="Object type, e.g. product, restaurant_reservation.")
    attributes: dict[str, Any] = Field(default_factory=dict, description="Returned verbatim.")

    def view(self) -> dict[str, Any]:
        """What a tool shows the agent: id, type and a copy of all attributes."""
        return {"id": self.id, "type": self.type, "attributes": json_copy(self.attributes)}


# id(references) -> (references, their number, the state loaded from them); see SessionDB.load.
_LOADED: dict[int, tuple[object, int, SessionDB]] = {}


class SessionDB(WorldState):
    """Everything a personal-assistant session knows; tools read and change only this."""

    records: dict[str, Record] = Field(default_factory=dict, description="Objects by id.")
    mentioned_ids: dict[str, str] = Field(
        default_factory=dict,
        description="Ids seen only as attribute values (e.g. a product's order_id) -> the key "
        "they appeared under. Their type is unknown, so any id slot accepts them.",
    )
    created: list[str] = Field(default_factory=list, description="Ids created by tools, in order.")
    counter: int = Field(default=0, description="Last number used for a new id.")

    @classmethod
    def load(cls, references: Iterable[Any]) -> SessionDB:
        """A fresh state holding copies of ``references``. A list or tuple is validated and
        indexed once (every cell and trial of a session loads the same dataset list): later loads
        only copy its records."""
        if not isinstance(references, (list, tuple)):
            return cls._load(references)
        cached = _LOADED.get(id(references))
        # The list is kept, so its id is not reused while cached; a list grown since is reloaded.
        if cached is None or cached[0] is not references or cached[1] != len(references):
            if len(_LOADED) >= 4096:
                _LOADED.clear()
            cached = _LOADED[id(references)] = (references, len(references), cls._load(references))
        template = cached[2]
        db = cls()
        for key, rec in template.records.items():
            db.records[key] = Record(id=rec.id, type=rec.type, attributes=json_copy(rec.attributes))
        db.mentioned_ids = dict(template.mentioned_ids)
        return db

    @classmethod
    def _load(cls, references: Iterable[Any]) -> SessionDB:
        db = cls()
        for ref in references:
            if isinstance(ref, BaseModel):  # e.g. a dataset's Reference: read it, no dump needed
                id_, type_, attrs = ref.id, ref.type, getattr(ref, "attributes", None)  # type: ignore[attr-defined]
            else:
                id_, type_, attrs = ref["id"], ref["type"], ref.get("attributes")
            rec = Record(id=id_, type=type_, attributes=json_copy(attrs or {}))
            db.records[rec.id] = rec
        for rec in db.records.values():
            db.index(rec.attributes)
        return db

    def index(self, attributes: Any) -> None:
        """Remember ids mentioned under ``*_id`` / ``*_ids`` keys, at any depth."""
        if isinstance(attributes, list):
            for item in attributes:
                self.index(item)
        elif isinstance(attributes, dict):
            for key, value in attributes.items():
                values = value if key.endswith("_ids") and isinstance(value, list) else [value]
                if key.endswith(("_id", "_ids")):
                    for v in values:
                        if isinstance(v, str) and v and v not in self.records:
                            self.mentioned_ids.setdefault(v, key)
                self.index(value)

    def new_id(self, prefix: str) -> str:
        """A fresh deterministic id with a type prefix, never colliding with a known id."""
        while True:
            self.counter += 1
            candidate = f"{prefix}{self.counter:03d}"
            if candidate not in self.records and candidate not in self.mentioned_ids:
                return candidate


# ---- loose, deterministic filtering (as ATRBench's environment filters) ---------------------
#
# A filter keeps a record or drops it; there is no ranking by match strength. Free-text filters
# match loosely: either string contains the other (case-insensitive), or they share a word, where
# words are split at whitespace and , . / - _ . A record without the filtered field does not match
# (a tool may name the value the release's environment assumes for a missing field). When filters
# drop every candidate of a non-empty pool, the answer is empty and carries a hint.

_WORD_SPLIT = re.compile(r"[\s,./\-_]+")


def normalize(value: Any) -> str:
    """Lower-case, accent-free, punctuation collapsed to single spaces."""
    text = unicodedata.normalize("NFKD", str(value))
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    return " ".join(re.split(r"[^0-9a-z]+", text)).strip()


def loose_match(query: Any, target: Any) -> bool:
    """True when ``query`` is empty, or ``target`` is non-empty and one contains the other
    (case-insensitive) or the two share a word. A list target is read as its items joined by
    spaces."""
    if query in (None, ""):
        return True
    if isinstance(target, list):
        target = " ".join(str(t) for t in target)
    if target in (None, ""):
        return False
    q, t = str(query).lower().strip(), str(target).lower().strip()
    if q in t or t in q:
        return True
    words = lambda text: {w for w in _WORD_SPLIT.split(text) if w}  # noqa: E731
    return bool(words(q) & words(t))


Check = Callable[[dict[str, Any]], bool]


def text_filter(keys: tuple[str, ...], query: str | None, default: Any = None) -> Check | None:
    """Keep records where ``query`` loosely matches any of the given attributes; a missing
    attribute reads as ``default`` (None: it cannot match). No query, no filter."""
    if query in (None, ""):
        return None
    return lambda attrs: any(loose_match(query, attrs.get(k, default)) for k in keys)


def any_filter(keys: tuple[str, ...], wanted: list[str] | None) -> Check | None:
    """Keep records that loosely match any of the wanted terms on any of the given attributes."""
    if not wanted:
        return None
    return lambda attrs: any(loose_match(w, attrs.get(k)) for w in wanted for k in keys)


def tag_filter(key: str, wanted: list[str] | None, also: str | None = None) -> Check | None:
    """Keep records whose list attribute holds one of the wanted values exactly
    (case-insensitive): tags, participants. ``also`` names a single-valued attribute counted as one
    more tag (the release folds a legacy ``event_type`` / ``stop_type`` into the tags)."""
    if not wanted:
        return None
    want = {str(w).lower() for w in wanted}

    def check(attrs: dict[str, Any]) -> bool:
        have = attrs.get(key)
        items = list(have) if isinstance(have, list) else ([] if have in (None, "") else [have])
        if also and attrs.get(also) not in (None, ""):
            items.append(attrs[also])
        return any(str(x).lower() in want for x in items)

    return check


def number_filter(key: str, limit: float | None, at_most: bool) -> Check | None:
    """Keep records whose numeric attribute is within ``limit``; a record without it passes."""
    if limit is None:
        return None

    def check(attrs: dict[str, Any]) -> bool:
        v = attrs.get(key)
        if not isinstance(v, (int, float)):
            return True
        return v <= limit if at_most else v >= limit

    return check


def describe_filters(**given: Any) -> str:
    """``name='value'`` pairs of the filters an agent passed, for a hint."""
    shown = [f"{k}={v!r}" for k, v in given.items() if v not in (None, "", [])]
    return ", ".join(shown) or "no filters"


_SORT_KEYS: dict[str, tuple[tuple[str, ...], bool]] = {
    # sort_by value -> (attribute candidates, descending)
    "price_asc": (("price", "price_per_night"), False),
    "price_desc": (("price", "price_per_night"), True),
    "rating": (("rating",), True),
    "distance": (("distance_km",), False),
}


def sort_records(records: list[Record], sort_by: str | None) -> list[Record]:
    """Stable sort; records missing the key go last; 'relevance' keeps the given order."""
    if sort_by not in _SORT_KEYS:
        return records
    keys, desc = _SORT_KEYS[sort_by]

    def key(r: Record) -> tuple[int, float]:
        v = next((r.attributes[k] for k in keys if isinstance(r.attributes.get(k), (int, float))), None)
        if v is None:
            return (1, 0.0)
        return (0, -v if desc else v)

    return sorted(records, key=key)


def parse_datetime(value: str, name: str) -> datetime:
    """Parse an ISO datetime; local wall-clock comparison, so any offset is dropped."""
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).replace(tzinfo=None)
    except ValueError:
        raise ToolError(f"{name} must be an ISO 8601 datetime, got {value!r}") from None


def parse_date(value: str, name: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ToolError(f"{name} must be an ISO 8601 date (YYYY-MM-DD), got {value!r}") from None


def positive_int(value: Any, name: str) -> int:
    """An integer >= 1, also from a string (``modify_*.new_value`` is free text)."""
    try:
        n = int(str(value).strip())
    except ValueError:
        raise ToolError(f"{name} must be a whole number, got {value!r}") from None
    if n < 1:
        raise ToolError(f"{name} must be at least 1, got {n}")
    return n


# Placeholders for identity fields the user did not spell out: synthetic, never real contact data.
_IDENTITY = {
    "shipping_address": "default shipping address on file for {name}",
    "payment_method": "saved payment card on file for {name}",
    "contact_info": "saved contact details on file for {name}",
    "traveler_info": "saved traveler profile of {name}",
    "guest_info": "saved guest profile of {name}",
}


class PersonalToolkit(Toolkit):
    """Base of the domain toolkits: session DB, id checks, filtering and the confirmation tool."""

    DOMAIN: ClassVar[str] = ""

    def __init__(
        self,
        references: Iterable[Any] = (),
        persona: dict[str, Any] | None = None,
        only: list[str] | None = None,
    ) -> None:
        self.persona = dict(persona or {})
        self.db = SessionDB.load(references)
        # Called by get_user_confirmation; a user-simulator runtime may replace it.
        self.confirmation_policy: Callable[[str, dict[str, Any]], bool] | None = None
        if only is not None:
            only = list(dict.fromkeys([*only, "get_user_confirmation"]))
        super().__init__(only)

    @classmethod
    def tool_names(cls) -> list[str]:
        """Every tool the class defines, base tool included, in name order."""
        return sorted(tool_table(cls))

    # ---- ids ---------------------------------------------------------------------------------

    def need(self, id_: str, types: Iterable[str] = ()) -> Record | None:
        """The record for ``id_``; None when it is known only as a mention. Unknown -> Not found."""
        types = tuple(types)
        rec = self.db.records.get(id_)
        if rec is not None:
            if types and rec.type not in types:
                raise ToolError(f"Not found: {id_} (it is a {rec.type}, not a {' or '.join(types)})")
            return rec
        if id_ in self.db.mentioned_ids:
            return None
        raise ToolError(f"Not found: {id_}")

    def need_all(self, ids: list[str], types: Iterable[str], name: str) -> list[Record]:
        """Check every id; return the records among them (mention-only ids have none)."""
        if not ids:
            raise ToolError(f"{name} must list at least one id")
        types = tuple(types)
        return [r for r in (self.need(i, types) for i in ids) if r is not None]

    def need_record(self, id_: str, types: tuple[str, ...]) -> Record:
        """Like :meth:`need`, but give a mention-only id a record (of type ``types[0]``) so a write
        can change it."""
        rec = self.need(id_, types)
        if rec is None:
            rec = Record(id=id_, type=types[0], attributes={})
            self.db.records[id_] = rec
        return rec

    def mentions(self, id_: str) -> list[dict[str, Any]]:
        """Views of the records whose attributes mention ``id_`` (e.g. the product of an order)."""
        return [r.view() for r in self.db.records.values() if r.id != id_ and id_ in string_values(r.attributes)]

    def create(self, prefix: str, type_: str, **attributes: Any) -> Record:
        rec = Record(id=self.db.new_id(prefix), type=type_, attributes=attributes)
        self.db.records[rec.id] = rec
        self.db.created.append(rec.id)
        self.db.index(attributes)
        return rec

    def change_field(
        self,
        rec: Record,
        field: str,
        new_value: str,
        *,
        ints: tuple[str, ...] = (),
        datetimes: tuple[str, ...] = (),
        choices: dict[str, tuple[str, ...]] | None = None,
        closed: tuple[str, ...] = ("cancelled",),
    ) -> None:
        """Apply a generic ``modify_*`` change after checking the free-text value fits the field."""
        if rec.attributes.get("status") in closed:
            raise ToolError(f"{rec.id} is {rec.attributes['status']} and can no longer be modified")
        if field in datetimes:
            parse_datetime(new_value, "new_value")
        allowed = (choices or {}).get(field)
        if allowed and new_value not in allowed:
            raise ToolError(f"new_value for {field} must be one of {', '.join(allowed)}")
        rec.attributes[field] = positive_int(new_value, "new_value") if field in ints else new_value

    def set_status(self, rec: Record, status: str, *, unless: tuple[str, ...] = ("cancelled",)) -> None:
        if rec.attributes.get("status") in unless:
            raise ToolError(f"{rec.id} is already {rec.attributes['status']}")
        rec.attributes["status"] = status

    def cancel(self, id_: str, types: tuple[str, ...], id_key: str) -> dict[str, Any]:
        """The shared body of the cancel_* tools."""
        rec = self.need_record(id_, types)
        self.set_status(rec, "cancelled")
        return self.confirmation(id_key, rec)

    # ---- reads -------------------------------------------------------------------------------

    def of_type(self, *types: str) -> list[Record]:
        return [r for r in self.db.records.values() if r.type in types]

    def search(
        self,
        types: tuple[str, ...],
        checks: list[Check | None],
        sort_by: str | None = None,
        *,
        filters: str = "",
        keep: Callable[[Record], bool] | None = None,
    ) -> dict[str, Any]:
        """Records of ``types`` passing every filter (and ``keep``), in pool order unless sorted.

        When the filters leave nothing of a non-empty pool, the answer is empty with a hint naming
        the filters (``filters``) and how to widen them; an empty pool gives an empty answer.
        """
        pool = self.of_type(*types)
        active = [c for c in checks if c is not None]
        hits = [r for r in pool if all(c(r.attributes) for c in active) and (keep is None or keep(r))]
        if not hits and pool:
            return {
                "count": 0,
                "results": [],
                "hint": f"Nothing matched ({filters or 'the given filters'}). Text filters match by "
                "substring or a shared word; try a broader term or leave a filter out "
                "(with no filters you get the whole list).",
            }
        return {"results": [r.view() for r in sort_records(hits, sort_by)], "count": len(hits)}

    def listing(self, records: list[Record]) -> dict[str, Any]:
        return {"results": [r.view() for r in records], "count": len(records)}

    def tracking(self, id_: str, rec: Record | None, update_scope: str | None, **extra: Any) -> dict[str, Any]:
        """The shared answer of the track_* tools: current status, requested scope, the record."""
        return {
            "id": id_,
            "status": rec.attributes.get("status", "unknown") if rec else "unknown",
            "update_scope": update_scope or "all",
            "updates": [],
            "record": rec.view() if rec else None,
            **extra,
        }

    def confirmation(self, id_key: str, rec: Record, **extra: Any) -> dict[str, Any]:
        """A write tool's answer: the (new or changed) object's id and its current fields."""
        return {id_key: rec.id, **json_copy(rec.attributes), **extra}

    def identity(self, field: str, given: str | None) -> str:
        """An explicit identity value, else a synthetic placeholder derived from the persona."""
        if given:
            return given
        return _IDENTITY[field].format(name=self.persona.get("name") or "the user")

    # ---- base tool ---------------------------------------------------------------------------

    @tool(ToolKind.READ, tags=("base",))
    def get_user_confirmation(self, target_tool: str, target_params: dict | None = None) -> dict:
        """Ask the user to approve a specific action (tool plus the arguments you intend to use)
        before you perform it.

        Args:
            target_tool: Name of the tool you are about to call.
            target_params: The arguments you plan to pass to that tool.
        """
        if target_tool == "get_user_confirmation" or target_tool not in tool_table(type(self)):
            raise ToolError(f"Unknown target_tool for the {self.DOMAIN} domain: {target_tool}")
        params = dict(target_params or {})
        ok = self.confirmation_policy(target_tool, params) if self.confirmation_policy else True
        return {"confirmed": bool(ok), "target_tool": target_tool, "target_params": params}


def string_values(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set().union(*(string_values(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(string_values(v) for v in value)) if value else set()
    return {value} if isinstance(value, str) else set()
