"""Golden QC tests of the built-in cohort generator, re-checked independently of its bookkeeping."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path

import pytest

from longview.domains.personal import all_tool_names, make_env, safe_fields
from longview.kernel.agent import ToolCall
from longview.suites.atr import policy
from longview.suites.atr.dataset import CheckType, Episode, load_dir
from longview.suites.atr.generator import build, qc
from longview.suites.atr.generator.personas import PERSONAS
from longview.suites.atr.matcher import match_action
from longview.suites.atr.suite import builtin_path


@pytest.fixture(scope="module")
def cohort() -> tuple[list[Episode], qc.QCReport]:
    return build.generate(seed=0, n_personas=3)


def _batches(session, behaviour, persona) -> list[list[ToolCall]]:
    """Run discovery and the decision in a live env, as a reference agent would."""
    env = make_env(session.domain, session.local_env.references, persona, session.local_env.tools)
    plan = policy.discovery_plan(session)
    outputs = []
    for step in plan:
        res = env.call(step.tool, step.arguments)
        assert res.ok, (session.session_id, step.tool, res.error)
        outputs.append(res.output)
    steps = [[s] for s in plan] + policy.decide(session, behaviour, policy.records_from_outputs(outputs))
    out = []
    for i, batch in enumerate(steps):
        out.append([ToolCall(id=f"{i}.{j}", name=s.tool, arguments=s.arguments) for j, s in enumerate(batch)])
    return out


def test_same_seed_gives_identical_json(cohort) -> None:
    again, report = build.generate(seed=0, n_personas=3)
    assert [build.dumps(e) for e in again] == [build.dumps(e) for e in cohort[0]]
    assert build.dumps(report) == build.dumps(cohort[1])
    other, _ = build.generate(seed=1, n_personas=1)
    assert build.dumps(other[0]) != build.dumps(cohort[0][0])


def test_oracle_passes_and_passive_fails_every_test_session(cohort) -> None:
    for ep in cohort[0]:
        assert len(ep.test_sessions) == len(ep.rules)
        for s in ep.test_sessions:
            rule = ep.rule(s.rule_id)
            good = match_action(s.required_action, rule.check_type, _batches(s, rule.preference, ep.structured_persona), safe_fields)
            bad = match_action(s.required_action, rule.check_type, _batches(s, rule.default, ep.structured_persona), safe_fields)
            assert good.passed, (s.session_id, good.reason)
            assert not bad.passed, s.session_id


def test_required_action_is_derived_from_binding_and_gold(cohort) -> None:
    for ep in cohort[0]:
        for s in ep.test_sessions:
            rule, act = ep.rule(s.rule_id), s.required_action
            assert act.tool == rule.action_step.tool
            if rule.check_type is CheckType.TOOL_IDENTITY:
                assert act.compare_args is None and s.gold_value is None
            elif rule.check_type is CheckType.CONFIRM:
                assert act.arguments["target_tool"] == rule.action_step.param
                assert set(act.compare_args or []) <= {"target_tool", "target_params"}
            else:
                assert act.arguments == {rule.action_step.param: s.gold_value}
            assert "get_user_confirmation" in s.local_env.tools or rule.check_type is not CheckType.CONFIRM
            for g in s.gold_value if isinstance(s.gold_value, list) else [s.gold_value]:
                assert not (isinstance(g, str) and g in s.instruction)


def test_rule_counts_domains_and_check_types(cohort) -> None:
    checks: Counter[str] = Counter()
    for ep in cohort[0]:
        assert 11 <= len(ep.rules) <= 19
        assert len({r.rule_id.split("_")[-2] for r in ep.rules}) >= 3
        topics = [r.topic for r in ep.rules]
        assert len(topics) == len(set(topics)) and all(topics)
        assert len(ep.learning_sessions) == 2 * len(ep.test_sessions)
        assert [s.day_offset for s in ep.learning_sessions] == sorted(s.day_offset for s in ep.learning_sessions)
        checks.update(str(r.check_type) for r in ep.rules)
    assert set(checks) == {"tool_identity", "param_id", "param_enum", "confirm"}
    assert checks["confirm"] / sum(checks.values()) >= 0.10


def test_touched_fraction_and_selected_rules(cohort) -> None:
    for ep in cohort[0]:
        touched = {r.rule_id for r in ep.rules if any(qc.touches(s, r) for s in ep.learning_sessions)}
        assert set(ep.metadata.selected_rules) == touched
        assert len(touched) / len(ep.rules) >= 0.7


def test_learning_sessions_never_state_a_rule(cohort) -> None:
    for ep in cohort[0]:
        pw = qc.persona_words_of(ep)
        for s in ep.learning_sessions:
            text = json.dumps(qc.session_text(s)).lower()
            for r in ep.rules:
                assert r.canonical_answer.lower() not in text
                assert not qc.words_of(qc.session_text(s)) & qc.distinctive(r, s.domain, pw), (s.session_id, r.rule_id)
            assert {t.tool for t in s.gold_trajectory} == set(s.expected_tools)
        for r in ep.rules:
            assert sum(qc.consistent_with(s, r) for s in ep.learning_sessions) <= 1, r.rule_id


def test_every_learning_gold_call_runs(cohort) -> None:
    for ep in cohort[0]:
        for s in ep.learning_sessions:
            env = make_env(s.domain, s.local_env.references, ep.structured_persona, s.local_env.tools)
            for step in s.gold_trajectory:
                res = env.call(step.tool, step.arguments)
                assert res.ok, (s.session_id, step.tool, res.error)


def test_qc_drops_broken_templates() -> None:
    persona = PERSONAS[0]
    templates = build.all_templates()
    restaurant = next(t for t in templates if t.key == "reservation.restaurant_pick")
    # A "rule" a rule-blind agent already follows is not counter-default ...
    blind = dataclasses.replace(restaurant, key="broken.blind", group="broken_a", default=restaurant.preference)
    # ... and a scenario that crashes must not take the cohort down.
    def crash(ctx, v):
        raise RuntimeError("boom")
    crashing = dataclasses.replace(restaurant, key="broken.crash", group="broken_b", scenario=crash)
    kept, report = build.build_rules(0, persona, templates, first=(blind, crashing))
    reasons = {d.candidate.split(":")[0]: d.reason for d in report.dropped}
    assert "passive default passes" in reasons["broken.blind"]
    assert "boom" in reasons["broken.crash"]
    assert all(not r.rule_id.startswith("broken") for r, _, _ in kept)
    assert 11 <= len(kept) <= 19


def test_qc_flags_a_leaking_learning_session(cohort) -> None:
    ep = cohort[0][0]
    s = ep.learning_sessions[0].model_copy(deep=True)
    s.task_params["note"] = ep.rules[0].canonical_answer
    assert qc.verbal_leaks(s, ep.rules)


def test_shipped_builtin_cohort_loads_and_matches_its_report() -> None:
    path = builtin_path()
    ds = load_dir(path, "builtin", all_tool_names())
    assert len(ds.episodes) == 20
    report = qc.QCReport.model_validate_json((path / "qc_report.json").read_text(encoding="utf-8"))
    t = report.totals
    rules = [r for e in ds.episodes for r in e.rules]
    assert t.personas == 20 and t.rules == len(rules)
    assert t.test_sessions == sum(len(e.test_sessions) for e in ds.episodes)
    assert t.learning_sessions == sum(len(e.learning_sessions) for e in ds.episodes)
    assert t.rules_by_check == dict(sorted(Counter(str(r.check_type) for r in rules).items()))
    assert t.rules_by_domain == dict(sorted(Counter(r.rule_id.split("_")[-2] for r in rules).items()))
    assert t.touched == sum(len(e.metadata.selected_rules) for e in ds.episodes)
    assert set(t.rules_by_domain) == {"commerce", "reservation", "travel", "communication", "scheduling", "workspace"}
    assert t.confirm_share >= 0.10 and t.distinct_surfaces >= 25
    reps = {rep.persona_id: rep for rep in report.personas}
    assert set(reps) == {ep.persona_id for ep in ds.episodes}
    for ep in ds.episodes:
        rep = reps[ep.persona_id]
        assert len(ep.rules) == rep.kept and len(ep.learning_sessions) == rep.learning_sessions
        assert 11 <= rep.kept <= 19 and rep.touched_fraction >= 0.7
    assert sum(p.stat().st_size for p in Path(path).glob("*.json")) < 3_000_000


def test_shipped_files_are_what_seed_zero_generates(cohort) -> None:
    # Per-persona RNG streams do not depend on the cohort size, so the first personas match.
    for ep in cohort[0]:
        shipped = (builtin_path() / f"{ep.persona_id}.json").read_text(encoding="utf-8")
        assert shipped == build.dumps(ep), f"regenerate the builtin cohort ({ep.persona_id} differs)"


def test_cohorts_beyond_the_written_personas_are_derived_deterministically() -> None:
    from longview.suites.atr.generator.personas import derived, personas

    ps = personas(45)
    assert ps[: len(PERSONAS)] == list(PERSONAS)  # the written twenty (and so the shipped cohort) stay
    ids = [p.persona_id for p in ps]
    assert len(set(ids)) == 45 and ps == personas(45)
    extra = ps[len(PERSONAS)]
    base = PERSONAS[0]
    assert extra.first_name == base.first_name and extra.sex == base.sex and extra.traits.keys() == base.traits.keys()
    assert extra.name != base.name and base.name not in extra.summary
    # Far generations stay unique too.
    far = {derived(k).persona_id for k in range(20, 1000)}
    assert len(far) == 980 and not far & {p.persona_id for p in PERSONAS}
    with pytest.raises(ValueError):
        personas(0)


def test_a_derived_persona_builds_a_qc_passing_episode() -> None:
    from longview.suites.atr.generator.personas import derived

    ep, rep = build.build_persona(0, derived(20))
    assert ep.persona_id == derived(20).persona_id and 11 <= rep.kept <= 19
    assert len(ep.learning_sessions) == 2 * len(ep.test_sessions)
