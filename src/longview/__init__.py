"""longview: evaluation of long-lived, proactive personal-assistant agents.

``longview.load_run(PATH)`` reads a run folder's results (``.metric_rows()``, ``.to_pandas()``);
``longview.run(suite, agent=..., units=...)`` and ``await longview.arun(...)`` run a suite on your own
agent (:mod:`longview.api`, imported on first use so that ``import longview`` stays light and the
layers below never load the harness through the package root).
"""

from typing import TYPE_CHECKING, Any

from longview._version import __version__

if TYPE_CHECKING:
    from longview.api import RunResult, arun, run
    from longview.results import LoadedRun, load_run

__all__ = ["LoadedRun", "RunResult", "__version__", "arun", "load_run", "run"]


def __getattr__(name: str) -> Any:
    if name in ("run", "arun", "RunResult"):
        from longview import api

        return getattr(api, name)
    if name in ("load_run", "LoadedRun"):
        from longview import results

        return getattr(results, name)
    raise AttributeError(f"module 'longview' has no attribute {name!r}")
