"""The `longview` command line: thin, and the same for every suite.

``run SUITE`` and ``longview SUITE ...`` (a suite's own commands) are built lazily from the suite
registry, so ``longview list`` and ``--help`` import no suite. Common run flags are declared once
(:data:`COMMON`); each suite adds its typed options (``-S key=value`` or ``--key value``) and a
``--ROLE-model`` flag per model role.

One small module per command (or command group); this module only assembles them into the
``longview`` group. Commands never import this package, only their neighbours.
"""

from __future__ import annotations

import click

from longview._version import __version__
from longview.cli import explain, export, listing, profile, rescore, show, trace
from longview.cli.run import RunGroup
from longview.cli.suite_commands import suite_commands
from longview.harness import registry
from longview.report.commands import compare, report


class LongviewGroup(click.Group):
    """The top level: fixed commands, `run SUITE`, and each suite's own commands (`longview SUITE ...`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*super().list_commands(ctx), *(n for n in registry.available() if n not in self.commands)]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        cmd = super().get_command(ctx, name)
        if cmd is None and name in registry.available():
            return suite_commands(name)
        return cmd


@click.group(cls=LongviewGroup, help="Evaluate long-lived, proactive personal-assistant agents.")
@click.version_option(__version__, prog_name="longview")
def app() -> None:
    pass


app.add_command(RunGroup("run", help="Run a suite and print its scorecard: longview run SUITE [OPTIONS].",
                         no_args_is_help=True))

# Each command's module keeps its own name (longview.cli.show is the module, .show.show the command).
for _command in (show.show, trace.trace, listing.list_, rescore.rescore, explain.explain, export.export,
                 profile.profile, report, compare):
    app.add_command(_command)


def main() -> None:  # pragma: no cover
    app()
