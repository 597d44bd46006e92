"""longview: evaluation of long-lived, proactive personal-assistant agents."""

from longview._version import __version__

__all__ = ["__version__"]
