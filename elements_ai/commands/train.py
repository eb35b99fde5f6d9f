"""``elements-ai train``: self-play training from the command line (torch is imported
only when the command runs)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from . import seed_value

EXAMPLES = """examples:
  elements-ai train elements --steps 2048 --out runs/elements      the shipped agent's recipe, cut short
  elements-ai train "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)" --steps 2048 --out runs/small
  elements-ai train "elementos(setup=standard)" --steps 2048 --out runs/elementos --set opponents=rules \\
      --set hidden=32_32
  elements-ai train "elementos(setup=standard)" --algorithm az --steps 512 --out runs/az \\
      --set imitation_steps=2048
  elements-ai train "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)" --algorithm mmd --steps 4096 --out mmd
  elements-ai train "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)" --algorithm nfsp --steps 16384 \\
      --out runs/nfsp
  elements-ai train "elements(single_round=true,deck=1_2_3_6_6_6,hand_size=2)" --algorithm psro --steps 2048 \\
      --out runs/psro --set br_steps=1024 --set num_envs=16 --set rollout_steps=8
  elements-ai train elements --steps 2048 --out runs/ray --backend ray --actors 2

On an NVIDIA GPU (the gpu extra), --device cuda runs PPO's games and network there, against
the league alone: add --set opponents= to a recipe with fixed bots, and --set num_envs=65536
or so to fill the GPU.

Real runs take more steps: the recipes' (elements-ai zoo list) take hundreds of thousands
to millions, some after an imitation phase of their own.

A game with a shipped agent trains by its recipe (steps, seed, hyperparameters), unless
--steps, --seed or --set say otherwise; other games start from the trainer's defaults.
Running it again with the same --out resumes the run from its latest checkpoint.
PPO and MMD start a new run from a network's weights with --set init=mmd (or ppo: the
agent shipped for the game) or --set init=PATH (a network file, a training folder or
one of its checkpoints); its hidden layers must be the run's (--set hidden=).
MMD (magnetic mirror descent) is PPO in pure self-play with a magnet: its last policy
approaches a Nash equilibrium of a two-player zero-sum game; --set alpha=, kl_coef=,
anneal_steps= set its temperature and mirror-descent step and their schedule, and
cool_steps=, cool_alpha=, cool_lr= a colder, slower last phase, and average_from= the
step from which the agent is the mean of the learner's weights. NFSP
(neural fictitious self-play) learns a best response and the average of its play, whose
average policy approaches one. PSRO (policy-space response oracles) trains a PPO best
response (--set br_steps=, steps each) to the Nash mixture of the population so far,
ceil(steps / br_steps) times, on a two-player zero-sum game small enough to measure
exactly; the agent is that mixture.

The result plays as a bot: ppo:ckpt=runs/elements (mmd:ckpt=mmd, nfsp:ckpt=runs/nfsp,
psro:ckpt=runs/psro, az:ckpt=runs/az,sims=100), with
the recipe's play settings (--out's play.json: greedy, and for elemental_duel the
exact last duels) unless the spec says otherwise.
"""


def register(commands) -> None:
    parser = commands.add_parser(
        "train",
        help="train a self-play agent (PPO, MMD, NFSP, PSRO or AlphaZero-style; needs torch)",
        description="Train a policy by self-play on the vector env, with checkpoints, a log and a plot in --out.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("game", help='a game name or game string, e.g. "elements(single_round=true)"')
    parser.add_argument("--algorithm", choices=("ppo", "mmd", "nfsp", "psro", "az"), default="ppo",
                        help="ppo, mmd (magnetic mirror descent), nfsp (neural fictitious self-play), psro "
                             "(policy-space response oracles): near-equilibrium learners, or az; default: ppo")
    parser.add_argument("--steps", type=int,
                        help="environment steps in all (a resumed run counts its own; default: the recipe's)")
    parser.add_argument("--out", required=True, help="folder for checkpoints, log.csv and log.png")
    parser.add_argument("--seed", type=seed_value, help="default: the recipe's, else 0")
    parser.add_argument("--backend", choices=("local", "ray"), default="local",
                        help="where self-play runs: this process, or Ray actors (ppo, mmd)")
    parser.add_argument("--actors", type=int, default=2, help="Ray actors for --backend ray (default 2)")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                        help="where PPO's games and networks run (cuda: an NVIDIA GPU, the 'gpu' extra; ppo, mmd)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a hyperparameter (repeatable; lists joined by _, e.g. hidden=128_128, "
                             "opponents=rules_random)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=run_train)


def hyperparameters(cls, pairs: list[str]) -> dict:
    """``--set`` pairs converted to the types of ``cls``'s fields."""
    from ..core.params import ParameterError, convert, parse_pairs

    given = parse_pairs(pairs, "--set")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    out = {}
    for name, text in given.items():
        if name not in fields:
            raise ParameterError(f"--set: unknown hyperparameter {name!r}; they are {', '.join(sorted(fields))}")
        default = fields[name].default
        if isinstance(default, tuple):
            items = [item for item in text.split("_") if item]
            kind = type(default[0]) if default else {"hidden": int, "opponent_weights": float}.get(name, str)
            values = [convert(item, kind) for item in items]
            if any(v is None for v in values):
                raise ParameterError(f"--set: {name}={text!r} must be a list of {kind.__name__} joined by _")
            out[name] = tuple(values)
        else:
            value = convert(text, type(default))
            if value is None:
                raise ParameterError(f"--set: {name}={text!r} must be {type(default).__name__}")
            out[name] = value
    return out


def run_train(args) -> int:
    from ..agents.netbots import PLAY_FILE
    from ..core.params import ParameterError
    from ..files import atomic_write, check_output_folder, folder_lock

    try:
        import torch  # noqa: F401
    except ImportError:
        raise ParameterError("elements-ai train needs PyTorch: pip install torch (a CPU build) or "
                             "'elements-ai[selfplay]'") from None
    from .. import zoo
    from ..loader import load_game
    from ..selfplay.az import AlphaZeroTrainer, AZConfig
    from ..selfplay.mmd import MMDConfig, MMDTrainer
    from ..selfplay.nfsp import NFSPConfig, NFSPTrainer
    from ..selfplay.ppo import PPOConfig, PPOTrainer
    from ..selfplay.psro import PSROConfig, PSROTrainer

    check_output_folder(args.out)
    game = load_game(args.game)
    recipe = zoo.find(args.algorithm, game)
    steps = args.steps if args.steps is not None else recipe.steps if recipe else None
    if steps is None:
        raise ParameterError(f"--steps is required: {game} has no {args.algorithm} recipe "
                             f"(elements-ai zoo list shows the recipes)")
    if steps < 1:
        raise ParameterError(f"--steps must be a positive integer, got {steps}")
    seed = args.seed if args.seed is not None else recipe.seed if recipe else 0
    defaults = dict(recipe.config) if recipe else {}
    if recipe:
        print(f"{args.algorithm} {game}: recipe {recipe.name}", file=sys.stderr)

    def record_play():
        # The agent is the network and how it plays: ppo:ckpt=OUT plays as the recipe's shipped one.
        if recipe and recipe.play:
            Path(args.out).mkdir(parents=True, exist_ok=True)
            with atomic_write(Path(args.out) / PLAY_FILE, "w") as handle:
                json.dump({"recipe": recipe.name, "play": recipe.play}, handle, indent=2, sort_keys=True)

    try:
        if args.algorithm in ("ppo", "mmd"):
            mmd = args.algorithm == "mmd"
            config_class, trainer_class = (MMDConfig, MMDTrainer) if mmd else (PPOConfig, PPOTrainer)
            config = config_class(**{**defaults, **hyperparameters(config_class, args.set)})
            actors = args.actors if args.backend == "ray" else 1
            trainer = trainer_class(game, args.out, config, seed=seed, progress=not args.quiet,
                                    backend=args.backend, actors=actors, device=args.device)
            # Checked and read: from here on the run writes, one run at a time on the folder.
            with trainer, folder_lock(args.out):
                record_play()
                row = trainer.train(steps)
        elif args.algorithm in ("nfsp", "psro"):
            if args.backend != "local" or args.device != "cpu":
                raise ParameterError(f"--backend ray and --device cuda train PPO; {args.algorithm} runs locally "
                                     f"on the CPU")
            config_class, trainer_class = (NFSPConfig, NFSPTrainer) if args.algorithm == "nfsp" else \
                (PSROConfig, PSROTrainer)
            config = config_class(**{**defaults, **hyperparameters(config_class, args.set)})
            trainer = trainer_class(game, args.out, config, seed=seed, progress=not args.quiet)
            with folder_lock(args.out):
                record_play()
                row = trainer.train(steps)
        else:
            if args.backend != "local":
                raise ParameterError("--backend ray runs PPO actors; az runs locally")
            if args.device != "cpu":
                raise ParameterError("--device cuda trains PPO; az runs on the CPU")
            config = AZConfig(**{**defaults, **hyperparameters(AZConfig, args.set)})
            trainer = AlphaZeroTrainer(game, args.out, config, seed=seed, progress=not args.quiet)
            with folder_lock(args.out):
                record_play()
                row = trainer.train(steps)
    except ValueError as error:  # bad hyperparameters, a mismatched checkpoint folder, ...
        raise ParameterError(str(error)) from None
    scores = ", ".join(f"{k[6:]} {v:.3f}" for k, v in row.items() if k.startswith("score_") and k.count("_") == 1)
    print(f"{args.algorithm} {game}: {trainer.env_steps} env steps, iteration {trainer.iteration}"
          + (f"; score vs {scores}" if scores else "") + f"; checkpoints in {args.out}")
    settings = "".join(f",{k}={v}" for k, v in (recipe.play if recipe else {}).items())
    print(f"it plays as {args.algorithm}:ckpt={args.out}" + (f" ({PLAY_FILE}: {settings[1:]})" if settings else ""))
    return 0
