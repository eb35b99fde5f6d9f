"""The ``elements-ai`` subcommands beyond games, demo and agents (those are in ``cli``).

Each module here defines ``register(commands)``, which adds its sub-parser and sets
its ``run`` default: a function of the parsed arguments returning the exit status.
A module imports only the standard library at its top and its command's
implementation inside ``run``, so that ``elements-ai --help`` and every
``elements-ai CMD --help`` answer without loading numba, pyspiel, pandas or torch.
"""

MODULES: tuple[str, ...] = (
    "elements_ai.commands.tournament",
    "elements_ai.commands.solve",
    "elements_ai.commands.train",
    "elements_ai.commands.zoo",
    "elements_ai.commands.play",
    "elements_ai.commands.serve",
)
