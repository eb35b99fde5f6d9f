"""Elementos: rules scenarios, the equilibrium rule, hidden back faces, resampling,
the rule-of-thumb bot, conformance, agreement of the faces, and bad input."""

import numba as nb
import numpy as np
import pyspiel
import pytest

import elements_ai
from elements_ai.core.rng import seeds_from
from elements_ai.games.elementos import rules as R
from elements_ai.testing import play_by_strings, random_states

# The standard layout of player 0 (a1, b1, c1, a2, ...) as (kind, face up); player 1's
# block in its own board order (a7, b7, ... on 9 rows) is the same list reversed.
STANDARD_P0 = [
    ("fire/wood", "fire"), ("wood/water", "wood"), ("water/fire", "water"),
    ("wood/water", "water"), ("water/fire", "fire"), ("fire/wood", "wood"),
    ("fire/wood", "wood"), ("wood/water", "water"), ("water/fire", "fire"),
]
STANDARD_P1 = STANDARD_P0[::-1]

# Found by search on 6 rows with the standard setup, replayed here move by move.
HOME_STEP_WIN = [
    "move b3xa4", "move b4xc3", "move b2-b3", "move a5-b4", "wand b3-a4", "flip c6",
    "move a4-a5", "move b4-a4", "flip c1", "move b5-b4", "move a2-b2", "move a6-b5",
    "move a5-a6",
]
WAND_MOVE_WIN = [
    "wand b2-c3", "move c4xb3", "move c3-c4", "move b4-c3", "move b2xb3", "move c5-b4",
    "move c4-c5", "move a4xa3", "flip b1", "flip a5", "flip b1", "move b4-a4",
    "move b3-c4", "move b5-b4", "move c4-b5", "flip a4", "flip b5", "flip a3",
    "move b1-b2", "flip a4", "move b5xc6", "flip b4", "wand c5-c6",
]
# Player 0 is left with only the home piece, steps it behind an opponent piece, and
# is squeezed by the equilibrium rule.
NO_ACTION_LOSS = [
    "flip c2", "move c4xb3", "flip b1", "move b3xa2", "flip b2", "move a2xb1",
    "move c2-b3", "move b4xc3", "move a1-a2", "move b1xc1", "move b3-b4", "move c5xb4",
    "flip b2", "move a4xa3", "flip a2", "move a3xa2", "move b2-b3", "flip b4",
    "flip b3", "flip b4",
]

KERNEL = elements_ai.get_kernel("elementos")


def setup_strings(p0=STANDARD_P0, p1=STANDARD_P1):
    return [s for kind, face in list(p0) + list(p1) for s in (f"place {kind}", f"{face} up")]


def new_game(**params):
    return elements_ai.load_game("elementos", **params).new_initial_state()


def random_setup(**params):
    """A setup=random game whose chance outcomes lay out the standard position."""
    return play_by_strings(new_game(**params), *setup_strings())


def legal_strings(state):
    return sorted(state.action_to_string(state.current_player(), a) for a in state.legal_actions())


def action_id(state, text):
    player = state.current_player()
    ids = [a for a in range(state.num_distinct_actions()) if state.action_to_string(player, a) == text]
    assert len(ids) == 1, text
    return ids[0]


def observer(state, perfect_recall=False):
    return state.get_game().make_py_observer(pyspiel.IIGObservationType(perfect_recall=perfect_recall))


def square(name):
    return (int(name[1:]) - 1) * 3 + "abc".index(name[0])


# --- setup -----------------------------------------------------------------------

def test_standard_setup_is_public_and_deterministic():
    state = new_game(setup="standard", rows=6)
    assert not state.is_chance_node() and state.current_player() == 0
    game = state.get_game()
    assert game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert str(state).splitlines()[:8] == [
        "     a               b               c",
        "  6  1 water/fire    1 wood/water    1 fire/wood",
        "  5  1 wood/fire     1 fire/water@   1 water/wood",
        "  4  1 fire/water    1 water/wood    1 wood/fire",
        "  3  0 wood/fire     0 water/wood    0 fire/water",
        "  2  0 water/wood    0 fire/water@   0 wood/fire",
        "  1  0 fire/wood     0 wood/water    0 water/fire",
        "     a               b               c",
    ]
    # Everything is public: both players see every back face.
    assert state.observation_tensor(0)[:] != state.observation_tensor(1)[:]  # seat and ownership differ
    for player in (0, 1):
        obs = observer(state)
        obs.set_from(state, player)
        assert obs.dict["back"].sum() == 18 and obs.dict["public_back"].sum() == 18


def test_registered_default_is_imperfect_and_stochastic():
    game = elements_ai.load_game("elementos")
    assert game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.num_distinct_actions() == 27 * 11
    assert game.max_game_length() == 200
    assert game.new_initial_state().array.dtype == np.int16
    assert game.new_initial_state().array.shape == (27 + 27 + 200,)


def test_random_setup_chance_outcomes_follow_the_pieces_left():
    state = new_game()
    assert state.chance_outcomes() == [(0, pytest.approx(1 / 3)), (1, pytest.approx(1 / 3)), (2, pytest.approx(1 / 3))]
    play_by_strings(state, "place wood/water")
    assert state.chance_outcomes() == [(4, 0.5), (5, 0.5)]  # wood up or water up
    assert [state.action_to_string(-1, a) for a, _ in state.chance_outcomes()] == ["wood up", "water up"]
    play_by_strings(state, "water up", "place wood/water", "wood up", "place wood/water", "water up")
    # Player 0 has no wood/water left: 3 fire/wood and 3 water/fire.
    assert state.chance_outcomes() == [(0, 0.5), (2, 0.5)]
    play_by_strings(state, *setup_strings([("fire/wood", "fire"), ("fire/wood", "wood"), ("fire/wood", "fire")], []))
    assert state.chance_outcomes() == [(2, 1.0)]
    play_by_strings(state, *setup_strings([("water/fire", "water"), ("water/fire", "fire"), ("water/fire", "water")]))
    assert state.current_player() == 0
    # The chance outcomes filled a1, b1, c1, ... for player 0 and a7, ... for player 1.
    text = str(state)
    assert "  1  0 water(wood)   0 wood(water)   0 water(wood)" in text
    assert "  9  1 water(fire)   1 wood(water)   1 fire(wood)" in text
    assert "  7  1 fire(water)   1 water(wood)   1 wood(fire)" in text


def test_random_setup_with_standard_layout_offers_the_standard_actions():
    assert legal_strings(random_setup()) == legal_strings(new_game(setup="standard"))
    assert legal_strings(new_game(setup="standard")) == sorted(
        ["flip a1", "flip b1", "flip c1", "flip a2", "flip b2", "flip c2", "flip a3", "flip b3", "flip c3",
         "wand b2-b3", "wand b2-a3", "wand b2-c3", "wand b2-a2", "wand b2-c2",
         "move a3-a4", "move a3-b4", "move b3-b4", "move b3-a4", "move b3-c4", "move c3-c4", "move c3-b4"]
    )


# --- moves -----------------------------------------------------------------------

def test_piece_moves_forward_diagonally_and_sideways_never_back():
    state = new_game(setup="standard")
    play_by_strings(state, "move a3-a4", "move b7-b6")  # player 1's forward is towards row 1
    moves = [m for m in legal_strings(state) if m.startswith("move")]
    assert "move b3-a3" in moves and "move a4-a5" in moves and "move a4-b5" in moves
    assert "move a4-a3" not in moves and "move a4-b3" not in moves  # backwards
    play_by_strings(state, "move a4-b5")
    moves = [m for m in legal_strings(state) if m.startswith("move")]
    assert "move b6xb5" not in moves  # water does not take wood
    assert "move c7-c6" in moves and "move a7-a6" in moves
    assert "move b6-b7" not in moves and "move b6-c7" not in moves  # backwards for player 1
    assert str(state).splitlines()[5] == "  5  .               0 wood/fire     ."


def test_action_strings():
    state = new_game(setup="standard")
    assert state.action_to_string(0, square("b3") * 11 + 2) == "move b3-c4"
    assert state.action_to_string(1, square("b7") * 11 + 2) == "move b7-c6"  # player 1 faces row 1
    assert state.action_to_string(0, square("b2") * 11 + 5) == "flip b2"
    assert state.action_to_string(0, square("b2") * 11 + 6 + 3) == "wand b2-a2"
    assert state.action_to_string(0, square("a1") * 11 + 3) == "move a1 sideways towards a (off the board)"
    assert state.action_to_string(-1, 1) == "place wood/water" and state.action_to_string(-1, 5) == "water up"
    with pytest.raises(ValueError, match="out of range"):
        state.action_to_string(0, 27 * 11)


def test_no_move_onto_an_own_piece_and_illegal_action_leaves_the_state():
    state = new_game(setup="standard")
    assert "move a2-a3" not in legal_strings(state)
    before, history = state.array.copy(), state.history()
    with pytest.raises(ValueError, match=r"illegal action for player 0 33 \(move a2-a3\)"):
        state.apply_action(action_id(state, "move a2-a3"))
    np.testing.assert_array_equal(state.array, before)
    assert state.history() == history and state.current_player() == 0


@pytest.mark.parametrize(
    "moves, capture, taker, lost",
    [
        ([], "move a3xb4", "wood", "wood/water"),        # wood takes water
        ([], "move b3xa4", "water", "water/fire"),       # water takes fire
        ([], "move c3xc4", "fire", "fire/wood"),         # fire takes wood
        (["flip a1"], "move a4xa3", "fire", "fire/wood"),  # player 1 takes too
    ],
)
def test_capture_by_the_take_relation(moves, capture, taker, lost):
    state = new_game(setup="standard", rows=6)
    play_by_strings(state, *moves)
    mover = state.current_player()
    play_by_strings(state, capture)
    target = capture[-2:]
    row = str(state).splitlines()[7 - int(target[1])]
    cell = row[5 + 16 * "abc".index(target[0]):][:16].strip()
    assert cell.startswith(f"{mover} {taker}/")
    assert f"p{1 - mover} lost [{lost}]" in str(state)


def test_no_capture_of_an_equal_or_stronger_symbol():
    state = new_game(setup="standard", rows=6)
    moves = legal_strings(state)
    assert "move b3xb4" not in moves  # water on water
    assert "move a3xa4" not in moves  # wood against fire: fire takes wood
    assert "move c3xb4" not in moves  # fire against water: water takes fire
    before = state.array.copy()
    for text in ("move b3xb4", "move a3xa4", "move c3xb4"):
        with pytest.raises(ValueError, match="illegal action"):
            state.apply_action(action_id(state, text))
    np.testing.assert_array_equal(state.array, before)


def test_home_piece_never_captures_and_only_steps_forward_into_empty():
    state = new_game(setup="standard", rows=6)
    play_by_strings(state, "wand b2-b3", "flip c6")  # b3 (water) carries the wand now
    moves = legal_strings(state)
    assert "move b3xa4" not in moves  # water would take fire, but not as the home piece
    assert "move b3-b4" not in moves and "move b3xb4" not in moves
    assert not any(m.startswith("move b3") for m in moves)
    assert not any(m.startswith("move b2") for m in moves)  # b2 is ordinary now, hemmed in


def test_home_piece_is_never_taken():
    state = new_game(setup="standard", rows=6)
    assert "move a3xb4" in legal_strings(state)
    play_by_strings(state, "flip a1", "wand b5-b4")  # player 1's wand onto b4 (water)
    assert "move a3xb4" not in legal_strings(state)
    with pytest.raises(ValueError, match="illegal action"):
        state.apply_action(action_id(state, "move a3xb4"))


def test_wand_moves_to_neighbouring_own_pieces_never_backwards():
    state = new_game(setup="standard")
    wand = [m for m in legal_strings(state) if m.startswith("wand")]
    assert wand == ["wand b2-a2", "wand b2-a3", "wand b2-b3", "wand b2-c2", "wand b2-c3"]
    play_by_strings(state, "wand b2-b3")
    assert [m for m in legal_strings(state) if m.startswith("wand")] == [
        "wand b8-a7", "wand b8-a8", "wand b8-b7", "wand b8-c7", "wand b8-c8"
    ]
    play_by_strings(state, "flip a9")
    wand = [m for m in legal_strings(state) if m.startswith("wand")]
    assert wand == ["wand b3-a3", "wand b3-c3"]  # b2, a2, c2 lie behind
    play_by_strings(state, "wand b3-c3")
    assert "0 fire/water@" in str(state).splitlines()[7]  # c3 carries the wand
    assert "0 water/wood " in str(state).splitlines()[7]  # b3 is an ordinary piece again


def test_flip_turns_the_piece_and_makes_its_back_public():
    state = random_setup()
    obs = observer(state)
    a1 = square("a1")
    obs.set_from(state, 1)
    assert obs.dict["back"][:, a1].sum() == 0 and obs.dict["up"][R.FIRE, a1] == 1
    assert "  1  0 fire/?" in state.observation_string(1)
    assert "  1  0 fire(wood)" in state.observation_string(0)
    play_by_strings(state, "flip a1")
    obs.set_from(state, 1)
    assert obs.dict["up"][R.WOOD, a1] == 1 and obs.dict["back"][R.FIRE, a1] == 1
    assert obs.dict["public_back"][a1] == 1
    assert "  1  0 wood/fire" in state.observation_string(1)
    play_by_strings(state, "flip a9", "flip a1")  # turned back, still public
    assert "  1  0 fire/wood" in state.observation_string(1)


# --- equilibrium (rule 8) ----------------------------------------------------------

def test_equilibrium_cuts_the_two_piece_flip_cycle():
    state = new_game(setup="standard")
    play_by_strings(state, "flip a1", "flip a9", "flip a1")
    moves = legal_strings(state)
    assert "flip a9" not in moves and "flip b9" in moves and "flip c7" in moves
    assert "flips barred by equilibrium: a9" in str(state)
    obs = observer(state)
    for player in (0, 1):
        obs.set_from(state, player)
        assert np.flatnonzero(obs.dict["flip_barred"]).tolist() == [square("a9")]
    with pytest.raises(ValueError, match="flip a9"):
        state.apply_action(action_id(state, "flip a9"))
    play_by_strings(state, "move a7-a6")  # not a flip: the record starts afresh
    assert "flip a1" in legal_strings(state)
    assert "flips barred by equilibrium: none" in str(state)


def test_equilibrium_sees_longer_returns():
    state = new_game(setup="standard")
    play_by_strings(state, "flip a1", "flip a9", "flip b1", "flip b9", "flip a1", "flip a9", "flip b1")
    # Flipping b9 now would give back the starting position with player 0 to move.
    moves = legal_strings(state)
    assert [m for m in moves if m.startswith("flip")] == sorted(
        f"flip {c}{r}" for c in "abc" for r in (7, 8, 9) if f"{c}{r}" != "b9"
    )
    play_by_strings(state, "flip a9")  # now b1 would undo b1 a9, and a9 b1 b9 a1 a9 b1 b9 a1
    assert "flips barred by equilibrium: b1" in str(state)


# --- end of the game ---------------------------------------------------------------

def test_win_by_the_home_piece_stepping_into_the_far_row():
    state = new_game(setup="standard", rows=6)
    play_by_strings(state, *HOME_STEP_WIN[:-1])
    assert not state.is_terminal()
    play_by_strings(state, HOME_STEP_WIN[-1])  # move a5-a6 with the wand
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    assert "p0 wins (wand reached the far row)" in str(state)


def test_win_by_a_wand_move_into_the_far_row():
    state = new_game(setup="standard", rows=6)
    play_by_strings(state, *WAND_MOVE_WIN[:-1])
    assert not state.is_terminal() and str(state).splitlines()[1].endswith("0 water/fire")  # on c6
    play_by_strings(state, WAND_MOVE_WIN[-1])  # wand c5-c6
    assert state.is_terminal() and state.returns() == [1.0, -1.0]
    assert "p0 wins (wand reached the far row)" in str(state)


def test_a_player_without_a_legal_action_loses():
    state = new_game(setup="standard", rows=6)
    play_by_strings(state, *NO_ACTION_LOSS[:-1])
    # Player 0 has only the home piece b3; b4 ahead is occupied.
    cells = state.array[R.S.board : R.S.board + 18]
    assert [sq for sq in range(18) if cells[sq] and R.cell_owner(int(cells[sq])) == 0] == [square("b3")]
    assert state.array[R.S.home] == square("b3") and cells[square("b4")] != 0
    other = state.clone()
    play_by_strings(other, "flip a6")  # any other flip leaves player 0 a flip
    assert legal_strings(other) == ["flip b3"]
    play_by_strings(state, NO_ACTION_LOSS[-1])  # flip b4 back
    assert state.is_terminal() and state.returns() == [-1.0, 1.0]
    assert "p1 wins (opponent had no legal action)" in str(state)
    assert state.legal_actions() == []


def test_stuck_detection_in_the_kernel():
    state = new_game(setup="standard", rows=6)
    cfg = state.get_game().config.cfg
    play_by_strings(state, *NO_ACTION_LOSS[:-1])
    for text, stuck in (("flip b4", True), ("flip a6", False)):
        data = state.array.copy()
        R.apply(cfg, data, action_id(state, text))
        probe, mask = data.copy(), np.zeros(R.ACTIONS_PER_SQUARE * 18, np.bool_)
        probe[R.S.player] = 0  # what player 0 could do, were the game not over
        R.legal_mask(cfg, probe, mask)
        assert mask.any() == (not stuck)
        assert (data[R.S.end] == R.END_STUCK) == stuck and (data[R.S.player] == R.TERMINAL) == stuck


def test_draw_after_max_moves():
    state = new_game(setup="standard", max_moves=4)
    play_by_strings(state, "flip a1", "flip a9", "flip b1")
    assert not state.is_terminal()
    play_by_strings(state, "flip b9")
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    assert "draw (4 moves played)" in str(state)


def test_a_win_on_the_last_allowed_move_still_wins():
    state = new_game(setup="standard", rows=6, max_moves=len(HOME_STEP_WIN))
    play_by_strings(state, *HOME_STEP_WIN)
    assert state.returns() == [1.0, -1.0]


# --- parameters --------------------------------------------------------------------

@pytest.mark.parametrize(
    "params, error, message",
    [
        ({"colour": 1}, ValueError, "unknown parameter 'colour'"),
        ({"rows": 5}, ValueError, "rows=5 is out of range; it must be an integer from 6 to 15"),
        ({"rows": 16}, ValueError, "rows=16 is out of range"),
        ({"setup": "mirror"}, ValueError, "setup='mirror' is out of range; it must be one of 'random', 'standard'"),
        ({"max_moves": 0}, ValueError, "max_moves=0 is out of range"),
        ({"rows": "nine"}, ValueError, "parameter rows must be an integer, got 'nine'"),
    ],
)
def test_bad_parameters_are_named(params, error, message):
    with pytest.raises(error, match=message):
        elements_ai.load_game("elementos", **params)


def test_game_strings_load():
    game = pyspiel.load_game("elementos(rows=7,setup=standard,max_moves=30)")
    assert game.num_distinct_actions() == 21 * 11 and game.max_game_length() == 30
    with pytest.raises(Exception, match="rows"):
        pyspiel.load_game("elementos(rows=20)")


# --- hidden information --------------------------------------------------------------

def _random_states(count, seed, **params):
    """States at player nodes from random play (setup=random)."""
    return random_states(elements_ai.load_game("elementos", **params), count, seed)


def _turn_hidden(data, squares, owner):
    """The state with every back of ``owner`` that is not public turned to the other kind."""
    out = data.copy()
    for sq in range(squares):
        cell = int(out[R.S.board + sq])
        if cell == 0 or R.cell_owner(cell) != owner or R.cell_public(cell):
            continue
        up = int(R.cell_up(cell))
        if R.cell_side(cell) == 1:
            out[R.S.board + sq] = R.make_cell(owner, up, 0, 0)
        else:
            out[R.S.board + sq] = R.make_cell(owner, (up + 2) % 3, 1, 0)
    return out


def test_unflipped_opponent_backs_never_reach_an_observation():
    states = _random_states(60, seed=3, rows=7, max_moves=60)
    game = states[0].get_game()
    squares = game.config.cfg[R.C.squares]
    changed_for_owner = 0
    for state in states:
        data = state.array
        for player in (0, 1):
            other = 1 - player
            turned = game.state_from_array(_turn_hidden(data, squares, other))
            assert turned.observation_tensor(player) == state.observation_tensor(player)
            assert turned.information_state_tensor(player) == state.information_state_tensor(player)
            assert turned.observation_string(player) == state.observation_string(player)
            assert turned.information_state_string(player) == state.information_state_string(player)
            changed_for_owner += turned.observation_tensor(other) != state.observation_tensor(other)
            obs = observer(state)
            obs.set_from(state, player)
            for sq in range(squares):
                cell = int(data[R.S.board + sq])
                if cell and R.cell_owner(cell) == other and not R.cell_public(cell):
                    assert obs.dict["back"][:, sq].sum() == 0
                elif cell:
                    assert obs.dict["back"][int(R.cell_back(cell)), sq] == 1
    assert changed_for_owner > 0  # the owner does see them


def test_captured_pieces_show_both_faces():
    state = random_setup(rows=6)
    play_by_strings(state, "move a3xb4")
    obs = observer(state, perfect_recall=True)
    obs.set_from(state, 0)
    assert obs.dict["captured"].tolist() == [[0, 0, 0], [0, 1, 0]]  # opponent lost a wood/water
    assert obs.dict["history_capture"][0].tolist() == [0, 1, 0]
    assert "p1 lost [wood/water]" in state.observation_string(0)
    assert "p0 move a3xb4 (took wood/water)" in state.information_state_string(0)


# --- resampling ----------------------------------------------------------------------

def _resample(game, state, player, seed):
    out = np.zeros_like(state.array)
    KERNEL.resample(game.config.cfg, state.array, player, seeds_from(seed, 1), out)
    return out


def _kind_counts(data, squares, owner):
    counts = [int(data[R.S.captured + 3 * owner + k]) for k in range(3)]
    for sq in range(squares):
        cell = int(data[R.S.board + sq])
        if cell and R.cell_owner(cell) == owner:
            counts[int(R.cell_kind(cell))] += 1
    return counts


def test_resample_keeps_three_pieces_of_each_kind_for_the_opponent():
    # The information state and reachability: tests/test_games.py, for every game.
    states = _random_states(40, seed=5, max_moves=80)
    game = states[0].get_game()
    squares = game.config.cfg[R.C.squares]
    for i, state in enumerate(states):
        for player in (0, 1):
            assert _kind_counts(_resample(game, state, player, seed=i), squares, 1 - player) == [3, 3, 3]


def test_resample_is_uniform_over_consistent_assignments():
    # Standard layout, backs hidden: each symbol shows on 3 pieces, so the number x of
    # fire-up pieces of kind fire/wood fixes the rest; there are C(3, x)^3 assignments.
    state = random_setup()
    game = state.get_game()
    fire_up = [square(s) for s in ("a7", "b8", "c9")]  # player 1's fire-up pieces
    counts = np.zeros(4)
    trials = 5600
    for seed in range(trials):
        out = _resample(game, state, 0, seed)
        counts[sum(int(R.cell_kind(int(out[R.S.board + sq]))) == R.FIRE for sq in fire_up)] += 1
    expected = np.array([1, 27, 27, 1]) / 56 * trials
    assert np.all(np.abs(counts - expected) < 4 * np.sqrt(expected) + 1), counts


def test_resample_during_the_setup_and_for_the_standard_setup():
    game = elements_ai.load_game("elementos")
    state = game.new_initial_state()
    play_by_strings(state, *setup_strings()[:23])  # player 1's third kind drawn, its face not yet
    for player in (0, 1):
        for seed in range(20):
            sampled = game.state_from_array(_resample(game, state, player, seed))
            assert sampled.information_state_tensor(player) == state.information_state_tensor(player)
            assert sampled.chance_outcomes() and sampled.is_chance_node()
    standard = new_game(setup="standard")
    out = _resample(standard.get_game(), standard, 1, seed=3)
    np.testing.assert_array_equal(out, standard.array)


# --- rule-of-thumb bot ---------------------------------------------------------------

def _heuristic(state, seed=0):
    game = state.get_game()
    return int(KERNEL.heuristic(game.config.cfg, state.array, state.current_player(), seeds_from(seed, 1)))


def test_heuristic_plays_legal_actions_and_games_end():
    rng = np.random.default_rng(0)
    for setup in ("random", "standard"):
        game = elements_ai.load_game("elementos", setup=setup, max_moves=120)
        for g in range(6):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    actions, probs = zip(*state.chance_outcomes())
                    state.apply_action(int(rng.choice(actions, p=probs)))
                    continue
                action = _heuristic(state, seed=g * 1000 + len(state.history()))
                assert action in state.legal_actions()
                state.apply_action(action)


def test_heuristic_wins_now_and_takes_when_it_can():
    state = new_game(setup="standard", rows=6)
    play_by_strings(state, *HOME_STEP_WIN[:-1])
    assert state.action_to_string(0, _heuristic(state)) == "move a5-a6"
    start = new_game(setup="standard", rows=6)
    takes = {start.action_to_string(0, _heuristic(start, seed)) for seed in range(20)}
    assert takes <= {"move a3xb4", "move b3xa4", "move c3xc4"} and len(takes) > 1


# --- the kernel's move generation against a straightforward reference ------------------
# Square by square, with its own small helpers (none of the kernel's jitted code).

@nb.njit(cache=True)
def _reference_neighbour(rows, square, direction, player):
    """One step forward (0), diagonally forward towards a (1) or c (2), sideways
    towards a (3) or c (4); -1 off the board."""
    column = square % 3 + (0, -1, 1, -1, 1)[direction]
    row = square // 3 + (1, 1, 1, 0, 0)[direction] * (1 if player == 0 else -1)
    return row * 3 + column if 0 <= column <= 2 and 0 <= row < rows else -1


@nb.njit(cache=True)
def _reference_owner(cell):
    return (cell >> 1) & 1


@nb.njit(cache=True)
def _reference_up(cell):
    """The face-up symbol: the kind's first symbol on side 0, its second on side 1."""
    return (((cell >> 2) & 3) + ((cell >> 4) & 1)) % 3


@nb.njit(cache=True)
def _reference_move_allowed(cfg, state, player, square, direction):
    target = _reference_neighbour(cfg[R.C.rows], square, direction, player)
    if target < 0:
        return False
    occupant = state[R.S.board + target]
    if square == state[R.S.home + player]:
        return direction == 0 and occupant == 0
    if occupant == 0:
        return True
    if _reference_owner(occupant) == player or target == state[R.S.home + 1 - player]:
        return False
    return _reference_up(occupant) == (_reference_up(state[R.S.board + square]) + 1) % 3  # fire takes wood ...


@nb.njit(cache=True)
def _reference_wand_allowed(cfg, state, player, direction):
    target = _reference_neighbour(cfg[R.C.rows], state[R.S.home + player], direction, player)
    if target < 0:
        return False
    occupant = state[R.S.board + target]
    return occupant != 0 and _reference_owner(occupant) == player


@nb.njit(cache=True)
def _reference_flip_barred(cfg, state):
    """Rule 8 read literally: replays the run of flips and compares whole positions."""
    n = cfg[R.C.squares]
    flips = state[R.S.flips]
    end = cfg[R.S.history] + state[R.S.moves]
    squares = np.empty(flips, np.int64)
    for i in range(flips):
        squares[i] = (state[end - flips + i] % R.CAPTURE_UNIT) // R.ACTIONS_PER_SQUARE
    # The positions since the last non-flip action, as the side of every square.
    sides = np.zeros((flips + 1, n), np.int64)
    for i in range(flips):
        sides[i + 1] = sides[i]
        sides[i + 1, squares[i]] ^= 1
    barred = 0
    for square in range(n):
        after = sides[flips].copy()
        after[square] ^= 1
        for i in range(flips + 1):
            # Same pieces, faces and wands; the side to move agrees when the counts do.
            if (flips + 1 - i) % 2 == 0 and np.all(sides[i] == after):
                barred |= 1 << square
    return barred


@nb.njit(cache=True)
def _reference_legal_mask(cfg, state, mask):
    mask[:] = False
    player = state[R.S.player]
    if player < 0:
        return
    barred = _reference_flip_barred(cfg, state)
    home = state[R.S.home + player]
    for square in range(cfg[R.C.squares]):
        cell = state[R.S.board + square]
        if cell == 0 or _reference_owner(cell) != player:
            continue
        base = square * R.ACTIONS_PER_SQUARE
        for direction in range(5):
            mask[base + direction] = _reference_move_allowed(cfg, state, player, square, direction)
        mask[base + R.FLIP] = ((barred >> square) & 1) == 0
        if square == home:
            for direction in range(5):
                mask[base + R.WAND + direction] = _reference_wand_allowed(cfg, state, player, direction)


@nb.njit(cache=True)
def _reference_apply(cfg, state, action):
    """A player action, then the end checks of rulings 9, 10 and 14 in that order."""
    player = state[R.S.player]
    rows = cfg[R.C.rows]
    square = action // R.ACTIONS_PER_SQUARE
    k = action % R.ACTIONS_PER_SQUARE
    entry = action
    wand_moved = False
    if k < R.FLIP:
        target = _reference_neighbour(rows, square, k, player)
        occupant = state[R.S.board + target]
        if occupant != 0:
            kind = (occupant >> 2) & 3
            state[R.S.captured + 3 * _reference_owner(occupant) + kind] += 1
            entry += R.CAPTURE_UNIT * (kind + 1)
        state[R.S.board + target] = state[R.S.board + square]
        state[R.S.board + square] = 0
        if square == state[R.S.home + player]:
            state[R.S.home + player] = target
            wand_moved = True
        state[R.S.flips] = 0
    elif k == R.FLIP:
        state[R.S.board + square] = (state[R.S.board + square] ^ R.SIDE_BIT) | R.PUBLIC_BIT
        state[R.S.flips] += 1
    else:
        state[R.S.home + player] = _reference_neighbour(rows, square, k - R.WAND, player)
        wand_moved = True
        state[R.S.flips] = 0
    moves = state[R.S.moves]
    state[cfg[R.S.history] + moves] = entry
    state[R.S.moves] = moves + 1
    state[R.S.player] = 1 - player
    mask = np.zeros(cfg[R.C.squares] * R.ACTIONS_PER_SQUARE, np.bool_)
    _reference_legal_mask(cfg, state, mask)
    if wand_moved and state[R.S.home + player] // 3 == (rows - 1 if player == 0 else 0):
        state[R.S.winner] = player
        state[R.S.end] = R.END_WAND
        state[R.S.player] = R.TERMINAL
    elif moves + 1 >= cfg[R.C.max_moves]:
        state[R.S.end] = R.END_CAP
        state[R.S.player] = R.TERMINAL
    elif not mask.any():
        state[R.S.winner] = player
        state[R.S.end] = R.END_STUCK
        state[R.S.player] = R.TERMINAL


def _random_positions(count, seed, rows, max_moves=200):
    """Positions with pieces strewn at random (not all reachable) and random wands,
    after a random history that ends with a run of flips: each by the player whose
    turn it was, of one of a few of that player's pieces, so that flips get barred."""
    game = elements_ai.load_game("elementos", rows=rows, max_moves=max_moves)
    cfg = game.config.cfg
    n = 3 * rows
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        state = np.zeros(game.config.state_size, np.int16)
        moves = int(rng.integers(0, max_moves))
        player = moves % 2
        state[R.S.player], state[R.S.moves], state[R.S.placed], state[R.S.pending] = player, moves, 2 * R.PIECES, -1
        state[R.S.winner] = -1
        fill, mine = rng.uniform(0.1, 1.0), rng.uniform(0.02, 0.98)  # mine: the player to move's share
        for sq in range(n):
            if rng.random() < fill:
                owner = player if rng.random() < mine else 1 - player
                state[R.S.board + sq] = R.make_cell(owner, *(int(x) for x in rng.integers(0, (3, 2, 2))))
        owners = [[sq for sq in range(n) if state[R.S.board + sq] and _reference_owner(state[R.S.board + sq]) == p]
                  for p in (0, 1)]
        if not owners[0] or not owners[1]:
            continue
        for p in (0, 1):
            # Mostly a wand that has not reached the far row yet, sometimes anywhere.
            short = [sq for sq in owners[p] if sq // 3 != (rows - 1 if p == 0 else 0)] or owners[p]
            state[R.S.home + p] = rng.choice(short if rng.random() < 0.9 else owners[p])
        flips = min(moves, int(rng.integers(0, 13)))
        pools = [rng.choice(own, size=min(len(own), int(rng.integers(1, 4))), replace=False) for own in owners]
        history = cfg[R.S.history]
        for i in range(moves - flips):  # earlier entries: any action that is not a flip
            state[history + i] = R.ACTIONS_PER_SQUARE * rng.integers(n) + rng.choice([0, 1, 2, 3, 4, 6, 7, 8, 9, 10])
        for i in range(moves - flips, moves):
            state[history + i] = R.ACTIONS_PER_SQUARE * rng.choice(pools[i % 2]) + R.FLIP
        state[R.S.flips] = flips
        R.rebuild_boards(cfg, state)
        out.append(state)
    return cfg, out


@pytest.mark.parametrize(
    "rows, seed, max_moves, count",
    # Short histories too: the state then ends a few entries after the board. The long ones take seconds.
    [
        pytest.param(6, 1, 200, 1500, marks=pytest.mark.slow),
        pytest.param(9, 2, 200, 1500, marks=pytest.mark.slow),
        pytest.param(15, 3, 200, 1500, marks=pytest.mark.slow),
        (6, 4, 9, 500),
        (11, 5, 12, 500),
        (15, 6, 2, 500),
    ],
)
def test_legal_masks_and_transitions_match_the_reference_on_random_positions(rows, seed, max_moves, count):
    cfg, states = _random_positions(count, seed, rows, max_moves)
    num_actions = 3 * rows * R.ACTIONS_PER_SQUARE
    mask, expected = np.zeros(num_actions, np.bool_), np.zeros(num_actions, np.bool_)
    seen = {"capture": 0, "barred flip": 0, "no action": 0, "wand win": 0, "stuck after": 0}
    for state in states:
        where = KERNEL.state_to_string(cfg, state)
        R.legal_mask(cfg, state, mask)
        _reference_legal_mask(cfg, state, expected)
        np.testing.assert_array_equal(mask, expected, err_msg=where)
        player = int(state[R.S.player])
        any_action = R._any_action(cfg[R.C.squares], state, player, R.flip_barred(cfg, state))
        assert any_action == expected.any(), where
        barred = _reference_flip_barred(cfg, state)
        assert R.flip_barred(cfg, state) == barred, where
        seen["barred flip"] += barred != 0
        seen["no action"] += not expected.any()
        for action in np.flatnonzero(expected):
            after, reference = state.copy(), state.copy()
            R.apply(cfg, after, action)
            _reference_apply(cfg, reference, action)
            R.rebuild_boards(cfg, reference)  # the kernel keeps its boards in step
            np.testing.assert_array_equal(after, reference, err_msg=f"action {action}\n{where}")
            seen["capture"] += after[cfg[R.S.history] + state[R.S.moves]] >= R.CAPTURE_UNIT
            seen["wand win"] += after[R.S.end] == R.END_WAND
            seen["stuck after"] += after[R.S.end] == R.END_STUCK
    # Long runs of flips (and so positions without an action) need long histories.
    assert min(seen.values() if max_moves >= 100 else [seen["capture"], seen["wand win"]]) > 0, seen


@pytest.mark.parametrize("params", [{}, {"rows": 6, "setup": "standard", "max_moves": 60}])
def test_legal_masks_and_transitions_match_the_reference_in_random_games(params):
    game = elements_ai.load_game("elementos", **params)
    cfg = game.config.cfg
    mask, expected = np.zeros(game.num_distinct_actions(), np.bool_), np.zeros(game.num_distinct_actions(), np.bool_)
    rng = np.random.default_rng(7)
    checked = 0
    while checked < 3000:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(actions, p=probs)))
                continue
            data = state.array
            R.legal_mask(cfg, data, mask)
            _reference_legal_mask(cfg, data, expected)
            np.testing.assert_array_equal(mask, expected)
            action = int(rng.choice(np.flatnonzero(expected)))
            reference = data.copy()
            _reference_apply(cfg, reference, action)
            R.rebuild_boards(cfg, reference)
            state.apply_action(action)
            np.testing.assert_array_equal(state.array, reference)
            checked += 1


# OpenSpiel conformance and the faces' agreement run for every variant in test_games.py.

@pytest.mark.slow
def test_vector_env_games_end_and_no_live_game_lacks_an_action():
    env = elements_ai.make_vec("elementos", num_envs=4096, seed=1, rows=6, max_moves=400)
    cfg = env.config.cfg
    mask = np.zeros(env.num_actions, np.bool_)
    for _ in range(400):
        assert env.legal_mask[~env.terminated].any(axis=1).all()
        env.step(env.sample_actions())
    assert env.terminated.all()
    np.testing.assert_array_equal(env.returns.sum(axis=1), 0.0)
    ends = env.states[:, R.S.end]
    assert np.all(ends != R.END_NONE) and (ends == R.END_WAND).any() and (ends == R.END_CAP).any()
    stuck = np.flatnonzero(ends == R.END_STUCK)
    assert len(stuck) > 0
    for i in stuck:  # the loser, put back on move, indeed has nothing legal
        data = env.states[i].copy()
        data[R.S.player] = 1 - data[R.S.winner]
        R.legal_mask(cfg, data, mask)
        assert not mask.any()
