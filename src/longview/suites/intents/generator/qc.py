"""Quality control of episodes: labels are true, the oracle completes everything, the literal agent
surfaces nothing.

Static: every intent's cue is absent from its own request; a ``session`` intent's cue is in the
source session's request; a ``workspace`` intent's cue is in the source file (PDFs read as text);
an ``ask`` intent's cue is in no earlier session (request or intents) and no workspace file.
Dynamic (offline, embedded judges): ``ref:oracle`` completes every intent and meets every
deterministic criterion; ``ref:literal`` completes or elicits none; ``ref:recall`` (which uses only
its memory and the workspace files) completes exactly the ``session`` and ``workspace`` intents,
and without history exactly the ``workspace`` ones — each intent is recoverable where its label
says, and only there.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from longview.domains.apps.pdf import extract_text, write_pdf
from longview.harness.context import CellContext
from longview.harness.roles import Roles
from longview.harness.suite import Cell, NoOptions
from longview.suites.intents.agents import ReferenceAgent
from longview.suites.intents.dataset import IntentsDataset
from longview.suites.intents.runner import Components, run_episode
from longview.suites.intents.schema import Episode


def static_problems(ep: Episode) -> list[str]:
    out: list[str] = []
    files = {f.path: (f.text if f.text is not None else extract_text(write_pdf(f.pdf_lines or []))) for f in ep.files}
    earlier: list[str] = []
    by_id = {s.id: s for s in ep.sessions}
    for s in ep.sessions:
        for i in s.hidden_intents:
            cue = (i.cue or "").lower()
            where = f"{ep.persona.id}/{s.id}/{i.id}"
            if not cue:
                continue
            if cue in s.request.lower() and i.recoverable_from != "ask" or cue in s.base_reply.lower():
                out.append(f"{where}: cue '{i.cue}' leaks into the request")
            if i.recoverable_from == "session":
                src = by_id.get(i.source or "")
                if src is None or cue not in src.request.lower() or i.source not in s.depends_on:
                    out.append(f"{where}: cue not stated in prerequisite {i.source}")
            elif i.recoverable_from == "workspace":
                if cue not in (files.get(i.source or "") or "").lower():
                    out.append(f"{where}: cue not in workspace file {i.source}")
            elif i.recoverable_from == "ask":
                if cue in s.request.lower() or any(cue in t for t in earlier) or any(cue in t.lower() for t in files.values()):
                    out.append(f"{where}: 'ask' intent is recoverable elsewhere")
        earlier.append((s.request + "\n" + "\n".join(h.content for h in s.hidden_intents)).lower())
    return out


async def _run(ds: IntentsDataset, unit: str, kind: str, folder: Path, no_history: bool = False):
    ctx = CellContext(cell=Cell(agent=f"ref:{kind}", variant="default", unit=unit), dataset=ds, options=NoOptions(),
                      agent=ReferenceAgent(kind, ds, unit), components=Components(), roles=Roles({}), folder=folder)
    return await run_episode(ctx, ds, Components(), no_history=no_history)


def dynamic_problems(ds: IntentsDataset, unit: str) -> list[str]:
    out: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        oracle = asyncio.run(_run(ds, unit, "oracle", Path(tmp) / "o"))
        literal = asyncio.run(_run(ds, unit, "literal", Path(tmp) / "l"))
        recall = asyncio.run(_run(ds, unit, "recall", Path(tmp) / "r"))
        forgetful = asyncio.run(_run(ds, unit, "recall", Path(tmp) / "f", no_history=True))
    for r in oracle.sessions:
        for k, o in r.intents.items():
            if o.status != "completed":
                out.append(f"{unit}/{r.session_id}/{k}: oracle left it {o.status}")
        for k, c in r.criteria.items():
            if c.kind == "check" and not c.met:
                out.append(f"{unit}/{r.session_id}/{k}: oracle misses a deterministic criterion")
    for r in literal.sessions:
        for k, o in r.intents.items():
            if o.status in ("completed", "elicited"):
                out.append(f"{unit}/{r.session_id}/{k}: literal agent {o.status} it")
    labels = {(s.id, i.id): i.recoverable_from for s in ds.episode(unit).sessions for i in s.hidden_intents}
    for run, found in ((recall, ("session", "workspace")), (forgetful, ("workspace",))):
        for r in run.sessions:
            for k, o in r.intents.items():
                label = labels[(r.session_id, k)]
                if (o.status == "completed") != (label in found):
                    out.append(f"{unit}/{r.session_id}/{k}: a '{label}' intent was {o.status} by ref:recall"
                               f"{' without history' if run is forgetful else ''}")
    return out


def qc(ds: IntentsDataset, dynamic: bool = True) -> list[str]:
    problems: list[str] = []
    for unit in ds.unit_ids():
        problems += static_problems(ds.episode(unit))
        if dynamic:
            problems += dynamic_problems(ds, unit)
    return problems
