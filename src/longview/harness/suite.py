"""The Suite contract: everything a suite supplies so the harness can run, score and show it.

A suite is only its protocol, data and metrics. The harness (``longview.harness.run``) does the
rest for every suite alike: dataset validation before anything is written, the cell plan, model
roles, the manifest and run store, bounded concurrent sessions, resume, usage, the scorecard JSON
and the CLI. Register a suite under the ``longview.suites`` entry-point group::

    [project.entry-points."longview.suites"]
    mysuite = "mypkg.suite:MySuite"
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from longview.harness.cell import Cell, Dataset, SessionOutcome
from longview.harness.scorecard import Scorecard
from longview.kernel.agent import Agent
from longview.kernel.session import DEFAULT_MAX_TURNS

if TYPE_CHECKING:
    import typer
    from rich.table import Table

    from longview.harness.context import CellContext
    from longview.harness.roles import Roles
    from longview.kernel.trace import TraceEvent


DatasetT = TypeVar("DatasetT", bound=Dataset)
OptionsT = TypeVar("OptionsT", bound=BaseModel)
ResultT = TypeVar("ResultT", bound=BaseModel)


class NoOptions(BaseModel):
    """A suite without suite-only options."""

    model_config = ConfigDict(extra="forbid")


class RoleSpec(BaseModel):
    """A model role a suite uses besides the agent under test (user, judge, router...)."""

    name: str = Field(description="Role name, as in --role NAME=MODEL and --param NAME.KEY=VALUE.")
    description: str = Field(description="What the role does, shown in --help and `longview list`.")
    embedded: str = Field(description="The deterministic implementation used when no model is given.")


class ProfileSpec(BaseModel):
    """How `longview profile` reads a suite: one headline metric, a quick mode, one line of meaning."""

    label: str = Field(default="", description="What the suite measures, in a few words (default: the suite name).")
    metric: str | None = Field(default=None, description="Headline metric (default: the scorecard's first).")
    variant: str | None = Field(default=None, description="The model's variant that carries it (default: the first model variant).")
    quick_units: int = Field(default=3, ge=1, description="Units (personas, users, scenarios) run by --quick.")
    quick_options: dict[str, Any] = Field(default_factory=dict, description="Suite options (-S) set by --quick.")
    reading: str = Field(default="", description="One line: what the headline metric means for a user.")
    also: list[str] = Field(default_factory=list, description="Further metrics quoted on the profile line.")


class Section(BaseModel):
    """An extra block of a suite's HTML report: a table, a Vega-Lite chart, or both."""

    title: str = Field(description="Heading.")
    note: str = Field(default="", description="One or two lines under the heading.")
    columns: list[str] = Field(default_factory=list, description="Table header.")
    rows: list[list[str | float | int | None]] = Field(default_factory=list, description="Table rows (None prints '–').")
    vega_lite: dict[str, Any] | None = Field(default=None, description="A Vega-Lite spec with inline data.")


def resolve_spec(spec: str, named: Mapping[str, str] | None = None) -> str:
    """A dataset spec made independent of the working folder (see :meth:`Suite.resolve_dataset`)."""
    if spec in (named or {}):
        return spec
    if os.path.exists(os.path.expanduser(spec)):
        return os.path.abspath(os.path.expanduser(spec))
    prefix, sep, rest = spec.partition(":")
    if sep and prefix and rest and os.path.exists(os.path.expanduser(rest)):
        return f"{prefix}:{os.path.abspath(os.path.expanduser(rest))}"
    return spec


class Suite(ABC, Generic[DatasetT, OptionsT, ResultT]):
    """One published protocol. Class attributes describe it; methods run and score it.

    Generic in the suite's dataset, options and cell-result types, so a suite written as
    ``class MySuite(Suite[MyDataset, MyOptions, MyResult])`` gets ``ctx.dataset``,
    ``ctx.options`` and every argument typed, with no casts. Every method depends only on its
    arguments: a suite keeps no state between calls (a cell may run in another process)."""

    name: ClassVar[str]
    summary: ClassVar[str]
    Options: ClassVar[type[BaseModel]] = NoOptions  # suite-only options: -S key=value
    roles: ClassVar[Sequence[RoleSpec]] = ()  # model roles besides the agent
    reference_agents: ClassVar[dict[str, str]] = {}  # scripted agent -> the variant it runs by default
    variants: ClassVar[dict[str, str]] = {"default": "the protocol as published"}  # name -> description
    model_variants: ClassVar[Sequence[str]] = ("default",)  # what a --model runs when no --variant is given
    datasets: ClassVar[dict[str, str]] = {"builtin": "the built-in dataset"}  # spec -> description
    profile: ClassVar[ProfileSpec] = ProfileSpec()  # how `longview profile` runs and reads this suite
    default_max_turns: ClassVar[int] = DEFAULT_MAX_TURNS  # --max-turns when not given (the paper's cap)

    @abstractmethod
    def load_dataset(self, spec: str, options: OptionsT) -> DatasetT:
        """Load and fully validate; raise DataError (file, record, field) on bad input."""

    def resolve_dataset(self, spec: str) -> str:
        """``spec`` as it means the same from any folder; the run loads it and the manifest keeps it,
        so ``show`` and ``report`` work from elsewhere. Default: a named dataset (a ``datasets``
        key) as it is; a path, or the PATH of ``PREFIX:PATH``, made absolute when it exists."""
        return resolve_spec(spec, self.datasets)

    @abstractmethod
    def reference_agent(self, name: str, dataset: DatasetT, unit: str) -> Agent:
        """A fresh scripted reference agent for one cell."""

    def components(self, roles: Roles, options: OptionsT) -> Any:
        """Shared per-run components (simulated user, judges...): embedded unless ``roles`` has a
        model for them. Returned to every cell as ``ctx.components``."""
        return None

    def components_for(self, roles: Roles, options: OptionsT, dataset: DatasetT) -> Any:
        """What the harness calls: ``components``, unless they depend on the dataset too (atr's
        prompt set follows it), then override this instead."""
        return self.components(roles, options)

    def component_names(self, components: Any) -> dict[str, str]:
        """Which implementation plays each role, for the manifest (e.g. router: embedded:keyword-v2)."""
        return {r.name: f"embedded:{r.embedded}" for r in self.roles}

    def default_variants(self, agent: str, options: OptionsT) -> list[str] | None:
        """Variants an agent runs when no --variant is given; None = ``reference_agents[agent]`` for a
        reference agent, ``model_variants`` for a model. Lets a suite option choose variants
        (e.g. prefs' ``-S memory=rag``) or run a reference agent under several."""
        return None

    def sessions(self, cell: Cell, dataset: DatasetT, options: OptionsT) -> int:
        """Sessions the cell will run (progress bar; longest cells start first)."""
        return 1

    def session_length(self, cell: Cell, dataset: DatasetT, options: OptionsT) -> int:
        """How long one of the cell's sessions runs, relative to the suite's other cells (e.g. the
        activations a timeline holds): the run starts long cells first and ``--dry-run`` plans
        concurrency with it. Default 1: sessions of about equal length."""
        return 1

    def sessions_in_flight(self, cell: Cell, dataset: DatasetT, options: OptionsT) -> int:
        """The most sessions the cell runs at once (its widest ``gather_sessions``): what
        ``--dry-run`` plans concurrency with. Default 1: sessions in order."""
        return 1

    @abstractmethod
    async def run_cell(self, ctx: CellContext[DatasetT, OptionsT]) -> ResultT:
        """Run one cell; write a trace per session through ``ctx``. Return a pydantic result with
        ``status`` ("complete"/"aborted") and ``abort_reason`` (see ``cell.CellResult``); it becomes
        the cell's completion marker. A ``CellAborted`` (a model that keeps failing) may propagate:
        the harness then records the cell as aborted with its reason."""

    @abstractmethod
    def score(self, results: list[str], dataset: DatasetT, options: OptionsT, seed: int) -> Scorecard:
        """Score the JSON texts of every finished cell's result, in the one scorecard shape (build
        rows with ``harness.scorecard.build_row``); the harness adds run identity."""

    def tables(self, scorecard: Scorecard) -> list[Table]:
        """Rich tables printed by run and show; default: one generic table of every row."""
        from longview.harness.terminal.tables import rows_table

        return [rows_table(scorecard)]

    def notes(self, scorecard: Scorecard, components: dict[str, str]) -> list[str]:
        """Caveats printed under the tables and kept in the scorecard JSON (``notes``), e.g. that a
        judged metric was judged by an embedded component, not the paper's."""
        return []

    def transcript(self, events: list[TraceEvent]) -> list[str]:
        """A session transcript as readable lines (`longview trace`); default: the generic view."""
        from longview.harness.transcript import trace_lines

        return trace_lines(events)

    def prompts(self) -> dict[str, str]:
        """Prompt file -> sha256, recorded in the manifest."""
        return {}

    def prompts_for(self, dataset: DatasetT) -> dict[str, str]:
        """What the harness calls: ``prompts``, unless they depend on the dataset (override this)."""
        return self.prompts()

    def commands(self) -> typer.Typer | None:
        """Extra commands under ``longview SUITE ...`` (generate, calibrate, inspect)."""
        return None

    def sample_dataset(self, folder: Path) -> str | None:
        """Write a small valid dataset (a few files, one or two units) into ``folder`` and return its
        ``--dataset`` spec. The fuzz suite (tests/fuzz) damages these files one at a time and
        checks every failure is one clean message; None opts the suite out of dataset fuzzing."""
        return None

    def estimate(self, cells: list[Cell], dataset: DatasetT, roles: Roles,
                 options: OptionsT) -> dict[str, tuple[int, int]]:
        """--dry-run: role -> (estimated calls, estimated input tokens). Default: unknown (empty)."""
        return {}

    def report_sections(self, scorecard: dict[str, Any]) -> list[Section]:
        """Extra HTML report sections from the scorecard JSON (e.g. the paper's tables); the
        generic report (tables, forest plots, breakdowns, traces) is always there. Default: none."""
        return []

    def session_outcomes(self, result: str, dataset: DatasetT) -> dict[str, SessionOutcome]:
        """Session id -> outcome, from one finished cell's result JSON, so a report can link a
        failed session to its transcript. Default: none (sessions are listed without outcome)."""
        return {}

    rejudged_roles: ClassVar[tuple[str, ...]] = ()
    """Roles whose judgments `longview rescore` can make again from a finished cell's stored result
    (judges that only read what the result keeps; none whose verdicts steered the sessions)."""

    rejudged_components: ClassVar[dict[str, tuple[str, ...]]] = {}
    """Role -> the manifest components `longview rescore` replaces when it re-judges that role (default:
    the component named as the role); a suite whose role also played parts that are not judged again
    names only the part that is."""

    async def rejudge(self, result: str, dataset: DatasetT, options: OptionsT, roles: Roles,
                      read: Callable[[str], str]) -> str:
        """A finished cell's result JSON with the judgments of ``rejudged_roles`` made again by
        ``roles``' components from what the cell stored; the agent is never called. ``read(name)``
        is the text of another file of the cell's folder in the original run (through
        ``runstore.read_run_file``: a missing or foreign file is one RunFolderError naming it).
        Suites that declare ``rejudged_roles`` implement it."""
        raise NotImplementedError(f"suite {self.name} cannot rescore")


AnySuite = Suite[Any, Any, Any]  # what the harness holds: any suite, whatever its types
