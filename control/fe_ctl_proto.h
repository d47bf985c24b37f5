/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control protocol between fabemuctl and fabemu-dp (docs/control.md).
 *
 * One request, one reply, each a JSON object on one line (newline-terminated):
 *   -> {"fabemu": 1, "cmd": "set", "link": "0.up", "spec": "rate=100Mbit"}
 *   <- {"fabemu": 1, "ok": true, "text": "...", "data": {...}}
 *   <- {"fabemu": 1, "ok": false, "error": "link 7.up: no such port (ports 0 to 2)"}
 * "fabemu" is the protocol version; a server refuses versions it does not speak. A
 * request is at most FE_CTL_REQ_MAX bytes; a longer one is refused and the
 * connection closed. Several requests may follow on one connection.
 */
#ifndef FE_CTL_PROTO_H
#define FE_CTL_PROTO_H

#define FE_CTL_VERSION	  1
#define FE_CTL_REQ_MAX	  (64U << 10)
#define FE_CTL_REPLY_MAX  (16U << 20)
#define FE_CTL_SOCKET_DIR "/run/fabemu"
#define FE_CTL_SOCKET	  FE_CTL_SOCKET_DIR "/fabemu.sock"
#define FE_CTL_ENV_SOCKET "FABEMU_SOCKET"

#endif
