#!/usr/bin/env bash
# The fabemu images (testbeds/containerlab/Containerfile and Containerfile.host): built
# with podman from a Debian 12 root made by mmdebstrap, then run as a containerlab lab,
# a node between two host containers wired as containerlab wires them at its default MTU
# (9500): 9000-byte pings cross at the delay set; a campaign of testbed kind hosts reaches
# the containers by podman exec, in the held node's namespace; AF_XDP refuses MTU 9500
# naming the interface (testbeds/containerlab/image.sh says how; docs/containerlab.md).
set -euo pipefail
exec "$(dirname "$0")/../../testbeds/containerlab/image.sh" all
