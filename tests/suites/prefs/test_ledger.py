"""The memory-needing ceiling (issue 23): ``ref:ledger`` chooses only from the ledger it wrote to
MEMORY.md in earlier sessions. With file memory it reaches ref:oracle's scores; without memory tools
(none, or the oracle memory whose target line it never reads) it is the fixed-choice agent."""

from longview.suites.prefs.agents import accepted, ledger_choice
from longview.suites.prefs.model import taxonomy

from .conftest import run_cells


def test_ledger_eliminates_settings_and_follows_a_change():
    tone = taxonomy().attribute("tone_formality")
    assert ledger_choice(tone, "work", "") == tone.habit
    mem = "- [work] set_tone_formality: no formal -> consultative\n"
    assert ledger_choice(tone, "work", mem) == "consultative"  # the reaction's pointer first
    mem += "- [work] set_tone_formality: no consultative\n"
    assert ledger_choice(tone, "work", mem) == "casual"  # a misread pointer costs one session, not the cell
    mem += "- [work] set_tone_formality: ok casual\n"
    assert ledger_choice(tone, "work", mem) == "casual"
    assert ledger_choice(tone, "personal", mem) == tone.habit  # the other context's ledger is not this one's
    mem += "- [work] set_tone_formality: no casual -> formal\n"  # the preference changed
    assert ledger_choice(tone, "work", mem) == "formal"


def test_acceptance_is_a_short_thanks_without_objection():
    assert accepted("Great, thank you. Yes, go ahead with it.")
    assert accepted("Perfect, thanks.")
    assert not accepted("I know how to do this, thanks, no lesson needed.")
    assert not accepted("That's more than I needed. Thanks.")


def test_ledger_reaches_the_oracle_through_memory_only(tmp_path):
    sc = run_cells(tmp_path, [("ref:ledger", "file"), ("ref:oracle", "oracle"), ("ref:ledger", "none"),
                              ("ref:ledger", "oracle"), ("ref:habits", "none")])
    m = {(r.agent, r.variant): r.metrics for r in sc.rows}
    ceiling = m[("ref:oracle", "oracle")]
    assert ceiling["psa"] == 1.0
    assert {k: m[("ref:ledger", "file")][k] for k in ("psa", "cs", "pet", "carry_over")} == \
        {k: ceiling[k] for k in ("psa", "cs", "pet", "carry_over")}
    # no memory tools, no ledger: the score falls to a fixed choice (it never reads the oracle's target)
    assert m[("ref:ledger", "none")] == m[("ref:ledger", "oracle")]
    assert m[("ref:ledger", "none")]["psa"] == m[("ref:habits", "none")]["psa"]
    assert m[("ref:ledger", "none")]["cs"] == 0 and m[("ref:ledger", "none")]["pet"] == 0
