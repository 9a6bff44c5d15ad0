#!/usr/bin/env bash
# Set up Ceiling in the current Python environment ($PYTHON, default python3).
#
#   bash scripts/setup.sh          everything the commands run: the scorer (torch, numpy, nvidia-ml-py, jsonschema;
#                                  Triton's interpreter on machines without a GPU) and the `site` extra for
#                                  python -m board / viewer / harnesses.run (jinja2, pandas, plotly, markdown-it-py,
#                                  pygments, pyarrow)
#   bash scripts/setup.sh test     also pytest and Playwright, and as root: Debian's chromium (browser tests),
#                                  the ceiling-agent user, bubblewrap, munge and SLURM
#                                  (scripts/install_test_system_packages.sh); without root those tests skip
#   bash scripts/setup.sh gpu      also the `gpu` extra (CuPy for CUDA 13, fla-core); modes combine: `setup.sh test gpu`
#
# torch: an existing install (e.g. a CUDA build on a GPU machine) is left alone. Without one, a machine
# with an NVIDIA driver gets the default (CUDA) wheel, and a CPU-only machine gets torch==2.13.0, which
# this workplace serves as a local CPU build (set CEILING_TORCH_SPEC to choose another, e.g. a CPU index).
# Offline: where setuptools (>= 70.1, or >= 68 with wheel) is already installed, the clone is installed without
# pip's build isolation, so nothing is fetched for the build; only dependencies that are missing are.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
pip() { "$python" -m pip install --disable-pip-version-check -q "$@"; }

want_test=0
want_gpu=0
for mode in "${@:-run}"; do
    case "$mode" in
        run) ;;
        test) want_test=1 ;;
        gpu) want_gpu=1 ;;
        help|-h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "setup: unknown mode '$mode': use run (the default), test or gpu, e.g. bash scripts/setup.sh test" >&2
           exit 2 ;;
    esac
done

if "$python" -c "import torch" 2>/dev/null; then
    echo "setup: keeping installed torch $("$python" -c 'import torch; print(torch.__version__)')"
elif command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    pip "${CEILING_TORCH_SPEC:-torch}"
else
    pip ${CEILING_TORCH_SPEC:-torch==2.13.0}
fi

extras="site"
has_cuda=$("$python" -c "import torch; print(int(torch.cuda.is_available()))")
if [ "$has_cuda" = "0" ] && ! "$python" -c "import triton" 2>/dev/null; then
    extras="$extras,cpu-triton"   # the CPU profile runs Triton kernels in Triton's interpreter
fi
if [ "$want_test" = "1" ]; then
    extras="$extras,test"
fi
if [ "$want_gpu" = "1" ]; then
    torch_cuda=$("$python" -c "import torch; print(torch.version.cuda or '')")
    if [ -z "$torch_cuda" ]; then
        echo "setup: torch $("$python" -c 'import torch; print(torch.__version__)') is a CPU build; the gpu extra is" \
             "for a torch built for CUDA 13 (the GPU paths it serves need an NVIDIA GPU)" >&2
        exit 2
    elif [ "${torch_cuda%%.*}" != "13" ]; then
        echo "setup: the gpu extra pins CUDA 13 wheels (cupy-cuda13x) but torch is built for CUDA" \
             "'${torch_cuda:-none}': for CUDA 12 install cupy-cuda12x==14.2.0 and fla-core==0.6.0 yourself" >&2
        exit 2
    fi
    extras="$extras,gpu"
fi

build_options=()
if "$python" - <<'EOF' 2>/dev/null
import importlib.util
import setuptools
major, minor = (int(part) for part in setuptools.__version__.split(".")[:2])
# pyproject.toml asks for setuptools >= 68; before 70.1 its editable wheel also needs the wheel package.
ready = (major, minor) >= (70, 1) or ((major, minor) >= (68, 0) and importlib.util.find_spec("wheel") is not None)
raise SystemExit(0 if ready else 1)
EOF
then
    build_options=(--no-build-isolation)
fi
pip ${build_options[@]+"${build_options[@]}"} -e ".[$extras]"

if [ "$want_test" = "1" ] && [ ! -x /usr/bin/chromium ]; then
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
if [ "$want_test" = "1" ]; then
    bash scripts/install_test_system_packages.sh  # bubblewrap and a single-node SLURM for the harness tests
fi
echo "setup: done (${*:-run}; extras $extras)"
