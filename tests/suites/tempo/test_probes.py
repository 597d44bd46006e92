"""Agents that do no real work score at the floor; agents that do the work in another form keep
their score (issue 22's 'done when', on five built-in scenarios x three personas)."""

import statistics

import pytest
from tempo_probes import (
    AskEverything,
    MessageDeferralOracle,
    PasteBack,
    Spammer,
    SummarisingOracle,
    ToolSpammer,
    run_world,
)

from longview.suites.tempo.agents import ReferenceAgent
from longview.suites.tempo.metrics import score_run
from longview.suites.tempo.schema import PERSONAS


def scores(builtin, make, step=2):
    out = []
    for sc in sorted(builtin.scenarios, key=lambda s: s.id)[::step]:  # five scenarios (both resource kinds), 15 units
        for p in PERSONAS:
            out.append(score_run(sc, p, run_world(sc, p, make(sc, p))))
    return out


def mean(xs):
    xs = [x for x in xs if x is not None]
    return statistics.mean(xs)


@pytest.fixture(scope="module")
def floor(builtin):
    return scores(builtin, lambda sc, p: ReferenceAgent("passive", sc, p))


@pytest.mark.parametrize("open_all", [True, False])
def test_content_free_spammer_scores_at_the_floor(builtin, floor, open_all):
    spam = scores(builtin, lambda sc, p: Spammer(sc, p, open_all=open_all))
    assert mean([s.ta.ta for s in spam if s.ta]) <= 0.10
    assert mean([s.tc_rules for s in spam]) <= mean([s.tc_rules for s in floor]) + 0.10
    assert mean([s.interruptions for s in spam]) > 20  # every message it sends is noise


@pytest.mark.parametrize("ask", [False, True])
def test_every_tool_on_every_id_scores_at_the_floor(builtin, ask):
    """Trying (or asking about) every write on every record hits the catalog by brute force: such
    an activation credits nothing, so TC and TR-D stay at the floor."""
    spam = scores(builtin, lambda sc, p: ToolSpammer(sc, p, ask=ask), step=4)  # three scenarios: it is slow
    low = scores(builtin, lambda sc, p: ReferenceAgent("passive", sc, p), step=4)
    assert mean([s.tc_rules for s in spam]) <= mean([s.tc_rules for s in low]) + 0.10
    assert mean([s.tr_d for s in spam]) <= mean([s.tr_d for s in low]) + 0.10
    assert mean([s.ta.ta for s in spam if s.ta]) <= 0.10


@pytest.mark.parametrize("make", [PasteBack, AskEverything], ids=["paste-back", "ask-everything"])
def test_pasting_back_or_asking_about_everything_scores_at_the_floor(builtin, floor, make):
    """Echoing what it was told, or asking about every record (one question each: go ahead? by
    when? to whom? saying what?) and doing nothing, earns no more than doing nothing."""
    runs = scores(builtin, make)
    assert mean([s.ta.ta for s in runs if s.ta]) <= 0.10
    for key in ("tc_rules", "tr_d", "trust_sim"):
        assert mean([getattr(s, key) for s in runs]) <= mean([getattr(s, key) for s in floor]) + 0.10, key
    assert mean([s.interruptions for s in runs]) > 10  # and it costs the user's attention


def test_the_asking_probe_is_really_answered(builtin):
    sc = builtin.by_id["shopping-monitor"]
    w = run_world(sc, "reviewer", AskEverything(sc, "reviewer"))
    replies = [x.text for x in w.said if x.kind == "reply"]
    assert any("I need it done by" in r for r in replies)  # it learns facts; it still does no work


def test_oracle_stating_its_deferral_in_a_message_earns_ta(builtin):
    runs = scores(builtin, MessageDeferralOracle)
    assert mean([s.ta.ta for s in runs if s.ta]) >= 0.90
    assert all(s.ta.later for s in runs if s.ta)


def test_oracle_ending_activations_with_a_summary_keeps_its_depth(builtin):
    runs = scores(builtin, SummarisingOracle)
    assert mean([s.tr_d for s in runs]) >= 0.95
    assert mean([s.tc_rules for s in runs]) >= 0.95


def test_passive_is_the_floor_and_the_oracle_is_not_at_the_clamp(builtin, floor):
    refs = {m: scores(builtin, lambda sc, p, m=m: ReferenceAgent(m, sc, p))
            for m in ("oracle", "policy", "always-suggest", "always-execute")}
    for key in ("tc_rules", "tr_d", "trust_sim"):
        low = mean([getattr(s, key) for s in floor])
        assert all(low < mean([getattr(s, key) for s in runs]) for runs in refs.values()), key
    oracle = refs["oracle"]
    assert sum(s.trust_final < 5.0 for s in oracle) > len(oracle) / 2
    assert all(s.trust_sim < 5.0 for s in oracle)
