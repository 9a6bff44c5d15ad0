#!/usr/bin/env bash
# Install the system packages the harness tests need, skipping what is already there (idempotent).
#   bubblewrap            the agent sandbox (tests/harnesses/test_sandbox.py)
#   slurmctld slurmd slurm-client munge   a single-node SLURM for tests/harnesses/test_slurm.py
# Needs root (apt-get). Safe to call on every CI run: it does nothing when all are installed.
set -euo pipefail

want=(bubblewrap munge slurmctld slurmd slurm-client)
missing=()
for pkg in "${want[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$pkg")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "install_test_system_packages: all present (${want[*]})"
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "install_test_system_packages: missing ${missing[*]} and not root; the sandbox/SLURM tests will skip" >&2
    exit 0
fi
echo "install_test_system_packages: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# --no-install-recommends keeps out mail servers and docs; policy-rc.d stops the packages from
# starting their own daemons (the tests start and stop the ones they need).
if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
apt-get install -y -qq --no-install-recommends "${missing[@]}"
