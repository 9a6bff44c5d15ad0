#!/bin/bash
# The device tool copies the working tree to the GPU machine with a stale .git, and it refuses to carry
# .git itself, so result files written there named an old commit (marked dirty). A bundle of HEAD travels
# instead, in a git-ignored folder, and the copy's HEAD is pointed at it before anything is scored:
#     here:   bash scripts/device_head.sh pack      -> .scratch/head.bundle; run with carry [".scratch/head.bundle"]
#             (only the bundle: the tracked tree is ~58 MiB and a call carries 64 MiB in all; a thin bundle,
#             `git bundle create .scratch/head.bundle HEAD ^<a commit the device has>`, where the full one does not fit)
#     there:  bash scripts/device_head.sh unpack    (first in the command) HEAD = the bundle's commit
# Commit first: the tree that travels is then the commit's, and results say dirty=false.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  pack)
    mkdir -p .scratch
    git bundle create -q .scratch/head.bundle HEAD
    echo ".scratch/head.bundle: $(git rev-parse --short HEAD)$(git status --porcelain | grep -q . && echo ' (uncommitted changes will travel too)')" ;;
  unpack)
    git fetch -q .scratch/head.bundle HEAD
    git reset -q FETCH_HEAD
    echo "HEAD $(git rev-parse --short HEAD); $(git status --porcelain | wc -l) path(s) differ from it" ;;
  *)
    echo "usage: bash scripts/device_head.sh pack|unpack" >&2
    exit 2 ;;
esac
