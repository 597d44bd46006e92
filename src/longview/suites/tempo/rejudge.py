"""`longview rescore` for tempo: the model judges (TC semantics/completion, TA, TR-J) again over what
each run kept, the agent never called.

What the judges read is the run's world (every act, record, delivery and what the user said) and
the scenario; every run keeps its world in ``run.json`` (``r<k>-run.json`` with repeats) whether or
not a judge ran, so an offline run can be judged later. The deterministic scores stay as the cell
stored them (the rule components, TR-D, trust_sim, the rule TA); only the judged parts are cleared
and judged again, by exactly the judges given — an earlier run's judges (a second judge too) are
replaced, not mixed with the new ones.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from longview.harness.roles import Roles
from longview.harness.runstore import RunFolderError
from longview.kernel.errors import ConfigError
from longview.kernel.models.client import GenParams, ModelClient
from longview.suites.tempo.metrics import RunScore
from longview.suites.tempo.records import TempoCellResult
from longview.suites.tempo.world import TempoWorld

JUDGE_ROLES = ("judge", "judge2")


def judge_clients(roles: Roles) -> list[tuple[ModelClient, GenParams]]:
    """The model judges ``roles`` name, first judge first (the order names them and their agreement)."""
    out = []
    for role in JUDGE_ROLES:
        client = roles.client(role) if roles.model(role) else None
        if client is not None:
            out.append((client, roles.params(role)))
    return out


def judging_components(models: list[str]) -> list[str]:
    """A cell's ``judges``: the embedded ones and each judge model."""
    return ["embedded:rules", "embedded:trust-sim"] + [f"llm:{m}" for m in models]


def unjudged(score: RunScore) -> RunScore:
    """``score`` as the deterministic scoring left it, before any model judge."""
    s = score.model_copy(deep=True)
    for t in s.tasks:
        t.semantics = t.completion = t.tc = t.tr_j = None
        t.trj_ratings = {}
    s.tc = s.tr_j = None
    s.ta, s.ta_judges, s.judge_failures = s.ta_rules, {}, {}
    return s


def run_file(repeat: int, repeats: int) -> str:
    """The file a run's world is kept in, within its cell folder."""
    return f"r{repeat}-run.json" if repeats > 1 else "run.json"


def stored_world(read: Callable[[str], str], name: str, cell: TempoCellResult, score: RunScore) -> TempoWorld:
    """The world a run kept, checked against the cell it belongs to; a clear error otherwise."""
    where = f"cell {cell.agent}/{cell.unit}: {name}"
    try:
        data = json.loads(read(name))
        world = TempoWorld.model_validate(data["world"])
    except RunFolderError as e:
        raise ConfigError(f"{where}: this run did not keep what tempo's judges read ({e})") from None
    except (ValueError, KeyError, TypeError) as e:
        what = e.errors()[0]["loc"] if isinstance(e, ValidationError) else e
        raise ConfigError(f"{where}: not a tempo run record with a 'world' that this longview reads ({what})") from None
    if (data.get("scenario"), data.get("persona"), data.get("agent")) != (cell.scenario, cell.persona, cell.agent):
        raise ConfigError(f"{where}: belongs to another cell ({data.get('agent')} on {data.get('scenario')}:"
                          f"{data.get('persona')})")
    used = [i for t in score.tasks for i in t.acts + t.reports]
    if used and max(used) >= len(world.log):
        raise ConfigError(f"{where}: its world log has {len(world.log)} acts, the stored scores cite act {max(used)}")
    return world


async def rejudge_cell(result: str, dataset: Any, repeats: int, roles: Roles, read: Callable[[str], str]) -> str:
    """One finished cell's result with its judged parts made again by ``roles``' judges."""
    from longview.suites.tempo.judge import judge_run

    clients = judge_clients(roles)
    if roles.client("judge") is None:
        raise ConfigError("rescore of tempo needs a judge model (--judge-model; a second with --role judge2=MODEL)")
    cell = TempoCellResult.model_validate_json(result)
    if cell.status != "complete":
        return result  # aborted: no run was scored
    scenario, persona = dataset.unit(cell.unit)
    for rec in cell.runs:
        world = stored_world(read, run_file(rec.repeat, repeats), cell, rec.score)
        score = unjudged(rec.score)
        rec.judge = await judge_run(clients, scenario, persona, world, score)
        rec.score = score
    cell.judges = judging_components([m for r in JUDGE_ROLES if (m := roles.model(r))])
    return cell.model_dump_json(indent=1)
