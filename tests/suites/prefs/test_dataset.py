from longview.suites.prefs.dataset import generate, qc_matrix
from longview.suites.prefs.model import CONTEXTS, taxonomy
from longview.suites.prefs.qc import profile_prediction, run_qc


def test_generator_is_deterministic_and_seeded(ds):
    again = generate(7)
    assert again.sha256 == ds.sha256
    assert generate(8).sha256 != ds.sha256


def test_users_matrices_and_timeline(ds):
    assert len(ds.users) >= 4
    for ud in ds.users:
        u = ud.user
        assert qc_matrix(u.matrix) == []
        assert len(ud.sessions) == 99 and sum(s.kind == "change" for s in ud.sessions) == 5
        assert len(ud.final_probes) == 28 and len(ud.pre_probes) == 5
        days = [s.day for s in ud.sessions]
        assert days == sorted(days) and days[0] >= "2026-01-05" and days[-1] <= "2026-05-05"
        for ev, pre in zip(u.changes, ud.pre_probes, strict=True):
            assert pre.day < ev.day and (pre.context, pre.attribute) == (ev.context, ev.attribute)
            assert u.target(ev.context, ev.attribute, pre.day) == ev.old
            assert u.target(ev.context, ev.attribute, ud.final_probes[0].day) == ev.new


def test_differing_pairs_are_the_papers_18(ds):
    """MemPABench §3.2: 18 of 56 user-attribute pairs differ between work and personal life; the CS
    denominator (App. F.3: 216 pair instances = 18 x 4 backbones x 3 repeats) is the same 18 at the
    final probes, so the change events keep the count."""
    from longview.suites.prefs.dataset import diff_pairs, final_matrix

    assert [diff_pairs(u.user.matrix) for u in ds.users] == [5, 4, 5, 4]
    assert sum(diff_pairs(final_matrix(u.user.matrix, u.user.changes)) for u in ds.users) == 18
    assert all(qc_matrix(u.user.matrix, 5) != [] for u in ds.users[1::2])  # the count is checked exactly
    assert run_qc(ds.model_copy(update={"users": ds.users[:1]})).differing_pairs == 5


def test_profile_does_not_give_settings_away(ds):
    """The profile is drawn independently of the matrix, so predicting the settings from the real
    profiles is no better than from profiles drawn for other seeds (a null distribution of 40)."""
    from longview.suites.prefs.dataset import make_profile

    acc, chance = profile_prediction(ds)
    assert abs(acc - chance) <= 0.10
    null = []
    for k in range(40):
        other = ds.model_copy(deep=True)
        for i, ud in enumerate(other.users):
            ud.user.profile = make_profile(i, 1000 + k)
        null.append(profile_prediction(other)[0])
    assert sum(x >= acc for x in null) / len(null) >= 0.05  # the real profiles are not an outlier


def test_qc_every_setting_enactable_and_observable():
    ds = generate(7, users=1)
    report = run_qc(ds)
    assert report.ok, report.problems[:5]
    assert report.enacted == report.observed_ok == sum(len(taxonomy().attribute(p.attribute).settings)
                                                       for p in ds.users[0].final_probes)
    assert report.leaks == 0
    assert len(CONTEXTS) == 2


def test_a_damaged_dataset_file_is_one_error_naming_the_field(tmp_path):
    import json

    import pytest

    from longview.kernel.errors import DataError
    from longview.suites.prefs.dataset import load_file

    f = tmp_path / "ds.json"
    f.write_text("[]")
    with pytest.raises(DataError, match="<root>.*a JSON object with 'users'"):
        load_file(str(f))
    # A planned call serving a topic the kit gives no sentence for crashed the reference agent mid-run.
    ds = json.loads(generate(7, users=1, name="x").model_dump_json())
    kit = next(s["kit"] for s in ds["users"][0]["sessions"] if any(c.get("topic") for c in s["kit"]["calls"]))
    next(c for c in kit["calls"] if c.get("topic"))["topic"] = "no such topic"
    f.write_text(json.dumps(ds))
    with pytest.raises(DataError, match="a topic that kit/topic_texts names"):
        load_file(str(f))


def test_every_family_is_asked_in_several_phrasings(ds):
    """Several request templates per task family, all in use, so an agent cannot key on one wording;
    the world offers more tools than one task needs (reads by id, cancellations, replies)."""
    import re

    from longview.suites.prefs.scenes import TEMPLATES
    from longview.suites.prefs.world import PrefsWorld, WorldTools

    pats = {(fam, k): re.compile("^" + re.sub(r"\\\{\w+\\\}", ".+?", re.escape(t)) + "$")
            for fam, ts in TEMPLATES.items() for k, t in enumerate(ts)}
    used: dict[tuple[str, int], int] = dict.fromkeys(pats, 0)
    for ud in ds.users:
        for sc in ud.sessions + ud.final_probes + ud.pre_probes:
            hits = [key for key, p in pats.items() if p.match(sc.request.split(". ", 1)[-1]) or p.match(sc.request)]
            assert hits, sc.request
            for key in hits:
                used[key] += 1
    assert all(len(ts) >= 2 for ts in TEMPLATES.values())
    assert all(n > 0 for n in used.values()), [k for k, n in used.items() if n == 0]
    names = [s["function"]["name"] for s in WorldTools(PrefsWorld(), "work", "2026-01-05").schemas()]
    assert len(names) == 25 and {"reply_email", "read_email", "get_event", "check_availability"} <= set(names)


def test_the_new_tools_read_and_write_the_world():
    from longview.suites.prefs.world import PrefsWorld, Record, WorldTools

    w = PrefsWorld()
    w.add(Record(id="per_1", type="person", context="work", visible_from="2026-01-01", attrs={"name": "A B"}))
    w.add(Record(id="eml_1", type="email", context="work", visible_from="2026-01-01", attrs={"from": "per_1", "subject": "x"}))
    w.add(Record(id="evt_1", type="event", context="work", visible_from="2026-01-01", attrs={"title": "t"}))
    w.add(Record(id="plc_1", type="place", context="work", visible_from="2026-01-01", attrs={"online_booking": True}))
    t = WorldTools(w, "work", "2026-01-05")
    for name, args in (("reply_email", {"message_id": "eml_1", "body": "ok"}), ("cancel_event", {"event_id": "evt_1"}),
                       ("create_file", {"name": "n", "text": "x"}), ("add_contact", {"name": "C D", "email": "c@d"}),
                       ("book_place", {"place_id": "plc_1", "day": "2026-01-09", "time": "19:00", "party": 2})):
        assert t.call(name, args).ok, name
    assert t.call("check_availability", {"place_id": "plc_1", "day": "2026-01-09", "time": "19:00"}).output["available"] is False
    bkg = t.call("list_bookings", {}).output["bookings"][0]["id"]
    assert t.call("cancel_booking", {"booking_id": bkg}).ok
    assert w.records["evt_1"].attrs["status"] == "cancelled" and [e["tool"] for e in w.log][0] == "reply_email"
    assert not t.call("read_email", {"message_id": "nope"}).ok
