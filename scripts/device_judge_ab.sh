#!/bin/bash
# Issue 32's before/after on a lent GPU: each problem's house kernel scored by the design before the judge/worker
# split (a `git archive` of it, carried in .scratch/old_design) and by this tree's, interleaved, one
# scripts/bench_ab.py per problem (a summary per problem: a run cut off by the call's limit loses one problem).
#     here:   git archive -o .scratch/old_design.tgz 60e795f scoring problems pyproject.toml   (~0.5 MB)
#             bash scripts/device_head.sh pack; run with carry [".scratch/head.commit", ".scratch/old_design.tgz"]
#     there:  bash scripts/device_judge_ab.sh LABEL fp8_gemm,softmax [ROUNDS]
# Everything (summaries, the runs' result files, logs) is packed into $OUT/LABEL.tgz after each problem;
# LIMIT_S (560) bounds the whole call: a problem is started only with 30 s left, and cut at the deadline.
set -uo pipefail
cd "$(dirname "$0")/.."
label="${1:?usage: bash scripts/device_judge_ab.sh LABEL PROBLEMS [ROUNDS]}"
problems="${2:?usage: bash scripts/device_judge_ab.sh LABEL PROBLEMS [ROUNDS]}"
rounds="${3:-2}"
bash scripts/device_head.sh unpack
if [[ ! -d .scratch/old_design && -f .scratch/old_design.tgz ]]; then
  mkdir -p .scratch/old_design && tar -xzf .scratch/old_design.tgz -C .scratch/old_design
fi
export PYTHONUNBUFFERED=1
work="$(mktemp -d "/tmp/ab-$label-XXXXXX")"
deadline=$((SECONDS + ${LIMIT_S:-560}))
for problem in ${problems//,/ }; do
  left=$((deadline - SECONDS)); per=${PER_PROBLEM_S:-280}
  if (( left < 30 )); then echo "$problem skipped: ${left}s left of LIMIT_S"; continue; fi
  timeout "$(( per < left ? per : left ))" python scripts/bench_ab.py a="" b="" a_tree=.scratch/old_design device=cuda \
    problems="$problem" rounds="$rounds" score_args="lines=none" out="$work/speed" results="$work/runs/$problem" \
    > "$work/$problem.log" 2>&1
  echo "$problem exit $?"
  grep -A2 "^problem " "$work/$problem.log" | tail -1
  tar -czf "${OUT:?}/$label.tgz" -C "$work" .   # after every problem: a call cut off keeps what it measured
done
