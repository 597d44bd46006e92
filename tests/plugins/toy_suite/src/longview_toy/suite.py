"""`toy`: each unit is a list of arithmetic questions asked in separate sessions; the agent answers
through an `answer` tool; a deterministic grader (or a `grader` model role) scores each answer.

It uses every part of the contract a real suite uses — dataset (built-in or a folder), options,
a model role with an embedded default, reference agents, variants, concurrent sessions with
traces, a score built with ``build_row`` — so the harness is tested by something that is not atr.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from longview.harness.context import CellContext, gather_sessions
from longview.harness.roles import Roles
from longview.harness.scorecard import DatasetInfo as CardDataset
from longview.harness.scorecard import MetricInfo, Scorecard, build_row
from longview.harness.suite import Cell, RoleSpec, Suite
from longview.kernel.agent import AssistantTurn, Message, Observation, ToolCall
from longview.kernel.errors import DataError
from longview.kernel.session import ControlResult, UserTurn, run_session
from longview.kernel.tools import ParamSpec, ToolKind, Toolkit, ToolSpec


class Question(BaseModel):
    a: int = Field(description="First addend.")
    b: int = Field(description="Second addend.")


class Unit(BaseModel):
    unit_id: str = Field(description="Unit id.")
    questions: list[Question] = Field(min_length=1, description="One session each.")


class ToyDataset(BaseModel):
    name: str
    sha256: str
    units: list[Unit]

    def unit_ids(self) -> list[str]:
        return [u.unit_id for u in self.units]

    def unit(self, uid: str) -> Unit:
        return next(u for u in self.units if u.unit_id == uid)


BUILTIN = [Unit(unit_id=f"u{i}", questions=[Question(a=i, b=j) for j in range(3)]) for i in range(4)]


class ToyOptions(BaseModel):
    delay: float = Field(default=0.0, ge=0, description="Seconds each session sleeps (for kill tests).")
    offset: int = Field(default=0, description="ref:wrong adds this to every answer (0 means +1).")


class ToyResult(BaseModel):
    agent: str
    variant: str
    unit: str
    trial: int = 0
    status: str = "complete"
    abort_reason: str | None = None
    answers: list[int | None] = Field(default_factory=list)


class Right:
    name = "ref:right"

    async def act(self, obs: Observation) -> AssistantTurn:
        if any(m.role == "tool" for m in obs.messages):
            return AssistantTurn()
        q = json.loads(obs.messages[0].content or "{}")
        return AssistantTurn(tool_calls=[ToolCall(id="c0", name="answer", arguments={"value": q["a"] + q["b"]})])


class Wrong(Right):
    name = "ref:wrong"

    def __init__(self, offset: int) -> None:
        self.offset = offset or 1

    async def act(self, obs: Observation) -> AssistantTurn:
        turn = await super().act(obs)
        for c in turn.tool_calls:
            c.arguments["value"] += self.offset
        return turn


ANSWER = ToolSpec(name="answer", description="Give the final answer.", kind=ToolKind.WRITE,
                  parameters=[ParamSpec(name="value", type="integer", required=True, description="The sum.")])


class Protocol:
    control_specs = [ANSWER]
    max_rescues = 0

    def __init__(self) -> None:
        self.value: int | None = None

    def filter_batch(self, calls, turn, trace):
        return calls

    def rescue_note(self, text, attempt):
        return ""

    async def on_control(self, call: ToolCall, turn: int, trace) -> ControlResult:
        self.value = call.arguments.get("value")
        return ControlResult(to_user=str(self.value))

    async def on_text(self, text, turn, trace) -> ControlResult:
        return ControlResult(to_user=text)

    async def on_tool_result(self, call, ok, turn) -> None:
        return None

    async def user_reply(self, delivered, turn, trace) -> UserTurn:
        return UserTurn(text="thanks", end=True)


class ToySuite(Suite[ToyDataset, ToyOptions, ToyResult]):
    name = "toy"
    summary = "sums in separate sessions (a test suite outside longview)"
    Options = ToyOptions
    roles = (RoleSpec(name="grader", description="grades an answer", embedded="exact"),)
    reference_agents = {"ref:right": "plain", "ref:wrong": "plain"}
    variants = {"plain": "questions as they are", "doubled": "every question asked with both numbers doubled"}
    model_variants = ("plain",)
    datasets = {"builtin": "four units of three sums", "PATH": "a folder of unit JSON files"}

    def load_dataset(self, spec: str, options: ToyOptions) -> ToyDataset:
        if spec == "builtin":
            units = BUILTIN
            raw = json.dumps([u.model_dump() for u in units]).encode()
        else:
            files = sorted(Path(spec).glob("*.json"))
            if not files:
                raise DataError(spec, "<dataset>", "<path>", "a folder with unit *.json files")
            units, raw = [], b""
            for f in files:
                raw += f.read_bytes()
                try:
                    units.append(Unit.model_validate_json(f.read_bytes()))
                except ValidationError as e:
                    err = e.errors()[0]
                    raise DataError.from_error(str(f), f.stem, list(err["loc"]), err) from None
        return ToyDataset(name=spec, sha256=hashlib.sha256(raw).hexdigest(), units=units)

    def reference_agent(self, name: str, dataset: ToyDataset, unit: str) -> Right:
        return Right() if name == "ref:right" else Wrong(0)

    def components(self, roles: Roles, options: ToyOptions) -> dict[str, str]:
        return {"grader": f"llm:{roles.model('grader')}" if roles.model("grader") else "embedded:exact"}

    def component_names(self, components: dict[str, str]) -> dict[str, str]:
        return components

    def sessions(self, cell: Cell, dataset: ToyDataset, options: ToyOptions) -> int:
        return len(dataset.unit(cell.unit).questions)

    async def run_cell(self, ctx: CellContext[ToyDataset, ToyOptions]) -> ToyResult:
        unit = ctx.dataset.unit(ctx.cell.unit)
        k = 2 if ctx.cell.variant == "doubled" else 1
        if isinstance(ctx.agent, Wrong):
            ctx.agent.offset = ctx.options.offset or 1

        async def one(i: int, q: Question) -> int | None:
            async with ctx.session():
                await asyncio.sleep(ctx.options.delay)
                proto, trace = Protocol(), ctx.trace(f"q{i}")
                try:
                    await run_session(ctx.agent, Toolkit([]), proto, system="Add the numbers.",
                                      opening=[Message(role="user", content=json.dumps({"a": q.a * k, "b": q.b * k}))],
                                      session_id=f"q{i}", phase="test", trace=trace, max_turns=ctx.max_turns)
                finally:
                    trace.close()
                return proto.value

        answers = await gather_sessions(*(one(i, q) for i, q in enumerate(unit.questions)))
        return ToyResult(agent=ctx.cell.agent, variant=ctx.cell.variant, unit=ctx.cell.unit, trial=ctx.cell.trial,
                         answers=answers)

    def score(self, results: list[str], dataset: ToyDataset, options: ToyOptions, seed: int) -> Scorecard:
        slots: dict[tuple[str, str], dict[str, list[dict[str, float | None]]]] = {}
        aborted: dict[tuple[str, str], dict[str, str]] = {}
        for text in results:
            r = ToyResult.model_validate_json(text)
            key = (r.agent, r.variant)
            slots.setdefault(key, {})
            if r.status != "complete":
                aborted.setdefault(key, {})[r.unit] = r.abort_reason or "unknown"
                continue
            k = 2 if r.variant == "doubled" else 1
            qs = dataset.unit(r.unit).questions
            ok = [a == (q.a + q.b) * k for a, q in zip(r.answers, qs, strict=True)]
            slots[key].setdefault(r.unit, []).append({"accuracy": sum(ok) / len(ok)})
        rows = [build_row(a, v, ["accuracy"], scored, aborted=aborted.get((a, v)), units_in_dataset=len(dataset.units),
                          seed=seed) for (a, v), scored in sorted(slots.items())]
        return Scorecard(suite="toy", dataset=CardDataset(name=dataset.name, sha256=dataset.sha256, units=len(dataset.units)),
                         metrics={"accuracy": MetricInfo(description="answers equal to the sum", kind="deterministic")},
                         rows=rows)
