#!/usr/bin/env python3
"""Query a DPDK telemetry socket: fe-telemetry.py SOCKET CMD [CMD...]

Prints one JSON reply per line. Same protocol as DPDK's usertools/dpdk-telemetry.py
(SOCK_SEQPACKET, a JSON greeting, then one JSON reply per command)."""
import json
import socket
import sys

if len(sys.argv) < 3:
    sys.exit(__doc__)
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
greeting = json.loads(s.recv(16384).decode())
size = int(greeting.get("max_output_len", 16384))
for cmd in sys.argv[2:]:
    s.send(cmd.encode())
    print(json.dumps(json.loads(s.recv(size).decode())))
s.close()
