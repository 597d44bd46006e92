"""atr's four 'done when' probes, run through the public API (``longview.run`` with a factory):
agents that do no real work score TSAcc at the floor (ref:passive, 0 on the built-in cohort), an
agent that only asks about everything acquires with near-zero precision, and agents doing the real
work in other words or another form are not pushed to the floor.

Measured on the first 4 built-in personas (2026-12-02): ref:passive TSAcc 0.00, ref:asker 0.15
(AcqPrec 0.075); paste-back 0.00 (RuleAsk 0); tool spam 0.27 before the matcher's tool_identity
hedge rule (1.00 on tool_identity rules), 0.07 after (first enum value by chance on param_enum);
ask-everything TSAcc 0.00, RuleAsk 20, RuleCov 0.05, AcqPrec 0.001; rephrased oracle 1.00;
paraphrased asker 0.065 (the embedded Classifier needs word overlap with the rule: docs/atr.md)."""

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


def test_asking_in_other_words_is_not_at_the_floor(tmp_path, refs):
    row = metrics(tmp_path, P.ParaphrasedAsker)["probe:paraphrased-asker"]["metrics"]
    assert row["rule_ask"] == 1.0  # the Router hears every reworded question
    assert row["tsacc"] > refs["ref:passive"]["metrics"]["tsacc"] and row["rule_cov"] > 0.0
