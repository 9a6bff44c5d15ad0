#!/bin/bash
# The seven problems at defaults (`python -m scoring.run problem=P`: every shape set, audits, the eager,
# compiled and library lines) ROUNDS times on one lent GPU machine, with the library lines' packages installed
# from carried files. Lines come from the committed results where their key matches (scoring/line_cache.py),
# so the results go to results/ (the cache's folder) and the new ones come back in $OUT/deck_results.tgz.
#     here:   commit; bash scripts/device_head.sh pack; bash scripts/device_library_lines.sh pack
#             (.scratch/lib-site.tar.xz: flashinfer-python 0.5.0 + apache-tvm-ffi); .whl/ holds fla-core 0.6.0,
#             gemlite 0.6.0.post2 and tqdm (problems' NOTES.md say how to get them)
#             run with carry [".scratch/head.commit", ".scratch/lib-site.tar.xz", ".whl/fla_core-0.6.0-py3-none-any.whl",
#                            ".whl/gemlite-0.6.0.post2-py3-none-any.whl", ".whl/tqdm-4.70.1-py3-none-any.whl"]
#     there:  ROUNDS=2 LIMIT=585 bash scripts/device_deck.sh     (PROBLEMS="fp8_gemm kda" for fewer)
# Prints each run's solution and line rows; $OUT/deck_logs.tgz holds the logs. A round that would pass LIMIT
# seconds skips its remaining problems (the device tool stops a call at 600 s).
set -u
cd "$(dirname "$0")/.."
start=$SECONDS
bash scripts/device_head.sh unpack || echo "device_deck: HEAD not set from .scratch/head.commit (results will say so)"
site=/tmp/lib-site
if [ ! -d $site/flashinfer ]; then
  mkdir -p $site && tar -xJf .scratch/lib-site.tar.xz -C $site
  pip install -q --no-index --no-deps --target $site .whl/fla_core-*.whl .whl/gemlite-*.whl .whl/tqdm-*.whl 2>&1 \
    | grep -v WARNING
fi
export PYTHONPATH=$site PATH=$site/bin:$PATH
python -c "import flashinfer, gemlite, fla; print('flashinfer', flashinfer.__version__, 'gemlite', gemlite.__version__, 'fla', fla.__version__)"
marker=$(mktemp)
mkdir -p "$OUT/logs"
for round in $(seq 1 "${ROUNDS:-1}"); do
  for p in ${PROBLEMS:-fp8_gemm softmax paged_attention moe_swiglu topk w4a16_gemm kda}; do
    left=$(( ${LIMIT:-585} - (SECONDS - start) )); (( left < 40 )) && { echo "$p round $round skipped"; continue; }
    t0=$SECONDS
    timeout $((left - 10)) python -m scoring.run problem="$p" > "$OUT/logs/$p-r$round.log" 2>&1
    echo "$p r$round exit $? $((SECONDS - t0))s: $(grep -E '^solution ' "$OUT/logs/$p-r$round.log" | cut -c1-100)"
    grep -E '^(eager|compiled|library) ' "$OUT/logs/$p-r$round.log" | cut -c1-120
  done
done
find results -newer "$marker" -type f -name '*.json' | tar -czf "$OUT/deck_results.tgz" -T -
tar -czf "$OUT/deck_logs.tgz" -C "$OUT" logs && rm -rf "$OUT/logs"
echo "deck wall $((SECONDS - start))s"
