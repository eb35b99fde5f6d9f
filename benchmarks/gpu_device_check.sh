#!/usr/bin/env bash
# Everything the GPU face needs a real GPU for, in one run of at most about 7 minutes
# on a machine with an NVIDIA GPU, python3 with torch, numba and numba-cuda, and no
# network: the GPU tests, benchmarks/gpu.py (full), and a short PPO run on the GPU.
# Results go to $OUT (8 files at most): check.log (this script's account), versions.txt,
# tests.txt and tests.xml, bench.txt and gpu.csv, ppo.txt and ppo_log.csv.
#
# Missing packages come as wheels in .whl/ (git-ignored; see the end of this file for
# how to fill it): open_spiel and choix, which the library needs, numpy 2.4 (numba-cuda
# 0.30.4 fails to import with numpy 2.5) and numba-cuda 0.30.4. They are installed
# into /tmp/site, ahead of the machine's own packages on PYTHONPATH.
#
#   OUT=/tmp/gpu-check bash benchmarks/gpu_device_check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu-check}
mkdir -p "$OUT"
START=$SECONDS
say() { echo "[$((SECONDS - START)) s] $*" | tee -a "$OUT/check.log"; }

say "install: $(ls .whl/*.whl 2>/dev/null | xargs -n1 basename 2>/dev/null | tr '\n' ' ')"
if ls .whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
        .whl/*.whl >>"$OUT/check.log" 2>&1 || say "pip install failed (rc $?)"
    export PYTHONPATH=/tmp/site:$PWD
else
    export PYTHONPATH=$PWD
fi
# Kernels compiled by the tests are kept on disk (numba's caches beside the sources)
# for the benchmark and the PPO run.
{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
    nproc
    python3 - <<'EOF' 2>&1
import numpy, numba, torch
print("numpy", numpy.__version__, "numba", numba.__version__, "torch", torch.__version__, "cuda", torch.cuda.is_available())
from numba import cuda
print("numba.cuda", getattr(cuda, "implementation", "?"), cuda.__file__, "available", cuda.is_available())
import elements_ai
from elements_ai.core import cuda as gpu
print("elements_ai", elements_ai.__file__, "gpu face available:", gpu.available(), gpu._unavailable())
EOF
} >"$OUT/versions.txt"
say "versions: $(tr '\n' ' ' <"$OUT/versions.txt" | cut -c1-600)"

say "tests: tests/test_cuda.py on the GPU, slow ones too, one worker per game"
timeout -k 5 210 python3 -m pytest tests/test_cuda.py -m "" -q -p no:cacheprovider -p no:randomly -o addopts="" \
    -n 5 --dist loadgroup -rs --durations=10 --junitxml="$OUT/tests.xml" >"$OUT/tests.txt" 2>&1
say "tests rc $?: $(tail -n 1 "$OUT/tests.txt")"

say "benchmark: benchmarks/gpu.py (full)"
timeout -k 5 180 python3 benchmarks/gpu.py --out "$OUT" >"$OUT/bench.txt" 2>&1
say "benchmark rc $? (1: a target missed); $(grep -c . "$OUT/gpu.csv" 2>/dev/null) lines in gpu.csv"

say "ppo: elements-ai train elements --device cuda, 2^16 envs, 6 iterations of 2^20 env steps"
rm -rf /tmp/ppo-gpu
timeout -k 5 75 python3 -m elements_ai train elements --device cuda --steps 6291456 --out /tmp/ppo-gpu --quiet \
    --set opponents= --set num_envs=65536 --set rollout_steps=16 --set hidden=256_256 --set eval_every=0 \
    --set checkpoint_every=2 >"$OUT/ppo.txt" 2>&1
say "ppo rc $? (124: stopped by its time limit; log.csv holds the iterations checkpointed)"
cp /tmp/ppo-gpu/log.csv "$OUT/ppo_log.csv" 2>/dev/null || say "ppo wrote no log.csv"
say "done"

# Filling .whl/ (on a machine with network, from the project root; about 35 MB):
#   for p in numpy==2.4.6 open_spiel==2.0.2 choix==0.4.1 numba-cuda==0.30.4; do
#     python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#       --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
#       --platform manylinux2014_x86_64 -d .whl "$p"; done
