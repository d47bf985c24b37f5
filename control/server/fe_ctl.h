/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_ctl: the control server inside fabemu-dp. It listens on a UNIX socket (mode
 * 0600: root only) and, when asked, on TCP (loopback unless an address is given),
 * speaks fe_ctl_proto.h, and turns requests into fabric updates (fe_update.h),
 * counter reads and resets, and captures. It runs on one control thread, never on
 * the lcore: every request is validated and compiled here, and a bad one is refused
 * with a message while the dataplane keeps its previous fabric.
 *
 *   ctl = fe_ctl_create(dp, &conf, err, len);
 *   while (running) fe_ctl_poll(ctl, 10);   // serve for up to 10 ms
 *   fe_ctl_free(ctl);                       // after the lcore stopped
 */
#ifndef FE_CTL_H
#define FE_CTL_H

#include <stddef.h>
#include <stdint.h>

#include "fe_dp.h"
#include "fe_fabric.h"

struct fe_ctl_conf {
	const char *socket_path; /* NULL: no UNIX socket */
	const char *tcp;	 /* "[ADDR:]PORT", NULL: no TCP listener */
	const char *profile;	 /* name of the profile the dataplane started with, or NULL */
	const char *topology;	 /* --topology as given, or NULL (one switch) */
	uint32_t scale;		 /* its dilation */
	struct fe_fabric fabric; /* what the dataplane started with */
	const char *version;
	int socket_mode;	 /* permissions of the UNIX socket (default 0600) */
	const char *token_file;	 /* TCP's token; NULL: FE_CTL_TOKEN_DIR "/token-PORT" */
	const char *capture_dir; /* where plain capture names go; NULL: FE_CTL_CAPTURE_DIR */
};

struct fe_ctl;

struct fe_ctl *fe_ctl_create(struct fe_dp *dp, const struct fe_ctl_conf *conf, char *err,
			     size_t errlen);

/* Serve ready clients, waiting up to timeout_ms for one. Returns requests served. */
int fe_ctl_poll(struct fe_ctl *ctl, int timeout_ms);

/*
 * Serve one request line as a client on the UNIX socket would be served (root: as
 * uid 0), without a socket: tests and fuzzing. Returns the reply (free() it).
 */
char *fe_ctl_request(struct fe_ctl *ctl, const char *line, size_t len, int root);

/* Close every socket and remove the UNIX socket and the token; frees the last update. */
void fe_ctl_free(struct fe_ctl *ctl);

/* Prometheus text exposition of every counter (control/server/fe_prom.c). */
#include <stdio.h>
void fe_prom_write(FILE *f, const struct fe_dp *dp);

#endif
