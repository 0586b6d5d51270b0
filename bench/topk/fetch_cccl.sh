#!/usr/bin/env bash
# fetch_cccl.sh: the CUB of CCCL 3.5 or newer (DeviceBatchedTopK; CUDA 13.0's own CUB has
# none) from PyPI's cuda-cccl wheel, on a machine with network access: only the header tree
# (cuda/cccl/headers/include, about 27 MB) is unpacked, into build/cccl/include, so that it can
# be carried to the GPU machine (run.sh finds it there, or at $CCCL_INCLUDE).
#     bench/topk/fetch_cccl.sh [version]      e.g. 1.2.1 (CCCL 3.6.0); default: the newest
set -eu
cd "$(dirname "$0")/../.."
dest=build/cccl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
spec=cuda-cccl${1:+==$1}
python3 -m pip download --quiet --no-deps --only-binary=:all: "$spec" -d "$tmp"
wheel=$(ls "$tmp"/cuda_cccl-*.whl | head -1)
rm -rf "$dest/include" && mkdir -p "$dest"
python3 - "$wheel" "$dest" <<'PY'
import sys, zipfile
prefix = "cuda/cccl/headers/include/"
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in z.namelist():
        if name.startswith(prefix) and not name.endswith("/") and not name.endswith("__init__.py"):
            target = sys.argv[2] + "/include/" + name[len(prefix):]
            import os; os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as f:
                f.write(z.read(name))
PY
basename "$wheel" > "$dest/WHEEL"
test -f "$dest/include/cub/device/device_batched_topk.cuh" || { echo "no DeviceBatchedTopK in $(cat $dest/WHEEL)" >&2; exit 1; }
echo "$(cat $dest/WHEEL): CUB_VERSION $(sed -n "s/^#define CUB_VERSION \([0-9]*\).*/\1/p" $dest/include/cub/version.cuh), $(du -sh $dest/include | cut -f1) in $dest/include"
