"""The ``miscue`` command line: one module per group of commands, all sharing
:mod:`flows.cli.app` (the app, the common options, the exit-code mapping) and never each other."""

from flows.cli import audit, check_config, corpus, estimate, export, generate, graphs, serve, verify  # noqa: F401  (registers the commands)
from flows.cli.app import app

__all__ = ["app", "main"]


def main() -> None:
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
