"""The ATRBench episode format, as pydantic models, and a strict loader.

One episode = one persona: hidden standing rules, ordered learning sessions, and one rule-bound
test session per rule. Field names follow the released ATRBench data so its episodes load as they
are; longview's own cohort adds optional structured fields (see ``preference.py``).
"""

from __future__ import annotations

import hashlib
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from longview.kernel.errors import DataError
from longview.kernel.ids import check_id, read_json
from longview.suites.atr.preference import Preference, Step, TaskFrame


class CheckType(StrEnum):
    """The rule's action surface (ATRBench, Table 7)."""

    TOOL_IDENTITY = "tool_identity"
    PARAM_ID = "param_id"
    PARAM_ENUM = "param_enum"
    CONFIRM = "confirm"


Domain = Literal["commerce", "reservation", "travel", "communication", "scheduling", "workspace"]
DOMAINS: tuple[str, ...] = Domain.__args__  # type: ignore[attr-defined]


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Evidence(_Model):
    """A persona fact supporting a rule."""

    type: str = Field(description="Kind of support, e.g. direct.")
    content: str = Field(description="The supporting persona text.")


class ActionStep(_Model):
    """Where a rule lands in the tool ontology."""

    tool: str = Field(description="Bound tool (get_user_confirmation for confirm rules).")
    param: str | None = Field(
        description="Bound parameter; for confirm rules the inner mutate tool's name."
    )


class StandingRule(_Model):
    """A hidden standing preference of the user."""

    rule_id: str = Field(description="Unique id within the episode.")
    rule_text: str = Field(description="Third-person statement of the rule.")
    canonical_answer: str = Field(description="First-person answer the user gives when asked.")
    counterfactual_default: str = Field(description="What a rule-blind agent would do instead.")
    evidence: list[Evidence] = Field(default_factory=list, description="Persona support.")
    check_type: CheckType = Field(description="Action surface: tool_identity|param_id|param_enum|confirm.")
    action_step: ActionStep = Field(description="Tool-level binding of the rule.")
    topic: str | None = Field(default=None, description="longview: short topic phrase of the rule.")
    preference: Preference | None = Field(default=None, description="longview: rule-aware behaviour.")
    default: Preference | None = Field(default=None, description="longview: rule-blind behaviour.")


class Reference(_Model):
    """An object pre-loaded into a session's environment."""

    id: str = Field(description="Object id (type-distinguishing prefix).")
    type: str = Field(description="Object type, e.g. product, restaurant, message.")
    attributes: dict[str, Any] = Field(default_factory=dict, description="Returned verbatim by tools.")


class LocalEnv(_Model):
    """A session's tool surface and objects."""

    tools: list[str] = Field(description="Tools exposed in the session.")
    references: list[Reference] = Field(default_factory=list, description="Pre-loaded objects.")


class LearningSession(_Model):
    """An everyday user-online task in which the agent may ask."""

    session_id: str = Field(description="Unique id.")
    session_type: Literal["learning"] = Field(description="Always 'learning'.")
    day_offset: int = Field(default=0, description="Days since the first session.")
    domain: Domain = Field(description="Tool domain.")
    reason_for_call: str = Field(description="The user's abstract intent, used to open the session.")
    task_params: dict[str, Any] = Field(default_factory=dict, description="Facts the user knows.")
    expected_tools: list[str] = Field(default_factory=list, description="Tools the task needs.")
    gold_trajectory: list[Step] = Field(default_factory=list, description="One valid tool path.")
    local_env: LocalEnv = Field(description="Tools and references.")


class RequiredAction(_Model):
    """The rule-bound action a test session checks."""

    tool: str = Field(description="Required tool.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Gold arguments.")
    compare_args: list[str] | None = Field(
        default=None, description="Arguments that must match; null for tool_identity."
    )


class TaskSuccess(_Model):
    required_actions: list[RequiredAction] = Field(min_length=1, description="Exactly one in ATRBench.")


class Labels(_Model):
    task_success: TaskSuccess = Field(description="Success label.")


class RuleRef(_Model):
    rule_id: str = Field(description="Bound rule id.")
    rule_text: str = Field(default="", description="Copy of the rule text.")
    canonical_answer: str = Field(default="", description="Copy of the canonical answer.")


class TestSession(_Model):
    """A user-offline rule-bound task."""

    __test__ = False  # not a pytest class

    session_id: str = Field(description="Unique id.")
    session_type: Literal["test"] = Field(description="Always 'test'.")
    domain: Domain = Field(description="Tool domain.")
    rule_id: str = Field(description="The bound rule.")
    instruction: str = Field(description="What the (offline) user asked for.")
    gold_value: Any = Field(default=None, description="Gold decision value, if any.")
    local_env: LocalEnv = Field(description="Tools and references.")
    labels: Labels = Field(description="The required action.")
    rule_ref: RuleRef | None = Field(default=None, description="Copy of the bound rule.")
    frame: TaskFrame | None = Field(default=None, description="longview: plan for reference agents.")

    @property
    def required_action(self) -> RequiredAction:
        return self.labels.task_success.required_actions[0]


class EpisodeMetadata(_Model):
    model_config = ConfigDict(extra="allow")
    selected_rules: list[str] = Field(
        default_factory=list,
        description="Learnable rules: some learning session's gold path touches their surface.",
    )


class Episode(_Model):
    """One persona's hidden rules, learning sequence and test sessions."""

    episode_id: str = Field(description="Unique episode id.")
    persona_id: str = Field(description="Persona id (the replication unit).")
    raw_persona: Any = Field(default=None, description="Source persona record.")
    structured_persona: dict[str, Any] = Field(default_factory=dict, description="Persona fields.")
    rules: list[StandingRule] = Field(min_length=1, description="Hidden standing rules.")
    learning_sessions: list[LearningSession] = Field(description="Ordered learning sequence.")
    test_sessions: list[TestSession] = Field(min_length=1, description="One per rule.")
    metadata: EpisodeMetadata = Field(default_factory=EpisodeMetadata, description="Build metadata.")

    def rule(self, rule_id: str) -> StandingRule:
        return next(r for r in self.rules if r.rule_id == rule_id)

    @property
    def name(self) -> str:
        return str(self.structured_persona.get("name") or self.persona_id)


class Dataset(BaseModel):
    """A cohort of episodes plus what identifies it."""

    name: str = Field(description="Dataset name.")
    sha256: str = Field(description="Hash of the episode files' bytes, in file-name order.")
    episodes: list[Episode] = Field(description="One episode per persona.")

    def unit_ids(self) -> list[str]:
        """Persona ids (the replication unit), sorted."""
        return sorted(e.persona_id for e in self.episodes)

    def episode(self, persona_id: str) -> Episode:
        return next(e for e in self.episodes if e.persona_id == persona_id)


def _check_refs(ep: Episode, known_tools: set[str], file: str) -> None:
    """Cross-record checks pydantic cannot do: rule ids unique, tool names and rule ids exist."""
    rid: set[str] = set()
    for i, r in enumerate(ep.rules):
        if r.rule_id in rid:  # a second rule with the id would be silently shadowed by the first
            raise DataError(file, f"{ep.episode_id}/rules[{i}]", "rule_id", f"unique rule ids (duplicate '{r.rule_id}')")
        rid.add(r.rule_id)

    def need_tool(name: str, record: str, field: str) -> None:
        if name not in known_tools:
            raise DataError(file, record, field, f"unknown tool '{name}' (not in the tool ontology)")

    for i, r in enumerate(ep.rules):
        need_tool(r.action_step.tool, f"{ep.episode_id}/rules[{i}] ({r.rule_id})", "action_step.tool")
        if r.check_type is CheckType.CONFIRM and r.action_step.param:
            need_tool(r.action_step.param, f"{ep.episode_id}/rules[{i}] ({r.rule_id})", "action_step.param")
    for i, s in enumerate(ep.learning_sessions):
        rec = f"{ep.episode_id}/learning_sessions[{i}] ({s.session_id})"
        for j, t in enumerate(s.local_env.tools):
            need_tool(t, rec, f"local_env.tools.{j}")
        for j, st in enumerate(s.gold_trajectory):
            need_tool(st.tool, rec, f"gold_trajectory.{j}.tool")
        for j, t in enumerate(s.expected_tools):
            need_tool(t, rec, f"expected_tools.{j}")
    for i, ts in enumerate(ep.test_sessions):
        rec = f"{ep.episode_id}/test_sessions[{i}] ({ts.session_id})"
        if ts.rule_id not in rid:
            raise DataError(file, rec, "rule_id", f"unknown rule '{ts.rule_id}' (not in this episode's rules)")
        for j, t in enumerate(ts.local_env.tools):
            need_tool(t, rec, f"local_env.tools.{j}")
        for j, a in enumerate(ts.labels.task_success.required_actions):
            need_tool(a.tool, rec, f"labels.task_success.required_actions.{j}.tool")
    for j, rule_id in enumerate(ep.metadata.selected_rules):
        if rule_id not in rid:
            raise DataError(file, f"{ep.episode_id}/metadata", f"selected_rules.{j}", f"unknown rule '{rule_id}'")


def load_episode(path: Path, known_tools: set[str]) -> Episode:
    """Parse and validate one episode file; raise :class:`DataError` on the first problem."""
    file = str(path)
    raw = read_json(path)  # DataError on unreadable, non-UTF-8, invalid, too deep, lone surrogates
    if not isinstance(raw, dict):
        raise DataError(file, "<file>", "<root>", "a JSON object (one episode)")
    record = str(raw.get("episode_id") or raw.get("persona_id") or "<episode>")
    try:
        ep = Episode.model_validate(raw)
    except ValidationError as e:
        err = e.errors()[0]
        loc = list(err["loc"])
        rec = record
        # Name the rule/session inside the episode rather than a bare list index.
        if len(loc) >= 2 and isinstance(loc[1], int) and isinstance(raw.get(str(loc[0])), list):
            item = raw[str(loc[0])][loc[1]]
            ident = (item.get("rule_id") or item.get("session_id")) if isinstance(item, dict) else None
            rec = f"{record}/{loc[0]}[{loc[1]}]" + (f" ({ident})" if ident else "")
            loc = loc[2:]
        raise DataError.from_error(file, rec, loc, dict(err)) from None
    _check_ids(ep, file)
    _check_refs(ep, known_tools, file)
    return ep


MAX_DAY_OFFSET = 3650  # ten years of simulated days


def _check_ids(ep: Episode, file: str) -> None:
    """Ids that name folders and trace files are safe path components, and session ids unique."""
    check_id(ep.episode_id, file, "<episode>", "episode_id")
    check_id(ep.persona_id, file, ep.episode_id, "persona_id")
    seen: set[str] = set()
    ids = [("learning_sessions", i, s.session_id) for i, s in enumerate(ep.learning_sessions)]
    ids += [("test_sessions", i, t.session_id) for i, t in enumerate(ep.test_sessions)]
    for kind, i, sid in ids:
        rec = f"{ep.episode_id}/{kind}[{i}]"
        check_id(sid, file, rec, "session_id")
        if sid in seen:
            raise DataError(file, rec, "session_id", f"unique session ids (duplicate '{sid}')")
        seen.add(sid)
    for i, s in enumerate(ep.learning_sessions):
        if not 0 <= s.day_offset <= MAX_DAY_OFFSET:
            raise DataError(file, f"{ep.episode_id}/learning_sessions[{i}] ({s.session_id})", "day_offset",
                            f"a day offset from 0 to {MAX_DAY_OFFSET} (got {s.day_offset})")


def hash_files(paths: list[Path]) -> str:
    """sha256 over (name, bytes) of the files, in sorted name order."""
    h = hashlib.sha256()
    for p in sorted(paths, key=lambda p: p.name):
        h.update(p.name.encode())
        h.update(b"\0")
        h.update(p.read_bytes())
    return h.hexdigest()


def load_dir(path: Path, name: str, known_tools: set[str]) -> Dataset:
    """Load every ``*.json`` episode in a folder (sorted by file name)."""
    if not path.is_dir():
        raise DataError(str(path), "<dataset>", "<path>", "an existing folder of episode JSON files")
    files = sorted(p for p in path.glob("*.json") if p.name not in {"qc_report.json", "dataset.json"})
    if not files:
        raise DataError(str(path), "<dataset>", "<path>", "at least one episode *.json file")
    eps = [load_episode(p, known_tools) for p in files]
    seen: set[str] = set()
    for p, ep in zip(files, eps, strict=True):
        if ep.persona_id in seen:
            raise DataError(str(p), ep.episode_id, "persona_id", f"unique persona ids (duplicate '{ep.persona_id}')")
        seen.add(ep.persona_id)
    return Dataset(name=name, sha256=hash_files(files), episodes=eps)
