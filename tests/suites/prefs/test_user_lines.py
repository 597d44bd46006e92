"""A consistent simulated user: every line it can say fits what was delivered and what it wants."""

from importlib.resources import files

from longview.suites.prefs.dataset import builtin
from longview.suites.prefs.model import parse_taxonomy, taxonomy
from longview.suites.prefs.qc import line_problems
from longview.suites.prefs.user import SimState, UserCore, change_lines
from longview.suites.prefs.wrapper import Delivered, Realization, Segment

YAML = files("longview.suites.prefs").joinpath("data", "attributes.yaml").read_text(encoding="utf-8")


def test_builtin_lines_are_consistent():
    assert line_problems(taxonomy()) == []


def test_a_planted_contradiction_fails_the_check():
    # The bug of the first release: verbosity's complaints written for the opposite setting.
    planted = YAML.replace('{say: "That\'s a bit bare; I\'d have liked to know what to watch out for.", asks_for: [detailed]}',
                           '{say: "That\'s a bit bare; I\'d have liked to know what to watch out for.", asks_for: [terse]}')
    assert planted != YAML
    problems = line_problems(parse_taxonomy(planted, "planted.yaml"))
    assert any(p.startswith("verbosity: complaint about terse asks for terse itself") for p in problems)


def test_a_missing_line_for_a_pair_fails_the_check():
    # bookend delivered to a user who wants silent: only the line asking for silent fits.
    planted = YAML.replace('asks_for: [silent]}', 'asks_for: [full]}')
    problems = line_problems(parse_taxonomy(planted, "planted.yaml"))
    assert "process_visibility: no complaint for a user who wanted silent and got bookend" in problems


def test_the_simulator_says_only_lines_that_fit_delivered_and_wanted():
    ud = builtin().users[0]
    scene = next(s for s in ud.sessions if s.attribute == "verbosity" and s.kind == "accumulation")
    detailed = Realization(attribute="verbosity", selected="detailed", deliveries=[Delivered(turn=0, segments=[
        Segment(kind="answer", text="It is Tuesday."), Segment(kind="supplement:caveat", text="c."),
        Segment(kind="supplement:background", text="b.")])])
    verb = taxonomy().attribute("verbosity")
    for k in range(6):  # several draws: each must be a line about too much, never about too little
        core = UserCore(ud.user, scene.model_copy(update={"sid": f"{scene.sid}-{k}"}), SimState(), "terse")
        draft = core.react(detailed, probe=False).draft
        assert any(line in draft for line in verb.complaints("detailed", "terse"))
        assert not any(line in draft for line in verb.complaints("terse", "detailed"))


def test_change_events_meet_the_old_setting_with_a_line_asking_for_the_new():
    for ud in builtin().users:
        for ev in ud.user.changes:
            scene = next(s for s in ud.sessions if s.kind == "change" and (s.context, s.attribute) == (ev.context, ev.attribute))
            consequence, _ = change_lines(ud.user, scene, ev.old, ev.new)
            assert any(line in consequence for line in taxonomy().attribute(ev.attribute).complaints(ev.old, ev.new))
