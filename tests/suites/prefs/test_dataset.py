from longview.suites.prefs.dataset import generate, qc_matrix
from longview.suites.prefs.model import CONTEXTS, taxonomy
from longview.suites.prefs.qc import profile_prediction, run_qc


def test_generator_is_deterministic_and_seeded(ds):
    again = generate(7)
    assert again.sha256 == ds.sha256
    assert generate(8).sha256 != ds.sha256


def test_users_matrices_and_timeline(ds):
    assert len(ds.users) >= 4
    tax = taxonomy()
    for ud in ds.users:
        u = ud.user
        assert qc_matrix(u.matrix) == []
        diff = sum(u.matrix["work"][a] != u.matrix["personal"][a] for a in tax.ids)
        assert diff / 14 >= 0.30
        assert len(ud.sessions) == 99 and sum(s.kind == "change" for s in ud.sessions) == 5
        assert len(ud.final_probes) == 28 and len(ud.pre_probes) == 5
        days = [s.day for s in ud.sessions]
        assert days == sorted(days) and days[0] >= "2026-01-05" and days[-1] <= "2026-05-05"
        for ev, pre in zip(u.changes, ud.pre_probes, strict=True):
            assert pre.day < ev.day and (pre.context, pre.attribute) == (ev.context, ev.attribute)
            assert u.target(ev.context, ev.attribute, pre.day) == ev.old
            assert u.target(ev.context, ev.attribute, ud.final_probes[0].day) == ev.new


def test_profile_does_not_give_settings_away(ds):
    acc, chance = profile_prediction(ds)
    assert abs(acc - chance) <= 0.10
    blind = ds.model_copy(deep=True)
    for ud in blind.users:
        ud.user.profile.occupation = ud.user.profile.household = ""
        ud.user.profile.pastimes, ud.user.profile.people = [], []
    acc_blind, _ = profile_prediction(blind)
    assert acc - acc_blind <= 0.05  # the profile adds nothing over knowing nothing


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
