from longview.suites.prefs.dataset import builtin
from longview.suites.prefs.model import taxonomy
from longview.suites.prefs.user import Said, SimState, UserCore, audit, user_phrases
from longview.suites.prefs.wrapper import Delivered, Realization, Segment


def _core(target, scene_attr="verbosity"):
    ud = builtin().users[0]
    scene = next(s for s in ud.sessions if s.attribute == scene_attr and s.kind == "accumulation")
    return UserCore(ud.user, scene, SimState(), target), scene


def _delivered(*segs):
    return Realization(attribute="verbosity", selected="x", deliveries=[
        Delivered(turn=0, segments=[Segment(kind=k, text=t) for k, t in segs])])


DETAILED = _delivered(("answer", "It is Tuesday."), ("supplement:caveat", "c."), ("supplement:background", "b."))


def test_accepts_a_match_without_stating_anything():
    core, _ = _core("detailed")
    intent = core.react(DETAILED, probe=False)
    assert intent.facts["trigger"] == "match"
    phrases = set(user_phrases())
    assert not any(p in intent.draft for p in phrases)


def test_corrects_a_mismatch_in_own_words():
    core, _ = _core("terse")
    intent = core.react(DETAILED, probe=False)
    assert intent.facts["trigger"] == "mismatch" and intent.facts["observed"] == "detailed"
    verb = taxonomy().attribute("verbosity")
    assert any(p in intent.draft for p in verb.complaints("detailed", "terse") + verb.setting("terse").want)
    assert audit([Said(sid="s", kind="accumulation", text=intent.draft, trigger="mismatch")])["leaks"] == 0


def test_probe_gives_no_feedback_on_manner():
    core, _ = _core("terse")
    intent = core.react(DETAILED, probe=True)
    assert intent.end and intent.facts["trigger"] == "probe"
    assert audit([Said(sid="p", kind="probe_final", text=intent.draft, trigger="probe")])["leaks"] == 0


def test_audit_catches_leaks():
    said = [Said(sid="a", kind="accumulation", text="Please use the Terse verbosity setting.", trigger="mismatch"),
            Said(sid="b", kind="accumulation", text="Just the answer is fine, I don't need the extras.", trigger="request"),
            Said(sid="c", kind="probe_final", text="Like last time, please.", trigger="probe")]
    a = audit(said)
    assert a["leaks"] == 3 and [x["sid"] for x in a["examples"]] == ["a", "b", "c"]


def test_prs_rating():
    core, _ = _core("terse")
    assert core.rate(DETAILED, capability_failure=False) == 1 + core.user.lenience
    assert core.rate(DETAILED, capability_failure=True) == 1
    core2, _ = _core("detailed")
    assert core2.rate(DETAILED, capability_failure=False) == 5
