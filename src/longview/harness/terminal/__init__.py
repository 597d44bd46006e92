"""Terminal output, apart from the run machinery: the consoles and the one way to fail
(`console`), scorecard/plan/usage tables (`tables`) and fitting wide tables to the terminal (`fit`).
Nothing here runs a suite; commands (the CLI's, a suite's own) print through it."""
