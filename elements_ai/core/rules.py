"""``rules``: the placeholder for a game's rules kernel in generic numba functions.

Inside a ``@generic`` function (``core.generic``), ``rules.apply(cfg, state, action)``
calls the ``apply`` of the game the function is compiled for. This module lists what
``rules`` offers, with each function's contract; the stubs here only document (calling
one raises). Every function takes the configuration array ``cfg`` first and works on
one state array ``state`` (a 1-D integer array, ``Kernel.state_dtype``).

The functions a game's modules define (``Kernel.from_rules``) are listed in
``KERNEL_FUNCTIONS`` and ``OPTIONAL_FUNCTIONS``; ``rules`` adds defaults for the
optional ones, the flags ``HAS_RESAMPLE`` and ``HAS_HEURISTIC``, and the samplers
``sample_action`` / ``sample_action_masked`` / ``sample_outcome``.

The functions marked *hot* run inside rollouts and the vector env. A game jits them,
and every function they call that is not inlined, with ``_nrt=False`` (numba without
its runtime): they must not allocate arrays, and numba then emits no atomic reference
counts around each call on the state, which had cost elementum half its playouts.
``tests/test_games.py`` checks it for every game.
"""

from __future__ import annotations

KERNEL_FUNCTIONS = (
    "init",
    "current_player",
    "legal_mask",
    "chance_outcomes",
    "apply",
    "returns",
    "encode_observation",
    "encode_information_state",
)
OPTIONAL_FUNCTIONS = ("sample_legal", "sample_chance", "resample", "heuristic")

HAS_RESAMPLE: bool
"""Whether the game provides ``resample`` (else ``resample`` copies the state)."""
HAS_HEURISTIC: bool
"""Whether the game provides ``heuristic`` (else ``heuristic`` returns -1)."""


def _stub(name: str):
    raise TypeError(f"rules.{name} stands for a game's function: call it inside a @generic function")


def init(cfg, state) -> None:
    """*Hot.* Writes the initial state into ``state``."""
    _stub("init")


def current_player(cfg, state) -> int:
    """*Hot.* The player to move, ``CHANCE`` (-1) or ``TERMINAL`` (-4)."""
    _stub("current_player")


def legal_mask(cfg, state, mask) -> None:
    """*Hot.* Writes the legal actions of the player to move into ``mask`` (bool, ``num_actions``)."""
    _stub("legal_mask")


def chance_outcomes(cfg, state, probs) -> None:
    """*Hot.* Writes the chance outcomes' probabilities into ``probs`` (float64, ``max_chance_outcomes``)."""
    _stub("chance_outcomes")


def apply(cfg, state, action) -> None:
    """*Hot.* Applies a legal action, or a possible chance outcome at a chance node."""
    _stub("apply")


def returns(cfg, state, out) -> None:
    """*Hot.* Writes every player's return into ``out`` (float64, ``num_players``); zeros before the end."""
    _stub("returns")


def encode_observation(cfg, state, player, out) -> None:
    """Writes ``player``'s observation tensor into ``out`` (float32, ``obs_size``)."""
    _stub("encode_observation")


def encode_information_state(cfg, state, player, out) -> None:
    """Writes ``player``'s information-state tensor (perfect recall) into ``out`` (float32, ``info_size``)."""
    _stub("encode_information_state")


def sample_legal(cfg, state, u) -> int:
    """*Hot, optional.* With ``n`` legal actions, the ``int(u * n)``-th of them (``0 <= u < 1``),
    in an order that depends on the state alone: a uniform ``u`` draws a uniform legal
    action without scanning the mask. Games with large action spaces define it."""
    _stub("sample_legal")


def sample_chance(cfg, state, u) -> int:
    """*Hot, optional.* A chance outcome of ``state`` drawn for a uniform ``u`` (``0 <= u < 1``)
    with exactly the probabilities ``chance_outcomes`` gives, without writing them all:
    for ``n`` equally likely outcomes, the ``int(u * n)``-th in ascending order (what
    ``sample_index`` draws from the probabilities). Games with many chance nodes of
    many outcomes define it; random playouts draw every chance outcome through it."""
    _stub("sample_chance")


def resample(cfg, state, player, rng, out) -> None:
    """*Optional.* Writes into ``out`` a full state ``player`` cannot tell from ``state``
    (same observation and information state for ``player``), the hidden parts drawn
    uniformly among all consistent possibilities (the chance distribution conditioned
    on what ``player`` saw; opponents' strategies are not modelled). ``rng`` is a
    uint64 stream array: draw with ``core.rng.uniform(rng, 0)``. It reads nothing hidden
    from ``player``: two states with the same information state for ``player`` give
    the same ``out`` for the same ``rng``. Default: a copy (for perfect information)."""
    _stub("resample")


def heuristic(cfg, state, player, rng) -> int:
    """*Optional.* A legal action for ``player`` (the player to move) chosen by the
    game's documented rules of thumb (the ``rules`` bot); random tie-breaks from stream
    0 of ``rng``; reads only what ``player`` can see. Default: -1 (no heuristic)."""
    _stub("heuristic")


def sample_action(cfg, state, mask, u) -> int:
    """*Hot.* A uniformly random legal action of the player to move for a uniform ``u``,
    through ``sample_legal`` where the game has it, else the ``int(u * n)``-th set entry
    of the legal mask (``mask`` is scratch, overwritten)."""
    _stub("sample_action")


def sample_action_masked(cfg, state, mask, u) -> int:
    """*Hot.* ``sample_action`` where ``mask`` already holds the legal mask of ``state``."""
    _stub("sample_action_masked")


def sample_outcome(cfg, state, probs, u) -> int:
    """*Hot.* A chance outcome of ``state`` for a uniform ``u``: through ``sample_chance``
    where the game has it, else drawn from ``chance_outcomes`` written into ``probs``
    (scratch, float64 ``max_chance_outcomes``; left unspecified by ``sample_chance``)."""
    _stub("sample_outcome")
