"""`longview atr ...`: the suite's own commands — build a cohort, calibrate the Router/Classifier."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Optional

import typer

from longview.harness.cli_util import console, fail
from longview.harness.roles import Roles
from longview.kernel.errors import LongviewError

app = typer.Typer(help="ATR (ask-to-remember) tools: generate a cohort, calibrate the scaffold.", no_args_is_help=True)


@app.command()
def generate(
    seed: Annotated[int, typer.Option(help="Generation seed.")] = 0,
    personas: Annotated[int, typer.Option(help="Number of personas.")] = 20,
    out: Annotated[Path, typer.Option(help="Output folder.")] = Path("atr-cohort"),
    force: Annotated[bool, typer.Option(help="Write into a folder that already has files.")] = False,
) -> None:
    """Generate a cohort deterministically from a seed, with its QC report."""
    from longview.suites.atr.generator import build

    if out.exists() and any(out.iterdir()) and not force:
        fail(LongviewError(f"{out}: folder is not empty; pass --force to write into it"))
    if personas < 1:
        fail(LongviewError(f"--personas must be at least 1, got {personas}"))
    episodes, report = build.generate(seed, personas)
    build.write(episodes, report, out)
    console.print(f"wrote {len(episodes)} episodes and qc_report.json to {out}")


@app.command()
def calibrate(
    role: Annotated[str, typer.Argument(help="router or classifier.")],
    router_model: Annotated[Optional[str], typer.Option(help="Calibrate this Router model instead of the embedded one.")] = None,
    classifier_model: Annotated[Optional[str], typer.Option(help="Calibrate this Classifier model instead of the embedded one.")] = None,
    api_base: Annotated[Optional[str], typer.Option(help="Endpoint URL for the model.")] = None,
    calibration_set: Annotated[Optional[Path], typer.Option("--set", help="A calibration JSONL file (default: the built-in set).")] = None,
    no_cache: Annotated[bool, typer.Option(help="Do not read or write the disk response cache.")] = False,
    errors: Annotated[int, typer.Option(help="How many disagreements to list.")] = 20,
) -> None:
    """Report precision, recall and accuracy of the configured Router or Classifier on a labelled set."""
    from longview.suites.atr import calibration as cal
    from longview.suites.atr.runner import scaffold_for

    if role not in ("router", "classifier"):
        fail(LongviewError(f"unknown role '{role}'; expected router or classifier"))
    try:
        roles = Roles({"router": router_model, "classifier": classifier_model}, api_base=api_base, no_cache=no_cache)
        roles.validate()
        scaffold = scaffold_for(roles)
        result: cal.RouterCalibration | cal.ClassifierCalibration
        if role == "router":
            result = asyncio.run(cal.calibrate_router(scaffold.router, cal.load_router_set(calibration_set)))
        else:
            result = asyncio.run(cal.calibrate_classifier(scaffold.classifier, cal.load_classifier_set(calibration_set)))
    except LongviewError as e:
        fail(e)
    for table in cal.render(result, errors=errors):
        console.print(table)
