"""The interaction-preference model (MemPABench App. A.1) as typed package data.

Fourteen attributes in four dimensions, 32 discrete settings, each with an observable definition
that the interaction wrapper realises and the deterministic checks test. Loaded once from
``data/attributes.yaml``; a malformed file raises :class:`DataError` naming the record and field.
"""

from __future__ import annotations

from datetime import date
from functools import lru_cache
from importlib.resources import files
from typing import Annotated, Literal

import yaml
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from longview.kernel.errors import DataError

CONTEXTS: tuple[Context, ...] = ("work", "personal")
Context = Literal["work", "personal"]


def _iso_date(day: str) -> str:
    date.fromisoformat(day)  # ValueError -> a validation error naming the field
    return day


IsoDate = Annotated[str, AfterValidator(_iso_date)]  # a session's calendar day, YYYY-MM-DD


class Strict(BaseModel):
    """Base of the dataset file's models: a misspelt field is an error, not silently ignored."""

    model_config = ConfigDict(extra="forbid")


class ComplaintLine(BaseModel):
    """One reaction a user may voice after this setting was delivered, and what it asks for instead."""

    model_config = ConfigDict(extra="forbid")

    say: str = Field(description="The sentence, in everyday words (never the benchmark's names).")
    asks_for: list[str] = Field(min_length=1, description="Settings of the same attribute a user saying this wants; "
                                "the simulator says the line only when its target is one of them.")


class Setting(BaseModel):
    """One discrete setting of an attribute."""

    id: str = Field(description="Setting id, unique within its attribute (e.g. terse).")
    label: str = Field(description="The benchmark's name for the setting (never said by the simulated user).")
    definition: str = Field(description="What the delivered reply or executed trajectory must show.")
    habit: bool = Field(default=False, description="The fixed default of ref:habits (one per attribute).")
    want: list[str] = Field(min_length=1, description="Everyday sentences a user says when this is what they want.")
    complaint: list[ComplaintLine] = Field(min_length=1, description="Reactions when this was delivered but not wanted.")
    cues: list[str] = Field(min_length=1, description="Words the reference agents' embedded reader associates with it.")


class Attribute(BaseModel):
    """One interaction attribute."""

    id: str = Field(description="Attribute id (e.g. verbosity); the interaction tool is set_<id>.")
    name: str = Field(description="The benchmark's name (never said by the simulated user).")
    dimension: str = Field(description="Dimension id.")
    kind: Literal["reply", "action"] = Field(description="Whether it changes how the reply reads or what the PA does.")
    mechanism: Literal["pass_through", "selective_rendering", "delivery_scheduling", "execution_control"] = Field(
        description="The wrapper mechanism that realises it (App. E.3)."
    )
    settings: list[Setting] = Field(min_length=2, description="Discrete settings, in display order.")

    @model_validator(mode="after")
    def _one_habit(self) -> Attribute:
        ids = [s.id for s in self.settings]
        if len(set(ids)) != len(ids):
            raise ValueError(f"duplicate setting ids in {self.id}")
        if sum(s.habit for s in self.settings) != 1:
            raise ValueError(f"attribute {self.id} needs exactly one habit setting")
        for s in self.settings:
            for line in s.complaint:
                if unknown := [x for x in line.asks_for if x not in ids]:
                    raise ValueError(f"{self.id}/{s.id}: complaint asks_for unknown settings {unknown}")
        return self

    def complaints(self, delivered: str, wanted: str) -> list[str]:
        """What a user who wanted ``wanted`` may say after getting ``delivered`` (may be empty:
        the construction check requires every such pair to have a line)."""
        return [c.say for c in self.setting(delivered).complaint if wanted in c.asks_for]

    def setting(self, sid: str) -> Setting:
        for s in self.settings:
            if s.id == sid:
                return s
        raise KeyError(f"{self.id} has no setting {sid!r}")

    @property
    def setting_ids(self) -> list[str]:
        return [s.id for s in self.settings]

    @property
    def habit(self) -> str:
        return next(s.id for s in self.settings if s.habit)

    @property
    def tool_name(self) -> str:
        return f"set_{self.id}"


class Dimension(BaseModel):
    id: str = Field(description="Dimension id.")
    name: str = Field(description="Dimension name.")


class Taxonomy(BaseModel):
    """The whole inventory."""

    dimensions: list[Dimension] = Field(description="The four dimensions.")
    attributes: list[Attribute] = Field(description="The fourteen attributes, in order.")

    @model_validator(mode="after")
    def _check(self) -> Taxonomy:
        dims = {d.id for d in self.dimensions}
        for a in self.attributes:
            if a.dimension not in dims:
                raise ValueError(f"attribute {a.id}: unknown dimension {a.dimension}")
        return self

    def attribute(self, aid: str) -> Attribute:
        for a in self.attributes:
            if a.id == aid:
                return a
        raise KeyError(f"unknown attribute {aid!r}")

    @property
    def ids(self) -> list[str]:
        return [a.id for a in self.attributes]

    def by_tool(self, tool_name: str) -> Attribute | None:
        return next((a for a in self.attributes if a.tool_name == tool_name), None)

    def jargon(self) -> list[str]:
        """Benchmark vocabulary a simulated user must never say (the leakage audit's word list)."""
        terms = {"preference", "preferences", "interaction setting", "attribute"}
        terms |= {d.name.lower() for d in self.dimensions} | {"initiative and autonomy"}
        for a in self.attributes:
            terms.add(a.name.lower())
            terms.add(a.name.lower().replace("&", "and"))
            terms.add(a.id.replace("_", " "))
            for s in a.settings:
                label = s.label.lower()
                if len(label) > 4 and label not in {"formal", "casual", "direct", "detailed", "show", "hide", "full"}:
                    terms.add(label)  # distinctive labels only: "terse", "self-directed", ...
        terms |= {"one at a time", "hand off", "handoff"}
        return sorted(terms)


TAXONOMY_FILE = "attributes.yaml"


def parse_taxonomy(text: str, source: str) -> Taxonomy:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise DataError(source, "<file>", "<root>", f"valid YAML ({e})") from None
    try:
        return Taxonomy.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        loc = [str(p) for p in err["loc"]]
        record = "/".join(loc[:2]) if loc else "<root>"
        field = "/".join(loc[2:]) or (loc[-1] if loc else "<root>")
        raise DataError(source, record, field, err["msg"]) from None


@lru_cache(maxsize=1)
def taxonomy() -> Taxonomy:
    """The built-in inventory."""
    path = files("longview.suites.prefs").joinpath("data", TAXONOMY_FILE)
    return parse_taxonomy(path.read_text(encoding="utf-8"), str(path))
