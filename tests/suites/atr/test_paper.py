"""Table 3's † marks, Table 4's summary, and the embedded-scaffold note, pinned on hand-made rows."""

from __future__ import annotations

from longview.suites.atr.metrics import PersonaMetrics
from longview.suites.atr.paper import (
    ModelRow,
    acquisition_marks,
    cohort_summary,
    embedded_scaffold_note,
    marked,
)


def pm(hits: list[str], covered_pass: int = 0, covered_fail: int = 0, learned: bool = True) -> PersonaMetrics:
    return PersonaMetrics(
        agent="m", variant="atr", persona_id="p", tsacc=0.0, rule_ask=1.0 if learned else None,
        rule_cov=None, acq_prec=None, applied_rate=None, n_learning=2, n_asks=3, n_hit_asks=len(hits),
        hit_rules=hits, covered_hit_pass=covered_pass, covered_hit_fail=covered_fail, verdicts=[],
    )


def test_dagger_follows_table_3():
    # GPT-5.4 x atr: one acquired rule over the cohort -> both rates daggered.
    m = acquisition_marks([pm(["a"], 0, 1)] + [pm([]) for _ in range(19)])
    assert (m.acquired_rules, m.acq_prec, m.applied_rate) == (1, True, True)
    # DeepSeek V4 Flash x atr: six acquired, all learnable -> no marks.
    m = acquisition_marks([pm(["a", "b"], 2), pm(["c", "d"], 2), pm(["e", "f"], 2)])
    assert (m.acquired_rules, m.acq_prec, m.applied_rate) == (6, False, False)
    # MiniMax x always_ask: five acquired (AcqPrec unmarked), four learnable (App daggered).
    m = acquisition_marks([pm(["a", "b", "c"], 1, 2), pm(["d", "e"], 0, 1)])
    assert (m.acq_prec, m.applied_rate) == (False, True)
    # Cells without learning (oracle) do not count.
    assert acquisition_marks([pm(["a"] * 9, 9, learned=False)]).acquired_rules == 0
    assert marked("5.0", True) == "5.0†" and marked("–", True) == "–" and marked("16.7", False) == "16.7"


def test_table_4_summary_reproduces_the_papers_atr_line():
    # Table 16's atr rows (Ask, Cov, App, GapRec) -> Table 4's "ATR 0.19 4.5 73.6 4.8 2/8".
    t16 = [(0.01, 0.004, 0.0, -0.022), (0.14, 0.071, 0.977, 0.092), (0.51, 0.120, 0.784, 0.146),
           (0.80, 0.133, 0.889, 0.155), (0.01, 0.007, 1.0, -0.012), (0.00, 0.0, None, 0.013),
           (0.01, 0.006, 0.5, 0.018), (0.05, 0.021, 1.0, -0.007)]
    rows = [ModelRow(model=f"m{i}", rule_ask=a, rule_cov=c, applied_rate=p, gap_rec=g) for i, (a, c, p, g) in enumerate(t16)]
    s = cohort_summary("atr", rows)
    assert round(s.rule_ask, 2) == 0.19 and round(s.rule_cov * 100, 1) == 4.5
    assert round(s.applied_rate * 100, 1) == 73.6 and round(s.gap_rec * 100, 1) == 4.8
    assert (s.active, s.n_models) == (2, 8)


def test_embedded_note_only_for_model_agents_with_embedded_judges():
    comps = {"router": "llm:openai/x", "classifier": "embedded:decision-classifier@5", "user": "embedded:u"}
    note = embedded_scaffold_note(comps, agent_is_model=True)
    assert note and "classifier embedded:decision-classifier@5" in note and "router" not in note.split("—")[0]
    assert embedded_scaffold_note(comps, agent_is_model=False) is None
    assert embedded_scaffold_note({"router": "llm:a", "classifier": "llm:b"}, agent_is_model=True) is None
