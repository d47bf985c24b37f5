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
 *
 * Over TCP every request carries "token": the 64 hex digits fabemu-dp writes, root-only,
 * to FE_CTL_TOKEN_DIR "/token-PORT" (or --control-token FILE) when it starts; a request
 * without it is refused and changes nothing. Over the UNIX socket the socket's mode is
 * the guard, and the peer's uid (SO_PEERCRED) decides what a capture may write.
 */
#ifndef FE_CTL_PROTO_H
#define FE_CTL_PROTO_H

#define FE_CTL_VERSION	   1
#define FE_CTL_REQ_MAX	   (64U << 10)
#define FE_CTL_REPLY_MAX   (16U << 20)
#define FE_CTL_SOCKET_DIR  "/run/fabemu"
#define FE_CTL_SOCKET	   FE_CTL_SOCKET_DIR "/fabemu.sock"
#define FE_CTL_ENV_SOCKET  "FABEMU_SOCKET"
#define FE_CTL_ENV_TOKEN   "FABEMU_TOKEN" /* the token itself, for a client elsewhere */
#define FE_CTL_TOKEN_DIR   FE_CTL_SOCKET_DIR
#define FE_CTL_TOKEN_LEN   64 /* hex digits */
#define FE_CTL_CAPTURE_DIR "/var/lib/fabemu/captures"

#endif
