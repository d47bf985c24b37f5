/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One control request (control/server/fe_ctl.c) on any bytes, served as it would be for a
 * client on the UNIX socket that is not root (fe_ctl_request): JSON parsing, the
 * protocol version, every command and its parameters, profiles and link specs inside
 * them, and the fabric updates they publish, adopted by a real engine running on a
 * thread of its own over two in-memory ports (net_ring). Captures may only go to a
 * temporary capture directory, removed at exit.
 *
 * Checked: every reply is one JSON object with "ok"; a refused request leaves the links
 * as they were; the engine adopts every change (it would say so in the reply); and
 * nothing is left allocated (LeakSanitizer at exit, after fe_ctl_free). Seeds:
 * tests/fuzz/corpus/ctl/ (tests/fuzz/make_seeds.py).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "fe_ctl.h"
#include "fe_dp.h"
#include "fe_kernel.h"
#include "fe_report.h"
#include "fuzz_common.h"
#include "fuzz_eal.h"

#define NP   2
#define RING 256

static struct fe_dp *dp;
static struct fe_ctl *ctl;
static struct fe_kernel *kernel;
static struct rte_mempool *pool;
static pthread_t engine;
static volatile int stop;
static char capdir[64];
static uint64_t discarded[NP];

static void *
run(void *arg)
{
	(void)arg;
	fe_dp_run(dp, &stop);
	return NULL;
}

static void
down(void)
{
	char cmd[128];

	stop = 1;
	pthread_join(engine, NULL);
	fe_ctl_free(ctl);
	fe_dp_drain(dp);
	fe_report_set_kernel(NULL);
	fe_kernel_close(kernel);
	fe_dp_free(dp);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", capdir);
	if (system(cmd) != 0)
		fprintf(stderr, "fuzz_ctl: could not remove %s\n", capdir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct fe_linkdef up[NP] = {0}, down_[NP] = {0};
	struct fe_dp_conf conf = {.mac_age_ns = 300000000000ULL,
				  .lanes = 1,
				  .idle_sleep_ns = 100000,
				  .idle_spin = 64,
				  .pfc = {.xoff = 64 << 10, .xon = 32 << 10, .quanta = 65535},
				  .credit = {.buffer = 64 << 10, .out_pkts = 2}};
	struct fe_ctl_conf cc = {.version = "fuzz", .scale = 1};
	uint16_t ports[NP];
	char err[512];

	(void)argc;
	fz_eal((*argv)[0]);
	pool = rte_pktmbuf_pool_create("fuzz_ctl", 4095, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	FZ_CHECK(pool != NULL, "pool");
	for (unsigned i = 0; i < NP; i++) {
		struct rte_ring *rx, *tx;

		ports[i] = fz_ring_port('c', i, RING, pool, &rx, &tx);
		up[i].link.limit_pkts = down_[i].link.limit_pkts = 1000;
	}
	dp = fe_dp_create(NP, ports, up, down_, pool, rte_get_tsc_hz(), &conf, err, sizeof(err));
	FZ_CHECK(dp != NULL, "fe_dp_create: %s", err);
	kernel = fe_kernel_open(dp, discarded, RING);
	FZ_CHECK(kernel != NULL, "fe_kernel_open");
	fe_report_set_kernel(kernel);
	snprintf(capdir, sizeof(capdir), "/tmp/fe-fuzz-ctl-%d", (int)getpid());
	cc.capture_dir = capdir;
	cc.fabric = (struct fe_fabric){
		.regime = conf.regime, .lanes = conf.lanes, .pfc = conf.pfc, .credit = conf.credit};
	ctl = fe_ctl_create(dp, &cc, err, sizeof(err));
	FZ_CHECK(ctl != NULL, "fe_ctl_create: %s", err);
	FZ_CHECK(pthread_create(&engine, NULL, run, NULL) == 0, "engine thread");
	atexit(down);
	return 0;
}

/* The links, as the control server reports them. */
static char *
links(void)
{
	static const char req[] = "{\"fabemu\":1,\"cmd\":\"links\"}";

	return fe_ctl_request(ctl, req, sizeof(req) - 1, 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *before, *reply, *after;
	json_t *r;
	int ok;

	if (size > 1 << 16) /* the server refuses longer requests before parsing them */
		return 0;
	before = links();
	reply = fe_ctl_request(ctl, (const char *)data, size, 0);
	FZ_CHECK(reply != NULL, "no reply");
	r = json_loads(reply, 0, NULL);
	FZ_CHECK(json_is_object(r) && json_is_boolean(json_object_get(r, "ok")),
		 "reply is not an object with ok: %s", reply);
	ok = json_is_true(json_object_get(r, "ok"));
	FZ_CHECK(ok || json_is_string(json_object_get(r, "error")), "refused without a reason");
	/* the engine adopts a change within the server's wait, or the reply says so */
	FZ_CHECK(ok || strncmp(json_string_value(json_object_get(r, "error")),
			       "the dataplane did not take", 26) != 0,
		 "the engine missed a change: %s", reply);
	after = links();
	FZ_CHECK(ok || strcmp(before, after) == 0, "a refused request changed the links: %s",
		 reply);
	json_decref(r);
	free(before);
	free(after);
	free(reply);
	return 0;
}
