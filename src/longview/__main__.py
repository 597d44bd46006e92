"""`python -m longview` is the `longview` command."""

from longview.cli import main

if __name__ == "__main__":  # not when a spawned worker process imports this module
    main()
