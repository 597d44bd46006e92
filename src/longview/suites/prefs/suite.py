"""The ``prefs`` suite: MemPABench's interaction-preference memory protocol on the plugin kernel."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from longview.kernel.errors import ConfigError
from longview.suite import (
    Agent,
    Cell,
    DatasetInfo,
    MetricInfo,
    ProfileSpec,
    Roles,
    RoleSpec,
    Scorecard,
    Section,
    SessionOutcome,
    Suite,
    build_row,
    row_order,
)

if TYPE_CHECKING:
    import typer
    from rich.table import Table

    from longview.kernel.trace import TraceEvent
    from longview.suite import CellContext, Row
    from longview.suites.prefs.dataset import PrefsDataset
    from longview.suites.prefs.runner import PrefsCellResult, ProbeRecord

MEMORIES = {
    "none": "no memory: nothing carried across sessions",
    "oracle": "the target setting and its definition, given at each decision (upper bound)",
    "file": "a MEMORY.md the agent reads in context (4,000-token head) and edits with tools",
    "rag": "simple RAG over raw messages (one document per message): BM25 offline, or -S embedding=module:Class; top 10 within 4,000 tokens",
    "mem0": "Mem0's own API, local Qdrant store: LLM extraction with --memory-model, else a plain store (needs the mem0 extra)",
    "transcript": "every earlier session's raw transcript (no budget; for comparisons)",
}
READER_DEFAULT = ["none", "rag", "file", "oracle"]


def _all_memories() -> dict[str, str]:
    """Built-in memory systems plus any registered under the ``longview.memory`` entry points."""
    from longview.memory.registry import available

    return {**MEMORIES, **{k: v for k, v in available().items() if k not in MEMORIES}}


class PrefsOptions(BaseModel):
    """Suite options (-S key=value)."""

    model_config = ConfigDict(extra="forbid")

    memory: list[str] = Field(
        default=[],
        description="Memory systems to run (one row each); empty = each agent's default "
                    "(ref:reader and models: none, rag, file, oracle).")
    repeats: int = Field(default=3, ge=1, le=10, description="Probe repeats per checkpoint (3, as the paper).")
    seed: int = Field(default=7, description="Generator seed of the built-in dataset.")
    users: int = Field(default=4, ge=1, le=6, description="Users generated for the built-in dataset.")
    trace: bool = Field(default=True, description="Write a transcript per session.")
    embedding: str | None = Field(default=None, description="rag and mem0: one dense text embedding 'module:Class' "
                                  "(LangChain's Embeddings interface) or 'minilm' (all-MiniLM-L6-v2 offline, the embed "
                                  "extra), shared by both; default: BM25 (rag), offline "
                                  "feature hashing (mem0).")

    @field_validator("memory", mode="before")
    @classmethod
    def _split(cls, v: Any) -> Any:
        # "rag,file" wherever it comes from: -S memory=rag,file, --memory rag,file, or repeated flags.
        items = [v] if isinstance(v, str) else v
        if not isinstance(items, list):
            return v
        parts = [x for item in items for x in (item.split(",") if isinstance(item, str) else [item])]
        return [x.strip() if isinstance(x, str) else x for x in parts if not isinstance(x, str) or x.strip()]


class Components(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)
    wording: Any = None
    judge: Any = None
    memory_llm: dict[str, str] | None = None  # Mem0's extraction model: {"model", "base_url", "api_key"}
    rater: Any = None  # the user model's PRS rating


def memory_llm(roles: Roles) -> dict[str, str] | None:
    """Where Mem0's own OpenAI client reaches the memory role's model (None: no model given)."""
    import os

    from longview.kernel.models.providers import split_model

    model = roles.model("memory")
    if not model:
        return None
    spec, name = split_model(model)
    base = roles.api_base or spec.api_base
    if spec.backend != "openai_compat" or not base:
        raise ConfigError(f"--memory-model {model}: Mem0's extraction needs an OpenAI-compatible provider with an "
                          "endpoint (e.g. openai/..., hosted_vllm/... with --api-base)")
    return {"model": name, "base_url": base, "api_key": os.environ.get(spec.key_env or "", "") if spec.key_env else ""}



def memory_usage(roles: Roles) -> Callable[[int, int, int], None] | None:
    """Records each of Mem0's own LLM calls under the ``memory`` role of the run's usage ledger
    (None when no memory model is given)."""
    model = roles.model("memory")
    if not model:
        return None

    def record(input_tokens: int, cached_tokens: int, output_tokens: int) -> None:
        from longview.kernel.agent import Usage
        from longview.kernel.models.usage import price_usage

        usage, known = price_usage(model, Usage(input_tokens=input_tokens, cached_tokens=cached_tokens,
                                                output_tokens=output_tokens), roles.ledger.prices)
        roles.ledger.record("memory", usage, cost_known=known)

    return record


class PrefsSuite(Suite["PrefsDataset", PrefsOptions, "PrefsCellResult"]):
    name = "prefs"
    summary = "MemPABench: interaction-preference memory across work/personal contexts and changes"
    Options = PrefsOptions
    roles = (
        RoleSpec(name="user", description="rewords the simulated user's messages (the deterministic core decides)",
                 embedded="verbatim"),
        RoleSpec(name="judge", description="scores BRS from the delivered replies and trajectory",
                 embedded="checks"),
        RoleSpec(name="memory", description="Mem0's fact-extraction LLM (--memory mem0; OpenAI-compatible providers); "
                 "without it Mem0 runs as a plain store", embedded="none"),
    )
    reference_agents = {"ref:habits": "none", "ref:recency": "none", "ref:contextual": "none",
                        "ref:oracle": "oracle", "ref:reader": "file", "ref:ledger": "file"}
    variants = _all_memories()
    model_variants = ("none", "rag", "file", "oracle")
    profile = ProfileSpec(
        label="interaction-preference memory (MemPABench)", metric="psa", variant="file", quick_units=1,
        quick_options={"trace": False, "repeats": 1},
        reading="share of probes where the agent chose how this user wants to be helped, in this context, now",
        also=["cs", "pet", "brs"])
    datasets = {"builtin": "4 generated users (seed 7)", "PATH": "a dataset JSON written by `longview prefs generate --out`"}

    # -- plan --------------------------------------------------------------------------------------
    def default_variants(self, agent: str, options: PrefsOptions) -> list[str] | None:
        mem = list(options.memory or [])
        for m in mem:
            if m not in self.variants:
                raise ConfigError(f"memory {m!r} (-S memory= / --memory): unknown memory system; "
                                  f"known: {', '.join(self.variants)}")
        if "mem0" in mem:
            import importlib.util

            if importlib.util.find_spec("mem0") is None or importlib.util.find_spec("langchain_core") is None:
                raise ConfigError("--memory mem0 needs the extra: pip install 'longview[mem0]'")
        if mem:
            return mem
        if agent == "ref:reader":
            return list(READER_DEFAULT)
        return None

    def load_dataset(self, spec: str, options: PrefsOptions) -> PrefsDataset:
        from longview.suites.prefs.dataset import builtin, load_file

        if spec == "builtin":
            ds = builtin(options.seed) if options.users == 4 else None
            if ds is None:
                from longview.suites.prefs.dataset import generate

                ds = generate(options.seed, options.users)
            return ds
        return load_file(spec)

    def reference_agent(self, name: str, dataset: PrefsDataset, unit: str) -> Agent:
        from longview.suites.prefs.agents import AGENTS

        ud = dataset.get(unit)
        scenes = {s.sid: s for s in ud.sessions + ud.final_probes + ud.pre_probes}
        return AGENTS[name](scenes)

    def components(self, roles: Roles, options: PrefsOptions) -> Components:
        from longview.users.base import VerbatimWording

        c = Components(wording=VerbatimWording(), memory_llm=memory_llm(roles))
        if (user_client := roles.client("user")) is not None:
            from longview.suites.prefs.user_model import PersonaWording, PRSRater

            c.wording = PersonaWording(user_client, roles.params("user"))
            c.rater = PRSRater(user_client, roles.params("user"))
        if (judge_client := roles.client("judge")) is not None:
            from longview.suites.prefs.judge import BRSJudge

            c.judge = BRSJudge(judge_client, roles.params("judge"))
        return c

    rejudged_roles = ("judge",)

    async def rejudge(self, result: str, dataset: PrefsDataset, options: PrefsOptions, roles: Roles, read: Any = None) -> str:
        """BRS of every final probe judged again by the judge role, from the stored judge input."""
        import asyncio

        from longview.kernel.errors import ConfigError
        from longview.suites.prefs.judge import BRSJudge
        from longview.suites.prefs.runner import PrefsCellResult

        client = roles.client("judge")
        if client is None:
            raise ConfigError("rescore of prefs needs a judge model (--judge-model)")
        judge = BRSJudge(client, roles.params("judge"))
        cell = PrefsCellResult.model_validate_json(result)
        finals = [p for p in cell.probes if p.kind == "final"]
        if any(p.brs_input is None and not p.capability_failure for p in finals):
            raise ConfigError(f"cell {cell.agent}/{cell.user}: this run did not keep what the BRS judge reads "
                              "(made before longview kept it); run it again to judge it")

        async def one(p: Any) -> None:
            p.brs_judged = 1 if p.capability_failure else await judge.score_payload(p.brs_input)

        await asyncio.gather(*(one(p) for p in finals))
        return cell.model_dump_json(indent=1)

    def component_names(self, components: Components) -> dict[str, str]:
        return {"user": getattr(components.wording, "name", "embedded:verbatim"),
                "judge": components.judge.name if components.judge is not None else "embedded:checks",
                "memory": f"mem0-extraction:{components.memory_llm['model']}" if components.memory_llm
                else "embedded:none"}

    def sessions(self, cell: Cell, dataset: PrefsDataset, options: PrefsOptions) -> int:
        ud = dataset.get(cell.unit)
        return len(ud.sessions) + (len(ud.final_probes) + len(ud.pre_probes)) * options.repeats

    def sessions_in_flight(self, cell: Cell, dataset: PrefsDataset, options: PrefsOptions) -> int:
        """Sessions run in order; the final probes (every repeat) run at once, as do a change's
        pre-probe repeats."""
        ud = dataset.get(cell.unit)
        return max(1, len(ud.final_probes) * options.repeats, options.repeats if ud.pre_probes else 1)

    async def run_cell(self, ctx: CellContext[PrefsDataset, PrefsOptions]) -> PrefsCellResult:
        from longview.memory.registry import create
        from longview.suites.prefs.runner import PrefsCellResult, Timeline
        from longview.suites.prefs.user import audit

        opts = ctx.options
        ud = ctx.dataset.get(ctx.cell.unit)
        memory = create(ctx.cell.variant, embedding=opts.embedding, user_id=ud.user.id,
                        llm=(ctx.components or Components()).memory_llm, usage=memory_usage(ctx.roles))
        comps = ctx.components or Components()
        tl = Timeline(ctx, ud, memory, ctx.agent, wording=comps.wording, judge=comps.judge, rater=comps.rater,
                      trace_sessions=opts.trace, repeats=opts.repeats, max_turns=ctx.max_turns)
        try:
            probes = await tl.run()
        finally:
            if hasattr(memory, "close"):
                memory.close()
        return PrefsCellResult(agent=ctx.cell.agent, memory=ctx.cell.variant, user=ud.user.id, trial=ctx.cell.trial,
                               memory_info=memory_disclosure(memory),
                               probes=probes, sessions=len(ud.sessions), corrections=tl.corrections,
                               agent_turns=tl.turns, audit={**audit(tl.said), "reworded_checked": len(tl.wording_checks),
                                                            "reworded_rejected": sum(not c["ok"] for c in tl.wording_checks),
                                                            "rejections": [c for c in tl.wording_checks if not c["ok"]][:5]})

    def score(self, results: list[str], dataset: PrefsDataset, options: PrefsOptions, seed: int) -> Scorecard:
        from longview.kernel.stats import cluster_bootstrap_ci, macro_mean, seed_from
        from longview.suites.prefs.metrics import (
            N_BOOT,
            NAMES,
            breakdown,
            brs_agreement,
            cluster_values,
            counts,
            prs_brs_agreement,
            unit_metrics,
        )
        from longview.suites.prefs.runner import PrefsCellResult

        aborted: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
        parsed: dict[tuple[str, str], list[PrefsCellResult]] = defaultdict(list)
        for text in results:
            import json

            raw = json.loads(text)
            key = (raw["agent"], raw.get("memory") or raw.get("variant"))
            if raw.get("status") != "complete":
                aborted[key][f"{raw.get('user') or raw.get('unit')}#{raw.get('trial', 0)}"] = raw.get("abort_reason") or ""
                continue
            r = PrefsCellResult.model_validate(raw)
            parsed[key].append(r)
        rows = []
        judged_any = False
        for key in sorted(set(parsed) | set(aborted), key=lambda k: row_order(k[0], k[1], list(MEMORIES))):
            cells = parsed.get(key, [])
            judged = any(p.brs_judged is not None for c in cells for p in c.probes)
            judged_any |= judged
            scored: dict[str, list[dict[str, float | None]]] = defaultdict(list)
            for c in cells:
                scored[c.user].append(unit_metrics(c.probes, judged))
            row = build_row(key[0], key[1], NAMES, scored, aborted=aborted.get(key), units_in_dataset=len(dataset.unit_ids()),
                            seed=seed, trials=max([c.trial + 1 for c in cells] or [1]))
            # The paper's aggregation (App. F.3): metrics pooled over its clusters (probe cells, differing
            # pairs, changed cells), intervals resampling those clusters with 5,000 draws.
            by_unit: dict[str, list[list[ProbeRecord]]] = defaultdict(list)
            for c in cells:
                by_unit[c.user].append(c.probes)
            row.clusters = cluster_values(by_unit, judged)
            row.n_boot = N_BOOT
            for m in NAMES:
                vals: dict[str, float | None] = {k: d[m] for k, d in row.clusters.items() if m in d}
                row.metrics[m] = macro_mean(vals)
                row.ci95[m] = cluster_bootstrap_ci(vals, n_boot=N_BOOT, seed=seed_from(seed, key[0], key[1], m))
            allp = [p for c in cells for p in c.probes]
            row.extra = {
                "by_dimension": _macro([breakdown(c.probes, "dimension", judged) for c in cells]),
                "by_kind": _macro([breakdown(c.probes, "attr_kind", judged) for c in cells]),
                "counts": {k: sum(counts(c.probes)[k] for c in cells) for k in ("probes", "capability_failures",
                                                                                "carry_overs", "differing_pairs")},
                "brs_embedded": _avg([float(1 if p.capability_failure else p.brs_embedded) for p in allp if p.kind == "final"]),
                "brs_agreement": brs_agreement(allp),
                "prs_brs_agreement": prs_brs_agreement(allp),
                "leakage": {"messages": sum(c.audit.get("messages", 0) for c in cells),
                            "leaks": sum(c.audit.get("leaks", 0) for c in cells)},
                "memory": sorted({c.memory_info for c in cells if c.memory_info}),
                "corrections": sum(c.corrections for c in cells),
                "agent_turns": sum(c.agent_turns for c in cells),
            }
            rows.append(row)
        _vs_none(rows, seed)
        disclosed = {r.variant: r.extra["memory"] for r in rows if r.extra and r.extra.get("memory")}
        prs_by = {p.prs_by for cs in parsed.values() for c in cs for p in c.probes if p.prs_by != "core"}
        brs_kind: Literal["deterministic", "judged"] = "judged" if judged_any else "deterministic"
        return Scorecard(
            suite=self.name,
            dataset=DatasetInfo(name=dataset.name, sha256=dataset.sha256, units=len(dataset.unit_ids())),
            metrics={
                "psa": MetricInfo(description="share of probes (final + pre-event) whose selected setting equals the target; capability failures count 0", kind="deterministic"),
                "cs": MetricInfo(description="share of attributes with differing work/personal targets selected correctly in both contexts", kind="deterministic"),
                "pet": MetricInfo(description="share of changed cells selected correctly both before (pre-event probe) and after the change (final probe)", kind="deterministic"),
                "carry_over": MetricInfo(description="share of differing work/personal pair instances where a probe selected the other context's target after its input held the user's words for it there", kind="deterministic", higher_is_better=False),
                "brs": MetricInfo(description="Behavioral Realization Score 1-5 of final probes (capability failure = 1)", kind=brs_kind,
                                  by="judge model" if judged_any else "embedded:checks"),
                "prs": MetricInfo(description="the simulated user's rating 1-5 after each final probe",
                                  kind="judged" if prs_by else "deterministic",
                                  by=", ".join(sorted(prs_by)) if prs_by else "embedded:simulated-user"),
            },
            rows=rows,
            extra={"leakage_total": sum(r.extra["leakage"]["leaks"] for r in rows), "memory_systems": disclosed},
        )

    def tables(self, scorecard: Scorecard) -> list[Table]:
        from rich.table import Table

        from longview.harness.terminal.tables import rows_table

        t = Table(title="prefs · PSA by dimension and by kind (user-macro); carry-overs, capability failures, leaks")
        for col in ("Agent", "Variant", "Expr", "Discl", "InfoFlow", "Init&Aut", "reply", "action", "carry", "cap.fail", "leaks"):
            t.add_column(col, justify="left" if col in ("Agent", "Variant") else "right")
        dims = ("expression_style", "disclosure", "information_flow", "initiative_autonomy")
        for r in scorecard.rows:
            if not r.extra:
                continue
            bd, bk, c = r.extra.get("by_dimension", {}), r.extra.get("by_kind", {}), r.extra.get("counts", {})
            t.add_row(r.agent, r.variant, *[_two(bd.get(d, {}).get("psa")) for d in dims],
                      _two(bk.get("reply", {}).get("psa")), _two(bk.get("action", {}).get("psa")),
                      str(c.get("carry_overs", 0)), str(c.get("capability_failures", 0)),
                      str(r.extra.get("leakage", {}).get("leaks", 0)))
        tables = [rows_table(scorecard), t]
        paired = [r for r in scorecard.rows if r.extra.get("vs_none")]
        if paired:
            v = Table(title="prefs · memory − No Memory, paired within the run over the paper's clusters "
                            "(probes, pairs, changed cells), 5,000-draw bootstrap 95% CI")
            for col in ("Agent", "Memory", *NAMES_SHOWN):
                v.add_column(col, justify="left" if col in ("Agent", "Memory") else "right")
            for r in paired:
                v.add_row(r.agent, r.variant, *[_diff_cell(r.extra["vs_none"].get(m, {})) for m in NAMES_SHOWN])
            tables.append(v)
        return tables

    def transcript(self, events: list[TraceEvent]) -> list[str]:
        """The generic view, with each delivery shown as the text the user saw."""
        from longview.harness.transcript import trace_lines
        from longview.suites.prefs.wrapper import Segment, render_text

        shown = []
        for e in events:
            if e.type == "delivery":
                text = "(notice withheld by the selected setting)" if e.data.get("suppressed") else \
                    render_text([Segment.model_validate(x) for x in e.data.get("segments", [])])
                e = e.model_copy(update={"data": {"to_user": text}})
            shown.append(e)
        return trace_lines(shown)

    def prompts(self) -> dict[str, str]:
        import hashlib

        from longview.suites.prefs.judge import JUDGE_SYSTEM
        from longview.suites.prefs.runner import SYSTEM
        from longview.suites.prefs.user_model import SYSTEM as USER_SYSTEM

        return {name: hashlib.sha256(text.encode()).hexdigest()
                for name, text in (("agent_system", SYSTEM), ("judge_system", JUDGE_SYSTEM), ("user_system", USER_SYSTEM))}

    def estimate(self, cells: list[Cell], dataset: PrefsDataset, roles: Roles, options: PrefsOptions) -> dict[str, tuple[int, int]]:
        """--dry-run: ~3 agent calls per session (~2,500 input tokens + memory), 2 user rewordings
        per session and one PRS rating per final probe, one judge call per final probe, ~1 Mem0
        extraction call per session (those go through Mem0's client, not longview's usage)."""
        out: dict[str, tuple[int, int]] = {}

        def add(role: str, n: int, tok: int) -> None:
            c, t = out.get(role, (0, 0))
            out[role] = (c + n, t + n * tok)

        for c in cells:
            ud = dataset.get(c.unit)
            n_sessions = len(ud.sessions) + (len(ud.final_probes) + len(ud.pre_probes)) * options.repeats
            if not c.agent.startswith("ref:"):
                add("agent", 3 * n_sessions, 2500 + (4000 if c.variant in ("file", "rag", "mem0") else 0))
            if roles.model("user"):
                add("user", 2 * n_sessions + len(ud.final_probes) * options.repeats, 300)  # + PRS ratings
            if roles.model("memory") and c.variant == "mem0":
                add("memory", len(ud.sessions), 2000)  # Mem0's extraction, ~1 call per session (Mem0's own client)
            if roles.model("judge"):
                add("judge", len(ud.final_probes) * options.repeats, 1500)
        return out

    def report_sections(self, scorecard: dict[str, Any]) -> list[Section]:
        """The paper's views: PSA by dimension and by action/reply kind (Fig. 8, Table 14), and the
        context/change table (Table 3) with raw carry-over counts."""
        rows = scorecard.get("rows", [])
        dims = ["expression_style", "disclosure", "information_flow", "initiative_autonomy"]
        f = _rounded  # short: every cell below
        by = Section(title="PSA by dimension and kind", note="User-macro PSA per group (final and pre-event probes).",
                     columns=["agent", "memory", *dims, "reply", "action"],
                     rows=[[r["agent"], r["variant"],
                            *[f(r.get("extra", {}).get("by_dimension", {}).get(d, {}).get("psa")) for d in dims],
                            *[f(r.get("extra", {}).get("by_kind", {}).get(k, {}).get("psa")) for k in ("reply", "action")]]
                           for r in rows])
        ctx = Section(title="Context and change", note="CS and carry-over over differing work/personal pairs; PET over changed cells.",
                      columns=["agent", "memory", "cs", "carry_over", "carry-overs (count)", "pet", "capability failures"],
                      rows=[[r["agent"], r["variant"], f(r["metrics"].get("cs")), f(r["metrics"].get("carry_over")),
                             r.get("extra", {}).get("counts", {}).get("carry_overs"), f(r["metrics"].get("pet")),
                             r.get("extra", {}).get("counts", {}).get("capability_failures")] for r in rows])
        vs = Section(title="Memory − No Memory (paired)",
                     note="Within the run: each memory row minus the same agent's No Memory row, paired over the "
                          "paper's clusters (probe cells, differing pairs, changed cells); 5,000-draw bootstrap 95% CI.",
                     columns=["agent", "memory", *NAMES_SHOWN],
                     rows=[[r["agent"], r["variant"], *[_diff_cell(r["extra"]["vs_none"].get(m, {})) for m in NAMES_SHOWN]]
                           for r in rows if r.get("extra", {}).get("vs_none")])
        return [by, ctx] + ([vs] if vs.rows else [])

    def session_outcomes(self, result: str, dataset: PrefsDataset) -> dict[str, SessionOutcome]:
        """Each probe: pass when the selection equals the target (capability failures fail)."""
        import json

        raw = json.loads(result)
        out = {}
        for p in raw.get("probes", []):
            ok = not p["capability_failure"] and p["selected"] == p["target"]
            sid = p["sid"] if not p.get("repeat") else f"{p['sid']}~r{p['repeat']}"
            out[sid] = SessionOutcome(
                outcome="pass" if ok else "fail",
                labels={"attribute": p["attribute"], "context": p["context"], "probe": p["kind"], "kind": p["attr_kind"]},
                reason=("capability failure" if p["capability_failure"] else
                        f"selected {p['selected']}, target {p['target']}; delivered behaviour showed {p['observed']}"))
        return out

    def notes(self, scorecard: Any, components: dict[str, str]) -> list[str]:
        out = []
        if components.get("judge", "embedded:checks").startswith("embedded"):
            out.append("brs is the embedded deterministic checks' score (the paper used a model judge; "
                       "pass --judge-model for a judged brs with agreement to the checks).")
        if not components.get("user", "embedded").startswith("llm:"):
            out.append("prs is the deterministic simulated user's rating, not a model's (pass --user-model).")
        blind = sorted({r.variant for r in scorecard.rows if r.agent == "ref:oracle" and r.variant != "oracle"})
        if blind:  # the oracle reads its answers from the oracle memory; elsewhere it has none to read
            out.append(f"ref:oracle under {', '.join(blind)} finds no oracle memory to read and falls back to the "
                       "user's habits: those rows are ref:habits' behaviour by construction, not a ceiling.")
        return out

    def sample_dataset(self, folder: Path) -> str | None:
        """One generated user, trimmed to its change sessions and one accumulation session each
        (all 28 final and 5 pre-event probes kept), as a dataset file."""
        from longview.suites.prefs.dataset import generate

        ds = generate(7, users=1, name="sample")
        ud = ds.users[0]
        keep = {s.sid for s in ud.sessions if s.kind == "change"}
        for ev in ud.user.changes:
            first = next(s for s in ud.sessions if (s.context, s.attribute) == (ev.context, ev.attribute))
            keep.add(first.sid)
        ud.sessions = [s for s in ud.sessions if s.sid in keep]
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "prefs-sample.json"
        path.write_text(ds.model_dump_json(indent=1), encoding="utf-8")
        return str(path)

    def commands(self) -> typer.Typer:
        from longview.suites.prefs.commands import app

        return app


NAMES_SHOWN = ("psa", "cs", "pet", "carry_over", "brs", "prs")


def _diff_cell(d: dict[str, Any]) -> str:
    if d.get("diff") is None:
        return "-"
    ci = d.get("ci95")
    return f"{d['diff']:+.2f}" + (f" [{ci[0]:+.2f}, {ci[1]:+.2f}]" if ci else "")


def _two(v: float | None) -> str:
    """A metric for the terminal: two decimals, '-' when undefined."""
    return "-" if v is None else f"{v:.2f}"


def _rounded(v: float | None) -> float | None:
    """A metric for the HTML report's tables: three decimals, None when undefined."""
    return None if v is None else round(v, 3)


def _vs_none(rows: list[Row], seed: int) -> None:
    """Within a run, each memory row's paired difference against the same agent's No Memory row
    (the paper's memory − No Memory), over the clusters both define, with its bootstrap interval."""
    from longview.harness.scorecard import paired_difference
    from longview.kernel.stats import seed_from
    from longview.suites.prefs.metrics import N_BOOT, NAMES

    none = {r.agent: r for r in rows if r.variant == "none" and r.clusters}
    for r in rows:
        base = none.get(r.agent)
        if base is None or r is base or not r.clusters:
            continue
        out = {}
        for m in NAMES:
            n, _, _, diff, ci = paired_difference(base.clusters, r.clusters, m, n_boot=N_BOOT,
                                                  seed=seed_from(seed, "vs_none", r.agent, r.variant, m))
            out[m] = {"diff": diff, "ci95": ci, "n": n}
        r.extra["vs_none"] = out


def memory_disclosure(memory: Any) -> str:
    """What a memory system ran as, for the scorecard: retrieval method, Mem0's mode."""
    parts = [getattr(memory, "name", type(memory).__name__)]
    if (retrieval := getattr(memory, "retrieval", None)) is not None:
        parts.append(retrieval)
    if (mode := getattr(memory, "mode", None)) is not None:
        parts.append(mode)
        parts.append(f"embedding {memory.embedding_spec}" if getattr(memory, "embedding_spec", None)
                     else "embedding: offline feature hashing")
    return "; ".join(parts)


def _avg(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _macro(per_unit: list[dict[str, dict[str, float | None]]]) -> dict[str, dict[str, float | None]]:
    out: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for d in per_unit:
        for g, ms in d.items():
            for k, v in ms.items():
                if v is not None:
                    out[g][k].append(v)
    return {g: {k: _avg(v) for k, v in ms.items()} for g, ms in out.items()}
