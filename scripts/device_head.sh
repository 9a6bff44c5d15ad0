#!/bin/bash
# The device tool copies the working tree to the GPU machine with a stale .git, and it refuses to carry
# .git itself, so result files written there named an old commit (marked dirty). HEAD travels instead, in a
# git-ignored folder, and the copy's HEAD is pointed at it before anything is scored:
#     here:   bash scripts/device_head.sh pack      -> .scratch/head.commit (HEAD's commit object and tree id, ~1 KB)
#             run with carry [".scratch/head.commit"]
#     there:  bash scripts/device_head.sh unpack    (first in the command) HEAD = that commit
# unpack stages the copied tree (git add -A: tracked and untracked-not-ignored files, what the tool copies) and
# writes its tree; only where that tree id is HEAD's here does it write HEAD's commit object, byte for byte (so
# the same id: `git rev-parse HEAD` names the real commit) and point HEAD at it. The commit's parents are not
# there (history is not carried: `git log` stops at it); `git status` compares with its tree, so a result says
# dirty=false exactly when the tree that ran is the commit's. A tree that differs (uncommitted changes) leaves
# HEAD as it was and says so: commit first.
#     `pack bundle` writes .scratch/head.bundle (the history too, ~4 MB: `git bundle create ... HEAD`), and
#     unpack takes a carried bundle where there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  pack)
    mkdir -p .scratch
    rm -f .scratch/head.commit .scratch/head.bundle
    if [ "${2:-}" = "bundle" ]; then
      git bundle create -q .scratch/head.bundle HEAD
    else
      { git rev-parse HEAD "HEAD^{tree}"; git cat-file commit HEAD; } > .scratch/head.commit
    fi
    echo "HEAD $(git rev-parse --short HEAD)$(git status --porcelain | grep -q . && echo ' (uncommitted changes: unpack will refuse them; commit first)')" ;;
  unpack)
    if [ -f .scratch/head.bundle ]; then
      git fetch -q .scratch/head.bundle HEAD
      git reset -q FETCH_HEAD
    else
      commit=$(sed -n 1p .scratch/head.commit); tree=$(sed -n 2p .scratch/head.commit)
      git add -A
      if [ "$(git write-tree)" != "$tree" ]; then
        echo "device_head: the copied tree is not HEAD's ($commit): HEAD left at $(git rev-parse --short HEAD)" >&2
        git reset -q
        exit 3
      fi
      written=$(tail -n +3 .scratch/head.commit | git hash-object -t commit -w --stdin --literally)
      [ "$written" = "$commit" ] || { echo "device_head: commit object rewritten as $written, not $commit" >&2; exit 3; }
      git update-ref --no-deref HEAD "$commit"
    fi
    echo "HEAD $(git rev-parse --short HEAD); $(git status --porcelain | wc -l) path(s) differ from it" ;;
  *)
    echo "usage: bash scripts/device_head.sh pack [bundle] | unpack" >&2
    exit 2 ;;
esac
