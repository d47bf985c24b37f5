#!/usr/bin/env python3
"""Raw conversations with fabemu-dp's control socket, for tests of bad input.

Usage: fe-ctl-raw.py SOCKET CASE
Prints the server's reply (one JSON line) or "closed" when the server closed the
connection; exits 1 if the server did not answer within 5 s.
Cases: garbage, array, deep, utf8, version, nocmd, unknown, partial, oversize, badyaml,
       unknownkey, range, filter, regime, selector, pipelined.
"""
import json
import socket
import sys

PROFILES = {
    "badyaml": "name: x\nlink: {rate: 1\n",
    "unknownkey": "name: x\nlink:\n  speed: 1Gbit\n",
    "range": "name: x\nlink:\n  rate: 5Tbit\n",
    "filter": "name: x\nlink:\n  loss: 1%\n  match: tcp and port\n",
    "regime": "name: x\nregime: credit\n",
}


def talk(sock, payload, close_after=False):
    sock.sendall(payload)
    if close_after:
        sock.close()
        return "sent"
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = sock.recv(65536)
        if not chunk:
            return "closed" if not buf else buf.decode()
        buf += chunk
    return buf.decode().strip()


def main():
    path, case = sys.argv[1], sys.argv[2]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(path)
    req = lambda d: (json.dumps(d) + "\n").encode()
    if case == "garbage":
        out = talk(s, b"\x00\xffhello there\n")
    elif case == "array":
        out = talk(s, b"[1, 2, 3]\n")
    elif case == "deep":  # 10,000 nested arrays: a parser that recursed would overflow
        out = talk(s, b"[" * 10000 + b"]" * 10000 + b"\n")
    elif case == "utf8":  # a string that is not UTF-8
        out = talk(s, b'{"fabemu": 1, "cmd": "st\xc3\x28atus"}\n')
    elif case == "version":
        out = talk(s, req({"fabemu": 99, "cmd": "status"}))
    elif case == "nocmd":
        out = talk(s, req({"fabemu": 1}))
    elif case == "unknown":
        out = talk(s, req({"fabemu": 1, "cmd": "reboot"}))
    elif case == "partial":  # half a request, then gone
        out = talk(s, b'{"fabemu": 1, "cmd": "set", "link": "0.up", "spec": "rate=1', True)
    elif case == "oversize":  # 70 KB without a newline
        try:
            out = talk(s, b"{" + b" " * 70000)
        except (BrokenPipeError, ConnectionResetError):
            out = "closed"
    elif case in PROFILES:
        out = talk(s, req({"fabemu": 1, "cmd": "apply", "source": "raw.yaml",
                           "profile": PROFILES[case]}))
    elif case == "selector":
        out = talk(s, req({"fabemu": 1, "cmd": "set", "link": "9.up", "spec": "rate=1Gbit"}))
    elif case == "pipelined":  # two requests in one write: two replies, in order
        s.sendall(req({"fabemu": 1, "cmd": "ports"}) + req({"fabemu": 1, "cmd": "nope"}))
        buf = b""
        while buf.count(b"\n") < 2:
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
        out = "|".join(buf.decode().strip().split("\n"))
    else:
        sys.exit("unknown case " + case)
    print(out)


if __name__ == "__main__":
    try:
        main()
    except socket.timeout:
        print("no reply within 5 s")
        sys.exit(1)
