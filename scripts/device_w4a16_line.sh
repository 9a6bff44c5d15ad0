#!/bin/bash
# gemlite, the library line of w4a16_gemm since issue 37, checked and timed on a lent GPU machine against
# tinygemm (the line before it, lab/tinygemm_line.py) and the house kernel: problems/w4a16_gemm/lab/measure_gemlite.py.
#     here:   commit, then   bash scripts/device_head.sh pack
#             and put the two wheels in the git-ignored .whl/ (problems/w4a16_gemm/NOTES.md, "gemlite line"):
#             pip download gemlite==0.6.0.post2 --no-deps -d .whl   (PyPI has only the sdist: then
#             pip wheel --no-deps --no-build-isolation -w .whl .whl/gemlite-0.6.0.post2.tar.gz, pure Python)
#             pip download tqdm --no-deps -d .whl                   (gemlite/helper.py imports it)
#             run with carry [".whl", ".scratch/head.commit"]
#     there:  bash scripts/device_w4a16_line.sh [measure_gemlite.py arguments: --shapes all, --lines ...]
# It points HEAD at the carried bundle (bash scripts/device_head.sh unpack) so that the JSON names the commit,
# installs gemlite and tqdm from .whl/ into /tmp/gemlite-site (pip install --no-index --no-deps --target: the
# machine's torch, triton and numpy stay as they are), puts it first on PYTHONPATH, records the environment,
# then runs the measurement, which writes $OUT/w4a16_gemlite.json (and the log beside it).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?OUT: the output folder the device tool returns}"
if [ -f .scratch/head.commit ] || [ -f .scratch/head.bundle ]; then
  bash scripts/device_head.sh unpack
fi
site=/tmp/gemlite-site
shopt -s nullglob
wheels=(.whl/gemlite-*.whl .whl/tqdm-*.whl)
if [ "${#wheels[@]}" -ne 2 ]; then
  echo "need exactly one gemlite and one tqdm wheel in .whl/, found: ${wheels[*]:-none}; carry .whl" >&2
  exit 2
fi
pip install -q --upgrade --no-index --no-deps --target "$site" "${wheels[@]}"
export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
{ python --version; nvidia-smi -L; python -c "import torch, triton, numpy; print('torch', torch.__version__, \
'triton', triton.__version__, 'numpy', numpy.__version__)"; python -c "import gemlite; print('gemlite', \
gemlite.__version__)" || true; } 2>&1 | tee "$OUT/w4a16_environment.txt"
timeout "${LIMIT_S:-540}" python problems/w4a16_gemm/lab/measure_gemlite.py --out "$OUT/w4a16_gemlite.json" "$@" 2>&1 \
  | tee "$OUT/w4a16_gemlite.log"
