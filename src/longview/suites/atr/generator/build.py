"""Build longview's built-in ATR cohort deterministically from a seed.

Per persona: pick templates plausible for the persona's traits (spread over domains, one per
clash group), build each rule and its test session backwards from the required action, keep the
candidates QC accepts until the persona has its target number of rules, then assemble exactly two
rule-blind learning sessions per test session, preferring tasks that touch the rules' surfaces.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from longview.domains.personal import safe_fields, toolkit_class
from longview.suites.atr.dataset import (
    DOMAINS,
    ActionStep,
    CheckType,
    Episode,
    EpisodeMetadata,
    Evidence,
    Labels,
    LearningSession,
    LocalEnv,
    Reference,
    RequiredAction,
    RuleRef,
    StandingRule,
    TaskSuccess,
    TestSession,
)
from longview.suites.atr.generator import qc
from longview.suites.atr.generator.personas import PersonaSeed, personas
from longview.suites.atr.generator.templates import Avoid, Ctx, LearningKind, Template, Variant
from longview.suites.atr.preference import TaskFrame

GENERATOR = "longview-atr-generator/1"
RULES_RANGE = (12, 18)  # target rules per persona; QC keeps the count within [11, 19]
TEST_DAY = 70  # test tasks happen after the learning period
SKIP_TOUCH = 0.1  # share of rules deliberately left without a touching learning session


def domain_modules() -> list:
    """The six domain template modules, in ontology order."""
    from longview.suites.atr.generator import (
        templates_commerce,
        templates_communication,
        templates_reservation,
        templates_scheduling,
        templates_travel,
        templates_workspace,
    )

    return [templates_commerce, templates_reservation, templates_travel, templates_communication,
            templates_scheduling, templates_workspace]


def all_templates() -> list[Template]:
    return [t for m in domain_modules() for t in m.TEMPLATES]


def all_learning_kinds() -> list[LearningKind]:
    return [k for m in domain_modules() for k in m.LEARNING]


def rng_for(seed: int, *parts: str) -> random.Random:
    """A RNG seeded from sha256 of the seed and a path of names (never Python's hash())."""
    digest = hashlib.sha256("|".join([str(seed), *parts]).encode()).hexdigest()
    return random.Random(int(digest[:16], 16))


def domain_tools(domain: str) -> list[str]:
    return [t for t in toolkit_class(domain).tool_names() if t != "get_user_confirmation"]


def fill(text: str, p: PersonaSeed) -> str:
    out = text.format(**p.pronouns)
    return out[0].upper() + out[1:]


# ---- rules and test sessions ----------------------------------------------------------------


def eligible(p: PersonaSeed, t: Template) -> list[Variant]:
    return [v for v in t.variants if "*" in v.tags or set(v.tags) & set(p.traits)]


def evidence(p: PersonaSeed, v: Variant) -> list[Evidence]:
    tags = [t for t in v.tags if t in p.traits]  # variant order: the most telling trait first
    if not tags:
        return [Evidence(type="summary", content=p.summary)]
    return [Evidence(type="direct", content=p.traits[t]) for t in tags[:2]]


def required_action(t: Template, session_args: dict[str, dict[str, Any]], gold: Any) -> RequiredAction:
    """The label, derived from the rule binding and the gold value (never hand-written)."""
    if t.check is CheckType.TOOL_IDENTITY:
        return RequiredAction(tool=t.tool, arguments={}, compare_args=None)
    if t.check is CheckType.CONFIRM:
        call = dict(session_args.get(t.tool, {}))
        if t.param and gold is not None:
            call[t.param] = gold
        params = {k: v for k, v in call.items() if k in safe_fields(t.tool)}
        compare = ["target_tool", "target_params"] if params else ["target_tool"]
        return RequiredAction(tool="get_user_confirmation", arguments={"target_tool": t.tool, "target_params": params},
                              compare_args=compare)
    assert t.param is not None  # param_id / param_enum templates always name their param (pick_t, enum_t)
    return RequiredAction(tool=t.tool, arguments={t.param: gold}, compare_args=[t.param])


def build_rule(ctx: Ctx, t: Template, v: Variant, rule_id: str) -> tuple[StandingRule, TestSession]:
    p = ctx.persona
    pref, dflt = t.preference(v), t.default(v)
    action = (ActionStep(tool="get_user_confirmation", param=t.tool) if t.check is CheckType.CONFIRM
              else ActionStep(tool=t.tool, param=t.param))
    rule = StandingRule(rule_id=rule_id, rule_text=fill(v.rule, p), canonical_answer=v.answer,
                        counterfactual_default=v.default_text, evidence=evidence(p, v), check_type=t.check,
                        action_step=action, topic=v.topic, preference=pref, default=dflt)
    ctx.day = TEST_DAY
    sc = t.scenario(ctx, v)
    tools = domain_tools(t.domain) + (["get_user_confirmation"] if t.check is CheckType.CONFIRM else [])
    gold = sc.gold if t.check in (CheckType.PARAM_ID, CheckType.PARAM_ENUM) else None
    session = TestSession(
        session_id=f"{rule_id}_test", session_type="test", domain=t.domain, rule_id=rule_id,
        instruction=sc.instruction, gold_value=gold,
        local_env=LocalEnv(tools=tools, references=[Reference.model_validate(r) for r in sc.references]),
        labels=Labels(task_success=TaskSuccess(required_actions=[required_action(t, sc.arguments, sc.gold)])),
        rule_ref=RuleRef(rule_id=rule_id, rule_text=rule.rule_text, canonical_answer=rule.canonical_answer),
        frame=TaskFrame(discovery=sc.discovery, candidate_type=sc.candidate_type, arguments=sc.arguments),
    )
    return rule, session


def candidate_order(rng: random.Random, p: PersonaSeed, templates: list[Template]) -> list[tuple[Template, Variant]]:
    """Eligible (template, variant) pairs, round-robin over shuffled domains so rules spread out."""
    by_domain: dict[str, list[tuple[Template, Variant]]] = {}
    for t in templates:
        vs = eligible(p, t)
        if vs:
            by_domain.setdefault(t.domain, []).append((t, rng.choice(vs)))
    domains = sorted(by_domain)
    rng.shuffle(domains)
    for d in domains:
        rng.shuffle(by_domain[d])
    out = []
    while any(by_domain[d] for d in domains):
        for d in domains:
            if by_domain[d]:
                out.append(by_domain[d].pop())
    return out


def build_rules(seed: int, p: PersonaSeed, templates: list[Template], first: tuple[Template, ...] = ()
                ) -> tuple[list[tuple[StandingRule, TestSession, Variant]], qc.PersonaQC]:
    """Rules and test sessions kept by QC; ``first`` templates are tried before the rest."""
    rng = rng_for(seed, p.persona_id, "rules")
    ctx = Ctx(rng, p, anchor_date(seed, p))
    target = rng.randint(*RULES_RANGE)
    kept: list[tuple[StandingRule, TestSession, Variant]] = []
    groups: set[str] = set()
    topics: set[str] = set()
    dropped: list[qc.Dropped] = []
    candidates = 0
    persona = p.structured()
    forced = [(t, v) for t in first for v in eligible(p, t)[:1]]
    for t, v in forced + candidate_order(rng, p, templates):
        if len(kept) >= target:
            break
        if t.group in groups or v.topic in topics:
            continue
        candidates += 1
        nn = sum(1 for r, _, _ in kept if r.rule_id.split("_")[-2] == t.domain) + 1
        rule_id = f"{p.persona_id}_{t.domain}_{nn:02d}"
        try:
            rule, session = build_rule(ctx, t, v, rule_id)
            problems = qc.check_test(session, rule, persona, v.direction)
        except Exception as e:  # a broken template must not break the cohort: QC drops it
            problems = [f"build error: {type(e).__name__}: {e}"]
        if problems:
            dropped.append(qc.Dropped(candidate=f"{t.key}:{v.key}", reason=problems[0]))
            continue
        kept.append((rule, session, v))
        groups.add(t.group)
        topics.add(v.topic)
    report = qc.PersonaQC(persona_id=p.persona_id, candidates=candidates, kept=len(kept), dropped=dropped,
                          learning_candidates=0, rules_by_domain={}, rules_by_check={}, touched=0,
                          touched_fraction=0.0, learning_sessions=0, test_sessions=len(kept))
    return kept, report


def anchor_date(seed: int, p: PersonaSeed) -> date:
    return date(2026, 3, 2) + timedelta(days=rng_for(seed, p.persona_id, "anchor").randint(0, 90))


# ---- learning sessions ----------------------------------------------------------------------


def avoid_for(domain: str, rules: list[StandingRule], pw: set[str]) -> Avoid:
    words: set[str] = set()
    values: dict[str, set[Any]] = {}
    for r in rules:
        words |= qc.distinctive(r, domain, pw)
        pref = r.preference
        if pref and pref.param and pref.value is not None:
            values.setdefault(f"{pref.tool}.{pref.param}", set()).add(pref.value)
    return Avoid(words=words, values=values)


def surface_tool(r: StandingRule) -> str:
    return r.action_step.param if r.check_type is CheckType.CONFIRM else r.action_step.tool  # type: ignore[return-value]


class LearningBuilder:
    """Builds QC-passing learning sessions for one persona, tracking behavioural recurrence."""

    def __init__(self, seed: int, p: PersonaSeed, rules: list[StandingRule], kinds: list[LearningKind]) -> None:
        self.rng = rng_for(seed, p.persona_id, "learning")
        self.ctx = Ctx(self.rng, p, anchor_date(seed, p))
        self.p, self.rules, self.kinds = p, rules, kinds
        self.persona = p.structured()
        self.pw = qc.words_of(p.name)
        self.sessions: list[LearningSession] = []
        self.kinds_used: list[LearningKind] = []
        self.dropped: list[qc.Dropped] = []
        self.candidates = 0

    def try_kind(self, kind: LearningKind) -> LearningSession | None:
        self.candidates += 1
        self.ctx.day = self.rng.randint(0, TEST_DAY - 10)
        av = avoid_for(kind.domain, self.rules, self.pw)
        try:
            draft = kind.build(self.ctx, av)
            s = LearningSession(
                session_id="pending", session_type="learning", day_offset=self.ctx.day, domain=kind.domain,
                reason_for_call=draft.reason, task_params=draft.task_params,
                expected_tools=list(dict.fromkeys(st.tool for st in draft.trajectory)),
                gold_trajectory=draft.trajectory,
                local_env=LocalEnv(tools=domain_tools(kind.domain),
                                   references=[Reference.model_validate(r) for r in draft.references]))
            problems = qc.check_learning(s, self.rules, self.persona, self.pw)
        except Exception as e:
            problems = [f"build error: {type(e).__name__}: {e}"]
        if not problems:
            for r in self.rules:
                if qc.consistent_with(s, r) and any(qc.consistent_with(o, r) for o in self.sessions):
                    problems.append(f"{r.rule_id}: rule-consistent choice would recur")
                    break
        if not problems and any((o.reason_for_call, o.task_params) == (s.reason_for_call, s.task_params) for o in self.sessions):
            problems.append("repeats an earlier learning task")
        if problems:
            self.dropped.append(qc.Dropped(candidate=kind.key, reason=problems[0]))
            return None
        self.sessions.append(s)
        self.kinds_used.append(kind)
        return s

    def build(self, n: int) -> list[LearningSession]:
        domains = sorted({r.rule_id.split("_")[-2] for r in self.rules})
        pool = [k for k in self.kinds if k.domain in domains]
        order = sorted(self.rules, key=lambda r: r.rule_id)
        self.rng.shuffle(order)
        floor = int(0.75 * len(order) + 0.999)
        skipped = 0
        for r in order:  # touch most rules' surfaces, leaving a few as natural misses
            if any(qc.touches(s, r) for s in self.sessions):
                continue
            if len(order) - skipped - 1 >= floor and self.rng.random() < SKIP_TOUCH:
                skipped += 1
                continue
            fits = [k for k in pool if surface_tool(r) in k.tools]
            self.rng.shuffle(fits)
            for k in fits[:4]:
                if len(self.sessions) < n and self.try_kind(k):
                    break
        tries = 0
        while len(self.sessions) < n and tries < 20 * n:
            tries += 1
            used = Counter(k.key for k in self.kinds_used)
            fresh = [k for k in pool if used[k.key] < 2] or pool  # spread over task kinds
            self.try_kind(self.rng.choice(fresh))
        ordered = sorted(self.sessions, key=lambda s: (s.day_offset, s.domain, str(s.gold_trajectory[0].tool)))
        for i, s in enumerate(ordered):
            s.session_id = f"{self.p.persona_id}_s{i:02d}"
        return ordered


# ---- episodes -------------------------------------------------------------------------------


def build_persona(seed: int, p: PersonaSeed, templates: list[Template] | None = None,
                  kinds: list[LearningKind] | None = None) -> tuple[Episode, qc.PersonaQC]:
    kept, report = build_rules(seed, p, templates if templates is not None else all_templates())
    order = {d: i for i, d in enumerate(DOMAINS)}
    kept.sort(key=lambda x: (order[x[0].rule_id.split("_")[-2]], x[0].rule_id))
    rules = [r for r, _, _ in kept]
    tests = [s for _, s, _ in kept]
    lb = LearningBuilder(seed, p, rules, kinds if kinds is not None else all_learning_kinds())
    learning = lb.build(2 * len(tests))
    if len(learning) != 2 * len(tests):  # never ship an episode with a short learning sequence
        raise RuntimeError(f"{p.persona_id}: only {len(learning)} of {2 * len(tests)} learning sessions passed QC")
    touched = [r.rule_id for r in rules if any(qc.touches(s, r) for s in learning)]
    ep = Episode(
        episode_id=f"{p.persona_id}_seed{seed:03d}", persona_id=p.persona_id,
        raw_persona={"persona_id": p.persona_id, "source": "longview synthetic persona", "traits": sorted(p.traits)},
        structured_persona=p.structured(), rules=rules, learning_sessions=learning, test_sessions=tests,
        # EpisodeMetadata has extra="allow"; mypy without the pydantic plugin does not know that.
        metadata=EpisodeMetadata(selected_rules=touched, seed=seed, generator=GENERATOR,  # type: ignore[call-arg]
                                 touched_fraction=round(len(touched) / len(rules), 4) if rules else 0.0,
                                 rule_count=len(rules), learning_session_count=len(learning),
                                 test_session_count=len(tests), anchor_date=anchor_date(seed, p).isoformat()))
    report.learning_candidates = lb.candidates
    report.learning_dropped = lb.dropped
    report.rules_by_domain = dict(sorted(Counter(r.rule_id.split("_")[-2] for r in rules).items()))
    report.rules_by_check = dict(sorted(Counter(str(r.check_type) for r in rules).items()))
    report.touched = len(touched)
    report.touched_fraction = ep.metadata.touched_fraction  # type: ignore[attr-defined]
    report.learning_sessions = len(learning)
    return ep, report


def totals(reports: list[qc.PersonaQC], episodes: list[Episode]) -> qc.Totals:
    rules = [r for ep in episodes for r in ep.rules]
    by_domain: Counter[str] = Counter()
    by_check: Counter[str] = Counter()
    for rep in reports:
        by_domain.update(rep.rules_by_domain)
        by_check.update(rep.rules_by_check)
    n = len(rules)
    surfaces = {(r.action_step.tool, r.action_step.param, str(r.check_type)) for r in rules}
    return qc.Totals(
        personas=len(episodes), rules=n, test_sessions=sum(len(e.test_sessions) for e in episodes),
        learning_sessions=sum(len(e.learning_sessions) for e in episodes),
        candidates=sum(r.candidates for r in reports), dropped=sum(len(r.dropped) for r in reports),
        rules_by_domain=dict(sorted(by_domain.items())), rules_by_check=dict(sorted(by_check.items())),
        confirm_share=round(by_check.get("confirm", 0) / n, 4) if n else 0.0,
        touched=sum(r.touched for r in reports), touched_fraction=round(sum(r.touched for r in reports) / n, 4) if n else 0.0,
        distinct_surfaces=len(surfaces), distinct_templates=len({(r.topic, r.action_step.tool) for r in rules}))


def generate(seed: int = 0, n_personas: int = 20) -> tuple[list[Episode], qc.QCReport]:
    """The built-in cohort for ``seed``: one QC-passing episode per persona, and the QC report."""
    episodes, reports = [], []
    for p in personas(n_personas):
        ep, rep = build_persona(seed, p)
        episodes.append(ep)
        reports.append(rep)
    report = qc.QCReport(seed=seed, generator=GENERATOR, personas=reports, totals=totals(reports, episodes))
    return episodes, report


def dumps(model: Any) -> str:
    """Canonical JSON text of a model (stable key order, so equal seeds give equal bytes)."""
    return json.dumps(model.model_dump(mode="json"), ensure_ascii=False, indent=1) + "\n"


def write(episodes: list[Episode], report: qc.QCReport, out_dir: Path) -> list[Path]:
    """Write one ``<persona_id>.json`` per episode plus ``qc_report.json``; returns the paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for ep in episodes:
        path = out_dir / f"{ep.persona_id}.json"
        path.write_text(dumps(ep), encoding="utf-8")
        paths.append(path)
    qc_path = out_dir / "qc_report.json"
    qc_path.write_text(dumps(report), encoding="utf-8")
    return [*paths, qc_path]
