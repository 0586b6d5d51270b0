#!/usr/bin/env bash
# bench/run.sh: the issue-5 benchmark, one command on a GPU machine (sm_90):
#
#   bash bench/run.sh          build everything in parallel, check, time, report
#   bash bench/run.sh build    build only (no GPU needed: compile-checks it all)
#
# 1. bench/suite/gen.py writes the parmc programs (permutations through
#    `import "perm"` or bmmc with mat [...], the example sorts with their
#    entry size replaced, key-value and batched sorts) and a Makefile;
# 2. xargs -P: parmc --report and parmc for each program, nvcc for each, the
#    library wrappers (CUB, thrust) and the driver, all in parallel; each
#    program's context functions are renamed so that all link into one binary;
# 3. the driver (bench/suite/main.cu): copies (16-byte kernel, cudaMemcpy),
#    then every program checked element by element (naive gather on the GPU
#    for permutations, CUB for sorts) and timed against the libraries;
#    torch.sort in a second process when `import torch` works;
# 4. bench/graph: issue 12's entry graphs (reduce over 2^28 i32 against a read-only
#    kernel, a zipped key-value sort against pairs), appended to the report;
# 5. bench/suite/report.py: DATE-GPU.md (tables, ratios, pass counts,
#    targets) and DATE-GPU.csv (all numbers) in $OUT, or bench/results/.
#    Plots: python3 bench/plot.py bench/results/DATE-GPU.csv (run anywhere).
#
# Environment: PARMC (default build/parmc, made when missing), PARMC_NOTE
# (where that parmc comes from, written into the report), PARMC_FLAGS
# (options of every parmc program's compile, e.g. --tile-buffers 2; named
# in the report), BENCH_ONLY (a regular expression: only the programs whose
# names match, and no entry graphs), JOBS (default nproc), BENCH_WORK (the build directory,
# default a new temporary one), OUT (where the report goes).
set -u -o pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)
PARMC=${PARMC:-build/parmc}
[ -x "$PARMC" ] || make build/parmc || exit 1
PARMC=$(realpath "$PARMC")
W=${BENCH_WORK:-$(mktemp -d)}
DEST=${OUT:-bench/results}
JOBS=${JOBS:-$(nproc)}
NVCC="nvcc -O3 -arch=sm_90"
mkdir -p "$DEST" "$W"
echo "== work directory $W, $JOBS jobs, $(nvcc --version | tail -1)"

python3 bench/suite/gen.py programs "$W" || exit 1
PARMC_FLAGS=${PARMC_FLAGS:-}
export PARMC PARMC_FLAGS NVCC
xargs -P "$JOBS" -n 1 sh <"$W/jobs.txt" >"$W/build.log" 2>&1 ||
    { echo "== some builds failed (the others go on):"; grep -A30 FAILED "$W/build.log" | head -60; }
for o in main libs_radix libs_merge libs_thrust libs_seg libs_segradix; do
    [ -f "$W/$o.o" ] || { echo "missing $W/$o.o"; cat "$W/build.log"; exit 1; }
done
python3 bench/suite/gen.py table "$W" || exit 1
$NVCC -Ibench/suite -c "$W/table.cu" -o "$W/table.o" || exit 1
OBJS=$(python3 -c "import json,os,sys; d=sys.argv[1]; print(' '.join(d+'/'+p['name']+'.o' for p in json.load(open(d+'/manifest.json')) if os.path.exists(d+'/'+p['name']+'.o')))" "$W")
$NVCC "$W/main.o" "$W"/libs_*.o "$W/table.o" $OBJS -o "$W/bench" || exit 1
mkdir -p "$W/graph"
[ -n "${BENCH_ONLY:-}" ] ||
    GRAPH_WORK="$W/graph" PARMC="$PARMC" bash bench/graph/run.sh build >>"$W/build.log" 2>&1 || echo "== bench/graph failed to build (see $W/build.log)"
T1=$(date +%s)
echo "== built in $((T1 - T0)) s; slowest jobs:"; sort -k4 -n -r "$W/build.log" | grep "^built" | head -4
[ "${1:-}" = build ] && exit 0

GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
SHORT=$(echo "$GPU" | grep -o -i -E 'h100|h200|a100|b200|l40s|rtx ?[0-9]+' | head -1 | tr 'A-Z ' 'a-z-')
DATE=$(date -u +%F)
BASE="$DEST/$DATE-${SHORT:-gpu}"
CSV="$BASE.csv"
echo "== $GPU; results to $BASE.{md,csv,log}"
timeout 300 "$W/bench" 2>&1 >"$CSV" | tee "$W/bench.log"
RC=${PIPESTATUS[0]}
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
    TORCH="$(python3 -c 'import torch; print(torch.__version__)')"
    timeout 100 python3 bench/suite/torch_sort.py 2>&1 >>"$CSV" | tee -a "$W/bench.log"
else
    TORCH="not available (python3 -c 'import torch' failed): no torch columns"
    echo "== torch: $TORCH"
fi
# issue 12's entry graphs (bench/graph/main.cu): reductions against a
# read-only kernel, the zipped key-value sort against pairs
if [ -x "$W/graph/graph_bench" ]; then
    timeout 300 "$W/graph/graph_bench" >"$W/graph.txt" 2>&1 || RC=1
    cat "$W/graph.txt" | tee -a "$W/bench.log"
fi
T2=$(date +%s)
cat "$W/build.log" "$W/bench.log" >"$BASE.log"
grep -h . "$W"/*.report >"$BASE.reports.txt" 2>/dev/null
python3 bench/suite/report.py "$CSV" "$W" \
    "# Benchmark run (issue 5): $GPU, $DATE" "" \
    "Command: \`bash bench/run.sh\`; parmc: $PARMC (sha256 $(sha256sum "$PARMC" | cut -c1-12))${PARMC_FLAGS:+ $PARMC_FLAGS}${PARMC_NOTE:+, $PARMC_NOTE}; $(nvcc --version | tail -1 | sed 's/^Build //'); driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1); torch $TORCH." \
    "Wall time: build $((T1 - T0)) s on $JOBS cores, checks and timings $((T2 - T1)) s. Numbers: \`$(basename "$CSV")\`; parmc --report of every program: \`$(basename "$BASE").reports.txt\`; plots: \`python3 bench/plot.py $(basename "$CSV")\`." \
    >"$BASE.md" || echo "report.py failed"
[ -f "$W/graph.txt" ] && printf '\n## Entry graphs (bench/graph)\n\n```\n%s\n```\n' "$(cat "$W/graph.txt")" >>"$BASE.md"
cat "$BASE.md"
echo "== done in $(($(date +%s) - T0)) s, driver exit status $RC"
exit "$RC"
