"""`python -m longview` is the `longview` command."""

from longview.cli import main

main()
