#!/usr/bin/env bash
# The fabemu image (testbeds/containerlab/Containerfile): built with podman from a Debian
# 12 root made by debootstrap, then run as a containerlab node between two hosts wired
# as containerlab wires them, which ping each other through it at the delay set
# (testbeds/containerlab/image.sh says how; docs/containerlab.md).
set -euo pipefail
exec "$(dirname "$0")/../../testbeds/containerlab/image.sh" all
