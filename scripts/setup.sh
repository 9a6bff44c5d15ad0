#!/usr/bin/env bash
# Set up Ceiling in the current Python environment.
#
#   bash scripts/setup.sh          the scorer (torch, nvidia-ml-py; Triton's interpreter on machines without a GPU)
#   bash scripts/setup.sh test     also the site/viewer libraries, pytest, Playwright and Debian's Chromium,
#                                  bubblewrap, munge and SLURM (system packages need root; else those tests skip)
#
# torch: an existing install (e.g. a CUDA build on a GPU machine) is left alone. Without one, a machine
# with an NVIDIA driver gets the default (CUDA) wheel, and a CPU-only machine gets torch==2.13.0, which
# this workplace serves as a local CPU build (set CEILING_TORCH_SPEC to choose another, e.g. a CPU index).
set -euo pipefail
mode="${1:-run}"
python=${PYTHON:-python3}
pip() { "$python" -m pip install --disable-pip-version-check -q "$@"; }

if "$python" -c "import torch" 2>/dev/null; then
    echo "setup: keeping installed torch $("$python" -c 'import torch; print(torch.__version__)')"
elif command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    pip "${CEILING_TORCH_SPEC:-torch}"
else
    pip ${CEILING_TORCH_SPEC:-torch==2.13.0}
fi

has_cuda=$("$python" -c "import torch; print(int(torch.cuda.is_available()))")
if [ "$has_cuda" = "0" ] && ! "$python" -c "import triton" 2>/dev/null; then
    extras="cpu-triton"   # the CPU profile runs Triton kernels in Triton's interpreter
else
    extras=""
fi
if [ "$mode" = "test" ]; then
    extras="${extras:+$extras,}test"
fi
pip -e ".${extras:+[$extras]}"

if [ "$mode" = "test" ] && [ ! -x /usr/bin/chromium ]; then
    # Browser tests drive Debian's Chromium through Playwright (Playwright's own browser download is not used).
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
        echo "setup: /usr/bin/chromium missing and not root: browser tests will be skipped" >&2
    fi
fi
# The agent sandbox never runs the agent as root: a harness started as root drops to this user
# (harnesses/agent_user.py). Ordinary users need none (their sandbox runs as themselves).
if [ "$(id -u)" = "0" ] && ! getent passwd ceiling-agent >/dev/null; then
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin ceiling-agent
fi
if [ "$mode" = "test" ]; then
    bash scripts/install_test_system_packages.sh  # bubblewrap and a single-node SLURM for the harness tests
fi
echo "setup: done ($mode)"
