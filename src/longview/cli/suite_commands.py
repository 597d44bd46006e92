"""`longview SUITE ...`: a suite's own commands (generate, calibrate...), run as the suite gives them."""

from __future__ import annotations

import click

from longview.harness import registry
from longview.harness.terminal.console import fail
from longview.kernel.errors import LongviewError


def suite_commands(name: str) -> click.Command:
    """`longview SUITE ...`: the suite's own commands (a typer app or a click command), run as given."""

    @click.command(name, context_settings={"ignore_unknown_options": True, "allow_extra_args": True,
                                          "help_option_names": []},
                   help=f"Commands of the {name} suite (generate, calibrate...): longview {name} --help.")
    @click.argument("args", nargs=-1, type=click.UNPROCESSED)
    def command(args: tuple[str, ...]) -> None:
        try:
            commands = registry.load(name).commands()
        except LongviewError as e:
            fail(e)
        if commands is None:
            fail(LongviewError(f"suite '{name}' has no commands of its own"))
        import typer  # only here: every `longview run` would pay for it at start-up

        if isinstance(commands, typer.Typer):
            commands(args=list(args), prog_name=f"longview {name}")
        else:
            commands.main(args=list(args), prog_name=f"longview {name}")

    return command
