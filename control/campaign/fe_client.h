/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client side of the control protocol (fe_ctl_proto.h), shared by fabemuctl's
 * commands and its campaign runner.
 *
 *   struct fe_client c = {.socket = "/run/fabemu/fabemu.sock"};
 *   json_t *req = fe_client_request("status");
 *   int rc = fe_client_run(&c, req);         // prints the reply; FE_EXIT_* status
 */
#ifndef FE_CLIENT_H
#define FE_CLIENT_H

#include <jansson.h>

enum {
	FE_EXIT_REFUSED = 1, /* the dataplane (or the check) said no; the reason is printed */
	FE_EXIT_USAGE = 2,
	FE_EXIT_NODP = 3, /* nothing answered */
};

struct fe_client {
	const char *socket, *tcp; /* tcp: "[IP:]PORT" instead of the UNIX socket */
	const char *token;	  /* TCP: the dataplane's token (fe_client_token()) */
	int json;		  /* fe_client_run prints the reply's data as JSON */
	int quiet;		  /* fe_client_run prints nothing on success */
};

/*
 * The token for TCP: $FABEMU_TOKEN, else the first line of file (NULL: the dataplane's
 * default, FE_CTL_TOKEN_DIR "/token-PORT"). NULL with a message on stderr if neither.
 */
const char *fe_client_token(const char *tcp, const char *file);

/* A request object for cmd; add parameters with json_object_set_new(). */
json_t *fe_client_request(const char *cmd);

/* Send req (consumed), return the reply (NULL: no reply; the reason was printed). */
json_t *fe_client_roundtrip(const struct fe_client *c, json_t *req);

/* Send req (consumed), print the reply's text (or data), return an FE_EXIT_* code or 0. */
int fe_client_run(const struct fe_client *c, json_t *req);

#endif
