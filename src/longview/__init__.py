"""longview: evaluation of long-lived, proactive personal-assistant agents."""

__version__ = "0.1.0"
