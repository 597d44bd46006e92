"""Users, their preference matrices and change events, their worlds and timelines: the built-in
dataset is produced by :func:`generate` from a seed, deterministically, and checked by QC.

Per user: a 2 x 14 matrix (work / personal) with a fixed number of attribute pairs differing across
contexts (5, 4, 5, 4 for users a-d: the paper's 18 of 56, at the start and at the final probes); a profile drawn independently of the matrix (so it cannot give settings away); five change
events on distinct cells; three accumulation sessions per cell before its change (if any) and two
after it; a change-event session replaying a fixed transcript; 28 final probes and one pre-event
probe per changed cell.
"""

from __future__ import annotations

import hashlib
import random
from datetime import date, timedelta
from functools import lru_cache
from typing import Literal

from pydantic import Field, ValidationError

from longview.kernel.errors import DataError
from longview.kernel.stats import seed_from
from longview.suites.prefs.model import CONTEXTS, Context, IsoDate, Strict, taxonomy
from longview.suites.prefs.scenes import Scene, SceneBuilder, SceneKind
from longview.suites.prefs.world import PrefsWorld, Record

START = date(2026, 1, 5)
DAYS = 120  # ~4 simulated months
N_CHANGES = 5
# Differing work/personal pairs per user, by user index (cycled): 18 over 4 users, the paper's count
# (§3.2: 18 of 56 pairs; App. F.3: 18 pairs x 4 backbones x 3 repeats = 216 pair instances).
DIFF_PAIRS = (5, 4, 5, 4)
MAX_HABIT_SHARE = 0.55
BUILTIN_SEED = 7


def date_of(day: str | int, offset: int = 0) -> str:
    base = START + timedelta(days=day) if isinstance(day, int) else date.fromisoformat(day)
    return (base + timedelta(days=offset)).isoformat()


class Profile(Strict):
    """What the simulated user is, in facts that say nothing about interaction settings."""

    name: str = Field(description="Fictional name.")
    occupation: str = Field(description="Job.")
    household: str = Field(description="Who they live with.")
    pastimes: list[str] = Field(description="What they do outside work.")
    people: list[str] = Field(description="Recurring people (role only).")

    def text(self) -> str:
        return (f"{self.name} works as {self.occupation}, lives {self.household}, spends free time on "
                f"{' and '.join(self.pastimes)}, and often deals with their {', '.join(self.people)}.")


class ChangeEvent(Strict):
    context: Literal["work", "personal"] = Field(description="Context of the changed cell.")
    attribute: str = Field(description="Attribute of the changed cell.")
    old: str = Field(description="Setting before the change.")
    new: str = Field(description="Setting from the change on.")
    day: IsoDate = Field(description="ISO date of the change-event session.")
    sid: str = Field(description="The change-event session id.")


class User(Strict):
    """One synthetic user."""

    id: str = Field(description="User id (replication unit).")
    profile: Profile = Field(description="Profile facts.")
    matrix: dict[str, dict[str, str]] = Field(description="context -> attribute -> setting at the start.")
    changes: list[ChangeEvent] = Field(description="The five controlled changes.")
    states_rule: float = Field(ge=0, le=1, description="Share of corrections in which the user also says what they want.")
    lenience: int = Field(ge=0, le=1, description="0 or 1: how much a mismatch costs in the user's own rating.")

    def target(self, context: str, attribute: str, day: str) -> str:
        """The setting in force on ``day`` (a change applies from its session on)."""
        s = self.matrix[context][attribute]
        for c in self.changes:
            if c.context == context and c.attribute == attribute and c.day <= day:
                s = c.new
        return s


class UserData(Strict):
    user: User = Field(description="The user.")
    world: PrefsWorld = Field(description="The initial world.")
    sessions: list[Scene] = Field(description="Accumulation and change-event sessions, in timeline order.")
    final_probes: list[Scene] = Field(description="28 final probes.")
    pre_probes: list[Scene] = Field(description="One pre-event probe per change event (same order as changes).")


class PrefsDataset(Strict):
    name: str = Field(description="Dataset spec.")
    seed: int = Field(description="Generator seed.")
    users: list[UserData] = Field(description="Users.")
    sha256: str = Field(default="", description="Hash of the content.")

    def unit_ids(self) -> list[str]:
        return [u.user.id for u in self.users]

    def get(self, uid: str) -> UserData:
        for u in self.users:
            if u.user.id == uid:
                return u
        raise KeyError(uid)


# ------------------------------------------------------------------------------------------
NAMES = ["Avery Lindqvist", "Rowan Achebe", "Morgan Castell", "Jordan Mbeki", "Casey Thornbury", "Riley Nakamura"]
OCCUPATIONS = ["an operations coordinator at a logistics firm", "a physics researcher at a university",
               "a regional sales manager for a paper supplier", "a product designer at a software studio",
               "a pharmacist at a hospital", "an events planner at a trade association"]
HOUSEHOLDS = ["with a partner and a dog", "alone in a flat", "with two flatmates", "with a partner and a teenager"]
PASTIMES = ["climbing", "board games", "baking", "choir", "allotment gardening", "comic books", "running", "chess"]
PEOPLE = ["manager", "sister", "neighbour", "oldest friend", "mother", "team", "cousin", "landlord"]


def diff_pairs(m: dict[str, dict[str, str]]) -> int:
    """How many attributes have different work and personal settings in ``m``."""
    return sum(m["work"][a] != m["personal"][a] for a in m["work"])


def final_matrix(m: dict[str, dict[str, str]], changes: list[ChangeEvent]) -> dict[str, dict[str, str]]:
    """The matrix after every change event (what the final probes test)."""
    out = {c: dict(row) for c, row in m.items()}
    for ev in changes:
        out[ev.context][ev.attribute] = ev.new
    return out


def _matrix(rng: random.Random, n_diff: int) -> dict[str, dict[str, str]]:
    tax = taxonomy()
    while True:
        work = {a.id: rng.choice(a.setting_ids) for a in tax.attributes}
        differ = set(rng.sample(tax.ids, n_diff))
        personal = {a.id: rng.choice([s for s in a.setting_ids if s != work[a.id]]) if a.id in differ else work[a.id]
                    for a in tax.attributes}
        m = {"work": work, "personal": personal}
        if qc_matrix(m, n_diff) == []:
            return m


def qc_matrix(m: dict[str, dict[str, str]], n_diff: int | None = None) -> list[str]:
    """Problems with a matrix: not the wanted number of differing pairs (None: at least 4, the
    paper's lowest share), or too close to the habits."""
    tax = taxonomy()
    problems = []
    diff = diff_pairs(m)
    if n_diff is not None and diff != n_diff:
        problems.append(f"{diff} pairs differ, expected {n_diff}")
    elif n_diff is None and diff < min(DIFF_PAIRS):
        problems.append(f"only {diff} pairs differ (at least {min(DIFF_PAIRS)})")
    habit = sum(m[c][a.id] == a.habit for c in CONTEXTS for a in tax.attributes) / (2 * len(tax.ids))
    if habit > MAX_HABIT_SHARE:
        problems.append(f"habit agreement {habit:.0%} > {MAX_HABIT_SHARE:.0%}")
    return problems


def _changes(rng: random.Random, m, uid: str) -> list[ChangeEvent]:
    """Five changes on cells of five distinct attributes, drawn again until the number of differing
    pairs at the final probes equals the number at the start (the paper's 18 holds for both)."""
    tax = taxonomy()
    while True:
        cells = rng.sample([(c, a) for c in CONTEXTS for a in tax.ids], 28)
        chosen, attrs = [], set()
        for c, a in cells:
            if a in attrs:
                continue
            attrs.add(a)
            chosen.append((c, a))
            if len(chosen) == N_CHANGES:
                break
        days = sorted(rng.sample(range(72, 98), N_CHANGES))
        out = []
        for (c, a), d in zip(chosen, days, strict=True):
            old = m[c][a]
            new = rng.choice([s for s in tax.attribute(a).setting_ids if s != old])
            out.append(ChangeEvent(context=c, attribute=a, old=old, new=new, day=date_of(d), sid=""))
        if diff_pairs(final_matrix(m, out)) == diff_pairs(m):
            return out


def make_profile(i: int, seed: int) -> Profile:
    """User ``i``'s profile, from a random stream independent of the matrix stream."""
    rng = random.Random(seed_from(seed, f"user_{chr(ord('a') + i)}", "profile"))
    return Profile(name=NAMES[(i + seed) % len(NAMES)], occupation=rng.choice(OCCUPATIONS),
                   household=rng.choice(HOUSEHOLDS), pastimes=rng.sample(PASTIMES, 2), people=rng.sample(PEOPLE, 3))


def _user(i: int, seed: int) -> UserData:
    uid = f"user_{chr(ord('a') + i)}"
    rng = random.Random(seed_from(seed, uid, "matrix"))
    profile = make_profile(i, seed)
    matrix = _matrix(rng, DIFF_PAIRS[i % len(DIFF_PAIRS)])
    changes = _changes(rng, matrix, uid)
    user = User(id=uid, profile=profile, matrix=matrix, changes=changes,
                states_rule=rng.choice([0.5, 0.7, 0.9]), lenience=rng.choice([0, 1]))
    # -- timeline ----------------------------------------------------------------------------
    tax = taxonomy()
    srng = random.Random(seed_from(seed, uid, "timeline"))
    slots: list[tuple[int, SceneKind, Context, str]] = []  # (day, kind, context, attribute)
    changed = {(c.context, c.attribute): c for c in changes}
    for c in CONTEXTS:
        for a in tax.ids:
            ev = changed.get((c, a))
            hi = (date.fromisoformat(ev.day) - START).days - 2 if ev else DAYS - 3
            for d in sorted(srng.sample(range(1, hi), 3)):
                slots.append((d, "accumulation", c, a))
            if ev:
                ed = (date.fromisoformat(ev.day) - START).days
                slots.append((ed, "change", c, a))
                for d in sorted(srng.sample(range(ed + 1, DAYS - 2), 2)):
                    slots.append((d, "accumulation", c, a))
    slots.sort(key=lambda s: (s[0], s[1] != "change", s[2], s[3]))
    builder = SceneBuilder(uid, random.Random(seed_from(seed, uid, "scenes")), date_of)
    world = PrefsWorld()
    sessions = []
    for k, (d, kind, c, a) in enumerate(slots):
        sid = f"{uid}-s{k:03d}"
        sc = builder.build(sid, c, a, kind, date_of(d))
        sessions.append(sc)
        if kind == "change":
            ev = changed[(c, a)]
            ev.sid = sid
    for r in (r for sc in sessions for r in sc.records):
        world.add(r)
    trng = random.Random(seed_from(seed, uid, "trips"))
    trips: list[tuple[Context, str]] = [("work", trng.choice(["Lisbon", "Oslo", "Toronto"])),
                                        ("personal", trng.choice(["Porto", "Kyoto", "Edinburgh"]))]
    for k, (c, dest) in enumerate(trips):
        d = trng.randint(20, 100)
        world.add(Record(id=f"trp_{uid}_{k}", type="trip", context=c, visible_from=date_of(d, -30),
                         attrs={"destination": dest, "depart": date_of(d), "return": date_of(d, 4), "status": "booked"}))
    final_day = date_of(DAYS)
    finals = [builder.build(f"{uid}-final-{c}-{a}", c, a, "probe_final", final_day) for c in CONTEXTS for a in tax.ids]
    pres = [builder.build(f"{uid}-pre-{ev.context}-{ev.attribute}", ev.context, ev.attribute, "probe_pre",
                          date_of(ev.day, -1)) for ev in changes]
    # probe records are not in the shared world: each probe adds them to its own branch
    return UserData(user=user, world=world, sessions=sessions, final_probes=finals, pre_probes=pres)


def generate(seed: int = BUILTIN_SEED, users: int = 4, name: str = "builtin") -> PrefsDataset:
    """The built-in dataset from ``seed`` (deterministic)."""
    ds = PrefsDataset(name=name, seed=seed, users=[_user(i, seed) for i in range(users)])
    ds.sha256 = hashlib.sha256(ds.model_dump_json(exclude={"sha256", "name"}).encode()).hexdigest()
    return ds


@lru_cache(maxsize=4)
def builtin(seed: int = BUILTIN_SEED) -> PrefsDataset:
    return generate(seed)


def load_file(path: str) -> PrefsDataset:
    """A dataset written by ``longview prefs generate --out``."""
    from pathlib import Path

    from longview.kernel.ids import read_json

    data = read_json(Path(path))  # readable, UTF-8, valid JSON, bounded depth; else a DataError
    if not isinstance(data, dict):
        raise DataError(path, "<file>", "<root>", f"a JSON object with 'users' (got a {type(data).__name__})")
    try:
        ds = PrefsDataset.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        loc = [str(x) for x in err["loc"]]
        raise DataError(path, "/".join(loc[:3]) or "<file>", "/".join(loc[3:]) or (loc[-1] if loc else "<root>"),
                        err["msg"]) from None
    validate(ds, path)
    ds.name = path
    ds.sha256 = hashlib.sha256(ds.model_dump_json(exclude={"sha256", "name"}).encode()).hexdigest()
    return ds


def validate(ds: PrefsDataset, path: str) -> None:
    """Checks the schema cannot express: settings exist, every cell is covered, changes are real."""
    from longview.kernel.ids import check_id

    tax = taxonomy()
    if not ds.users:
        raise DataError(path, "<root>", "users", "at least one user")
    seen: set[str] = set()
    for i, ud in enumerate(ds.users):
        u = ud.user
        rec = f"users/{i}"
        check_id(u.id, path, rec, "user/id")
        if u.id in seen:
            raise DataError(path, rec, "user/id", f"a unique user id; {u.id!r} repeats")
        seen.add(u.id)
        sids: set[str] = set()
        for field, scenes in (("sessions", ud.sessions), ("final_probes", ud.final_probes), ("pre_probes", ud.pre_probes)):
            for j, sc in enumerate(scenes):
                check_id(sc.sid, path, rec, f"{field}/{j}/sid")
                if sc.sid in sids:
                    raise DataError(path, rec, f"{field}/{j}/sid", f"a unique session id; {sc.sid!r} repeats")
                sids.add(sc.sid)
        for c in CONTEXTS:
            row = u.matrix.get(c)
            if row is None or set(row) != set(tax.ids):
                raise DataError(path, rec, f"user/matrix/{c}", "one setting for each of the 14 attributes")
            for a, sid in row.items():
                if sid not in tax.attribute(a).setting_ids:
                    raise DataError(path, rec, f"user/matrix/{c}/{a}", f"one of {tax.attribute(a).setting_ids}")
        for k, ev in enumerate(u.changes):
            ids = tax.attribute(ev.attribute).setting_ids if ev.attribute in tax.ids else []
            if ev.old not in ids or ev.new not in ids or ev.old == ev.new:
                raise DataError(path, rec, f"user/changes/{k}", "a change between two different settings of a known attribute")
            if not any(s.sid == ev.sid and s.kind == "change" for s in ud.sessions):
                raise DataError(path, rec, f"user/changes/{k}/sid", "the id of a change session")
        for field, scenes in (("sessions", ud.sessions), ("final_probes", ud.final_probes), ("pre_probes", ud.pre_probes)):
            for j, sc in enumerate(scenes):
                if sc.attribute not in tax.ids:
                    raise DataError(path, rec, f"{field}/{j}/attribute", f"one of {tax.ids}")
                # A call serving a topic is reported with that topic's sentence (an unknown one crashed the run).
                for kind, calls in (("calls", sc.kit.calls), ("infer_calls", sc.kit.infer_calls)):
                    for n, call in enumerate(calls):
                        if call.topic is not None and call.topic not in sc.kit.topic_texts:
                            raise DataError(path, rec, f"{field}/{j}/kit/{kind}/{n}/topic",
                                            f"a topic that kit/topic_texts names (got {call.topic[:60]!r})")
        cells = {(p.context, p.attribute) for p in ud.final_probes}
        if len(cells) != 2 * len(tax.ids):
            raise DataError(path, rec, "final_probes", "one final probe per (context, attribute) cell")
        if len(ud.pre_probes) != len(u.changes):
            raise DataError(path, rec, "pre_probes", "one pre-event probe per change event")
