#!/bin/bash
# Prepare .kernelbench/ (git-ignored) for device_score.sh: import kernelbench.com's published runs from a local
# clone, and pack the CUTLASS 4.2.0 headers their builds expect (from PyPI's nvidia-cutlass 4.2.0.0 wheel:
# cutlass_library/source/include and tools/util/include, tarred under source/) as .kernelbench/cutlass-4.2.0.tgz.
# Needs the network for the wheel (the GPU machine has none: run this here, then carry .kernelbench).
#     bash harnesses/kernelbench/prepare.sh ~/kernelbench.com
set -euo pipefail
clone=${1:?give a local clone of github.com/Infatoshi/kernelbench.com}
python3 -m harnesses.import_kernelbench path="$clone"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip download -q --no-deps --disable-pip-version-check nvidia-cutlass==4.2.0.0 -d "$work"
unzip -q "$work"/nvidia_cutlass-4.2.0.0-*.whl 'cutlass_library/source/include/*' \
    'cutlass_library/source/tools/util/include/*' -d "$work/wheel"
tar czf .kernelbench/cutlass-4.2.0.tgz -C "$work/wheel/cutlass_library" source/include source/tools/util/include
echo "CUTLASS headers: .kernelbench/cutlass-4.2.0.tgz ($(du -h .kernelbench/cutlass-4.2.0.tgz | cut -f1))"
