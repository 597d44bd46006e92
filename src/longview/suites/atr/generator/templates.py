"""Typed rule templates and learning-task kinds: the shared vocabulary of the domain modules.

A :class:`Template` is one decision surface of the tool ontology (a tool, and for param_* rules its
decision parameter) with persona-conditioned :class:`Variant` texts. Its ``scenario`` function
builds a test session *backwards* from the required action: the gold object(s) satisfy the rule's
structured preference, and decoys are what the structured rule-blind default picks. A
:class:`LearningKind` builds an everyday, rule-blind learning task whose gold path calls some tools.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from longview.suites.atr.dataset import CheckType, Domain
from longview.suites.atr.generator.personas import PersonaSeed
from longview.suites.atr.preference import Preference, Selector, Step


@dataclass(frozen=True)
class Variant:
    """One wording and parameterisation of a template, plausible for personas with ``tags``."""

    key: str
    tags: tuple[str, ...]  # persona trait tags that motivate it; "*" = anyone
    topic: str  # decision-surface phrase an asker would use; unique within a persona
    rule: str  # third person; {P}/{p} subject, {pos} possessive, {obj} object pronoun
    answer: str  # first person canonical answer
    default_text: str  # what a rule-blind agent does instead
    direction: tuple[str, ...] = ()  # words naming the rule's direction; never in an instruction
    knobs: dict[str, Any] = field(default_factory=dict)  # template-specific parameters


@dataclass
class Scenario:
    """A test task built backwards from the required action."""

    references: list[dict[str, Any]]
    instruction: str
    discovery: list[Step]
    arguments: dict[str, dict[str, Any]]  # base arguments per tool the preference or default calls
    candidate_type: str | None = None
    gold: Any = None  # the decision-slot value the preference must produce (None: tool_identity)


@dataclass(frozen=True)
class Template:
    """A decision surface with its preference/default behaviours and a scenario builder."""

    key: str
    domain: Domain
    check: CheckType
    group: str  # at most one template per group and persona (same surface or clashing rules)
    tool: str  # the decision tool (the inner mutate tool for confirm rules)
    param: str | None
    preference: Callable[[Variant], Preference]
    default: Callable[[Variant], Preference]
    scenario: Callable[[Ctx, Variant], Scenario]
    variants: tuple[Variant, ...]

    @property
    def surface(self) -> str:
        """The ontology surface the rule lands on, e.g. ``place_order.product_id``."""
        if self.check is CheckType.CONFIRM:
            return f"get_user_confirmation>{self.tool}"
        return f"{self.tool}.{self.param}" if self.param else self.tool


@dataclass
class LearningDraft:
    """A learning task before it becomes a :class:`LearningSession`."""

    reason: str
    task_params: dict[str, Any]
    references: list[dict[str, Any]]
    trajectory: list[Step]


@dataclass(frozen=True)
class LearningKind:
    """An everyday task type whose gold path calls ``tools``."""

    key: str
    domain: Domain
    tools: tuple[str, ...]
    build: Callable[[Ctx, Avoid], LearningDraft]


@dataclass
class Avoid:
    """What a learning task must not show: rule words, and enum values some rule prefers."""

    words: set[str] = field(default_factory=set)
    values: dict[str, set[Any]] = field(default_factory=dict)  # "tool.param" -> values

    def ok(self, text: Any) -> bool:
        return not (words_of(text) & self.words)

    def pick(self, rng: random.Random, options: list[Any]) -> Any:
        """A random option whose words are all allowed (the first allowed if none is random-fit)."""
        good = [o for o in options if self.ok(o)]
        return rng.choice(good or options)

    def sample(self, rng: random.Random, options: list[Any], k: int) -> list[Any]:
        good = [o for o in options if self.ok(o)]
        pool = good if len(good) >= k else options
        return rng.sample(pool, k)

    def enum(self, rng: random.Random, key: str, options: list[Any]) -> Any:
        """A value for an enum slot that no rule prefers (None when every option is preferred)."""
        good = [o for o in options if o not in self.values.get(key, set()) and self.ok(str(o))]
        return rng.choice(good) if good else None


# ---- context ------------------------------------------------------------------------------


class Ctx:
    """Per-persona generation state: the RNG, the persona, a date anchor and unique ids."""

    def __init__(self, rng: random.Random, persona: PersonaSeed, anchor: date) -> None:
        self.rng = rng
        self.persona = persona
        self.anchor = anchor
        self.day = 0  # days after the anchor the current session happens on
        self._ids: set[str] = set()

    def uid(self, prefix: str, name: str) -> str:
        """A readable id unique within the persona: prefix, name slug, counter."""
        base = f"{prefix}_{slug(name)}"
        n = 1
        while f"{base}_{n:02d}" in self._ids:
            n += 1
        self._ids.add(f"{base}_{n:02d}")
        return f"{base}_{n:02d}"

    def when(self, days: int, hour: int, minute: int = 0) -> str:
        """ISO datetime ``days`` after the current session day."""
        d = datetime.combine(self.anchor, datetime.min.time()) + timedelta(days=self.day + days)
        return d.replace(hour=hour, minute=minute).isoformat(timespec="seconds")

    def days_until(self, days: int, weekday: int) -> int:
        """The first offset >= ``days`` landing on ``weekday`` (Monday = 0)."""
        while (self.anchor + timedelta(days=self.day + days)).weekday() != weekday:
            days += 1
        return days

    def date(self, days: int) -> str:
        return (self.anchor + timedelta(days=self.day + days)).isoformat()

    @staticmethod
    def spoken(iso: str) -> str:
        """A datetime or date the way a person says it: 'Friday 12 June at 7:30 pm'."""
        dt = datetime.fromisoformat(iso)
        day = f"{dt:%A} {dt.day} {dt:%B}"
        if len(iso) == 10:
            return day
        hour = dt.hour % 12 or 12
        mins = f":{dt.minute:02d}" if dt.minute else ""
        return f"{day} at {hour}{mins} {'am' if dt.hour < 12 else 'pm'}"


def ref(id_: str, type_: str, **attributes: Any) -> dict[str, Any]:
    return {"id": id_, "type": type_, "attributes": attributes}


def slug(text: str) -> str:
    return "_".join(re.findall(r"[a-z0-9]+", text.lower()))[:28].strip("_")


# ---- words --------------------------------------------------------------------------------

STOPWORDS = set(
    """a about above after again against all almost also always am an and any anything are as at
    away back be because been before being below between both but by can could did do does doing
    done down during each either else even ever every first for from further get gets getting give
    go goes going good had has have having he her here hers herself him himself his how i if in into
    is it its itself just keep keeps kind last least less let like likes liking lot make makes
    many may me mine more most much must my myself need needs never new next no nor not nothing now
    of off often on once one only or other others our ours out over own per prefer prefers
    preferred rather really same see she should so some something still such than that the their
    theirs them themselves then there these they thing things this those though through to too
    under unless until up upon us use used usually very want wants was way we well were what
    whatever when whenever where whether which while who whom whose why will with within without
    would yes yet you your yours instead sure okay ok lets sort sorted already else choose chosen
    pick picks picked go wherever whichever anyone someone everything everyone whatever
    room set start spot look read put ask tell find take leave stay call come work home right able
    around happen happens actually extra worth care bother skip rest soon end ends hear told said
    says say tells bit quick quickly part parts side whole full lots plenty
    """.split()
)


def stem(word: str) -> str:
    """A crude stemmer so 'bookings', 'booked' and 'booking' compare equal."""
    w = word.lower()
    for suf in ("ings", "ing", "ies", "ed", "es", "s"):
        if len(w) > len(suf) + 3 and w.endswith(suf):
            return w[: -len(suf)] + ("y" if suf == "ies" else "")
    return w


STOP_STEMS = {stem(w) for w in STOPWORDS}


def words_of(value: Any) -> set[str]:
    """Stemmed content words of any JSON value (keys excluded, ids split on underscores)."""
    out: set[str] = set()

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, (list, tuple)):
            for v in x:
                walk(v)
        elif isinstance(x, str):
            for w in re.findall(r"[a-z]+", x.lower()):
                if len(w) > 2 and w not in STOPWORDS and stem(w) not in STOP_STEMS:
                    out.add(stem(w))

    walk(value)
    return out


def V(key: str, tags: list[str], topic: str, rule: str, answer: str, default_text: str,
      direction: list[str] | tuple[str, ...] = (), **knobs: Any) -> Variant:
    """Shorthand for a :class:`Variant` (templates list many)."""
    return Variant(key, tuple(tags), topic, rule, answer, default_text, tuple(direction), knobs)


# ---- shared behaviours ----------------------------------------------------------------------


def pick_pref(tool: str, param: str) -> Callable[[Variant], Preference]:
    """Preference choosing the object(s) whose ``knobs['attr']`` passes ``knobs['op']`` / value."""

    def build(v: Variant) -> Preference:
        sel = Selector(attribute=v.knobs["attr"], op=v.knobs.get("op", "eq"), value=v.knobs.get("gold"))
        return Preference(tool=tool, param=param, select=sel)

    return build


DEFAULT_SELECTORS: dict[str, Selector] = {
    "top_rated": Selector(attribute="rating", op="max"),
    "cheapest": Selector(attribute="price", op="min"),
    "cheapest_night": Selector(attribute="price_per_night", op="min"),
    "closest": Selector(attribute="distance_km", op="min"),
}


def pick_default(tool: str, param: str) -> Callable[[Variant], Preference]:
    """Rule-blind object choice: ``knobs['default']`` names a :data:`DEFAULT_SELECTORS` entry, or
    ``("named", attr, value)`` picks the decoy an agent would match by name."""

    def build(v: Variant) -> Preference:
        d = v.knobs.get("default", "top_rated")
        if isinstance(d, tuple):
            return Preference(tool=tool, param=param, select=Selector(attribute=d[1], op="eq", value=d[2]))
        return Preference(tool=tool, param=param, select=DEFAULT_SELECTORS[d])

    return build


def enum_pref(tool: str, param: str) -> Callable[[Variant], Preference]:
    return lambda v: Preference(tool=tool, param=param, value=v.knobs["gold"])


def enum_default(tool: str, param: str) -> Callable[[Variant], Preference]:
    """The value a rule-blind agent takes (``knobs['default']``; None leaves the slot out)."""
    return lambda v: Preference(tool=tool, param=param, value=v.knobs.get("default"))


def tool_pref(tool: str) -> Callable[[Variant], Preference]:
    return lambda v: Preference(tool=tool)


def tool_default() -> Callable[[Variant], Preference]:
    return lambda v: Preference(tool=v.knobs["default_tool"])


def confirm_pref(tool: str, confirm: bool) -> Callable[[Variant], Preference]:
    """Call ``tool`` with the frame's arguments, confirmed first or not (the ids the instruction
    names are resolved in the frame, so the rule is only about the confirmation)."""
    return lambda v: Preference(tool=tool, confirm=confirm)


def ratings(rng: random.Random, n: int, top_index: int, low: float = 3.9, high: float = 4.5) -> list[float]:
    """n distinct ratings; the one at ``top_index`` is strictly the highest."""
    vals = sorted({round(rng.uniform(low, high), 1) for _ in range(n * 3)})
    rng.shuffle(vals)
    vals = vals[: n - 1]
    while len(vals) < n - 1:
        vals.append(round(low + 0.1 * len(vals), 1))
    top = round(max(vals) + rng.choice([0.2, 0.3, 0.4]), 1)
    vals.insert(top_index, min(top, 5.0) if top <= 5.0 else 5.0)
    return vals


def prices(rng: random.Random, n: int, low_index: int, base: float, spread: float) -> list[float]:
    """n prices; the one at ``low_index`` is strictly the lowest."""
    vals = [round(base + rng.uniform(0.15, 1.0) * spread, 2) for _ in range(n - 1)]
    cheap = round(base * rng.uniform(0.7, 0.9), 2)
    vals.insert(low_index, cheap)
    return vals


def arrange(
    ctx: Ctx,
    v: Variant,
    base: list[tuple[str, dict[str, Any]]],
    prefix: str,
    type_: str,
    n_gold: int = 1,
) -> tuple[list[dict[str, Any]], list[str]]:
    """Candidates built backwards: the first ``n_gold`` satisfy the preference, the next one is
    what the rule-blind default picks, the rest are fillers. Returns shuffled refs and gold ids.

    ``v.knobs``: ``attr``/``op``/``gold`` (the preference), ``decoys`` (values for the others on
    eq/ne ops), ``default`` (a :data:`DEFAULT_SELECTORS` key or ``("named", attr, value)``).
    """
    rng, n = ctx.rng, len(base)
    attr, op, gold = v.knobs["attr"], v.knobs.get("op", "eq"), v.knobs.get("gold")
    decoys = list(v.knobs.get("decoys", []))
    default = v.knobs.get("default", "top_rated")
    pick = n_gold  # index of the default's pick
    recs: list[tuple[str, dict[str, Any]]] = []
    for i, (name, attrs) in enumerate(base):
        a, is_gold = dict(attrs), i < n_gold
        if op == "eq":
            a[attr] = gold if is_gold else decoys[(i - n_gold) % len(decoys)]
        elif op == "contains":
            have = [x for x in a.get(attr, []) if x != gold]
            a[attr] = sorted(have + [gold]) if is_gold else have
        elif op in ("max", "min"):
            lo, hi = v.knobs["range"]
            gap = (hi - lo) * 0.3  # others stay clearly worse than the gold value
            if is_gold:
                a[attr] = hi if op == "max" else lo
            else:
                a[attr] = round(rng.uniform(lo, hi - gap) if op == "max" else rng.uniform(lo + gap, hi), 1)
        recs.append((name, a))
    if isinstance(default, tuple):
        _, key, value = default
        recs[pick][1][key] = value
    elif default == "top_rated":
        for (_, a), r in zip(recs, ratings(rng, n, pick), strict=True):
            a["rating"] = r
    elif default in ("cheapest", "cheapest_night"):
        key = "price" if default == "cheapest" else "price_per_night"
        base_price = v.knobs.get("price", 40.0)
        for (_, a), p in zip(recs, prices(rng, n, pick, base_price, base_price * 0.6), strict=True):
            a[key] = p
    elif default == "closest":
        for i, (_, a) in enumerate(recs):
            a["distance_km"] = 0.8 if i == pick else round(rng.uniform(2.0, 9.0), 1)
    refs = [ref(ctx.uid(prefix, name), type_, **a) for name, a in recs]
    gold_ids = [r["id"] for r in refs[:n_gold]]
    rng.shuffle(refs)
    return refs, gold_ids


# ---- template constructors, one per check type ------------------------------------------------


def pick_t(key: str, domain: Domain, tool: str, param: str, scenario: Callable, variants: tuple[Variant, ...]) -> Template:
    """param_id: the preference selects objects by attribute, the default by rating/price/name."""
    return Template(key, domain, CheckType.PARAM_ID, f"{tool}.{param}", tool, param, pick_pref(tool, param),
                    pick_default(tool, param), scenario, variants)


def enum_t(key: str, domain: Domain, tool: str, param: str, scenario: Callable, variants: tuple[Variant, ...]) -> Template:
    """param_enum: the preference fixes the enum value, the default takes another or leaves it out."""
    return Template(key, domain, CheckType.PARAM_ENUM, f"{tool}.{param}", tool, param, enum_pref(tool, param),
                    enum_default(tool, param), scenario, variants)


def tool_t(key: str, domain: Domain, group: str, tool: str, scenario: Callable, variants: tuple[Variant, ...]) -> Template:
    """tool_identity: the preference calls ``tool``, the default ``knobs['default_tool']``."""
    return Template(key, domain, CheckType.TOOL_IDENTITY, group, tool, None, tool_pref(tool), tool_default(),
                    scenario, variants)


def confirm_t(key: str, domain: Domain, group: str, tool: str, scenario: Callable, variants: tuple[Variant, ...]) -> Template:
    """confirm: the preference confirms ``tool`` first, the default calls it directly."""
    return Template(key, domain, CheckType.CONFIRM, group, tool, None, confirm_pref(tool, True),
                    confirm_pref(tool, False), scenario, variants)
