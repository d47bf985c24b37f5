/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the fabric and the transports did while a job ran, sampled, so that a stall can be
 * put down to what happened in its iteration's window (docs/campaigns.md, "Stalls").
 *
 * A thread beside the job reads every CG_EVENT_MS: the fabric's drops (every link's,
 * fe_report's counters through the control socket: cg_fabric_drops()), the emulated
 * NICs' timeouts, and each host's TCP retransmissions (less those a D-SACK showed
 * spurious) and timeouts (cg_host_read(), the hosts' /proc in their namespaces; not
 * with testbed kind hosts, whose every read is a command through the prefix). The run
 * keeps a row [t_ns, drops, retrans, timeouts, nic_timeouts] a read (CLOCK_REALTIME, as
 * the iter lines' start; counted from the first read): 10 a second, a few kilobytes a
 * minute of job.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cg.h"

struct cg_sampler {
	const struct cg_run *r;
	const struct cg_regime *g;
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t stop_cv;
	int stop, started;
	json_t *rows;
	json_int_t base[CG_EV_N];
};

/* One read: what the fabric and the hosts have counted so far, absolute. */
static void
read_now(const struct cg_sampler *s, json_int_t v[CG_EV_N])
{
	memset(v, 0, sizeof(json_int_t) * CG_EV_N);
	if (s->g->kind == CG_DATAPLANE) {
		json_t *doc = cg_dp_counters(s->r), *p;
		size_t i;

		if (doc != NULL) {
			v[CG_EV_DROPS] = cg_fabric_drops(doc);
			json_array_foreach(json_object_get(doc, "ports"), i, p)
				v[CG_EV_NIC_TIMEOUTS] +=
				json_integer_value(json_object_get(p, "nic_timeouts"));
		}
		json_decref(doc);
	}
	for (unsigned h = 1; s->r->c->tb != CG_TB_HOSTS && h <= s->r->c->hosts; h++) {
		struct cg_host_ctr t;

		cg_host_read(s->r, h, &t);
		v[CG_EV_RETRANS] += (json_int_t)t.retrans - (json_int_t)t.dsack;
		v[CG_EV_TIMEOUTS] += (json_int_t)t.timeouts;
	}
}

static void
sample(struct cg_sampler *s, int first)
{
	json_int_t v[CG_EV_N];
	json_t *row;

	read_now(s, v);
	if (first)
		memcpy(s->base, v, sizeof(v));
	row = json_array();
	json_array_append_new(row, json_integer((json_int_t)cg_now_ns(CLOCK_REALTIME)));
	for (unsigned k = 0; k < CG_EV_N; k++)
		json_array_append_new(row, json_integer(v[k] - s->base[k]));
	json_array_append_new(s->rows, row);
}

static void *
run(void *arg)
{
	struct cg_sampler *s = arg;
	struct timespec at;

	pthread_mutex_lock(&s->lock);
	clock_gettime(CLOCK_MONOTONIC, &at);
	while (!s->stop) {
		at.tv_nsec += CG_EVENT_MS * 1000000L;
		at.tv_sec += at.tv_nsec / 1000000000L;
		at.tv_nsec %= 1000000000L;
		if (pthread_cond_timedwait(&s->stop_cv, &s->lock, &at) == 0 && s->stop)
			break;
		pthread_mutex_unlock(&s->lock);
		sample(s, 0);
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

struct cg_sampler *
cg_sampler_start(const struct cg_run *r, const struct cg_regime *g)
{
	struct cg_sampler *s = calloc(1, sizeof(*s));
	pthread_condattr_t ca;

	if (s == NULL)
		return NULL;
	s->r = r;
	s->g = g;
	s->rows = json_array();
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->stop_cv, &ca);
	pthread_condattr_destroy(&ca);
	sample(s, 1);
	s->started = pthread_create(&s->tid, NULL, run, s) == 0;
	return s;
}

json_t *
cg_sampler_stop(struct cg_sampler *s)
{
	json_t *rows;

	if (s == NULL)
		return json_null();
	pthread_mutex_lock(&s->lock);
	s->stop = 1;
	pthread_cond_signal(&s->stop_cv);
	pthread_mutex_unlock(&s->lock);
	if (s->started)
		pthread_join(s->tid, NULL);
	sample(s, 0); /* what came since the last read */
	rows = s->rows;
	pthread_cond_destroy(&s->stop_cv);
	pthread_mutex_destroy(&s->lock);
	free(s);
	return rows;
}

const char *
cg_cause_name(enum cg_cause c)
{
	static const char *const names[CG_CAUSES] = {"timeout", "retransmission", "drop",
						     "none seen"};

	return c < CG_CAUSES ? names[c] : "?";
}

/* The row of the last read at or before t (the first read if none), or of the first read
 * at or after it (the last if none). */
static json_t *
row_at(const json_t *rows, uint64_t t, int after)
{
	json_t *row, *at = json_array_get(rows, 0);
	size_t i;

	json_array_foreach(rows, i, row)
	{
		uint64_t rt = (uint64_t)json_integer_value(json_array_get(row, 0));

		at = row;
		if (after ? rt >= t : rt > t)
			return after || i == 0 ? row : json_array_get(rows, i - 1);
	}
	return at;
}

enum cg_cause
cg_stall_cause(const json_t *rows, uint64_t from_ns, uint64_t to_ns)
{
	/* the reads about the window: it widens by up to a read's period each side */
	const json_t *a = row_at(rows, from_ns, 0), *b = row_at(rows, to_ns, 1);
	json_int_t d[CG_EV_N];

	if (a == NULL || b == NULL)
		return CG_CAUSE_NONE;
	for (unsigned k = 0; k < CG_EV_N; k++)
		d[k] = json_integer_value(json_array_get(b, k + 1)) -
		       json_integer_value(json_array_get(a, k + 1));
	if (d[CG_EV_TIMEOUTS] > 0 || d[CG_EV_NIC_TIMEOUTS] > 0)
		return CG_CAUSE_TIMEOUT;
	if (d[CG_EV_RETRANS] > 0)
		return CG_CAUSE_RETRANS;
	if (d[CG_EV_DROPS] > 0)
		return CG_CAUSE_DROP;
	return CG_CAUSE_NONE;
}
