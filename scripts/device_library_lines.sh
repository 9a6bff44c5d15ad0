#!/bin/bash
# Library lines that need packages the GPU machine lacks (it has no network), installed there and measured:
# today FlashInfer's paged decode, paged_attention's library line since issue 37
# (problems/paged_attention/lab/measure_flashinfer.py).
#
#     here:   commit; bash scripts/device_head.sh pack                  -> .scratch/head.commit
#             bash scripts/device_library_lines.sh pack                 -> .scratch/lib-site.tar.xz
#             run with carry [".scratch/lib-site.tar.xz", ".scratch/head.commit"]
#     there:  bash scripts/device_library_lines.sh [measure_flashinfer.py arguments ...]
#
# Why a packed folder and not the wheels: a call carries 64 MiB in all, tracked files included, and the
# tracked tree is ~58 MiB (2026-11-27). The two wheels the GPU image lacks, flashinfer-python 0.5.0 and
# apache-tvm-ffi (cp312), are 10.2 MB as wheels; `pack` installs them here with pip for the GPU machine's
# Python (3.12, /work/.library/device/KINDS.md; PYVER= to change) into a folder and xz-compresses it: 4.6 MB,
# the same files pip would install there. Where the tree is small enough, carry [".whl", ...] instead: with no
# .scratch/lib-site.tar.xz there, every wheel in .whl/ that the machine's Python takes is installed with
# `pip install --no-index --no-deps --target` (a version-specific wheel for another Python is left out).
# If the tree has grown past what fits, `SLIM=1 bash scripts/device_library_lines.sh pack` leaves out
# flashinfer/data/cutlass and data/spdlog (no header of theirs is reached from the FA2 batch decode and prefill
# sources that this line JIT-builds: an include scan of the wheel, 2026-11-27): about 1 MB less (tvm-ffi's
# testing library stays: `import tvm_ffi` loads it, found on the H100 2026-11-27), not the published package's full content (say so beside any number it gives).
# Either way the packages land in /tmp/lib-site, first on PYTHONPATH (the image's torch, triton, click, einops,
# tabulate, packaging and ninja stay as they are), and its bin/ goes first on PATH.
#
# There, it points HEAD at the carried bundle (device_head.sh unpack) so that the JSON names the commit,
# prints FlashInfer's version, then runs the measurement: $OUT/flashinfer_paged.json and .md, the log and
# environment.txt. FlashInfer's JIT builds its kernels (nvcc + ninja) into /tmp/flashinfer-ws; a warm machine
# keeps /tmp between calls, so a second call skips the build. (The scorer's sandboxed worker cannot write
# there: the line file then drops FLASHINFER_WORKSPACE_BASE and builds into the worker's HOME.)
set -euo pipefail
cd "$(dirname "$0")/.."
pack=.scratch/lib-site.tar.xz

if [ "${1:-}" = "pack" ]; then
  pyver="${PYVER:-3.12}"
  tag="cp${pyver/./}"
  wheels=()
  for name in ${LIB_WHEELS:-flashinfer_python-0.5.0 apache_tvm_ffi-}; do
    for w in .whl/"$name"*.whl; do
      case "$w" in *-py3-none-* | *-"$tag"-*) wheels+=("$w") ;; esac
    done
  done
  if [ "${#wheels[@]}" -lt 2 ]; then
    echo "pack: want flashinfer_python-0.5.0 and apache_tvm_ffi ($tag) wheels in .whl/, found: ${wheels[*]:-none}" >&2
    exit 2
  fi
  work="$(mktemp -d)"
  python3 -m pip install -q --no-index --no-deps --no-compile --target "$work/site" --implementation cp \
    --python-version "$pyver" --platform manylinux_2_28_x86_64 --only-binary=:all: "${wheels[@]}"
  if [ -n "${SLIM:-}" ]; then  # files FlashInfer's FA2 decode/prefill JIT sources do not include, nor import needs
    rm -rf "$work/site/flashinfer/data/cutlass" "$work/site/flashinfer/data/spdlog"
  fi
  mkdir -p .scratch
  tar -C "$work/site" -cf - . | xz -9 -T2 > "$pack"
  rm -rf "$work"
  printf 'packed for Python %s%s: %s\n' "$pyver" "${SLIM:+ (SLIM: without cutlass, spdlog)}" "${wheels[*]}"
  tracked=$(git ls-files -z --cached --others --exclude-standard | xargs -0 stat -c %s 2>/dev/null \
    | awk '{s+=$1} END {print s}')
  carried=$(stat -c %s "$pack" $(ls .scratch/head.commit .scratch/head.bundle 2>/dev/null) | awk '{s+=$1} END {print s}')
  awk -v t="$tracked" -v c="$carried" -v p="$(stat -c %s "$pack")" 'BEGIN {
    printf "%s: %.2f MiB; tree %.1f MiB + carried %.1f MiB = %.1f MiB of the 64 MiB a call may carry\n",
      "'"$pack"'", p / 1048576, t / 1048576, c / 1048576, (t + c) / 1048576 }'
  exit 0
fi

: "${OUT:?OUT: the output folder the device tool returns}"
if [ -f .scratch/head.commit ] || [ -f .scratch/head.bundle ]; then
  bash scripts/device_head.sh unpack
fi
site=/tmp/lib-site
mkdir -p "$site"
if [ -f "$pack" ]; then
  tar -xJf "$pack" -C "$site"
  echo "unpacked $pack into $site: $(ls "$site" | grep dist-info | tr '\n' ' ')"
else
  mapfile -t wheels < <(python3 - <<'EOF'
import glob
from pip._vendor.packaging.tags import sys_tags
from pip._vendor.packaging.utils import parse_wheel_filename
supported = set(sys_tags())
for path in sorted(glob.glob(".whl/*.whl")):
    if supported & set(parse_wheel_filename(path.rsplit("/", 1)[-1])[3]):
        print(path)
EOF
  )
  if [ "${#wheels[@]}" -eq 0 ]; then
    echo "neither $pack nor a wheel in .whl/ that $(python3 --version) takes: carry one of them" >&2
    exit 2
  fi
  printf 'installing %s\n' "${wheels[@]}"
  python3 -m pip install -q --upgrade --no-index --no-deps --no-compile --target "$site" "${wheels[@]}"
fi
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
export PATH="$site/bin:$PATH"
export FLASHINFER_WORKSPACE_BASE="${FLASHINFER_WORKSPACE_BASE:-/tmp/flashinfer-ws}"
python3 -c "import flashinfer; print('flashinfer', flashinfer.__version__)"
{ python3 --version; nvcc --version | tail -n 2; echo "ninja $(ninja --version)"; nvidia-smi -L; ls "$site"; } 2>&1 \
  | tee "$OUT/environment.txt"
python3 problems/paged_attention/lab/measure_flashinfer.py --out "$OUT/flashinfer_paged.json" "$@" 2>&1 \
  | tee "$OUT/measure_flashinfer.log"
