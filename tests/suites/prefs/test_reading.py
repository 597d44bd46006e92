"""Checks that say only what they see: plain-text replies are read from their words (and the
turn's calls), and a reply that shows nothing is "not observed", never the default setting."""

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from longview.suites.prefs.calibrate import builtin_set, calibrate, load_set
from longview.suites.prefs.checks import brs, observe
from longview.suites.prefs.dataset import builtin
from longview.suites.prefs.model import taxonomy
from longview.suites.prefs.reading import read_reply
from longview.suites.prefs.user import SimState, UserCore
from longview.suites.prefs.wrapper import Delivered, Realization, Segment

HELD_OUT = Path(__file__).parents[2] / "fixtures" / "prefs" / "heldout_calibration.jsonl"


def test_the_shipped_set_has_at_least_8_per_setting_and_nulls():
    items = load_set(builtin_set())
    per = Counter((i.attribute, i.setting) for i in items)
    for a in taxonomy().attributes:
        for s in a.setting_ids:
            assert per[(a.id, s)] >= 8, (a.id, s)
        assert per[(a.id, None)] >= 3, a.id


def test_held_out_set_meets_the_goals():
    """Written separately and never used to tune the reader (the first score on it is this one)."""
    res = calibrate(load_set(HELD_OUT))["overall"]
    assert res["precision"] >= 0.9 and res["null_false_rate"] <= 0.1
    assert res["recall"] >= 0.8  # reported, not a goal of the issue; pinned so a regression shows


def test_replies_that_show_nothing_are_not_read_as_the_default():
    for attr in taxonomy().ids:
        for text in ("Certainly. Please let me know if you require anything further.", "Would you like me to look into that?"):
            assert read_reply(attr, text) is None, (attr, text)


def test_a_plain_text_reply_in_a_session_is_not_observed_and_the_user_does_not_correct_it():
    ud = builtin().users[0]
    scene = next(s for s in ud.sessions if s.attribute == "reasoning_visibility" and s.kind == "accumulation")
    r = Realization(attribute="reasoning_visibility", selected="hide", deliveries=[
        Delivered(turn=0, segments=[Segment(kind="text", text="Certainly! Let me know if there is anything else.")])])
    assert observe("reasoning_visibility", r, scene.kit) is None
    assert brs("reasoning_visibility", "show", r, scene.kit) == 2
    intent = UserCore(ud.user, scene, SimState(), "show").react(r, probe=False)
    assert intent.facts["trigger"] == "unclear"
    assert not any(w in intent.draft for w in taxonomy().attribute("reasoning_visibility").setting("show").want)
    # the same words with a reason before the answer show it
    r2 = r.model_copy(update={"deliveries": [Delivered(turn=0, segments=[Segment(
        kind="text", text="Because the direct train is faster, I'd take the 9:40.")])]})
    assert observe("reasoning_visibility", r2, scene.kit) == "show"


def test_calibrate_cli(tmp_path):
    out = tmp_path / "cal.json"
    p = subprocess.run([sys.executable, "-m", "longview", "prefs", "calibrate", "--set", str(HELD_OUT), "--json", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "OVERALL" in p.stdout and "null_false_rate" in p.stdout
    data = json.loads(out.read_text())
    assert set(data["by_attribute"]) == set(taxonomy().ids)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"attribute": "verbosity", "setting": "longish", "reply": "x"}\n')
    p = subprocess.run([sys.executable, "-m", "longview", "prefs", "calibrate", "--set", str(bad)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "line 1" in p.stderr and "setting" in p.stderr
