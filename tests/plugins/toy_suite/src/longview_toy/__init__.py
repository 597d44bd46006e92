"""A tiny suite outside the longview package, registered through the `longview.suites` entry point."""
