"""`longview atr ...`: ATR's own commands — build a cohort, calibrate the Router/Classifier.

``calibrate router|classifier --set SPEC [--json FILE]`` scores the configured implementation (the
embedded one, or the model given with ``--router-model`` / ``--classifier-model``) on a labelled
set: the shipped one (default), ``atrbench:PATH`` (the release's sets in the user's checkout), or a
JSONL file in longview's format. ``generate`` writes a cohort from a seed with its QC report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from longview.harness.roles import Roles
from longview.harness.terminal.console import console, fail
from longview.kernel.errors import LongviewError

app = typer.Typer(help="ATR (ask-to-remember) tools: generate a cohort, calibrate the scaffold.", no_args_is_help=True)


@app.command()
def calibrate(
    role: Annotated[str, typer.Argument(help="router or classifier.")],
    calibration_set: Annotated[str | None, typer.Option("--set", help="builtin (default), atrbench:PATH, or a JSONL file.")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write precision, recall, exact_accuracy (span_exact) and rows here.")] = None,
    router_model: Annotated[str | None, typer.Option(help="Calibrate this Router model instead of the embedded one.")] = None,
    classifier_model: Annotated[str | None, typer.Option(help="Calibrate this Classifier model instead of the embedded one.")] = None,
    api_base: Annotated[str | None, typer.Option(help="Endpoint URL for the model.")] = None,
    no_cache: Annotated[bool, typer.Option(help="Do not read or write the disk response cache.")] = False,
    errors: Annotated[int, typer.Option(help="How many disagreements to list.")] = 20,
) -> None:
    """Report precision, recall and exact accuracy of the ATR Router or Classifier on a labelled set."""
    from longview.suites.atr import calibration as cal
    from longview.suites.atr.calibration.release import calibrate as run_calibration
    from longview.suites.atr.runner import scaffold_for

    if role not in ("router", "classifier"):
        fail(LongviewError(f"unknown role '{role}'; expected router or classifier"))
    try:
        roles = Roles({"router": router_model, "classifier": classifier_model}, api_base=api_base, no_cache=no_cache)
        roles.validate()
        scaffold = scaffold_for(roles)
        impl = scaffold.router if role == "router" else scaffold.classifier
        result = run_calibration(impl, calibration_set, json_out, role=role)  # type: ignore[arg-type]
    except LongviewError as e:
        fail(e)
    for table in cal.render(result, errors=errors):
        console.print(table)
    if json_out is not None:
        console.print(f"wrote {json_out}")


@app.command()
def generate(
    seed: Annotated[int, typer.Option(help="Generation seed.")] = 0,
    personas: Annotated[int, typer.Option(help="Number of personas.")] = 20,
    out: Annotated[Path, typer.Option(help="Output folder.")] = Path("atr-cohort"),
    force: Annotated[bool, typer.Option(help="Write into a folder that already has files.")] = False,
) -> None:
    """Generate an ATR cohort deterministically from a seed, with its QC report."""
    from longview.harness.run import check_output_folder
    from longview.suites.atr.generator import build

    try:
        check_output_folder(out, force)
    except LongviewError as e:
        fail(e)
    if personas < 1:
        fail(LongviewError(f"--personas must be at least 1, got {personas}"))
    episodes, report = build.generate(seed, personas)
    build.write(episodes, report, out)
    console.print(f"wrote {len(episodes)} episodes and qc_report.json to {out}")
