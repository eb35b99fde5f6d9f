"""The three families of agents side by side: solver (CFR), self-play (PPO), search (IS-MCTS).

    python experiments/compare_families.py            # full run (about a quarter of an hour on 2 cores)
    python experiments/compare_families.py --quick    # a few games (seconds), into a temporary folder

1. ``families``: on the small ``elements`` variant, which CFR solves exactly, and on
   the full ``elements`` game, one round robin (``elements_ai.eval.tournament``)
   between the shipped agents (``elements_ai.zoo``: ``cfr`` on the small variant,
   ``ppo`` on both), IS-MCTS at 1,000 simulations, ``rules`` and ``random``, with each
   agent's exact exploitability on the small variant (``elements_ai.solvers``). Each
   row names the algorithm that made the agent and its recipe. On the full game the
   approximate figures of ``approx_exploitability.py`` stand in (a learned best
   response).
2. ``search_options``: MCTS and IS-MCTS whose playouts are played by the ``rules``
   heuristic (``rollout=rules``) or cut after ``depth`` decisions, against ``rules``.

The shipped PPO's strength against ``random`` and ``rules`` is ``baselines.py``'s
table. ``--ckpt GAME=PATH`` plays a PPO run of one's own (``elements-ai train``) for
GAME instead of the shipped network. The games start from the evaluation seeds
(``_common.EVAL_SEED``) unless ``--seed`` says otherwise. Writes CSV, Markdown and
PNG files under ``experiments/results/compare_families/``, ``<part>.run.json``
(the command, seed, commit and machine of the run that wrote each part) and
``run.json`` (those of a run of every part).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from _common import folder_name, parser, results_folder, run_record, seed_of, shipped, trained_at, write_run
from approx_exploitability import SMALL, exact_exploitability
from strength import markdown, plot, strength_rows

import elements_ai
from elements_ai.eval import pairwise, ratings, tournament
from elements_ai.tables import provenance, write_csv

FULL = "elements"
PARTS = ("families", "search_options")
FAMILIES_GAMES = 200  # games a pairing in the families' round robins (quick: 2)


def family_agents(game: str, sims: int, ckpts: dict[str, str]) -> tuple[list[str], dict[str, dict]]:
    """The agents of ``game``'s round robin, and what made each: the algorithm, the
    recipe (a shipped agent's recipe name, the path of a user's run) and the recipe's
    steps (solver iterations for CFR)."""
    agents, made = [], {}
    canonical = str(elements_ai.load_game(game))
    cfr = shipped("cfr", game) if game == SMALL else None
    if cfr is not None:
        agents.append("cfr")
        made["cfr"] = {"algorithm": cfr.algorithm, "recipe": cfr.name, "steps": cfr.steps, "entry": cfr}
    if canonical in ckpts:
        spec = f"ppo:ckpt={ckpts[canonical]}"
        agents.append(spec)
        made[spec] = {"algorithm": "ppo", "recipe": ckpts[canonical]}
    elif (ppo := shipped("ppo", game)) is not None:
        agents.append("ppo")
        made["ppo"] = {"algorithm": ppo.algorithm, "recipe": ppo.name, "steps": ppo.steps, "entry": ppo}
    else:
        print(f"{game}: no shipped ppo and no --ckpt: no PPO agent", file=sys.stderr)
    search = f"ismcts:sims={sims}"
    agents += [search, "rules", "random"]
    made[search] = {"algorithm": "ismcts", "recipe": ""}
    made.update({name: {"algorithm": name, "recipe": ""} for name in ("rules", "random")})
    return agents, made


def families(args, seed: int, out: Path, ckpts: dict[str, str]) -> tuple[pd.DataFrame, list]:
    """The round robins and exploitability; the table and the shipped recipes it played."""
    sims = 20 if args.quick else 1000
    games_per_pair = 2 if args.quick else FAMILIES_GAMES
    samples = 2 if args.quick else 32  # moves asked per information set of a bot that samples its moves
    workers = args.workers or (1 if args.quick else None)
    rows, entries = [], []
    for game in (SMALL, FULL):
        agents, made = family_agents(game, sims, ckpts)
        entries += [m["entry"] for m in made.values() if "entry" in m]
        games = tournament(game, agents, games_per_pair, seed=seed, workers=workers,
                           out=out / "families" / folder_name(game), progress=not args.quick)
        rated = ratings(games, seed=seed).set_index("agent")
        table = pairwise(games)
        for agent in agents:
            exploitability = None
            if game == SMALL:
                exploitability = exact_exploitability(elements_ai.load_game(game), agent, seed=seed, samples=samples)
            mine = table[table["agent"] == agent]
            rows.append({
                "game": game, "agent": short(agent), "family": family(agent),
                "algorithm": made[agent]["algorithm"], "recipe": made[agent]["recipe"],
                "steps": made[agent].get("steps"),
                "rating": rated.loc[agent, "rating"], "rating_low": rated.loc[agent, "ci_low"],
                "rating_high": rated.loc[agent, "ci_high"], "score": rated.loc[agent, "score"],
                "games": int(rated.loc[agent, "games"]),
                **{f"vs {short(o)}": s for o, s in zip(mine["opponent"], mine["score"])},
                "exploitability": exploitability,
            })
    return pd.DataFrame(rows), entries


def short(agent: str) -> str:
    """An agent's name without a file path: ``ppo:ckpt=runs/x`` → ``ppo``."""
    return agent.split(":")[0] if agent.startswith(("ppo", "cfr", "mccfr", "az")) else agent


def family(agent: str) -> str:
    name = agent.split(":")[0]
    return {"cfr": "solver", "mccfr": "solver", "ppo": "self-play", "az": "self-play", "ismcts": "search",
            "mcts": "search"}.get(name, "baseline")


def families_markdown(table: pd.DataFrame) -> str:
    """The families table: each agent's algorithm, Elo, score against ``rules`` and
    ``random``, and exact exploitability where it was computed."""
    lines = ["| game | agent | algorithm (recipe) | Elo [95%] | vs `rules` | vs `random` | exploitability |",
             "|---|---|---|---|---|---|---|"]
    for r in table.to_dict("records"):
        game = "`elements` small" if r["game"] == SMALL else f"`{r['game']}`"
        made = r["algorithm"]
        if r["steps"] == r["steps"] and r["steps"] is not None:
            made += f", {int(r['steps']):,} {'iterations' if r['family'] == 'solver' else 'steps'}"
        if isinstance(r["recipe"], str) and r["recipe"]:
            made += f" (`{r['recipe']}`)"
        scores = []
        for opponent in ("rules", "random"):
            score = r.get(f"vs {opponent}")
            scores.append("—" if score is None or score != score else f"{score:.2f}")
        exploit = r["exploitability"]
        exploit = "" if exploit is None or exploit != exploit else (
            f"{exploit:.1e}" if exploit < 1e-3 else f"{exploit:.3f}")
        lines.append(f"| {game} | `{r['agent']}` | {made} | {_elo(r['rating'])} [{_elo(r['rating_low'])}, "
                     f"{_elo(r['rating_high'])}] | {scores[0]} | {scores[1]} | {exploit} |")
    return "\n".join(lines) + "\n"


# Games a pairing in the search-options table: rules-played playouts cost a quarter
# of a second a move in elementos at 1,000 simulations.
SEARCH_GAMES = {"elemental_duel": 100, "elementos": 40, "elements": 100}


def search_options(args, seed: int, out: Path) -> pd.DataFrame:
    sims = 20 if args.quick else 1000
    workers = args.workers or (1 if args.quick else None)
    variants = [f"mcts:sims={sims}", f"mcts:sims={sims},rollout=rules", f"mcts:sims={sims},depth=20",
                f"mcts:sims={sims},rollout=rules,depth=20", f"ismcts:sims={sims}", f"ismcts:sims={sims},rollout=rules"]
    rows = []
    for game in ("elemental_duel", "elementos", "elements"):
        games_per_pair = 4 if args.quick else SEARCH_GAMES[game]
        games = tournament(game, ["rules", *variants], games_per_pair, seed=seed, mode="gauntlet",
                           workers=workers, out=out / "search_options" / folder_name(game), progress=not args.quick)
        rows += [row for row in strength_rows(game, games, ["rules"]) if row["agent"] != "rules"]
    return pd.DataFrame(rows)


def plot_families(table: pd.DataFrame, path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10.0, 3.6), layout="constrained")
    colours = {"solver": "tab:purple", "self-play": "tab:green", "search": "tab:blue", "baseline": "tab:gray"}
    for panel, (game, rows) in enumerate(table.groupby("game", sort=False)):
        axes = figure.add_subplot(1, 2, panel + 1)
        x = np.arange(len(rows))
        axes.bar(x, rows["rating"], color=[colours[f] for f in rows["family"]],
                 yerr=[rows["rating"] - rows["rating_low"], rows["rating_high"] - rows["rating"]], capsize=3)
        labels = [a.split(":")[0] + ("" if pd.isna(e) else f"\nexpl. {e:.3f}")
                  for a, e in zip(rows["agent"], rows["exploitability"])]
        axes.set_xticks(x, labels, fontsize=8)
        axes.set_ylabel("Elo (95% bootstrap interval)")
        axes.set_title(game, fontsize=9)
    FigureCanvasAgg(figure)
    figure.savefig(path, dpi=100, metadata={"Software": None})


def _elo(value: float) -> str:
    text = f"{value:.0f}"
    return "0" if text == "-0" else text


def ckpt_pair(pair: str) -> tuple[str, str]:
    """``GAME=PATH`` → (the canonical game string, PATH); GAME may hold ``=`` in its parentheses."""
    cut = pair.index(")=") + 1 if ")=" in pair else pair.find("=")
    if cut <= 0 or not pair[cut + 1:]:
        raise SystemExit(f"--ckpt {pair}: give GAME=PATH")
    return str(elements_ai.load_game(pair[:cut])), pair[cut + 1:]


def main(argv: list[str] | None = None) -> None:
    args = parser("compare_families", __doc__.split("\n\n")[0])
    args.add_argument("--ckpt", action="append", default=[], metavar="GAME=PATH",
                      help="a PPO run of your own to play for GAME instead of the shipped network (repeatable)")
    args.add_argument("--parts", nargs="*", choices=PARTS, default=list(PARTS))
    args = args.parse_args(argv)
    measured_with = provenance()  # at the start: the commit may move while the run goes on
    seed = seed_of(args)
    out = results_folder("compare_families", args.out, args.quick)
    out.mkdir(parents=True, exist_ok=True)
    ckpts = dict(ckpt_pair(pair) for pair in args.ckpt)
    records = {}
    if "families" in args.parts:
        table, entries = families(args, seed, out, ckpts)
        write_csv(table, out / "families.csv")
        (out / "families.md").write_text(families_markdown(table))
        plot_families(table, out / "families.png")
        records["families"] = dict(games_a_pairing=2 if args.quick else FAMILIES_GAMES, agents=trained_at(entries))
        print(table.to_string(index=False))
    if "search_options" in args.parts:
        table = search_options(args, seed, out)
        write_csv(table, out / "search_options.csv")
        agents = list(dict.fromkeys(table["agent"]))
        (out / "search_options.md").write_text(markdown(table, agents, ["rules"]))
        plot(table, agents, ["rules"], out / "search_options.png", "search with heuristic playouts against rules")
        records["search_options"] = dict(games_a_pairing=4 if args.quick else SEARCH_GAMES)
        print(table.to_string(index=False))
    # Each part records the run that wrote it; run.json, a run of every part.
    for part, fields in records.items():
        write_run(out / f"{part}.run.json", run_record("compare_families.py", argv, measured_with, seed=seed,
                                                       part=part, **fields))
    if set(records) == set(PARTS):
        write_run(out / "run.json", run_record("compare_families.py", argv, measured_with, seed=seed,
                                               parts=records))
    print(f"results in {out}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main(sys.argv[1:])
