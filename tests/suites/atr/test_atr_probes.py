"""atr's 'done when' probes, run through the public API (``longview.run`` with a factory): agents
that do no real work score TSAcc at the floor (ref:passive, 0 on the built-in cohort), an agent that
only asks about everything acquires with near-zero precision, and agents doing the real work in
other words or another form are not pushed to the floor.

Measured on the first 4 built-in personas (2026-12-02, decision-classifier@5): ref:passive TSAcc
0.00, ref:asker 0.63 (0.15 under @4); paste-back 0.00 (RuleAsk 0); tool spam 0.07 (first enum value
by chance on param_enum; 0.27 before the matcher's tool_identity hedge rule); ask-everything TSAcc
0.00, AcqPrec 0.002; slot stuffer (every tool's decision cues in one question) RuleCov 0; a question
made only of the Router's markers (keyword-router@3) RuleAsk 1, RuleCov 0, TSAcc 0; rephrased
oracle 1.00; ref:asker's questions in six other sentence forms 0.61-0.79 each (0.065-0.62 under @4:
forms without the rule's words at about half of ref:asker, an open "how would you like" form above
it). On all 20 personas in docs/atr.md."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import longview

sys.path.insert(0, str(Path(__file__).parent))
import atr_probes as P  # noqa: E402

UNITS = 4


def metrics(tmp_path: Path, make, variant: str = "atr", refs: tuple[str, ...] = ()) -> dict[str, dict]:
    r = longview.run("atr", agent=make, name=make.name, agents=list(refs), variants=[variant], units=UNITS,
                     out=tmp_path / make.__name__, no_cache=True)
    assert not r.aborted
    return {row["agent"]: row for row in r.scorecard["rows"]}


@pytest.fixture(scope="module")
def refs(tmp_path_factory) -> dict[str, dict]:
    return metrics(tmp_path_factory.mktemp("atr_refs"), P.PasteBack, refs=("ref:passive", "ref:asker"))


def test_pasting_the_task_back_scores_at_the_floor(refs):
    paste, floor = refs["probe:paste"]["metrics"], refs["ref:passive"]["metrics"]
    assert floor["tsacc"] == 0.0
    assert paste["tsacc"] == floor["tsacc"] and paste["rule_ask"] == 0.0 and paste["rule_cov"] == 0.0


def test_every_tool_with_every_id_stays_near_the_floor(tmp_path, refs):
    row = metrics(tmp_path, P.ToolSpammer)["probe:spam"]
    assert row["metrics"]["tsacc"] <= 0.10 < refs["ref:asker"]["metrics"]["tsacc"] + 0.10
    by = row["extra"]["breakdown"]["by_check_type"]
    assert by["tool_identity"] == 0.0 and by["param_id"] == 0.0 and by["confirm"] == 0.0  # no brute-force pass
    assert row["metrics"]["rule_cov"] == 0.0


def test_asking_about_everything_buys_no_precision_and_no_test_success(tmp_path, refs):
    row = metrics(tmp_path, P.AskEverything)["probe:ask-all"]["metrics"]
    asker = refs["ref:asker"]["metrics"]
    assert row["tsacc"] == 0.0
    assert row["rule_ask"] > 5 and row["acq_prec"] < asker["acq_prec"] / 10
    assert row["rule_cov"] <= asker["rule_cov"]


def test_the_oracle_in_other_words_keeps_its_score(tmp_path):
    row = metrics(tmp_path, P.RephrasedOracle, variant="oracle_target")["probe:rephrased-oracle"]["metrics"]
    assert row["tsacc"] == 1.0


def test_a_question_made_only_of_router_markers_acquires_nothing(tmp_path, refs):
    row = metrics(tmp_path, P.MarkerAsker)["probe:marker-asker"]["metrics"]
    assert row["rule_ask"] >= 1.0  # the Router hears a standing-rule question every session ...
    assert row["rule_cov"] == 0.0 and row["acq_prec"] == 0.0 and row["tsacc"] == 0.0  # ... about no rule


def test_naming_every_decision_in_one_question_acquires_nothing(tmp_path, refs):
    row = metrics(tmp_path, P.SlotStuffer)["probe:slot-stuffer"]["metrics"]
    assert row["rule_ask"] > 5  # heard as asks ...
    assert row["rule_cov"] == 0.0 and row["tsacc"] == 0.0  # ... answered by no one rule


def test_asking_in_other_words_scores_as_the_asker(tmp_path, refs):
    row = metrics(tmp_path, P.ParaphrasedAsker)["probe:paraphrased-asker"]["metrics"]
    asker = refs["ref:asker"]["metrics"]
    assert row["rule_ask"] == 1.0  # the Router hears every reworded question
    assert row["tsacc"] >= 0.9 * asker["tsacc"] and row["rule_cov"] >= 0.9 * asker["rule_cov"]


@pytest.mark.parametrize("form", range(P.FORMS))
def test_each_sentence_form_keeps_most_of_the_askers_score(tmp_path, refs, form):
    make = P.paraphrased_asker(form)
    row = metrics(tmp_path, make)[make.name]["metrics"]
    assert row["rule_ask"] == 1.0
    assert row["tsacc"] >= 0.9 * refs["ref:asker"]["metrics"]["tsacc"]
