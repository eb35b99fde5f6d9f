"""Retraining a shipped agent: on which machines its bits come back, and how its play is
checked everywhere else.

A recipe run twice on one machine gives the same bits. On another machine it need not:
torch, numpy and the BLAS libraries choose their kernels by the processor's instruction
sets (AVX2, AVX-512, AMX), kernels of different widths add in different orders, and
over hundreds of thousands of PPO updates those last-bit differences grow into other
weights. ``arithmetic()`` records what decides a run's floating-point arithmetic (the
processor, its vector instruction sets, the kernels torch and numba chose, the library
versions); ``zoo train`` stores it with each run (``trained_on``), and the manifest also
lists the machines where a full-length retrain gave a shipped file's bits
(``reproduced_on``). The bits are compared where one of those matches this machine.

The CFR recipes add, multiply, divide and take maxima in numba, which compiles them
without fast-math and so in IEEE order on any instruction set, and call no BLAS: their
bits come back on any machine. Elsewhere a network is held to how it plays:
``Yardstick`` measures a network for a game small enough to solve exactly (its exact
exploitability, its expected return against ``rules``, its action probabilities at
every information set), and ``BANDS`` states where a fresh draw of its recipe lands.

>>> record = arithmetic()
>>> sorted(record)
['cpu', 'numba', 'numba_target', 'numpy', 'python', 'settings', 'simd', 'torch', 'torch_kernels']
>>> same_arithmetic(record, dict(record))
True
>>> same_arithmetic(record, {**record, "torch_kernels": "AMX"})
False
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from ..tables import cpu_model
from ..zoo import Recipe

# The vector instruction sets, as LLVM names them, that decide which kernels the
# libraries run (x86: SSE to AVX-512 and AMX; Arm: NEON, SVE).
_SIMD = ("sse", "ssse3", "avx", "fma", "f16c", "amx", "neon", "sve")
# Settings that override the libraries' choice of kernels, recorded when set.
_SETTINGS = ("ATEN_CPU_CAPABILITY", "NPY_DISABLE_CPU_FEATURES", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES",
             "OPENBLAS_CORETYPE", "MKL_ENABLE_INSTRUCTIONS", "MKL_CBWR", "DNNL_MAX_CPU_ISA", "ONEDNN_MAX_CPU_ISA")


def arithmetic() -> dict[str, Any]:
    """What decides this machine's floating-point results: the processor (``cpu``), its
    vector instruction sets (``simd``), the kernels torch dispatches to
    (``torch_kernels``: ``DEFAULT``, ``AVX2``, ``AVX512``...) and the processor numba
    compiles for (``numba_target``), the Python, numpy, numba and torch versions
    (``torch`` None without it), and any ``settings`` that override those choices."""
    import llvmlite.binding as llvm
    import numba

    features = llvm.get_host_cpu_features()
    simd = sorted(name for name, on in features.items() if on and name.startswith(_SIMD))
    try:
        import torch

        torch_version, kernels = torch.__version__, torch.backends.cpu.get_cpu_capability()
    except ImportError:
        torch_version = kernels = None
    return {
        "cpu": cpu_model(),
        "simd": " ".join(simd),
        "torch_kernels": kernels,
        "numba_target": numba.config.CPU_NAME or llvm.get_host_cpu_name(),
        "python": platform.python_version(),
        "numpy": metadata.version("numpy"),
        "numba": metadata.version("numba"),
        "torch": torch_version,
        "settings": {name: os.environ[name] for name in _SETTINGS if os.environ.get(name)},
    }


def same_arithmetic(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two ``arithmetic()`` records promise the same bits (every field equal)."""
    return all(a.get(key) == b.get(key) for key in set(a) | set(b) if key != "commit")


def describe(record: dict[str, Any]) -> str:
    """One line naming a machine by its ``arithmetic()`` record.

    >>> describe({"cpu": "EPYC", "simd": "avx avx2 fma", "torch_kernels": "AVX2", "numba_target": "znver1",
    ...           "python": "3.11.7", "numpy": "2.4.6", "numba": "0.68.1", "torch": "2.13.0", "settings": {}})
    'EPYC (avx avx2 fma; torch kernels AVX2, numba for znver1), Python 3.11.7, numpy 2.4.6, numba 0.68.1, torch 2.13.0'
    """
    settings = "".join(f", {k}={v}" for k, v in sorted(record.get("settings", {}).items()))
    return (f"{record.get('cpu')} ({record.get('simd')}; torch kernels {record.get('torch_kernels')}, numba for "
            f"{record.get('numba_target')}{settings}), Python {record.get('python')}, numpy {record.get('numpy')}, "
            f"numba {record.get('numba')}, torch {record.get('torch')}")


def known_machines(listed: dict[str, Any]) -> list[dict[str, Any]]:
    """The machines a manifest entry promises its bits on: the one that trained it, where
    recorded, and those where a full-length retrain gave the same bits."""
    return [m for m in [listed.get("trained_on"), *listed.get("reproduced_on", [])] if m]


def bits_expected(entry: Recipe, listed: dict[str, Any], here: dict[str, Any] | None = None) -> str | None:
    """``None`` where a full-length run of ``entry`` on this machine should give the
    shipped file's bits; else why not, naming the machines (a CFR policy's bits are
    expected anywhere)."""
    if entry.kind == "cfr":
        return None
    here = arithmetic() if here is None else here
    machines = known_machines(listed)
    if any(same_arithmetic(here, m) for m in machines):
        return None
    if not machines:
        return (f"{entry.name} names no machine that gave its bits (it was trained before machines were "
                f"recorded); this machine: {describe(here)}")
    known = "; ".join(describe(m) for m in machines)
    return f"{entry.name} gave its bits on {known}; not on this machine: {describe(here)}"


# Where a full-length run of a network recipe lands, by recipe: each measure's lowest
# and highest value, ``band_of`` the draws of the recipe with other seeds that
# ``experiments/reproduce.py --seeds`` measured (experiments/results/reproduce/draws.md).
# PPO's exploitability varies widely from draw to draw (0.73 to 1.07 over ten), so its
# band catches only a gross fault; the return against rules is the sharper of the two.
BANDS: dict[str, dict[str, tuple[float, float]]] = {
    "ppo-elements-small": {"exploitability": (0.339, 1.503), "versus_rules": (0.918, 1.568)},
}
MEASURES = ("exploitability", "versus_rules")
_MISS = 0.001  # the chance that a draw of the recipe falls outside its band, were draws normal


def band_of(draws: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """The band of each of ``MEASURES`` that a new draw of a recipe falls in but for a
    ``_MISS`` chance: the draws' mean plus or minus Student's t quantile times their
    standard deviation times sqrt(1 + 1/n) (a prediction interval), rounded out to 3 places.

    >>> band_of({"exploitability": [0.90, 0.93, 0.96, 0.92, 0.94, 0.91, 0.95, 0.89],
    ...          "versus_rules": [1.24, 1.28, 1.22, 1.26, 1.25, 1.27, 1.23, 1.29]})
    {'exploitability': (0.784, 1.066), 'versus_rules': (1.114, 1.396)}
    """
    from scipy import stats

    band = {}
    for name in MEASURES:
        values = np.asarray(draws[name], float)
        n = len(values)
        if n < 3:
            raise ValueError(f"a band needs 3 draws or more, got {n}")
        half = stats.t.ppf(1 - _MISS / 2, n - 1) * values.std(ddof=1) * np.sqrt(1 + 1 / n)
        band[name] = (float(np.floor((values.mean() - half) * 1000) / 1000),
                      float(np.ceil((values.mean() + half) * 1000) / 1000))
    return band


@dataclasses.dataclass(frozen=True)
class Behaviour:
    """How an agent plays a game the solvers solve, measured exactly on its whole tree.

    ``exploitability``: what a best response wins from it, per player (0 at an
    equilibrium); ``versus_rules``: its expected return against ``rules``, the mean of
    its two seats; ``probs``: its action probabilities, one per sequence of the tree."""

    exploitability: float
    versus_rules: float
    probs: np.ndarray

    def outside(self, band: dict[str, tuple[float, float]]) -> list[str]:
        """The measures that fall outside ``band`` (one of ``BANDS``), each as a phrase."""
        return [f"{name} {getattr(self, name):.4f} outside [{low:.3f}, {high:.3f}]"
                for name, (low, high) in band.items() if not low <= getattr(self, name) <= high]


@dataclasses.dataclass(frozen=True)
class Likeness:
    """How alike two agents play, over the ``infosets`` information sets where there is
    a choice: the largest difference of an action's probability, and the share of
    them where their most likely actions agree."""

    max_difference: float
    greedy_agreement: float
    infosets: int


class Yardstick:
    """Measures agents of a two-player game that ``build_tree`` flattens whole.

    ``rules`` is asked ``samples`` times at every information set (``bot_policy``):
    its action frequencies are the opponent every agent is measured against.
    """

    def __init__(self, game, samples: int = 8):
        from ..solvers import build_tree
        from ..solvers.agents import bot_policy

        if game.num_players() != 2:
            raise ValueError(f"{game}: a yardstick needs a two-player game")
        self.game = game
        self.tree = build_tree(game)
        self.rules = bot_policy(self.tree, "rules", samples=samples, seed=0)
        sizes = np.diff(self.tree.infoset_first)
        self._owner = np.repeat(self.tree.infoset_player, sizes)
        self._choices = np.flatnonzero(sizes > 1)

    def probs(self, spec: str) -> np.ndarray:
        """The policy a network bot (``ppo:ckpt=FILE``) plays, one probability per sequence."""
        from ..agents import make_bot

        tree = self.tree
        bots = [make_bot(spec, self.game, player, seed=player) for player in range(2)]
        out = np.ones(tree.num_sequences)
        for infoset in self._choices:
            first, stop = int(tree.infoset_first[infoset]), int(tree.infoset_first[infoset + 1])
            played = bots[int(tree.infoset_player[infoset])].played_policy(tree.state(int(infoset)))
            out[first:stop] = [played[int(a)] for a in tree.sequence_action[first:stop]]
        return out

    def measure(self, path: str | Path) -> Behaviour:
        """The behaviour of the network in the file ``path``."""
        from ..solvers import evaluate_probs

        probs = self.probs(f"ppo:ckpt={Path(path).resolve()}")
        seats = [evaluate_probs(self.tree, np.where(self._owner == seat, probs, self.rules)).policy_values[seat]
                 for seat in range(2)]
        return Behaviour(float(evaluate_probs(self.tree, probs).exploitability), float(np.mean(seats)), probs)

    def likeness(self, a: Behaviour, b: Behaviour) -> Likeness:
        """How alike ``a`` and ``b`` play (``Likeness``)."""
        tree, worst, agree = self.tree, 0.0, 0
        for infoset in self._choices:
            first, stop = int(tree.infoset_first[infoset]), int(tree.infoset_first[infoset + 1])
            worst = max(worst, float(np.abs(a.probs[first:stop] - b.probs[first:stop]).max()))
            agree += int(np.argmax(a.probs[first:stop]) == np.argmax(b.probs[first:stop]))
        return Likeness(worst, agree / max(len(self._choices), 1), len(self._choices))


def differing_arrays(a: str | Path, b: str | Path) -> list[str]:
    """The arrays in which two shipped-form files (``.npz``) differ, by name; their
    ``meta`` and ``header``, which carry the commit and the training time, left aside."""
    with np.load(a) as first, np.load(b) as second:
        if set(first.files) != set(second.files):
            return sorted(set(first.files) ^ set(second.files))
        return [key for key in first.files
                if key not in ("meta", "header") and not np.array_equal(first[key], second[key])]


def record_reproduction(name: str, commit: str, here: dict[str, Any] | None = None) -> None:
    """Lists this machine (``here``: its ``arithmetic()``) in the manifest as one where a
    full-length run of ``name`` at ``commit`` gave the shipped file's bits."""
    from ..files import atomic_write
    from ..zoo import MANIFEST, manifest

    listed = manifest()
    if name not in listed:
        raise ValueError(f"{name} is not shipped")
    here = arithmetic() if here is None else here
    if any(same_arithmetic(here, m) for m in known_machines(listed[name])):
        return
    listed[name].setdefault("reproduced_on", []).append({**here, "commit": commit})
    with atomic_write(MANIFEST, "w") as handle:
        json.dump(listed, handle, indent=2, sort_keys=True)
        handle.write("\n")
