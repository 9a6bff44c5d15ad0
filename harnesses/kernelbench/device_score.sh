#!/bin/bash
# One call on a lent GPU machine (the device tool, `carry: [".kernelbench"]`): score the imported kernelbench.com
# runs of the problems in $1 (a problems= list; empty = all) within T seconds (default 560, under the call's
# cap), one run at a time on each of the host's GPUs (gpus=auto: a 4-GPU machine scores four at once, each
# scorer pinned to its GPU; GPUS=1,2,3 leaves GPU 0 to other work in the same call). A run starts only if its
# problem's median run so far fits in what is left (deadline_s = T - 15; a fixed cut-off after S seconds, the
# earlier rule, cut kda and moe runs off part-way and left 170 s unused in another call), and a run cut off
# at a deadline before starts first (its folder's cut_off.json).
# Copy each call's result files into results/ before the next call: runs already scored there are skipped. The
# CUTLASS headers travel as .kernelbench/cutlass-4.2.0.tgz
# (PyPI's nvidia-cutlass 4.2.0.0 wheel: cutlass_library/source/include and tools/util/include, tarred under
# source/). What comes back under $OUT: score_log.txt (the command's output), results.tgz (new result files),
# logs.tgz (their per-system logs), score_logs.tgz (each run folder's score.log and cut_off.json), built.txt
# (the extensions each run built in its writable copy, .kernelbench/workspaces/).
# A system stops at its first timed-out shape (max_timed_out_shapes=1: it has failed; a torch.compile that
# unrolls a loop over 512 chunks took the whole of a call otherwise), and a run still going at the deadline is
# killed with its workers (its score.log keeps its output).
# RUNS=a,b scores only the runs whose id contains one of these substrings (runs=); RESCORE=true scores a run
# again though results/ holds its result for the same file and adapter (rescore=true; issue 33: CUTLASS now
# offered where the file looks). Both unset: every run of the problems not scored before, as always.
# SCORE_ARGS replaces the scorer options below (e.g. a longer shape_timeout_s for a file that builds its
# extension inside its first large shape, not while imported: kinetic-0715's w4a16 builds CUTLASS at M > 32).
#     bash harnesses/kernelbench/device_score.sh moe_swiglu,kda
#     RUNS=kinetic-0715_07_w4a16_gemm RESCORE=true bash harnesses/kernelbench/device_score.sh w4a16_gemm
export PYTHONUNBUFFERED=1 MAX_JOBS=16
OUT=${OUT:?the device tool sets OUT}
mkdir -p .kernelbench/cutlass-src && tar xzf .kernelbench/cutlass-4.2.0.tgz -C .kernelbench/cutlass-src
marker=$(mktemp)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/score_log.txt"
timeout "${T:-560}" python -m harnesses.import_kernelbench score=true problems="$1" runs="${RUNS:-}" rescore="${RESCORE:-false}" \
  results=results device=cuda gpus="${GPUS:-auto}" \
  cutlass=.kernelbench/cutlass-src/source score_args="${SCORE_ARGS:-shape_timeout_s=180 max_timed_out_shapes=1}" deadline_s=$(( ${T:-560} - 15 )) \
  >> "$OUT/score_log.txt" 2>&1
echo "rc=$?" >> "$OUT/score_log.txt"
find results -newer "$marker" -name "*.json" | tar czf "$OUT/results.tgz" -T - 2>/dev/null
find results -newer "$marker" -type d -name '*.logs' | tar czf "$OUT/logs.tgz" -T - 2>/dev/null
find .kernelbench \( -name score.log -o -name cut_off.json \) -newer "$marker" | tar czf "$OUT/score_logs.tgz" -T - 2>/dev/null
# What each run built in its writable copy (a file that falls back in silence leaves no .so there).
find .kernelbench/workspaces \( -name '*.so' -o -name .ninja_log \) -newer "$marker" -printf '%p %s\n' \
  > "$OUT/built.txt" 2>/dev/null
tail -25 "$OUT/score_log.txt"
