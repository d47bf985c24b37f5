/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Captures of one link to a pcapng file, on the control thread (the lcore's side is
 * dataplane/engine/fe_capture.h). Delivered packets carry the time they reached the far end
 * of the link; with drops on, packets the emulator dropped are written too, with the
 * time of the drop and a comment "fabemu-drop: CAUSE" (tshark: frame.comment).
 *
 *   fd = open(...);                   // the caller decides where a capture may go
 *   cap = fe_capture_start(dp, "0.down", fd, "/tmp/x.pcapng", 1, 0, err, len);
 *   fe_capture_drain(cap);            // often: the ring holds 8192 copies
 *   fe_capture_stop(dp, cap, msg, len);
 */
#ifndef FE_CAPFILE_H
#define FE_CAPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "fe_dp.h"

struct fe_capture;

/*
 * Capture to fd (taken over: closed on failure and at stop); path names it in messages.
 * Blocks are written whole: if writing fails (a full disk), the file is cut back to its
 * last whole block, nothing more is written, and the capture reports itself PARTIAL.
 */
struct fe_capture *fe_capture_start(struct fe_dp *dp, const char *link, int fd, const char *path,
				    int drops, uint32_t snaplen, char *err, size_t errlen);

/* Write what the lcore captured so far, up to 4096 copies (a bounded time). */
void fe_capture_drain(struct fe_capture *c);

/* Unpublish the tap, wait for the lcore to let go, write the rest and close.
 * 0, or -1 if the file is partial (msg says why and how much it holds). */
int fe_capture_stop(struct fe_dp *dp, struct fe_capture *c, char *msg, size_t len);

/* "0.down to FILE (drops too), N packets" */
const char *fe_capture_describe(struct fe_capture *c);

#endif
