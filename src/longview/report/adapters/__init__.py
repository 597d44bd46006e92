"""Report hooks for built-in suites whose own code does not declare them yet (see hooks.py)."""
