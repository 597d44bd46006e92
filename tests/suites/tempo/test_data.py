"""The shipped scenarios: the generated set, its QC, and the file format's errors."""

import json
from datetime import timedelta

import pytest

from longview.kernel.errors import DataError
from longview.suites.tempo.dataset import builtin_dir, load
from longview.suites.tempo.generator.generate import generate
from longview.suites.tempo.qc import check
from longview.suites.tempo.schema import Scenario

DOMAINS = {"research", "travel", "living", "food", "career", "business", "education", "finance", "shopping", "health"}


def test_builtin_is_the_seed_0_generation(builtin):
    assert [s.model_dump() for s in sorted(generate(0), key=lambda s: s.id)] == \
           [s.model_dump() for s in sorted(builtin.scenarios, key=lambda s: s.id)]


def test_builtin_covers_the_paper_shape(builtin):
    assert {s.domain for s in builtin.scenarios} == DOMAINS
    for s in builtin.scenarios:
        assert 7 <= s.days <= 10 and 10 <= len(s.tasks) <= 19
        assert any(t.kind == "noop" for t in s.tasks)
        assert any(not e.when.empty() for e in s.events)
    assert len(builtin.unit_ids()) == 30


@pytest.mark.parametrize("sid", ["research-deadline", "food-mealplan"])
def test_qc_passes(builtin, sid):
    assert check(builtin.by_id[sid]) == []


def test_qc_catches_a_broken_scenario(builtin):
    sc = builtin.by_id["food-mealplan"].model_copy(deep=True)
    sc.tasks[0].exclude.append(sc.tasks[0].keys[0])  # a constraint the oracle's own output violates
    sc.events[0].at = sc.events[0].at.replace(hour=3)  # the user writes at 03:xx while asleep
    sc.tasks[0].evidence.append("FORM-2")  # a record that only appears on day 6
    problems = check(sc)
    assert any("evidence FORM-2 does not exist when the task starts" in p for p in problems)
    assert any("constraints" in p for p in problems)
    assert any("writes while asleep" in p for p in problems)


def test_bad_file_names_file_record_and_field(tmp_path):
    raw = json.loads(next(builtin_dir().glob("*.json")).read_text())
    raw["tasks"][0]["depth"]["reviewer"] = "maybe"
    (tmp_path / "bad.json").write_text(json.dumps(raw))
    with pytest.raises(DataError) as e:
        load(str(tmp_path))
    assert e.value.file.endswith("bad.json") and e.value.record == raw["id"]
    assert e.value.field == "tasks.0.depth.reviewer"


def test_format_rejects_dangling_references(builtin):
    raw = builtin.scenarios[0].model_dump()
    raw["tasks"][0]["evidence"] = ["NOPE-1"]
    with pytest.raises(ValueError, match="unknown evidence record"):
        Scenario.model_validate(raw)


def test_stated_policy_names_each_class_under_its_stated_depth(builtin):
    from longview.suites.tempo.generator.build import _SAY, CLASSES

    for sc in builtin.scenarios:
        for p in sc.personas:
            sections = {d: p.policy.split(_SAY[d] + ": ", 1)[1].split(".", 1)[0] for d in _SAY if _SAY[d] in p.policy}
            for t in sc.tasks:
                if t.id in CLASSES and t.stated_depth(p.id) != "noop":
                    assert CLASSES[t.id] in sections[t.stated_depth(p.id)], (sc.id, p.id, t.id)


def _job(raw):
    return next(i for i, r in enumerate(raw["records"]) if r["kind"] == "job")


def _drop_resources(raw):
    raw.pop("resources")
    return f"records.{_job(raw)}.fields.resource"


def _hours(value):
    def fn(raw):
        raw["records"][_job(raw)]["fields"]["hours"] = value
        return f"records.{_job(raw)}.fields"
    return fn


def _set(key, value):
    def fn(raw):
        raw[key] = value
        return key
    return fn


def _busy_tz(raw):
    raw["availability"]["busy"][0]["start"] = "2026-03-03T13:20:00+02:00"
    return "availability.busy.0.start"


def _wake_tz(raw):
    raw["availability"]["wake"] = "07:00:00+02:00"
    return "availability.wake"


def _unknown_evidence(raw):
    raw["tasks"][2]["evidence"] = ["NOPE-1"]
    return "tasks.2.evidence.0"


HOSTILE = {  # each crashed a run (or loaded nonsense) before the scenario format checked it
    "no_resources": _drop_resources,  # a job's resource lookup raised StopIteration mid-run
    "hours_huge": _hours(10**12),  # OverflowError in run_job
    "hours_negative": _hours(-(10**12)),
    "hours_text": _hours("8"),
    "start_with_timezone": _set("start", "2026-03-02T00:00:00+00:00"),  # TypeError: naive vs aware
    "start_as_number": _set("start", 1),  # a Unix timestamp: aware, so the same TypeError
    "start_year_9999": _set("start", "9999-12-30T00:00:00"),  # start + days overflows
    "busy_with_timezone": _busy_tz,
    "wake_with_timezone": _wake_tz,
    "unknown_evidence": _unknown_evidence,
    "id_with_separator": _set("id", "../escape"),
    "id_with_colon": _set("id", "a:b"),
}


def _range_from(value):
    def fn(raw):
        i = next(i for i, a in enumerate(raw["actions"]) if any(isinstance(v, dict) for v in a["args"].values()))
        key = next(k for k, v in raw["actions"][i]["args"].items() if isinstance(v, dict))
        raw["actions"][i]["args"][key]["from"] = value
        return f"actions.{i}.args"
    return fn


def _job_fields_removed(raw):
    raw["records"][_job(raw)].pop("fields")
    return f"records.{_job(raw)}.fields"


HOSTILE.update({  # found by an ad-hoc deep fuzz: time ranges compared str with datetime mid-run
    "range_from_text": _range_from("soon"),
    "range_from_number": _range_from(5),
    "range_from_null": _range_from(None),
    "range_reversed": _range_from("2999-01-01T00:00:00"),
    "job_without_fields": _job_fields_removed,  # was a KeyError in the reference check
})


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_scenario_fails_at_load_naming_file_record_and_field(case, tmp_path):
    raw = json.loads(sorted(builtin_dir().glob("*.json"))[0].read_text())
    field = HOSTILE[case](raw)
    (tmp_path / "s.json").write_text(json.dumps(raw))
    with pytest.raises(DataError) as e:
        load(str(tmp_path))
    assert e.value.file.endswith("s.json")
    assert e.value.record == raw["id"]
    assert e.value.field == field


def test_duplicate_scenario_ids_name_the_second_file(tmp_path):
    src = sorted(builtin_dir().glob("*.json"))[0]
    for name in ("a.json", "b.json"):
        (tmp_path / name).write_text(src.read_text())
    with pytest.raises(DataError) as e:
        load(str(tmp_path))
    assert e.value.file.endswith("b.json") and e.value.field == "id" and "a.json" in e.value.expected


def test_generate_writes_to_the_working_folder_and_never_clobbers(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from longview.cli import app

    monkeypatch.chdir(tmp_path)
    before = {p.name: p.read_bytes() for p in builtin_dir().glob("*.json")}
    r = CliRunner().invoke(app, ["tempo", "generate", "--seed", "1"])
    assert r.exit_code == 0, r.output
    assert len(list((tmp_path / "tempo-scenarios").glob("*.json"))) == 10
    assert {p.name: p.read_bytes() for p in builtin_dir().glob("*.json")} == before  # the package is untouched
    again = CliRunner().invoke(app, ["tempo", "generate", "--seed", "2"])
    assert again.exit_code == 2 and "not empty" in again.output and "--force" in again.output
    assert CliRunner().invoke(app, ["tempo", "generate", "--seed", "2", "--force"]).exit_code == 0


def _shape(s):
    return (frozenset(r.id for r in s.records), (s.decision_window.start, s.decision_window.end),
            frozenset(t.id for t in s.tasks), s.days, tuple(e.at for e in s.events))


def test_builtin_scenarios_differ_in_structure(builtin):
    scs = builtin.scenarios
    assert len({frozenset(r.id for r in s.records) for s in scs}) >= 8  # record-id sets
    assert len({(s.decision_window.start, s.decision_window.end) for s in scs}) >= 5  # decision windows
    assert len({frozenset(t.id for t in s.tasks) for s in scs}) == len(scs)  # each its own mix of task kinds
    assert len({len(s.tasks) for s in scs}) >= 5 and all(10 <= len(s.tasks) <= 19 for s in scs)  # sizes
    assert len({tuple(e.at.time() for e in s.events) for s in scs}) == len(scs)  # event timings
    assert len({frozenset((t.id, (t.due - s.start).days) for t in s.tasks) for s in scs}) == len(scs)  # days moved
    assert sum(sum(t.idle for t in s.tasks) >= 2 for s in scs) >= 5  # more than one sleep-time task
    assert max(_chain(s) for s in scs) == 3 and min(_chain(s) for s in scs) == 2  # dependency depths differ
    assert sum(any(t.kind == "conflict" for t in s.tasks) for s in scs) >= 3  # clashes fixed by cancelling


def _chain(s):
    """Longest chain of conditional events: an event needing an action whose task's event is itself conditional."""
    by_action = {}
    for t in s.tasks:  # the task that first asks for the change (t01, not the nudge t11 that repeats it)
        if t.action:
            by_action.setdefault(t.action, t)
    events = {e.id: e for e in s.events}

    def depth(eid, seen=()):
        e = events[eid]
        needs = e.when.executed + e.when.approved + e.when.declined + e.when.not_executed
        ups = [by_action[a].trigger for a in needs if a in by_action and by_action[a].trigger and by_action[a].trigger not in seen]
        return 1 + max((depth(u, (*seen, eid)) for u in ups), default=0)

    return max(depth(t.trigger) for t in s.tasks if t.trigger)


def test_stated_deadlines_equal_the_scored_ones(builtin):
    from longview.suites.tempo.qc import deadline_problems

    assert [p for s in builtin.scenarios for p in deadline_problems(s)] == []


def test_qc_finds_a_stated_deadline_that_contradicts_the_scored_one(builtin):
    from longview.suites.tempo.qc import deadline_problems

    sc = builtin.by_id["research-deadline"].model_copy(deep=True)
    dw = sc.decision_window
    ev = next(e for e in sc.events if e.id == sc.task(dw.competing).trigger)
    wrong = (sc.task(dw.competing).due + timedelta(days=2)).strftime("%A")
    ev.text = f"Add the ablations by {wrong} evening."  # two days after the scored due time
    problems = deadline_problems(sc)
    assert len(problems) == 1 and "t09" in problems[0] and wrong in problems[0]


def test_generate_with_another_seed_is_structurally_different():
    one, zero = {s.id: s for s in generate(1)}, {s.id: s for s in generate(0)}
    assert one.keys() == zero.keys()
    differ = [sid for sid in zero if _shape(one[sid])[:4] != _shape(zero[sid])[:4]]
    assert len(differ) == len(zero)  # ids, window, task graph or length differ, not only the clock
    assert sum(_shape(one[s])[0] != _shape(zero[s])[0] for s in zero) >= 8  # new record ids
    assert sum(_shape(one[s])[1] != _shape(zero[s])[1] for s in zero) >= 5  # new decision windows
    assert sum(_shape(one[s])[2] != _shape(zero[s])[2] for s in zero) >= 5  # new task mixes
