"""The ``orav`` command: ``main`` is the console script, ``cli`` the click group.

Each module holds the commands that serve one thing: ``recording`` (record), ``replaying``
(replay, rerun), ``reporting`` (report, audit, diagrams, export), ``exploring`` (explore),
``authoring`` (validate, sim), ``demo``, ``benching`` (bench); ``flags`` the shared flags and their checks, ``render``
what is printed with rich, ``reference`` the generated docs/cli.md. Heavy imports (openai,
textual, grpc, rich) happen inside the commands, so ``orav --help`` stays fast.
"""

# Each command module registers its commands on the group when imported.
from orav.cli import (  # noqa: F401
    authoring,
    benching,
    demo,
    exploring,
    recording,
    replaying,
    reporting,
)
from orav.cli.group import cli, main

__all__ = ["cli", "main"]
