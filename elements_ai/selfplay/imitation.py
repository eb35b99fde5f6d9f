"""Behaviour cloning before self-play, shared by PPO and AlphaZero-style training.

The network first learns the moves of a bot in games the bot plays against itself
(AlphaStar's supervised start, on a bot) and, with its value head, those games' final
returns. A trainer then starts from a policy that plays like the bot and a value that
measures it, not from a uniform policy and a random value head's noise.

>>> import elements_ai, torch
>>> game = elements_ai.load_game("elementos", setup="standard", max_moves=12)
>>> games = collect(game, "rules", num_envs=4, steps=32, seed=0)
>>> net = PolicyValueNet(game.config.info_size, game.config.num_actions, game.config.num_players, (16,))
>>> optimizer = torch.optim.Adam(net.parameters())
>>> loss, value_loss = clone(net, optimizer, games, epochs=2, batch=16, lr=1e-3,
...                          generator=torch.Generator().manual_seed(0))
>>> len(games.action), loss > 0
(32, True)
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
import torch

from ..core.vec import VecEnv
from .net import PolicyValueNet, masked_log_probs, value_bound
from .players import Hints, encode_rows, make_player


@dataclass
class Demonstrations:
    """The teacher's decisions: one row each."""

    info: torch.Tensor  # (N, info_size) the mover's information state
    mask: torch.Tensor  # (N, actions) its legal actions
    hint: torch.Tensor | None  # (N,) the hinting bot's action, for a network with a hint
    action: torch.Tensor  # (N,) what the teacher played
    target: torch.Tensor  # (N, players) the game's returns / bound, the mover first
    known: torch.Tensor  # (N,) whether the game ended in time to give a target
    policy: torch.Tensor | None = None  # (N, actions) the teacher's move shares, where they are the target


def collect(game, teacher: str, num_envs: int, steps: int, seed: int, hint: str = "", opponent: str = "",
            workers: int = 1, visits: bool = False) -> Demonstrations:
    """About ``steps`` decisions of the bot ``teacher`` in ``num_envs`` games at once.

    By default the teacher plays every seat. With ``opponent`` (a bot spec) it plays
    one seat of each game, the seat moving on game by game, and ``opponent`` all the
    others: the copy then sees the positions it will meet against that bot, and only
    the teacher's decisions are kept. ``workers`` > 1 splits the decisions among that
    many processes, each with its own games and seeds (the result depends on
    ``workers``, not on the machine). With ``visits`` a search teacher's share of
    visits per action is kept too (``Demonstrations.policy``), and ``clone`` learns
    those shares rather than the one move: a search's choice among moves of nearly
    equal value is noise that the shares average away.
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers!r}")
    if workers == 1:
        return _collect(game, teacher, num_envs, steps, seed, hint, opponent, visits)
    from ..eval.runner import run_local  # its workers leave Ctrl-C to this process, which stops them

    share = -(-steps // workers)
    jobs = [(w, str(game), teacher, num_envs, share, seed + 1_000 * w, hint, opponent, visits) for w in range(workers)]
    parts = [part for _, part in sorted(run_local(jobs, workers, play=_collect_in_worker), key=lambda done: done[0])]
    names = [field.name for field in fields(Demonstrations)]
    return Demonstrations(**{name: None if getattr(parts[0], name) is None
                             else torch.cat([getattr(part, name) for part in parts]) for name in names})


def _collect_in_worker(job: tuple) -> tuple[int, Demonstrations]:
    from .. import load_game

    worker, name, *rest = job
    torch.set_num_threads(1)
    return worker, _collect(load_game(name), *rest)


def teacher_players(game, env, teacher: str, opponent: str = "", visits: bool = False, seed: int = 0):
    """The teacher's and the opponent's players (None without ``opponent``) for ``collect``'s
    games in ``env``; a bad spec, or ``visits`` from a bot without a policy, is a
    ``ValueError`` here (trainers ask at start-up, before they write anything)."""
    bot = make_player(teacher, env, game, seed + 1)
    if visits and not hasattr(bot, "act_with_policy"):
        raise ValueError(f"visits: the teacher {teacher!r} gives no policy to learn (a search bot does)")
    return bot, make_player(opponent, env, game, seed + 4) if opponent else None


def _moves(bot, env, rows: np.ndarray, visits: bool, policies: list) -> np.ndarray:
    """The teacher's moves in ``rows``, its shares added to ``policies`` when they are learnt."""
    if not visits:
        return bot.act(env, rows)
    moves, shares = bot.act_with_policy(env, rows)
    policies.append(shares)
    return moves


def _collect(game, teacher: str, num_envs: int, steps: int, seed: int, hint: str, opponent: str,
             visits: bool = False) -> Demonstrations:
    gc = game.config
    players = gc.num_players
    scale = value_bound(gc)
    env = VecEnv(game.kernel, gc, num_envs, seed=seed)
    bot, others = teacher_players(game, env, teacher, opponent, visits, seed)
    hint_source = Hints(hint, env, seed + 2)
    if others is not None:
        return _collect_one_seat(game, env, bot, others, hint_source, steps, scale, visits)
    infos, masks, hints, actions, movers, policies = [], [], [], [], [], []
    every = np.arange(num_envs)
    rounds = max(1, steps // num_envs)
    # Monte Carlo targets: each decision gets the returns of the game it belongs to,
    # per seat as the value head orders them (the mover first); a game still under
    # way when the collection stops teaches the policy only.
    returns = np.full((rounds, num_envs, players), np.nan, np.float32)
    started = np.zeros(num_envs, np.int64)
    for t in range(rounds):
        infos.append(encode_rows(env, every))
        masks.append(env.legal_mask.copy())
        movers.append(env.current_player.copy())
        hinted = hint_source(env, every)
        hints.append(np.zeros(num_envs, np.int64) if hinted is None else hinted.numpy())
        actions.append(_moves(bot, env, every, visits, policies))
        env.step(actions[-1])
        for row in np.flatnonzero(env.terminated):
            returns[started[row] : t + 1, row] = env.returns[row] / scale
            started[row] = t + 1
        if env.terminated.any():
            env.reset(env.terminated)
    mover = np.concatenate(movers)
    seat = (mover[:, None] + np.arange(players)[None, :]) % players
    target = np.take_along_axis(returns.reshape(-1, players), seat, axis=1)
    return _demonstrations(infos, masks, hints, actions, target, hint_source.player is not None, policies)


def _collect_one_seat(game, env, bot, opponent, hint_source, steps: int, scale: float,
                      visits: bool) -> Demonstrations:
    players = game.config.num_players
    num_envs = env.num_envs
    seat = np.arange(num_envs) % players  # the teacher's seat in each row's game
    serial = np.arange(num_envs)  # each row's game, numbered so its returns can be found later
    next_serial = num_envs
    infos, masks, hints, actions, games_of, seats_of, policies = [], [], [], [], [], [], []
    finished: dict[int, np.ndarray] = {}
    kept = 0
    while kept < steps:
        teaching = env.current_player == seat
        theirs = np.flatnonzero(~teaching)
        # The last round may hold more teacher moves than are still wanted: those are played, not kept.
        mine, idle = np.split(np.flatnonzero(teaching), [steps - kept])
        chosen = np.zeros(num_envs, np.int64)
        if len(theirs):
            chosen[theirs] = opponent.act(env, theirs)
        if len(mine):
            infos.append(encode_rows(env, mine))
            masks.append(env.legal_mask[mine].copy())
            hinted = hint_source(env, mine)
            hints.append(np.zeros(len(mine), np.int64) if hinted is None else hinted.numpy())
            chosen[mine] = _moves(bot, env, mine, visits, policies)
            actions.append(chosen[mine].copy())
            games_of.append(serial[mine].copy())
            seats_of.append(seat[mine].copy())
            kept += len(mine)
        if len(idle):
            chosen[idle] = bot.act(env, idle)
        env.step(chosen)
        for row in np.flatnonzero(env.terminated):
            finished[int(serial[row])] = env.returns[row] / scale
            serial[row] = next_serial
            next_serial += 1
            seat[row] = (seat[row] + 1) % players
        if env.terminated.any():
            env.reset(env.terminated)
    games = np.concatenate(games_of)
    seats = np.concatenate(seats_of)
    target = np.full((len(games), players), np.nan, np.float32)
    for k, (number, mover) in enumerate(zip(games, seats)):
        if int(number) in finished:
            target[k] = np.roll(finished[int(number)], -int(mover))  # the mover first
    return _demonstrations(infos, masks, hints, actions, target, hint_source.player is not None, policies)


def _demonstrations(infos, masks, hints, actions, target, hinted: bool, policies=()) -> Demonstrations:
    return Demonstrations(
        info=torch.from_numpy(np.concatenate(infos)),
        mask=torch.from_numpy(np.concatenate(masks)),
        hint=torch.from_numpy(np.concatenate(hints)) if hinted else None,
        action=torch.from_numpy(np.concatenate(actions)),
        target=torch.from_numpy(np.nan_to_num(target)),
        known=torch.from_numpy(~np.isnan(target[:, 0])),
        policy=torch.from_numpy(np.concatenate(policies)) if len(policies) else None,
    )


def clone(net: PolicyValueNet, optimizer: torch.optim.Optimizer, games: Demonstrations, epochs: int, batch: int,
          lr: float, generator: torch.Generator, value_coef: float = 0.5,
          max_grad_norm: float | None = None) -> tuple[float, float]:
    """``epochs`` passes of cross-entropy on the teacher's moves and squared error on
    the returns; returns the last ten steps' mean policy and value losses. The
    optimizer's learning rate is ``lr`` meanwhile and set back afterwards."""
    n = len(games.action)
    losses, value_losses = [], []
    # Cloning a fixed target takes a larger step than self-play's updates, which must
    # stay near the data's policy; the run's own rate is set back afterwards.
    before = [group["lr"] for group in optimizer.param_groups]
    for group in optimizer.param_groups:
        group["lr"] = lr
    net.train()
    for _ in range(epochs):
        order = torch.randperm(n, generator=generator)
        for start in range(0, n, batch):
            idx = order[start : start + batch]
            logits, value = net(games.info[idx], None if games.hint is None else games.hint[idx])
            log_probs = masked_log_probs(logits, games.mask[idx])
            if games.policy is None:
                loss = -log_probs.gather(1, games.action[idx, None]).mean()
            else:  # cross-entropy to the teacher's shares; illegal actions have none (and -inf logs)
                shares = games.policy[idx]
                loss = -torch.where(shares > 0, shares * log_probs, torch.zeros_like(shares)).sum(1).mean()
            weight = games.known[idx].float()
            error = ((value - games.target[idx]) ** 2).mean(1)
            value_loss = 0.5 * (error * weight).sum() / weight.sum().clamp(min=1.0)
            optimizer.zero_grad()
            (loss + value_coef * value_loss).backward()
            if max_grad_norm is not None:
                torch.nn.utils.clip_grad_norm_(net.parameters(), max_grad_norm)
            optimizer.step()
            losses.append(float(loss.detach()))
            value_losses.append(float(value_loss.detach()))
    for group, rate in zip(optimizer.param_groups, before):
        group["lr"] = rate
    return float(np.mean(losses[-10:])), float(np.mean(value_losses[-10:]))
