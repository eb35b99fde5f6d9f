"""Games by name or game string: the one way the library, its commands and its bots load a game.

A game is given as a short name with keyword parameters (``load_game("elements",
single_round=True)``) or as an OpenSpiel game string (``"elements(single_round=true)"``).
Either way the parameters are checked against the kernel's own declarations
(``Kernel.resolve_params``), so a bad one raises ``ParameterError`` naming the game,
the parameter and the allowed values, never OpenSpiel's untyped error.

>>> game = load_game("elements(single_round=true,hand_size=2,deck=1_2_3_6_6_6)")
>>> game.get_parameters()["single_round"], game.num_players()
(True, 2)
>>> load_game("elements(single_round=yes)")
Traceback (most recent call last):
...
elements_ai.core.params.ParameterError: elements: parameter single_round must be true or false, got 'yes' (str)
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import unicodedata
from collections.abc import Iterator
from typing import Any

import pyspiel

from .core import VecEnv
from .core.kernel import Kernel
from .core.params import ParameterError, parse_pairs
from .games import KERNELS

__all__ = ["GAMES", "get_kernel", "load_game", "make_vec", "parse_params", "short_game", "split_game_string"]

GAMES: tuple[str, ...] = tuple(KERNELS)
# Where a vector env's games live: ``make_vec(..., device=...)``.
DEVICES = ("cpu", "cuda")


def get_kernel(name: str) -> Kernel:
    """The rules kernel of a game, by short name; ``ParameterError`` for an unknown one."""
    try:
        return KERNELS[name]
    except KeyError:
        raise ParameterError(f"unknown game {name!r}; the games are {', '.join(GAMES)}") from None


def split_game_string(text: str) -> tuple[str, dict[str, str]]:
    """A game string's name and its parameters as text.

    >>> split_game_string("elements(hand_size=2,single_round=true)")
    ('elements', {'hand_size': '2', 'single_round': 'true'})
    >>> split_game_string(" elemental_duel ")
    ('elemental_duel', {})

    Text is normalised (Unicode NFKC): full-width letters and digits read as ASCII ones.

    >>> split_game_string("elements(hand_size=２)")
    ('elements', {'hand_size': '2'})
    """
    if not isinstance(text, str):
        raise ParameterError(f"a game is a name or a game string such as 'elements(single_round=true)', "
                             f"got {type(text).__name__} {text!r}")
    text = unicodedata.normalize("NFKC", text).strip()
    name, bracket, rest = text.partition("(")
    name = name.strip()
    if not name:
        raise ParameterError(f"game string {text!r} names no game")
    if not bracket:
        if ")" in name:
            raise ParameterError(f"game string {text!r}: ')' without '('")
        return name, {}
    if not rest.endswith(")"):
        raise ParameterError(f"game string {text!r}: missing closing ')'")
    inner = rest[:-1]
    if "(" in inner or ")" in inner:
        raise ParameterError(f"game string {text!r}: the parameters of {name} are plain values, not games")
    pairs = [pair for pair in inner.split(",") if pair.strip()]
    return name, parse_pairs(pairs, f"game string {text!r}")


def short_game(game: str) -> str:
    """A game string without the parameters left at their defaults.

    >>> short_game("elements(deck=1_1_2_2_3_3_4_4_5_5_6_6_6_6_6_6,hand_size=6,single_round=True,target_score=6)")
    'elements(single_round=True)'
    """
    name, _, rest = game.partition("(")
    try:
        params = get_kernel(name).params
    except ParameterError:
        return game
    changed = []
    for item in filter(None, rest.rstrip(")").split(",")):
        key, _, value = item.partition("=")
        param = params.get(key)
        if param is None or param.resolve(key, value, name) != param.default:
            changed.append(item)
    return f"{name}({','.join(changed)})" if changed else name


def load_game(game: str, /, *, openspiel: bool = False, **params: Any) -> pyspiel.Game:
    """The game ``game`` (a short name or a game string) with ``params``.

    A bad name or parameter raises ``ParameterError``, which is both a
    ``pyspiel.SpielError`` (as from ``pyspiel.load_game``) and a ``ValueError``.
    With ``openspiel=True`` any other game registered with OpenSpiel loads too
    (``kuhn_poker``, ``leduc_poker(players=3)``): the solvers take them.

    >>> load_game("elements", hand_size=2, deck="1_2_3_6_6_6", single_round=True)
    elements(deck=1_2_3_6_6_6,hand_size=2,single_round=True,target_score=6)
    >>> load_game("kuhn_poker", openspiel=True)
    kuhn_poker()
    """
    name, given = split_game_string(game)
    if given and params:
        raise ParameterError("give the parameters either in the game string or separately (keywords, -p), not both")
    if name not in KERNELS and openspiel:
        if params:
            raise ParameterError(f"{name}: give its parameters in the game string")
        return _load_openspiel(game.strip(), name)
    kernel = get_kernel(name)
    resolved = kernel.resolve_params({**given, **params})
    # Typed values, checked above: OpenSpiel's own checks (which print to the C++
    # stderr before raising) never see a wrong one.
    return pyspiel.load_game(name, resolved)


def _load_openspiel(text: str, name: str) -> pyspiel.Game:
    if name not in pyspiel.registered_names():
        raise ParameterError(f"unknown game {name!r}; the games are {', '.join(GAMES)} "
                             f"and OpenSpiel's (pyspiel.registered_names())")
    try:
        with _quiet_native_stderr():
            return pyspiel.load_game(text)
    except pyspiel.SpielError as error:
        raise ParameterError(f"game string {text!r}: {str(error).splitlines()[0]}") from None


@contextlib.contextmanager
def _quiet_native_stderr() -> Iterator[None]:
    """OpenSpiel's C++ writes every error it raises to stderr as well; the raised
    error says the same, so the copy is dropped (kept when nothing is raised)."""
    try:
        fd = 2
        saved = os.dup(fd)
    except OSError:  # no stderr to protect
        yield
        return
    with tempfile.TemporaryFile() as capture:
        os.dup2(capture.fileno(), fd)
        failed = False
        try:
            yield
        except BaseException:
            failed = True
            raise
        finally:
            os.dup2(saved, fd)
            os.close(saved)
            if not failed:
                capture.seek(0)
                text = capture.read()
                if text:
                    os.write(fd, text)


def parse_params(name: str, pairs: list[str]) -> dict[str, Any]:
    """Command-line ``name=value`` pairs checked and typed as game ``name``'s parameters
    (only those given).

    >>> parse_params("elements", ["hand_size=2", "single_round=true"])
    {'single_round': True, 'hand_size': 2}
    """
    kernel = get_kernel(split_game_string(name)[0])
    given = parse_pairs(pairs, name)
    return {key: value for key, value in kernel.resolve_params(given).items() if key in given}


def make_vec(
    name: str,
    num_envs: int,
    seed: int = 0,
    auto_chance: bool = True,
    autoreset: bool = False,
    device: str = "cpu",
    **params: Any,
) -> VecEnv:
    """A vector env of ``num_envs`` games ``name`` (a short name or a game string; see ``VecEnv``).

    ``device="cuda"`` keeps the games on an NVIDIA GPU (``core.vec_cuda.CudaVecEnv``, the
    same API, its arrays on the GPU; the ``gpu`` extra).

    >>> env = make_vec("elements", num_envs=8, seed=1, single_round=True)
    >>> env.current_player.shape, env.legal_mask.shape
    ((8,), (8, 10))
    """
    if device not in DEVICES:
        raise ParameterError(f"device must be one of {', '.join(DEVICES)}, got {device!r}")
    game, given = split_game_string(name)
    if given and params:
        raise ParameterError("give the parameters either in the game string or separately (keywords, -p), not both")
    kernel = get_kernel(game)
    config = kernel.configure(kernel.resolve_params({**given, **params}))
    if device == "cuda":
        from .core import cuda

        cuda.require()
        from .core.vec_cuda import CudaVecEnv

        return CudaVecEnv(kernel, config, num_envs, seed=seed, auto_chance=auto_chance, autoreset=autoreset)
    return VecEnv(kernel, config, num_envs, seed=seed, auto_chance=auto_chance, autoreset=autoreset)
