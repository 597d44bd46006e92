"""The suite contract in one import: everything a suite — built in or a plugin — is written with.

    from longview.suite import Suite, Session, CellContext, Scorecard, build_row, ...

A suite subclasses ``Suite[MyDataset, MyOptions, MyResult]`` (typed throughout, no casts), runs
its sessions with the stock :class:`Session` (or a subclass), and scores into the one
:class:`Scorecard` shape. docs/writing-a-suite.md walks through a whole suite in one file.
"""

from __future__ import annotations

from longview.harness.cell import Cell, CellResult, Dataset, SessionOutcome
from longview.harness.context import CellContext, gather_sessions
from longview.harness.roles import Roles
from longview.harness.runstore import DatasetInfo
from longview.harness.scorecard import MetricInfo, Row, Scorecard, build_row, row_order
from longview.harness.session import Session
from longview.harness.suite import AnySuite, NoOptions, ProfileSpec, RoleSpec, Section, Suite
from longview.kernel.agent import Agent, AssistantTurn, Message, Observation, ToolCall
from longview.kernel.errors import CellAborted, DataError
from longview.kernel.ids import check_id, parse_json, read_json
from longview.kernel.session import ControlResult, UserTurn
from longview.kernel.tools import ParamSpec, ToolKind, Toolkit, ToolSpec

__all__ = [
    "Agent", "AnySuite", "AssistantTurn", "Cell", "CellAborted", "CellContext", "CellResult", "ControlResult",
    "DataError", "Dataset", "DatasetInfo", "Message", "MetricInfo", "NoOptions", "Observation", "ParamSpec",
    "ProfileSpec", "RoleSpec", "Roles", "Row", "Scorecard", "Section", "Session", "SessionOutcome", "Suite",
    "ToolCall", "ToolKind", "ToolSpec", "Toolkit", "UserTurn", "build_row", "check_id", "gather_sessions",
    "parse_json", "read_json", "row_order",
]
