"""The generic checks every game passes, for each of the variants it declares.

Parametrised over ``elements_ai.GAMES`` and each kernel's ``variants``: adding a
folder under ``games/`` is all it takes for a game to be checked here. The per-game
test files keep the rulebook scenarios.
"""

import sys

import numpy as np
import pyspiel
import pytest
from numba.core.registry import CPUDispatcher

import elements_ai
from elements_ai.core import generic, rules
from elements_ai.core.layout import views
from elements_ai.core.rng import seeds_from
from elements_ai.testing import check_conformance, check_faces_agree, random_action, random_states

CASES = [
    pytest.param(name, variant, id=f"{name}-{variant}")
    for name in elements_ai.GAMES
    for variant in elements_ai.get_kernel(name).variants
]

# Random games replayed on both faces, per game, shared among its variants.
FACES_GAMES = 2000


def cases(slow=(), group: str | None = None):
    """CASES, with the variants named in ``slow`` ("game-variant") marked slow: their long
    runs are left to the whole suite, and `pytest -m "not slow"` keeps the cheap ones.
    With ``group``, a game's variants run on one worker (pytest --dist loadgroup), so a
    check compiled for each game compiles once a game, not once in each worker."""
    unknown = set(slow) - {case.id for case in CASES}
    assert not unknown, f"no such variant: {sorted(unknown)}"
    return [
        pytest.param(*case.values, id=case.id,
                     marks=([pytest.mark.slow] if case.id in slow else [])
                     + ([pytest.mark.xdist_group(f"{group}-{case.values[0]}")] if group else []))
        for case in CASES
    ]


def load(name, variant):
    return elements_ai.load_game(name, **elements_ai.get_kernel(name).variants[variant])


@pytest.mark.parametrize("name, variant", cases(slow={
    "elementos-default", "elementos-standard", "elementos-long_board",
    "elements1997-default", "elements1997-four_aside",
    "elementum-default", "elementum-three", "elementum-four", "elementum-overload",
}))
def test_openspiel_conformance(name, variant):
    check_conformance(load(name, variant), num_sims=10)


@pytest.mark.parametrize("name, variant", cases(slow={
    "elemental_duel-default",
    "elementos-default", "elementos-standard", "elementos-small", "elementos-long_board",
    "elements-default", "elements-round",
    "elements1997-default", "elements1997-four_aside", "elements1997-five",
    "elementum-default", "elementum-three", "elementum-four", "elementum-overload",
}))
def test_faces_agree(name, variant):
    kernel = elements_ai.get_kernel(name)
    games = max(500, FACES_GAMES // len(kernel.variants))
    assert check_faces_agree(name, num_games=games, seed=7, **kernel.variants[variant]) == games


@pytest.mark.parametrize("name, variant", CASES)
def test_variants_are_valid_parameter_sets(name, variant):
    kernel = elements_ai.get_kernel(name)
    params = kernel.variants[variant]
    assert kernel.resolve_params(params) == {**kernel.resolve_params({}), **params}
    assert str(load(name, variant)) == str(elements_ai.load_game(name, **params))


def _encoders(game):
    kernel, config = game.kernel, game.config
    return (
        ("observation", kernel.encode_observation, config.obs_pieces, config.obs_size),
        ("information state", kernel.encode_information_state, config.info_pieces, config.info_size),
    )


@pytest.mark.parametrize("name, variant", CASES)
def test_each_tensor_piece_is_written_only_inside_its_span(name, variant):
    """Moves one piece at a time to a spare region after the tensor (by changing its
    offset in cfg) and checks that exactly that piece's values move there: the
    encoder finds the piece by its offset and writes nothing outside its span."""
    game = load(name, variant)
    cfg = game.config.cfg
    guard = 16
    checked = 0
    for state in random_states(game, 12, seed=5):
        for player in range(game.num_players()):
            for kind, encode, pieces, size in _encoders(game):
                reference = np.zeros(size, np.float32)
                encode(cfg, state.array, player, reference)
                for piece in pieces:
                    moved_cfg = cfg.copy()
                    moved_cfg[piece.slot] = size
                    out = np.full(size + piece.size + guard, np.nan, np.float32)
                    encode(moved_cfg, state.array, player, out)
                    where = f"{name}-{variant} {kind} piece {piece.name!r}"
                    moved = out[size : size + piece.size]
                    np.testing.assert_array_equal(moved, reference[piece.offset : piece.stop], where)
                    assert not out[piece.offset : piece.stop].any(), where
                    np.testing.assert_array_equal(out[: piece.offset], reference[: piece.offset], where)
                    np.testing.assert_array_equal(out[piece.stop : size], reference[piece.stop :], where)
                    assert not out[size + piece.size :].any(), where
                    checked += 1
    assert checked >= 12 * game.num_players() * 2


@pytest.mark.parametrize("name, variant", CASES)
def test_tensor_pieces_are_exposed_by_name(name, variant):
    game = load(name, variant)
    state = random_states(game, 1, seed=3)[0]
    player = state.current_player()
    for perfect_recall, pieces in ((False, game.config.obs_pieces), (True, game.config.info_pieces)):
        observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=perfect_recall))
        observer.set_from(state, player)
        assert list(observer.dict) == [piece.name for piece in pieces]
        for piece in pieces:
            assert observer.dict[piece.name].shape == piece.shape
            np.testing.assert_array_equal(observer.dict[piece.name].ravel(), observer.tensor[piece.offset : piece.stop])


def test_the_faces_check_catches_a_disagreement(monkeypatch):
    original = elements_ai.VecEnv.information_state

    def off_by_one(self, player=None):
        out = original(self, player)
        out[-1, -1] += 1.0
        return out

    monkeypatch.setattr(elements_ai.VecEnv, "information_state", off_by_one)
    with pytest.raises(AssertionError, match=r"information state tensor of player 0 of env 3"):
        check_faces_agree("elements", num_games=4, seed=1, single_round=True)


@generic
def _grid_draws_each_legal_action_once(cfg, state, mask, scratch, counts):
    """With n legal actions, u = (j + 1/2) / n for j < n must draw each exactly once
    (then a uniform u draws a uniform legal action), from a fresh mask and a cached one."""
    rules.legal_mask(cfg, state, mask)
    n = 0
    for a in range(mask.shape[0]):
        n += mask[a]
        counts[a] = 0
    for j in range(n):
        counts[rules.sample_action(cfg, state, scratch, (j + 0.5) / n)] += 1
        counts[rules.sample_action_masked(cfg, state, mask, (j + 0.5) / n)] += 1
    ok = True
    for a in range(mask.shape[0]):
        ok = ok and counts[a] == 2 * mask[a]
    return ok and mask[rules.sample_action(cfg, state, scratch, 0.999999)]


@pytest.mark.parametrize("name, variant", cases(group="samplers"))  # elementos' compiles for over 15 s
def test_the_samplers_draw_every_legal_action_once_from_an_even_grid(name, variant):
    kernel = elements_ai.get_kernel(name)
    env = elements_ai.make_vec(name, 64, seed=11, autoreset=True, **kernel.variants[variant])
    check = _grid_draws_each_legal_action_once[kernel]
    scratch = np.zeros(env.num_actions, np.bool_)
    counts = np.zeros(env.num_actions, np.int64)
    checked = 0
    for _ in range(60):
        for i in np.flatnonzero(env.current_player >= 0):
            assert check(env.config.cfg, env.states[i], env.legal_mask[i].copy(), scratch, counts), (name, i)
            checked += 1
        env.step(env.sample_actions())
    assert checked > 1000


@generic
def _grid_draws_outcomes_by_their_probabilities(cfg, state, probs, scratch, counts, m):
    """``sample_outcome`` over the even grid u = (j + 1/2) / m must draw each outcome
    m * p times, to within one (an inverse-CDF draw), and never an impossible one."""
    rules.chance_outcomes(cfg, state, probs)
    for k in range(counts.shape[0]):
        counts[k] = 0
    for j in range(m):
        counts[rules.sample_outcome(cfg, state, scratch, (j + 0.5) / m)] += 1
    ok = True
    for k in range(counts.shape[0]):
        ok = ok and abs(counts[k] - m * probs[k]) <= 1.0 + 1e-9 and (counts[k] == 0 or probs[k] > 0)
    return ok


@pytest.mark.parametrize("name, variant", [case for case in CASES if load(*case.values).config.max_chance_outcomes])
def test_chance_outcomes_are_sampled_with_their_probabilities(name, variant):
    game = load(name, variant)
    check = _grid_draws_outcomes_by_their_probabilities[game.kernel]
    size = game.config.max_chance_outcomes
    probs, scratch, counts = np.zeros(size), np.zeros(size), np.zeros(size, np.int64)
    rng = np.random.default_rng(5)
    checked = 0
    while checked < 300:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                assert check(game.config.cfg, state._data, probs, scratch, counts, 997), (name, str(state))
                checked += 1
            state.apply_action(random_action(state, rng))
    assert checked >= 300


@pytest.mark.parametrize("name, variant", CASES)
def test_the_state_is_read_by_piece_name_and_its_table_is_documented(name, variant):
    """Every game declares its state as named pieces (``core.layout.state_layout``):
    they tile the state array, the first says who is to move, and the module that
    declares them shows their table in its docstring."""
    game = load(name, variant)
    pieces = game.config.state_pieces
    assert pieces and pieces[0].name == "player" and pieces[-1].stop == game.config.state_size
    for state in random_states(game, 5, seed=2):
        assert views(pieces, state.array).player[0] == state.current_player()
    module = sys.modules[game.kernel.configure.__module__]
    assert module.S._table() in module.__doc__, f"{module.__name__}: the state table is not in the docstring"


def _view(state, player):
    """Everything ``player`` may know of ``state``."""
    return (
        state.information_state_tensor(player),
        state.information_state_string(player),
        state.observation_tensor(player),
        state.observation_string(player),
        state.current_player(),
        state.legal_actions() if state.current_player() == player else None,
    )


def _play_out_by_the_rules(game, state, rng):
    """Plays ``state`` on at random to the end, checking that each step is possible:
    chance outcomes a distribution, a legal action for the player to move, returns in
    range, and an end within the game's bounds."""
    for _ in range(game.max_game_length() + game.max_chance_nodes_in_history() + 1):
        if state.is_terminal():
            returns = state.returns()
            assert all(game.min_utility() - 1e-9 <= r <= game.max_utility() + 1e-9 for r in returns), returns
            return
        if state.is_chance_node():
            probs = [p for _, p in state.chance_outcomes()]
            assert probs and min(probs) > 0 and abs(sum(probs) - 1) < 1e-9, (probs, str(state))
        else:
            assert state.legal_actions(), str(state)
        state.apply_action(random_action(state, rng))
    raise AssertionError(f"longer than the game's bounds:\n{state}")


RESAMPLE_CASES = [case for case in CASES if elements_ai.get_kernel(case.values[0]).resample is not None]


@pytest.mark.parametrize("name, variant", RESAMPLE_CASES)
def test_resample_keeps_the_observers_view_and_gives_a_reachable_state(name, variant):
    """The resample contract (``core/rules.py``): the state drawn for a player keeps
    that player's information state (and all else it sees), reads nothing hidden (a
    state the player cannot tell apart resamples alike), and is reachable: the game
    plays on from it by the rules to an end within its bounds."""
    game = load(name, variant)
    kernel, cfg = game.kernel, game.cfg
    rng = np.random.default_rng(3)
    states = random_states(game, 12 if name == "elements1997" else 25, seed=4)
    changed = 0
    for i, state in enumerate(states):
        for player in range(game.num_players()):
            out = np.empty_like(state.array)
            kernel.resample(cfg, state.array, player, seeds_from(i, 1), out)
            drawn = game.state_from_array(out.copy())
            assert _view(drawn, player) == _view(state, player), f"{name}-{variant} player {player}\n{state}"
            changed += not np.array_equal(out, state.array)
            first, second = np.empty_like(out), np.empty_like(out)
            kernel.resample(cfg, state.array, player, seeds_from(99, 1), first)
            kernel.resample(cfg, out, player, seeds_from(99, 1), second)
            np.testing.assert_array_equal(first, second, f"{name}-{variant}: resample reads what is hidden")
            _play_out_by_the_rules(game, drawn, rng)
    assert changed or game.config.perfect_information, f"{name}-{variant}: resample never drew anything hidden"


@pytest.mark.parametrize("name, variant", RESAMPLE_CASES)
def test_the_rules_heuristic_reads_nothing_hidden(name, variant):
    """The ``rules`` bot, and the networks that learn a correction to it (``hint``), may
    use only what the mover sees: in a state redrawn for the mover (``resample``: the
    same view, the hidden rest drawn anew) it plays the same move from the same stream."""
    game = load(name, variant)
    kernel, cfg = game.kernel, game.cfg
    states = random_states(game, 60, seed=5)
    redrawn = 0
    for i, state in enumerate(states):
        player = state.current_player()
        for draw in range(3):
            out = np.empty_like(state.array)
            kernel.resample(cfg, state.array, player, seeds_from(1000 * i + draw, 1), out)
            redrawn += not np.array_equal(out, state.array)
            for stream in range(2):
                expected = kernel.heuristic(cfg, state.array, player, seeds_from(stream, 1))
                assert kernel.heuristic(cfg, out, player, seeds_from(stream, 1)) == expected, (
                    f"{name}-{variant}: the heuristic of player {player} changed with what it cannot see\n{state}")
    assert redrawn or game.config.perfect_information


HOT_FUNCTIONS = ("init", "current_player", "legal_mask", "chance_outcomes", "apply", "returns", "sample_legal",
                 "sample_chance", "encode_observation", "encode_information_state")


def _jitted_callees(dispatcher, seen):
    """``dispatcher`` and every jitted function its code names, recursively."""
    if id(dispatcher) in seen:
        return
    seen[id(dispatcher)] = dispatcher
    fn = dispatcher.py_func
    for name in fn.__code__.co_names:
        value = fn.__globals__.get(name)
        if isinstance(value, CPUDispatcher):
            _jitted_callees(value, seen)


@pytest.mark.parametrize("name", elements_ai.GAMES)
def test_hot_kernel_functions_run_without_reference_counting(name):
    """Hot functions, and all they call, are jitted with ``_nrt=False``: numba's atomic
    reference counts around every call on the state cost elementum half its playouts."""
    kernel = elements_ai.get_kernel(name)
    seen = {}
    for function in HOT_FUNCTIONS:
        if getattr(kernel, function) is not None:
            _jitted_callees(getattr(kernel, function), seen)
    # A function inlined (numba's inline="always") is compiled as part of its caller.
    counted = sorted(d.py_func.__name__ for d in seen.values()
                     if d.targetoptions.get("_nrt", True) and d.targetoptions.get("inline") != "always")
    assert not counted, f"{name}: jitted with numba's runtime, though hot: {counted}"
    assert len(seen) >= 8


# --- every observation type ---------------------------------------------------------------

PRIVATE_INFO = {
    "none": pyspiel.PrivateInfoType.NONE,
    "single": pyspiel.PrivateInfoType.SINGLE_PLAYER,
    "all": pyspiel.PrivateInfoType.ALL_PLAYERS,
}


def _obs_types():
    """Every IIGObservationType OpenSpiel defines, by a readable name."""
    for recall in (False, True):
        for public in (True, False):
            for private, info in PRIVATE_INFO.items():
                name = f"{'recall' if recall else 'now'}-{'public' if public else 'nopublic'}-{private}"
                yield name, pyspiel.IIGObservationType(perfect_recall=recall, public_info=public, private_info=info)


OBS_TYPES = dict(_obs_types())


def _obs_type(recall, public, private):
    return OBS_TYPES[f"{'recall' if recall else 'now'}-{'public' if public else 'nopublic'}-{private}"]


def _observers(game):
    return {name: game.make_py_observer(obs_type) for name, obs_type in OBS_TYPES.items()}


def _seen(observer, state, player):
    observer.set_from(state, player)
    return observer.tensor.copy(), observer.string_from(state, player)


@pytest.mark.parametrize("name, variant", CASES)
def test_every_observation_type_names_its_pieces_and_has_a_string(name, variant):
    """Each of the twelve IIGObservationTypes gives, through OpenSpiel's own
    ``make_observation``, a tensor tiled by named pieces and a string; the default
    one is the game's observation / information state."""
    from open_spiel.python.observation import make_observation

    game = load(name, variant)
    states = random_states(game, 4, seed=8)
    for obs_name, obs_type in OBS_TYPES.items():
        observation = make_observation(game, obs_type)
        offset = 0
        for piece_name, piece in observation.dict.items():
            assert np.shares_memory(piece, observation.tensor), (obs_name, piece_name)
            offset += piece.size
        assert offset == observation.tensor.size, obs_name
        for state in states:
            for player in range(game.num_players()):
                observation.set_from(state, player)
                text = observation.string_from(state, player)
                assert isinstance(text, str)
                if obs_type.public_info and obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER:
                    own = state.information_state_tensor if obs_type.perfect_recall else state.observation_tensor
                    np.testing.assert_array_equal(observation.tensor, own(player))
                if not obs_type.public_info and obs_type.private_info == pyspiel.PrivateInfoType.NONE:
                    assert observation.tensor.size == 0 and text == "", obs_name


@pytest.mark.parametrize("name, variant", CASES)
def test_public_and_private_views_fit_together(name, variant):
    """The public view is everyone's; ALL_PLAYERS stacks each seat's private view and
    follows the public one; perfect recall extends each view; the private views
    take nothing from the public pieces; a perfect-information game has no private
    content."""
    game = load(name, variant)
    players = game.num_players()
    observers = _observers(game)
    for state in random_states(game, 6, seed=9):
        for recall in (False, True):
            public = observers[f"{'recall' if recall else 'now'}-public-none"]
            single = observers[f"{'recall' if recall else 'now'}-nopublic-single"]
            every = observers[f"{'recall' if recall else 'now'}-nopublic-all"]
            both = observers[f"{'recall' if recall else 'now'}-public-all"]
            assert "observer" not in public.dict
            assert not set(public.dict) & set(single.dict), "a piece both public and private"
            everyone = [_seen(public, state, p) for p in range(players)]
            assert all(seen[0].tobytes() == everyone[0][0].tobytes() and seen[1] == everyone[0][1]
                       for seen in everyone), f"{name}-{variant}: the public view depends on who asks"
            mine = [_seen(single, state, p)[0] for p in range(players)]
            every.set_from(state, 1 % players)
            for piece_name, stacked in every.dict.items():
                assert stacked.shape == (players, *single.dict[piece_name].shape)
                for p in range(players):
                    single.set_from(state, p)
                    np.testing.assert_array_equal(stacked[p], single.dict[piece_name], piece_name)
            both.set_from(state, 0)
            np.testing.assert_array_equal(both.tensor, np.concatenate([everyone[0][0], every.tensor]))
            assert list(both.dict) == list(public.dict) + list(every.dict)
            for piece_name, values in single.dict.items():
                if piece_name.startswith("private_"):  # the observer's part of a shared or split piece
                    for p in range(players):
                        single.set_from(state, p)
                        assert (single.dict[piece_name] >= 0).all(), piece_name
                        public.set_from(state, p)
                        shared = public.dict[piece_name[len("private_"):]]
                        if shared.shape == values.shape:
                            assert not (shared * single.dict[piece_name]).any(), piece_name
            if game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION:
                assert not any(m.any() for m in mine), (
                    f"{name}-{variant}: private content in a perfect-information game")
        for public_info in (True, False):
            for private in PRIVATE_INFO:
                now = observers[f"now-{'public' if public_info else 'nopublic'}-{private}"]
                recall = observers[f"recall-{'public' if public_info else 'nopublic'}-{private}"]
                if public_info and private != "none":
                    continue  # the game's own views; public + all is checked as public then private above
                for p in range(players):
                    now.set_from(state, p)
                    recall.set_from(state, p)
                    assert list(recall.dict)[: len(now.dict)] == list(now.dict)
                    np.testing.assert_array_equal(recall.tensor[: now.tensor.size], now.tensor)


def _hidden_from(state, player, seed):
    """A state ``player`` cannot tell from ``state`` (its hidden parts redrawn)."""
    rng = np.random.default_rng(seed)
    return state.resample_from_infostate(player, rng.random)


def _first_leak(game, states):
    """The first view that tells apart two states its player cannot: ``state`` and a
    resample of it for player p give p's views (every type with SINGLE_PLAYER) and
    the public views (from any seat) alike. None when nothing leaks."""
    observers = _observers(game)
    views = {name: o for name, o in observers.items() if "-single" in name or "-none" in name}
    for i, state in enumerate(states):
        for player in range(game.num_players()):
            for k in range(3):
                other = _hidden_from(state, player, seed=100 * i + k)
                for view_name, observer in views.items():
                    seats = range(game.num_players()) if "-none" in view_name else (player,)
                    for seat in seats:
                        a, b = _seen(observer, state, seat), _seen(observer, other, seat)
                        if a[0].tobytes() != b[0].tobytes() or a[1] != b[1]:
                            observer.set_from(state, seat)
                            mine = {n: v.copy() for n, v in observer.dict.items()}
                            observer.set_from(other, seat)
                            differ = [n for n, v in observer.dict.items() if not np.array_equal(mine[n], v)]
                            return f"{view_name} of seat {seat} (hidden from player {player}): {differ or 'string'}"
    return None


@pytest.mark.parametrize("name, variant", RESAMPLE_CASES)
def test_no_view_tells_apart_what_its_player_cannot_see(name, variant):
    """Two states that differ only in what player p cannot see (a resample for p)
    give the same tensors and strings for each of p's views and for the public views."""
    game = load(name, variant)
    states = random_states(game, 8 if name in ("elements1997", "elementum") else 15, seed=10)
    assert _first_leak(game, states) is None
    # The check is not vacuous: the resamples do change what others see.
    every = game.make_py_observer(_obs_type(True, False, "all"))
    changed = sum(_seen(every, s, 0)[0].tobytes() != _seen(every, _hidden_from(s, p, 5), 0)[0].tobytes()
                  for s in states for p in range(game.num_players()))
    assert changed or game.config.perfect_information or game.num_players() == 1


def test_the_leak_check_catches_a_private_piece_declared_public(monkeypatch):
    """Declaring elements' hand or sum public (or elementos' backs plainly public, or
    elemental_duel's history whole) must show as a leak."""
    import dataclasses

    for name, privacy in (
        ("elements", elements_ai.core.observers.Privacy(private=("deal",), dropped=("sum",))),
        ("elements", elements_ai.core.observers.Privacy(private=("hand", "deal"))),
        ("elementos", elements_ai.core.observers.Privacy()),
        ("elemental_duel", elements_ai.core.observers.Privacy(private=("own_face_down",))),
    ):
        game = elements_ai.load_game(name)
        monkeypatch.setattr(type(game), "kernel", dataclasses.replace(game.kernel, privacy=privacy))
        leak = _first_leak(game, random_states(game, 15, seed=10))
        assert leak is not None, name
        monkeypatch.undo()


def test_a_privacy_naming_a_missing_piece_is_an_error():
    from elements_ai.core.observers import Privacy, view_of

    game = elements_ai.load_game("elements")
    config = game.config
    public = _obs_type(False, True, "none")
    for privacy, message in (
        (Privacy(private=("hands",)), "'hands', which the tensors do not have"),
        (Privacy(private=("hand",), shared=("hand",)), "'hand' twice"),
        (Privacy(private=("observer",)), "must not declare 'observer'"),
        (Privacy(private_columns={"history": (4, 99)}), "columns 4..99 of 'history'"),
    ):
        with pytest.raises(ValueError, match=message):
            view_of("elements", privacy, 2, config.obs_pieces, config.info_pieces, public)


@pytest.mark.parametrize("name, variant", CASES)
def test_batch_views_equal_the_openspiel_observers(name, variant):
    """``VecEnv.observe`` (and ``public_observation`` / ``private_observation``) give,
    row for row, what the OpenSpiel observer of that type gives for each env's state."""
    kernel = elements_ai.get_kernel(name)
    game = load(name, variant)
    env = elements_ai.make_vec(name, 8, seed=12, autoreset=True, **kernel.variants[variant])
    observers = _observers(game)
    checked = 0
    for _ in range(8):
        states = [game.state_from_array(row) for row in env.states]
        for obs_name, obs_type in OBS_TYPES.items():
            observer = observers[obs_name]
            for player in (None, game.num_players() - 1):
                batch = env.observe(obs_type, player)
                for i, state in enumerate(states):
                    who = state.current_player() if player is None else player
                    if who < 0:  # no player to move: a view of the player is zero, others read no player
                        if obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER:
                            assert not batch[i].any(), f"{obs_name} env {i}"
                            continue
                        who = 0
                    observer.set_from(state, who)
                    np.testing.assert_array_equal(batch[i], observer.tensor, f"{obs_name} player {player} env {i}")
                    checked += 1
        for recall in (False, True):
            np.testing.assert_array_equal(env.public_observation(recall), env.observe(_obs_type(recall, True, "none")))
            np.testing.assert_array_equal(env.private_observation(None, recall),
                                          env.observe(_obs_type(recall, False, "single")))
        env.step(env.sample_actions())
    assert checked > 50
