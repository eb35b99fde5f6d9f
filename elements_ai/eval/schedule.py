"""The games of a tournament, fixed in advance by its seed.

A tournament is a list of *tables* (the agents that meet), each played ``games``
times. The games of a table are grouped in *deals*: one deal is one chance seed,
played once in each *seating* of the table, so that the luck of the deal cancels
between the agents (duplicate play). Every game's seeds come from the tournament's
seed and the game's place in the schedule alone, so a game gives the same result
wherever and whenever it is played.

>>> schedule = build_schedule(2, ["random", "rules", "mcts"], games=4, seed=0)
>>> [(g.table, g.deal, g.seats) for g in schedule[:4]]
[(0, 0, (0, 1)), (0, 0, (1, 0)), (1, 0, (0, 2)), (1, 0, (2, 0))]
>>> schedule[0].seed == schedule[1].seed == schedule[2].seed   # one deal, every table
True
>>> len(schedule), seatings((0, 1), 3)
(12, [(0, 1, 0), (1, 0, 0), (0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 0)])
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence

import numpy as np

MODES = ("round-robin", "gauntlet")


@dataclasses.dataclass(frozen=True)
class ScheduledGame:
    """One game of the schedule: who sits where and the seeds that decide it.

    ``seats[s]`` is the index (in the tournament's agent list) of the agent in seat
    ``s``; ``seed`` seeds chance and is shared by every seating of a deal (and by the
    same deal of every table); ``bot_seeds[s]`` seeds the bot in seat ``s``.
    """

    index: int
    table: int
    deal: int
    seating: int
    seats: tuple[int, ...]
    seed: int
    bot_seeds: tuple[int, ...]


def derive_seed(seed: int, *key: int) -> int:
    """A 63-bit seed drawn from ``seed`` and the integer ``key`` (numpy's SeedSequence).

    >>> derive_seed(0, 1, 2) == derive_seed(0, 1, 2) != derive_seed(0, 2, 1)
    True
    """
    state = np.random.SeedSequence([int(seed), *map(int, key)]).generate_state(1, np.uint64)[0]
    return int(state >> np.uint64(1))


def tables(num_players: int, num_agents: int, mode: str = "round-robin") -> list[tuple[int, ...]]:
    """The tables of agents (indices) that meet.

    Round robin: every set of ``num_players`` agents (or, with fewer agents than
    seats, all of them at one table). Gauntlet: agent 0 against each other agent.
    In a one-player game each agent plays alone.

    >>> tables(2, 3), tables(2, 3, "gauntlet"), tables(3, 4)[:2], tables(4, 2), tables(1, 2)
    ([(0, 1), (0, 2), (1, 2)], [(0, 1), (0, 2)], [(0, 1, 2), (0, 1, 3)], [(0, 1)], [(0,), (1,)])
    """
    if mode not in MODES:
        raise ValueError(f"unknown tournament mode {mode!r}; modes are {', '.join(MODES)}")
    if num_players == 1:
        return [(a,) for a in range(num_agents)]
    if mode == "gauntlet":
        return [(0, a) for a in range(1, num_agents)]
    if num_agents <= num_players:
        return [tuple(range(num_agents))]
    return list(itertools.combinations(range(num_agents), num_players))


def seatings(table: Sequence[int], num_players: int) -> list[tuple[int, ...]]:
    """The seatings of ``table``'s agents at ``num_players`` seats, filled by rotation.

    Seats take the table's agents in turn (starting from each agent in turn when
    there are fewer agents than seats), and each such filling is rotated around the
    seats; repeats are dropped. Every agent then holds every seat equally often.

    >>> seatings((0, 1), 2), seatings((0, 1, 2), 3), seatings((0, 1), 4)
    ([(0, 1), (1, 0)], [(0, 1, 2), (1, 2, 0), (2, 0, 1)], [(0, 1, 0, 1), (1, 0, 1, 0)])
    """
    found: list[tuple[int, ...]] = []
    m = len(table)
    for start in range(m):
        filling = [table[(start + s) % m] for s in range(num_players)]
        for shift in range(num_players):
            seating = tuple(filling[(shift + s) % num_players] for s in range(num_players))
            if seating not in found:
                found.append(seating)
    return found


def build_schedule(
    num_players: int, agents: Sequence[str], games: int, seed: int, mode: str = "round-robin"
) -> list[ScheduledGame]:
    """Every game of the tournament in the order they are played.

    Game ``g`` of a table is seating ``g % S`` of deal ``g // S`` (``S`` seatings);
    the schedule runs deal by deal across the tables, so a tournament stopped early
    has played every table about equally. ``games`` need not be a multiple of ``S``:
    the last deal then has only its first seatings.
    """
    if games < 1:
        raise ValueError(f"games must be at least 1 per table, got {games}")
    found = tables(num_players, len(agents), mode)
    layout = [(t, table, seatings(table, num_players)) for t, table in enumerate(found)]
    deals = -(-games // min(len(s) for _, _, s in layout))
    schedule: list[ScheduledGame] = []
    for deal in range(deals):
        chance_seed = derive_seed(seed, 0, deal)
        for t, _, table_seatings in layout:
            for k, seats in enumerate(table_seatings):
                g = deal * len(table_seatings) + k
                if g >= games:
                    break
                bot_seeds = tuple(derive_seed(seed, 1, t, g, s) for s in range(num_players))
                schedule.append(ScheduledGame(len(schedule), t, deal, k, seats, chance_seed, bot_seeds))
    return schedule
