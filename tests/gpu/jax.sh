#!/usr/bin/env bash
# The JAX path on a GPU machine (docs/python.md, "JAX"), from the repository
# root with a built parmc (build/parmc) and jax with its CUDA backend:
# tests/python/test_jax.py on the CUDA target (entries and drop-ins on GPU
# arrays, under jit and vmap, against jnp.sort, jnp.argsort and
# jax.lax.top_k), then bench/topk/jax_topk.py (parmc.topk against
# jax.lax.top_k under jit). Results go to stdout and, when $OUT is set, to
# $OUT/jax-report.md.
set -u
cd "$(dirname "$0")/../.."
export PARMC=${PARMC:-$PWD/build/parmc}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export PARMC_CACHE=${PARMC_CACHE:-$W/cache}
REPORT=${OUT:-$W}/jax-report.md
: >"$REPORT"
echo "# JAX on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(date -u +%F)" | tee -a "$REPORT"
python3 -c 'import jax; print("jax", jax.__version__, jax.devices())' 2>&1 | tail -1 | tee -a "$REPORT"
PARMC_TEST_TARGET=cuda python3 tests/python/run.py test_jax >"$W/out" 2>"$W/err"
status=$?
tee -a "$REPORT" <"$W/out"
[ $status -eq 0 ] || sed -n '1,80p' "$W/err"
PYTHONPATH=python python3 bench/topk/jax_topk.py 2>&1 | tee -a "$REPORT"
exit $status
