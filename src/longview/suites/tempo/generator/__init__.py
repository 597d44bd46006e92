"""Generator of tempo's built-in scenarios (``longview tempo generate``): ``build.py`` holds the task
archetypes over a multi-day week, ``fills/`` the per-domain words and per-scenario structure,
``generate.py`` puts them together."""
