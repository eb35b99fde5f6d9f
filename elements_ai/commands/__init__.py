"""The ``elements-ai`` subcommands beyond games, demo and agents (those are in ``cli``).

Each module here defines ``register(commands)``, which adds its sub-parser and sets
its ``run`` default: a function of the parsed arguments returning the exit status.
A module imports only the standard library at its top and its command's
implementation inside ``run``, so that ``elements-ai --help`` and every
``elements-ai CMD --help`` answer without loading numba, pandas or torch.

Every ``--seed`` is read by ``seed_value``, so that each command takes the same seeds:

>>> seed_value("7")
7
>>> seed_value("-1")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: a seed is an integer from 0 to 9223372036854775807, got '-1'
"""

import argparse

# The largest seed every consumer takes (numba's int64, torch, numpy's SeedSequence).
MAX_SEED = 2**63 - 1

MODULES: tuple[str, ...] = (
    "elements_ai.commands.tournament",
    "elements_ai.commands.solve",
    "elements_ai.commands.train",
    "elements_ai.commands.zoo",
    "elements_ai.commands.play",
    "elements_ai.commands.serve",
)


def seed_value(text: str) -> int:
    """The ``type`` of every command's ``--seed``: an integer from 0 to ``MAX_SEED``."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"a seed is an integer from 0 to {MAX_SEED}, got {text!r}")
    return value
