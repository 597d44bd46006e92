"""Suites are found through the ``longview.suites`` entry-point group, built-in ones included, and
imported only when used: ``longview list`` names every suite without importing any."""

from __future__ import annotations

from functools import cache
from importlib.metadata import EntryPoint, entry_points

from longview.harness.suite import AnySuite, Suite
from longview.kernel.errors import ConfigError

GROUP = "longview.suites"


def available() -> dict[str, EntryPoint]:
    """Registered suite name -> its entry point (nothing imported)."""
    return {ep.name: ep for ep in sorted(entry_points(group=GROUP), key=lambda e: e.name)}


def package_of(name: str) -> dict[str, str] | None:
    """The installed distribution that registers suite ``name``: its name and version (None when
    the entry point does not say), so a run records which plugin code scored it."""
    ep = available().get(name)
    dist = getattr(ep, "dist", None)
    if dist is None:
        return None
    return {"name": str(dist.metadata["Name"] or dist.name), "version": str(dist.version)}


@cache
def load(name: str) -> AnySuite:
    """The suite registered as ``name``, instantiated; a clear error for unknown or broken plugins."""
    eps = available()
    if name not in eps:
        known = ", ".join(eps) or "none (is longview installed with `pip install -e .`?)"
        raise ConfigError(f"unknown suite '{name}'; available: {known}")
    ep = eps[name]
    try:
        cls = ep.load()
    except Exception as e:  # a plugin's import error must name the plugin, not end in a traceback
        raise ConfigError(f"suite plugin '{name}' ({ep.value}) failed to load: {type(e).__name__}: {e}") from None
    if not (isinstance(cls, type) and issubclass(cls, Suite)):
        raise ConfigError(f"suite plugin '{name}' ({ep.value}) is not a longview Suite subclass")
    try:
        suite = cls()
    except Exception as e:
        raise ConfigError(f"suite plugin '{name}' ({ep.value}) failed to start: {type(e).__name__}: {e}") from None
    if getattr(suite, "name", None) != name:
        raise ConfigError(f"suite plugin '{name}' ({ep.value}) calls itself '{getattr(suite, 'name', None)}'")
    return suite
