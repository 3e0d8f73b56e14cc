"""`python -m studio.cli …`: the `studio` command."""

from studio.cli import main

main()
