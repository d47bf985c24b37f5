/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "fe_capfile.h"
#include "fe_ctl.h"
#include "fe_ctl_proto.h"
#include "fe_graphconf.h"
#include "fe_linkspec.h"
#include "fe_profile.h"
#include "fe_quantile.h"
#include "fe_regimespec.h"
#include "fe_report.h"
#include "fe_rules.h"
#include "fe_time.h"
#include "fe_units.h"
#include "fe_ctlif.h"

#define CTL_CLIENTS 16			 /* for anyone who may connect */
#define CTL_ROOT    2			 /* more, kept for root on the UNIX socket */
#define CTL_IDLE_NS (60ULL * 1000000000) /* a silent client is closed after this */
#define CTL_REQ_NS  (10ULL * 1000000000) /* a request begun must end within this */
#define CTL_WAIT_NS (1000ULL * 1000000)	 /* an update not adopted by then is reported */
#define CTL_ERR	    1024

struct client {
	int fd;
	int tcp;  /* needs the token on every request */
	int root; /* uid 0 on the UNIX socket (SO_PEERCRED): may write captures anywhere */
	size_t len;
	char *buf;		  /* FE_CTL_REQ_MAX + 1 */
	uint64_t last_ns, req_ns; /* last byte; first byte of the request in buf */
};

/* The last CTL_SAMPLES values of a time, for percentiles. */
#define CTL_SAMPLES 4096

struct timing {
	double last, max;
	uint64_t n;
	double v[CTL_SAMPLES];
};

static void
timing_add(struct timing *t, double us)
{
	t->last = us;
	t->max = t->n == 0 || us > t->max ? us : t->max;
	t->v[t->n++ % CTL_SAMPLES] = us;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Quantile q of the kept samples, nearest rank (0 if none). */
static double
timing_q(const struct timing *t, double q)
{
	size_t n = t->n < CTL_SAMPLES ? t->n : CTL_SAMPLES;
	double *s, v;

	if (n == 0 || (s = malloc(n * sizeof(*s))) == NULL)
		return 0;
	memcpy(s, t->v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	v = s[fe_rank_index(n, q)];
	free(s);
	return v;
}

static json_t *
timing_json(const struct timing *t)
{
	return json_pack("{s:f, s:f, s:f, s:f}", "last", t->last, "p50", timing_q(t, 0.5), "p99",
			 timing_q(t, 0.99), "max", t->max);
}

struct fe_ctl {
	struct fe_dp *dp;
	int unix_fd, tcp_fd;
	char path[108];
	char token[FE_CTL_TOKEN_LEN + 1], token_path[256]; /* TCP only */
	char capdir[256];
	int req_root; /* the request being served came from root on the UNIX socket */
	struct client cl[CTL_CLIENTS + CTL_ROOT];
	/* the fabric as the dataplane runs it now (ctl thread only); its links are the
	 * engine's description, dp->desc, which this thread writes (fe_ctlif_change) */
	struct fe_fabric fabric;
	/* several switches: the links between them, by name, as link selectors take them */
	char (*hop_dir)[80];  /* "leaf1>spine2" */
	char (*hop_link)[72]; /* [nhop / 2]: direction i's link is i / 2, "leaf1-spine2" */
	unsigned nhop;
	char profile[64];
	char topology[256]; /* --topology as given ("": one switch) */
	uint32_t scale;
	const char *version;
	struct fe_ctlif *ci; /* the one door into the engine (fe_ctlif.h) */
	uint64_t changes;
	struct timing effect, adopt; /* of every change: publish to adoption, adoption itself */
	struct fe_capture *cap;	     /* one capture at a time */
};

/* ---- Sockets ---- */

static int
listen_unix(struct fe_ctl *c, const char *path, int mode, char *err, size_t len)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	char dir[108], *slash;
	int fd, probe;

	if (strlen(path) >= sizeof(a.sun_path)) {
		snprintf(err, len, "control socket '%s': path too long", path);
		return -ENAMETOOLONG;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0755); /* /run/fabemu: the socket's own mode guards it */
	}
	strcpy(a.sun_path, path);
	/* a live dataplane on this path is an error; a stale file from a crash is not */
	probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (probe >= 0 && connect(probe, (struct sockaddr *)&a, sizeof(a)) == 0) {
		close(probe);
		snprintf(err, len, "control socket '%s': another fabemu-dp is listening there",
			 path);
		return -EADDRINUSE;
	}
	if (probe >= 0)
		close(probe);
	unlink(path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    chmod(path, (mode_t)mode) < 0 || listen(fd, 8) < 0) {
		snprintf(err, len, "control socket '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	snprintf(c->path, sizeof(c->path), "%s", path);
	return fd;
}

/* "[ADDR:]PORT": loopback unless an address is given. */
static int
listen_tcp(const char *spec, char *err, size_t len)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	const char *colon = strrchr(spec, ':'), *port = colon ? colon + 1 : spec;
	char host[64] = "127.0.0.1", *end;
	long p = strtol(port, &end, 10);
	int fd, one = 1;

	if (colon)
		snprintf(host, sizeof(host), "%.*s", (int)(colon - spec), spec);
	if (*end != '\0' || p < 1 || p > 65535 || inet_pton(AF_INET, host, &a.sin_addr) != 1) {
		snprintf(err, len, "--control-tcp '%s': expected [IPV4:]PORT, e.g. 7700", spec);
		return -EINVAL;
	}
	a.sin_port = htons((uint16_t)p);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 8) < 0) {
		snprintf(err, len, "--control-tcp '%s': %s", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	return fd;
}

/*
 * The TCP listener's token: 32 random bytes as hex, written to a new root-only file.
 * Whoever can read the file may control the fabric over TCP; nobody else can.
 */
static int
make_token(struct fe_ctl *c, const char *tcp, const char *file, char *err, size_t len)
{
	const char *colon = strrchr(tcp, ':');
	uint8_t rnd[FE_CTL_TOKEN_LEN / 2];
	char line[FE_CTL_TOKEN_LEN + 2];
	int fd;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		snprintf(err, len, "--control-tcp: no random bytes for its token: %s",
			 strerror(errno));
		return -EIO;
	}
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(c->token + 2 * i, 3, "%02x", rnd[i]);
	if (file)
		snprintf(c->token_path, sizeof(c->token_path), "%s", file);
	else
		snprintf(c->token_path, sizeof(c->token_path), FE_CTL_TOKEN_DIR "/token-%s",
			 colon ? colon + 1 : tcp);
	if (file == NULL)
		mkdir(FE_CTL_TOKEN_DIR, 0755);
	unlink(c->token_path); /* a stale token of a dataplane that crashed */
	fd = open(c->token_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	snprintf(line, sizeof(line), "%s\n", c->token);
	if (fd >= 0) {
		ssize_t n = fchmod(fd, 0600) < 0 ? -1 : write(fd, line, strlen(line));
		int e = n < 0 ? errno : n != (ssize_t)strlen(line) ? EIO : 0;

		if (close(fd) < 0 && e == 0)
			e = errno;
		if (e == 0)
			return 0;
		unlink(c->token_path);
		errno = e;
	}
	snprintf(err, len, "--control-token '%s': %s", c->token_path, strerror(errno));
	c->token_path[0] = '\0';
	return -EIO;
}

static int
token_ok(const struct fe_ctl *c, const char *t)
{
	unsigned char diff = 0;

	if (t == NULL || strlen(t) != FE_CTL_TOKEN_LEN)
		return 0;
	for (size_t i = 0; i < FE_CTL_TOKEN_LEN; i++) /* in constant time */
		diff |= (unsigned char)(t[i] ^ c->token[i]);
	return diff == 0;
}

struct fe_ctl *
fe_ctl_create(struct fe_dp *dp, const struct fe_ctl_conf *conf, char *err, size_t errlen)
{
	struct fe_ctl *c = calloc(1, sizeof(*c));

	if (c == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	c->dp = dp;
	c->unix_fd = c->tcp_fd = -1;
	c->fabric = conf->fabric;
	c->scale = conf->scale ? conf->scale : 1;
	c->version = conf->version;
	snprintf(c->profile, sizeof(c->profile), "%s", conf->profile ? conf->profile : "-");
	if (dp->topology)
		snprintf(c->topology, sizeof(c->topology), "%s",
			 conf->topology ? conf->topology : "-");
	c->ci = fe_ctlif_open(dp);
	snprintf(c->capdir, sizeof(c->capdir), "%s",
		 conf->capture_dir ? conf->capture_dir : FE_CTL_CAPTURE_DIR);
	for (unsigned i = 0; i < CTL_CLIENTS + CTL_ROOT; i++)
		c->cl[i].fd = -1;
	if (c->ci == NULL) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (dp->topology) {
		c->nhop = dp->graph->nhl;
		c->hop_dir = calloc(c->nhop ? c->nhop : 1, sizeof(*c->hop_dir));
		c->hop_link = calloc(c->nhop ? c->nhop : 1, sizeof(*c->hop_link));
		if (c->hop_dir == NULL || c->hop_link == NULL) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		for (unsigned i = 0; i < c->nhop; i++) {
			snprintf(c->hop_dir[i], sizeof(c->hop_dir[i]), "%s", dp->graph->hl[i].name);
			snprintf(c->hop_link[i / 2], sizeof(c->hop_link[0]), "%s",
				 dp->graph->hl[i].lname);
		}
	}
	if (conf->socket_path &&
	    (c->unix_fd = listen_unix(c, conf->socket_path,
				      conf->socket_mode ? conf->socket_mode : 0600, err, errlen)) <
		    0)
		goto fail;
	if (conf->tcp && ((c->tcp_fd = listen_tcp(conf->tcp, err, errlen)) < 0 ||
			  make_token(c, conf->tcp, conf->token_file, err, errlen) < 0))
		goto fail;
	return c;
fail:
	fe_ctl_free(c);
	return NULL;
}

static void
client_close(struct client *cl)
{
	close(cl->fd);
	free(cl->buf);
	*cl = (struct client){.fd = -1};
}

void
fe_ctl_free(struct fe_ctl *c)
{
	if (c == NULL)
		return;
	for (unsigned i = 0; i < CTL_CLIENTS + CTL_ROOT; i++)
		if (c->cl[i].fd >= 0)
			client_close(&c->cl[i]);
	if (c->unix_fd >= 0) {
		close(c->unix_fd);
		unlink(c->path);
	}
	if (c->tcp_fd >= 0)
		close(c->tcp_fd);
	if (c->token_path[0])
		unlink(c->token_path);
	fe_capture_stop(c->dp, c->cap, NULL, 0);
	fe_ctlif_close(c->ci);
	free(c->hop_dir);
	free(c->hop_link);
	free(c);
}

/* ---- Replies ---- */

/*
 * A JSON string of s. A message may quote what the client sent, cut anywhere (a parser's
 * "near '...'"), and JSON strings are UTF-8: bytes that do not make UTF-8 become '?'.
 */
static json_t *
text_json(const char *s)
{
	json_t *j = json_string(s);
	char *c;

	if (j != NULL || (c = strdup(s)) == NULL)
		return j;
	for (char *p = c; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(c);
	free(c);
	return j;
}

static json_t *
reply_ok(const char *text, json_t *data)
{
	json_t *r = json_pack("{s:i, s:b}", "fabemu", FE_CTL_VERSION, "ok", 1);

	if (text)
		json_object_set_new(r, "text", text_json(text));
	if (data)
		json_object_set_new(r, "data", data);
	return r;
}

static json_t *
reply_err(const char *msg)
{
	return json_pack("{s:i, s:b, s:o}", "fabemu", FE_CTL_VERSION, "ok", 0, "error",
			 text_json(msg));
}

/* Text written by a FILE * report function, as a reply. */
static json_t *
reply_stream(void (*fn)(FILE *, const struct fe_dp *), const struct fe_dp *dp)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *r;

	if (f == NULL)
		return reply_err("out of memory");
	fn(f, dp);
	fclose(f);
	r = reply_ok(buf, NULL);
	free(buf);
	return r;
}

/* ---- Commands ---- */

static const char *
str_param(json_t *req, const char *key)
{
	json_t *v = json_object_get(req, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/*
 * An integer parameter by its rule (fe_rules.h). Absent or 0 is 0: the default (the
 * profile's scale, whole packets). A real, a string or a negative number is refused
 * with the value it was, not taken as 0.
 */
static int
uint_param(json_t *req, const struct fe_rule *r, const char *prefix, uint64_t *out, char *err,
	   size_t len)
{
	json_t *v = json_object_get(req, r->name);
	json_int_t x = json_integer_value(v);
	char text[64], allowed[96];

	*out = 0;
	if (v == NULL || (json_is_integer(v) && x == 0))
		return 0;
	if (json_is_integer(v) && x > 0) {
		if (fe_rule_check(r, prefix, (uint64_t)x, err, len) < 0)
			return -EINVAL;
		*out = (uint64_t)x;
		return 0;
	}
	if (json_is_integer(v))
		snprintf(text, sizeof(text), "%lld", (long long)x);
	else if (json_is_real(v))
		snprintf(text, sizeof(text), "%g", json_real_value(v));
	else
		snprintf(text, sizeof(text), "(not a number)");
	snprintf(err, len, "%s%s %s (allowed: an integer, %s)", prefix, r->name, text,
		 fe_rule_allowed(r, allowed, sizeof(allowed)));
	return -EINVAL;
}

/* Links listed: the link table's rows (fe_dp_link_id()): the ports', then those between
 * switches. */
static unsigned
nlinks(const struct fe_ctl *c)
{
	return fe_dp_link_id(c->dp, FE_LINK_HOP, c->nhop);
}

/* Link n of nlinks(): its name ("0.up", or "leaf1>spine2" as counters and captures name
 * it) and its values as the user gave them (dp->desc: this thread is its writer). */
static const struct fe_linkdef *
link_at(const struct fe_ctl *c, unsigned n, char *name, size_t len)
{
	const struct fe_dp *dp = c->dp;
	unsigned i;
	const enum fe_link_kind k = fe_dp_link_kind(dp, n, &i);

	if (k == FE_LINK_HOP)
		snprintf(name, len, "%s", c->hop_dir[i]);
	else
		snprintf(name, len, "%u.%s", i, k == FE_LINK_DOWN ? "down" : "up");
	return fe_dp_link_def(dp, n);
}

static char *
links_text(const struct fe_ctl *c)
{
	char *buf = NULL, line[1024], name[80];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return NULL;
	for (unsigned n = 0; n < nlinks(c); n++) {
		const struct fe_linkdef *d = link_at(c, n, name, sizeof(name));

		fe_profile_fmt_link(d, line, sizeof(line));
		unsigned i;
		const enum fe_link_kind k = fe_dp_link_kind(c->dp, n, &i);

		if (k != FE_LINK_HOP) /* as profile show prints them: "0.up    rate ..." */
			fprintf(f, "%u.%-5s %s\n", i, k == FE_LINK_DOWN ? "down" : "up", line);
		else
			fprintf(f, "%s %s\n", name, line);
	}
	fclose(f);
	return buf;
}

static json_t *
cmd_links(struct fe_ctl *c, json_t *req)
{
	json_t *arr = json_array(), *r;
	char *text = links_text(c), line[1024], name[80];

	(void)req;
	for (unsigned n = 0; n < nlinks(c); n++) {
		const struct fe_linkdef *d = link_at(c, n, name, sizeof(name));

		json_array_append_new(arr, json_pack("{s:s, s:I, s:I, s:I, s:I, s:s}", "link", name,
						     "rate_bps", (json_int_t)d->link.rate_bps,
						     "delay_ns", (json_int_t)d->link.delay_ns,
						     "buffer_bytes",
						     (json_int_t)d->link.limit_bytes, "buffer_pkts",
						     (json_int_t)d->link.limit_pkts, "spec",
						     fe_profile_fmt_link(d, line, sizeof(line))));
	}
	r = reply_ok(text, arr);
	free(text);
	return r;
}

static json_t *
cmd_status(struct fe_ctl *c, json_t *req)
{
	const struct fe_dp *dp = c->dp;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	uint64_t up_ns = fe_ticks_to_ns(rte_rdtsc() - dp->start_tsc, dp->hz);
	json_t *r, *data;

	(void)req;
	if (f == NULL)
		return reply_err("out of memory");
	fprintf(f, "fabemu-dp %s, %u ports, up %.1f s, TSC %.3f GHz\n", c->version, dp->nports,
		(double)up_ns / 1e9, (double)dp->hz / 1e9);
	fprintf(f, "profile %s, scale %u, %" PRIu64 " change(s) applied\n", c->profile, c->scale,
		c->changes);
	if (dp->topology) /* as the banner says it; the path is fixed at start */
		fprintf(f, "topology %s: %u switches, %u links between them, path %s\n",
			c->topology, dp->graph->nsw, c->nhop / 2, fe_path_name(dp->graph->path));
	if (c->changes)
		fprintf(f,
			"changes took effect after they were published in: last %.1f us, p50 %.1f "
			"us, p99 %.1f us, max %.1f us\n"
			"the lcore adopted them in: last %.2f us, p50 %.2f us, p99 %.2f us, max "
			"%.2f "
			"us\n",
			c->effect.last, timing_q(&c->effect, 0.5), timing_q(&c->effect, 0.99),
			c->effect.max, c->adopt.last, timing_q(&c->adopt, 0.5),
			timing_q(&c->adopt, 0.99), c->adopt.max);
	fe_profile_print_fabric(f, &c->fabric);
	fprintf(f, "capture %s\n", c->cap ? fe_capture_describe(c->cap) : "off");
	fclose(f);
	data = json_pack("{s:s, s:i, s:I, s:s, s:i, s:I, s:s, s:i, s:o, s:o, s:I}", "version",
			 c->version, "ports", dp->nports, "uptime_ns", (json_int_t)up_ns, "profile",
			 c->profile, "scale", c->scale, "changes", (json_int_t)c->changes, "regime",
			 fe_regime_name(c->fabric.regime), "lanes", c->fabric.lanes, "effect_us",
			 timing_json(&c->effect), "adopt_us", timing_json(&c->adopt), "seed",
			 (json_int_t)dp->conf.seed);
	json_object_set_new(data, "topology",
			    dp->topology ? json_string(c->topology) : json_null());
	json_object_set_new(data, "path",
			    dp->graph ? json_string(fe_path_name(dp->graph->path)) : json_null());
	r = reply_ok(buf, data);
	free(buf);
	return r;
}

static json_t *
cmd_ports(struct fe_ctl *c, json_t *req)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *arr = json_array(), *r;

	(void)req;
	if (f == NULL)
		return reply_err("out of memory");
	for (unsigned i = 0; i < c->dp->nports; i++) {
		const struct fe_port *p = &c->dp->ports[i];

		fprintf(f, "%u %s rx %" PRIu64 " tx %" PRIu64 "\n", i, p->name,
			FE_CNT_GET(p->st.rx_pkts), FE_CNT_GET(p->st.tx_pkts));
		json_array_append_new(arr, json_pack("{s:i, s:s, s:i}", "port", i, "device",
						     p->name, "port_id", p->port_id));
	}
	fclose(f);
	r = reply_ok(buf, arr);
	free(buf);
	return r;
}

/*
 * Hand a full set of links and a fabric to the lcore and wait for it to take them.
 * On success the new values become the current ones; on any error nothing changed.
 */
static int
change(struct fe_ctl *c, struct fe_linkdef *up, struct fe_linkdef *down,
       const struct fe_linkdef *hop, const struct fe_fabric *fab, char *err, size_t len)
{
	struct fe_ctlif_timing tm;
	int rc = fe_ctlif_change(c->ci, up, down, hop, fab, CTL_WAIT_NS, &tm, err, len);

	if (rc < 0)
		return rc;
	c->changes++;
	timing_add(&c->effect, (double)tm.effect_ns / 1000.0);
	timing_add(&c->adopt, (double)tm.adopt_ns / 1000.0);
	c->fabric = *fab; /* the links: dp->desc, which fe_ctlif_change() wrote */
	return 0;
}

/* A reply's text, and a note after it. */
static void
reply_note(json_t *r, const char *note)
{
	char text[1024];

	snprintf(text, sizeof(text), "%s%s", json_string_value(json_object_get(r, "text")) ?: "",
		 note);
	json_object_set_new(r, "text", text_json(text));
}

static json_t *
change_reply(struct fe_ctl *c, const char *what)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "%s: took effect %.1f us after it was published; the lcore "
		 "took %.2f us to adopt it\n",
		 what, c->effect.last, c->adopt.last);
	return reply_ok(text, json_pack("{s:f, s:f, s:I}", "effect_us", c->effect.last, "adopt_us",
					c->adopt.last, "changes", (json_int_t)c->changes));
}

/* Copies of the current links, to change and hand over. */
static int
scratch(const struct fe_ctl *c, struct fe_linkdef **up, struct fe_linkdef **down)
{
	*up = malloc(sizeof(**up) * c->dp->nports);
	*down = malloc(sizeof(**down) * c->dp->nports);
	if (*up == NULL || *down == NULL) {
		free(*up);
		free(*down);
		return -ENOMEM;
	}
	memcpy(*up, c->dp->desc.up, sizeof(**up) * c->dp->nports);
	memcpy(*down, c->dp->desc.down, sizeof(**down) * c->dp->nports);
	return 0;
}

/* A copy of the links between switches to change, and the selectors' view of it. */
static int
scratch_hop(const struct fe_ctl *c, struct fe_linkdef **hop, struct fe_fabric_links *fl)
{
	*hop = NULL;
	*fl = (struct fe_fabric_links){0};
	if (c->nhop == 0)
		return 0;
	*hop = malloc(sizeof(**hop) * c->nhop);
	if (*hop == NULL)
		return -ENOMEM;
	memcpy(*hop, c->dp->desc.hop, sizeof(**hop) * c->nhop);
	*fl = (struct fe_fabric_links){.n = c->nhop,
				       .def = *hop,
				       .dir = (const char(*)[80])c->hop_dir,
				       .link = (const char(*)[72])c->hop_link};
	return 0;
}

/* Take the selected links of the expanded profile, keep the others. */
static int
merge_selected(const struct fe_ctl *c, const char *sel, const struct fe_linkdef *pu,
	       const struct fe_linkdef *pd, const struct fe_linkdef *phop, struct fe_linkdef *up,
	       struct fe_linkdef *down, struct fe_fabric_links *fl, char *err, size_t len)
{
	uint8_t pick[2 * FE_TOPO_LINKS] = {0};
	long port;
	int dirs;

	/* one switch: fl has no links, and fabric, A-B, A>B are refused saying so */
	if (fe_linkspec_pick(sel, c->dp->nports, fl, &port, &dirs, pick, err, len) < 0)
		return -EINVAL;
	for (unsigned i = 0; i < c->dp->nports && dirs; i++) {
		if (port >= 0 && (long)i != port)
			continue;
		if (dirs & FE_SEL_UP)
			up[i] = pu[i];
		if (dirs & FE_SEL_DOWN)
			down[i] = pd[i];
	}
	for (unsigned i = 0; i < fl->n; i++)
		if ((dirs & FE_SEL_FABRIC) || pick[i])
			fl->def[i] = phop[i];
	return 0;
}

/* The profile's values for the links between switches: its class, as the topology sets. */
static int
profile_hops(const struct fe_ctl *c, const struct fe_profile *p, uint32_t scale,
	     struct fe_linkdef *phop, char *err, size_t len)
{
	struct fe_linkdef class;

	if (c->nhop == 0)
		return 0;
	if (fe_profile_fabric(p, scale, &class, err, len) < 0)
		return -EINVAL;
	for (unsigned i = 0; i < c->nhop; i++)
		fe_linkdef_apply_over(&class, &c->dp->graph->hl[i].topo, &phop[i]);
	return 0;
}

static json_t *
cmd_apply(struct fe_ctl *c, json_t *req)
{
	const char *text = str_param(req, "profile"), *src = str_param(req, "source");
	const char *sel = str_param(req, "link");
	uint64_t scale;
	struct fe_linkdef *pu = NULL, *pd = NULL, *up = NULL, *down = NULL, *hop = NULL;
	struct fe_linkdef *phop = calloc(c->nhop ? c->nhop : 1, sizeof(*phop));
	struct fe_profile *p = malloc(sizeof(*p));
	struct fe_fabric_links fl;
	struct fe_fabric fab;
	char err[CTL_ERR], what[160], kept[16];
	json_t *r = NULL;
	uint32_t ran;
	int nic_kept;

	if (p == NULL || phop == NULL || scratch(c, &pu, &pd) < 0 || scratch(c, &up, &down) < 0 ||
	    scratch_hop(c, &hop, &fl) < 0) {
		r = reply_err("out of memory");
		goto out;
	}
	if (text == NULL) {
		r = reply_err("apply: 'profile' (the profile's text) is required");
		goto out;
	}
	/* absent or 0: the profile's own */
	if (uint_param(req, &fe_rule_scale, "apply: ", &scale, err, sizeof(err)) < 0) {
		r = reply_err(err);
		goto out;
	}
	if (fe_profile_parse(text, strlen(text), src ? src : "<profile>", p, err, sizeof(err)) <
	    0) {
		r = reply_err(err);
		goto out;
	}
	/* One link: the profile's values under the regime that runs, whose defaults fill what
	 * the profile leaves out (a PFC egress has no packet limit, a lossless up link its
	 * ingress buffer; fe_profile_expand()); the regime is fixed at start. */
	if (sel)
		p->fabric.regime = c->fabric.regime;
	if (fe_profile_expand(p, (uint32_t)scale, c->dp->nports, pu, pd, &fab, err, sizeof(err)) <
		    0 ||
	    profile_hops(c, p, (uint32_t)scale, phop, err, sizeof(err)) < 0 ||
	    (sel && merge_selected(c, sel, pu, pd, phop, up, down, &fl, err, sizeof(err)) < 0)) {
		r = reply_err(err);
		goto out;
	}
	if (sel)
		fab = c->fabric; /* one link: the fabric-wide values stay */
	/* the hosts' adapters are fixed at start: the profile's nic: is not taken, and the
	 * reply says so */
	nic_kept = fab.nic.model != c->fabric.nic.model ||
		   (fab.nic.model != FE_NIC_TCP &&
		    memcmp(&fab.nic, &c->fabric.nic, sizeof(fab.nic)) != 0);
	snprintf(kept, sizeof(kept), "%s", fe_nic_model_name(fab.nic.model));
	fab.nic = c->fabric.nic;
	if (change(c, sel ? up : pu, sel ? down : pd, sel ? hop : (c->nhop ? phop : NULL), &fab,
		   err, sizeof(err)) < 0) {
		r = reply_err(err);
		goto out;
	}
	ran = c->scale;
	if (!sel) {
		snprintf(c->profile, sizeof(c->profile), "%s", p->name);
		c->scale = scale ? (uint32_t)scale : p->scale;
	}
	snprintf(what, sizeof(what), "profile %s applied to %s at scale %u", p->name,
		 sel ? sel : "the fabric", scale ? (uint32_t)scale : p->scale);
	r = change_reply(c, what);
	if (nic_kept && !sel) {
		char note[300];

		snprintf(
			note, sizeof(note),
			"note: its nic (%s, or its parameters) was not taken: the hosts' adapters "
			"are fixed at start; they stay nic %s (restart fabemu-dp with --profile or "
			"--nic to change them)\n",
			kept, fe_nic_model_name(c->fabric.nic.model));
		reply_note(r, note);
		json_object_set_new(json_object_get(r, "data"), "nic_kept", json_true());
	}
	if (scale == 0 && p->scale != ran) { /* the profile's own scale, not the fabric's */
		char note[300];

		if (sel)
			snprintf(
				note, sizeof(note),
				"note: %s at the profile's own scale %u, the rest of the fabric at "
				"scale %u (--scale %u applies it at the fabric's)\n",
				sel, p->scale, ran, ran);
		else
			snprintf(
				note, sizeof(note),
				"note: the fabric now runs at the profile's own scale %u, where it "
				"ran at scale %u (--scale %u keeps that)\n",
				p->scale, ran, ran);
		reply_note(r, note);
		json_object_set_new(json_object_get(r, "data"), "fabric_scale",
				    json_integer((json_int_t)ran));
	}
out:
	free(hop);
	free(phop);
	free(p);
	free(pu);
	free(pd);
	free(up);
	free(down);
	return r;
}

/*
 * A regime's keys under the regime that runs them only: under another they would change
 * nothing (fe_update.c compiles PFC's thresholds and watchdog under pfc alone, HOQLife
 * is the credit engine's), as a profile's pfc: or credit: section under another regime
 * is an error (fe_profile.c). The regime is fixed at start.
 */
static int
regime_keys(const struct fe_fabric *f, const char *sel, enum fe_regime need, char *err, size_t len)
{
	if (f->regime == need)
		return 0;
	snprintf(err, len,
		 "set %s: the dataplane runs regime %s; %s keys take effect under regime %s "
		 "only (the regime is fixed at start: restart fabemu-dp with --regime %s or a "
		 "%s profile)",
		 sel, fe_regime_name(f->regime), sel, fe_regime_name(need), fe_regime_name(need),
		 fe_regime_name(need));
	return -EINVAL;
}

/* "pfc", "credit" and "switch" take fabric keys; anything else is a link selector. */
static int
set_fabric(struct fe_fabric *f, const char *sel, const char *spec, char *err, size_t len)
{
	if (strcmp(sel, "pfc") == 0)
		return regime_keys(f, sel, FE_REGIME_PFC, err, len) < 0
			       ? -EINVAL
			       : fe_pfc_spec(spec, &f->pfc, err, len);
	if (strcmp(sel, "credit") == 0)
		return regime_keys(f, sel, FE_REGIME_CREDIT, err, len) < 0
			       ? -EINVAL
			       : fe_credit_spec(spec, &f->credit, err, len);
	if (strncmp(spec, "buffer=", 7) != 0) {
		snprintf(err, len, "switch: unknown key in '%s' (known: buffer)", spec);
		return -EINVAL;
	}
	return fe_rule_parse(&fe_rule_switch_buffer, "", spec + 7, &f->switch_buffer, err, len);
}

static json_t *
cmd_set(struct fe_ctl *c, json_t *req)
{
	const char *sel = str_param(req, "link"), *spec = str_param(req, "spec");
	struct fe_linkdef *up = NULL, *down = NULL, *hop = NULL;
	struct fe_fabric fab = c->fabric;
	struct fe_fabric_links fl;
	char err[CTL_ERR], full[FE_CTL_REQ_MAX / 16], what[300];
	json_t *r;
	int fabric;

	if (sel == NULL || spec == NULL)
		return reply_err("set: 'link' (a selector, or pfc, credit, switch) and 'spec' "
				 "(key=value,...) are required");
	if (strlen(sel) + strlen(spec) + 2 > sizeof(full))
		return reply_err("set: spec too long");
	if (scratch(c, &up, &down) < 0 || scratch_hop(c, &hop, &fl) < 0) {
		free(up);
		free(down);
		return reply_err("out of memory");
	}
	fabric = !strcmp(sel, "pfc") || !strcmp(sel, "credit") || !strcmp(sel, "switch");
	snprintf(full, sizeof(full), "%s:%s", sel, spec);
	if ((fabric ? set_fabric(&fab, sel, spec, err, sizeof(err))
		    : fe_linkspec_apply_fabric(full, up, down, c->dp->nports, &fl, err,
					       sizeof(err))) < 0 ||
	    change(c, up, down, hop, &fab, err, sizeof(err)) < 0) {
		r = reply_err(err);
	} else {
		snprintf(what, sizeof(what), "%s: %s", sel, spec);
		r = change_reply(c, what);
	}
	free(up);
	free(down);
	free(hop);
	return r;
}

static json_t *
cmd_counters(struct fe_ctl *c, json_t *req)
{
	if (json_is_true(json_object_get(req, "json")))
		return reply_ok(NULL, fe_report_doc(c->dp)); /* the document --stats-json writes */
	return reply_stream(fe_report_table, c->dp);
}

static json_t *
cmd_reset(struct fe_ctl *c, json_t *req)
{
	(void)req;
	if (fe_ctlif_reset(c->dp, CTL_WAIT_NS) < 0)
		return reply_err("the dataplane did not reset its counters within 1000 ms "
				 "(is its lcore running?)");
	for (unsigned i = 0; i < c->dp->nports; i++)
		fe_report_eth_reset(c->dp->ports[i].port_id);
	for (unsigned t = 0; c->dp->graph && t < c->dp->graph->ntrunks; t++)
		fe_report_eth_reset(c->dp->graph->trunk[t].port);
	fe_kernel_reset(fe_report_kernel());
	return reply_ok("counters reset\n", NULL);
}

/* A link between switches, by either of its names ("leaf1>spine2", "leaf1-spine2"). */
static int
is_hop(const struct fe_ctl *c, const char *name)
{
	for (unsigned i = 0; i < c->nhop; i++)
		if (strcmp(name, c->hop_dir[i]) == 0 || strcmp(name, c->hop_link[i / 2]) == 0)
			return 1;
	return 0;
}

/*
 * What hold takes: one host's link, N.up or N.down, as link n (2 x port, + 1: down) of
 * fe_ctlif_hold(). The engine holds the ports' links only (fe_dp.c, ctl_requests()): a
 * link between switches has no hold, and is named as such in the refusal.
 */
static int
hold_link(const struct fe_ctl *c, const char *link, unsigned *n, char *err, size_t len)
{
	long port;
	int dirs;

	if (isdigit((unsigned char)link[0]) && strchr(link, '.') != NULL &&
	    fe_linkspec_select(link, c->dp->nports, &port, &dirs, err, len) == 0 && port >= 0 &&
	    (dirs == FE_SEL_UP || dirs == FE_SEL_DOWN)) {
		*n = fe_dp_link_id(c->dp, dirs == FE_SEL_DOWN ? FE_LINK_DOWN : FE_LINK_UP,
				   (unsigned)port);
		return 0;
	}
	snprintf(err, len,
		 "hold: link '%s'%s: hold takes one host's link, N.up or N.down (N: a port, 0 to "
		 "%u)",
		 link, is_hop(c, link) ? " is between switches" : "",
		 c->dp->nports ? c->dp->nports - 1 : 0);
	return -EINVAL;
}

/* Hold one link's serializer for a while: a pause storm, or credits not returned. */
static json_t *
cmd_hold(struct fe_ctl *c, json_t *req)
{
	const char *link = str_param(req, "link"), *dur = str_param(req, "duration");
	uint64_t ns;
	char err[CTL_ERR], text[300];
	unsigned n;

	if (link == NULL || dur == NULL)
		return reply_err("hold: 'link' (N.up or N.down) and 'duration' are required");
	if (hold_link(c, link, &n, err, sizeof(err)) < 0)
		return reply_err(err);
	if (fe_rule_parse(&fe_rule_hold, "hold: ", dur, &ns, err, sizeof(err)) < 0)
		return reply_err(err);
	if (fe_ctlif_hold(c->dp, n, ns, CTL_WAIT_NS) < 0)
		return reply_err("the dataplane did not take the hold within 1000 ms (is its "
				 "lcore running?)");
	snprintf(text, sizeof(text), "%s held for %s\n", link, dur);
	return reply_ok(text, NULL);
}

static json_t *
cmd_prometheus(struct fe_ctl *c, json_t *req)
{
	(void)req;
	return reply_stream(fe_prom_write, c->dp);
}

/* mkdir -p, the last directory with mode `mode` */
static void
make_dirs(const char *dir, mode_t mode)
{
	char p[256];

	snprintf(p, sizeof(p), "%s", dir);
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, mode);
}

/*
 * Where a capture may be written. A plain name goes in the capture directory; a path
 * is taken only from root on the UNIX socket (anyone else could have the dataplane,
 * which runs as root, overwrite any file). Either way the file must be new: never a
 * file, FIFO, device or link that exists. Returns the open fd, its path in path.
 */
static int
open_capture(const struct fe_ctl *c, const char *file, char *path, size_t plen, char *err,
	     size_t len)
{
	int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, fd, dfd;
	struct stat st;

	if (strchr(file, '/') != NULL) {
		if (!c->req_root) {
			snprintf(err, len,
				 "capture: file '%s': only root on the UNIX socket may give a "
				 "path; give a plain name, written in the capture directory %s",
				 file, c->capdir);
			return -EPERM;
		}
		if (file[0] != '/') {
			snprintf(err, len,
				 "capture: file '%s': give an absolute path, or a plain name for "
				 "the capture directory %s",
				 file, c->capdir);
			return -EINVAL;
		}
		snprintf(path, plen, "%s", file);
		fd = open(file, flags, 0600);
	} else {
		if (file[0] == '\0' || strcmp(file, ".") == 0 || strcmp(file, "..") == 0 ||
		    strlen(file) > 200) {
			snprintf(err, len, "capture: file '%s': not a file name", file);
			return -EINVAL;
		}
		snprintf(path, plen, "%s/%s", c->capdir, file);
		make_dirs(c->capdir, 0750);
		dfd = open(c->capdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd < 0) {
			snprintf(err, len, "capture: directory %s: %s", c->capdir, strerror(errno));
			return -errno;
		}
		fd = openat(dfd, file, flags, 0600);
		close(dfd);
	}
	if (fd < 0) {
		snprintf(err, len, "capture: %s: %s%s", path, strerror(errno),
			 errno == EEXIST ? " (a capture is only written to a new file)" : "");
		return -EEXIST;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		snprintf(err, len, "capture: %s: not a regular file", path);
		close(fd);
		return -EINVAL;
	}
	return fd;
}

static json_t *
cmd_capture(struct fe_ctl *c, json_t *req)
{
	const char *action = str_param(req, "action"), *link = str_param(req, "link");
	const char *file = str_param(req, "file");
	uint64_t snap;
	int drops = json_is_true(json_object_get(req, "drops")), fd, rc;
	char err[CTL_ERR], text[CTL_ERR], path[512];

	if (action && strcmp(action, "stop") == 0) {
		if (c->cap == NULL)
			return reply_err("capture stop: no capture is running");
		rc = fe_capture_stop(c->dp, c->cap, text, sizeof(text));
		c->cap = NULL;
		return rc < 0 ? reply_err(text) : reply_ok(text, NULL);
	}
	if (action == NULL || strcmp(action, "start") != 0 || link == NULL || file == NULL)
		return reply_err("capture: action start (with link and file) or stop");
	if (c->cap)
		return reply_err("capture start: a capture is already running (stop it first)");
	if (uint_param(req, &fe_rule_snaplen, "capture: ", &snap, err, sizeof(err)) < 0)
		return reply_err(err);
	if ((fd = open_capture(c, file, path, sizeof(path), err, sizeof(err))) < 0)
		return reply_err(err);
	c->cap = fe_capture_start(c->dp, link, fd, path, drops, (uint32_t)snap, err, sizeof(err));
	if (c->cap == NULL)
		return reply_err(err);
	snprintf(text, sizeof(text), "capturing %s\n", fe_capture_describe(c->cap));
	return reply_ok(text, NULL);
}

static const struct {
	const char *name;
	json_t *(*fn)(struct fe_ctl *, json_t *);
} commands[] = {
	{"status", cmd_status},	  {"ports", cmd_ports},
	{"links", cmd_links},	  {"apply", cmd_apply},
	{"set", cmd_set},	  {"counters", cmd_counters},
	{"reset", cmd_reset},	  {"prometheus", cmd_prometheus},
	{"capture", cmd_capture}, {"hold", cmd_hold},
};

static json_t *
dispatch(struct fe_ctl *c, const char *line, size_t len, int tcp, int root)
{
	json_error_t je;
	json_t *req = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je), *r = NULL, *v;
	const char *cmd;
	char err[CTL_ERR];

	if (req == NULL || !json_is_object(req)) {
		if (req)
			snprintf(err, sizeof(err), "not a JSON object: another JSON value");
		else
			snprintf(err, sizeof(err), "not a JSON object: %s (column %d)", je.text,
				 je.column);
		json_decref(req);
		return reply_err(err);
	}
	v = json_object_get(req, "fabemu");
	if (!json_is_integer(v) || json_integer_value(v) != FE_CTL_VERSION) {
		snprintf(err, sizeof(err), "protocol version %s: this fabemu-dp speaks %d",
			 json_is_integer(v) ? "mismatch" : "missing ('fabemu' key)",
			 FE_CTL_VERSION);
		json_decref(req);
		return reply_err(err);
	}
	if (tcp && !token_ok(c, str_param(req, "token"))) {
		snprintf(err, sizeof(err),
			 "refused: a request over TCP needs this dataplane's token (\"token\"; "
			 "fabemuctl -t reads it from %s, or from $" FE_CTL_ENV_TOKEN ")",
			 c->token_path);
		json_decref(req);
		return reply_err(err);
	}
	c->req_root = root && !tcp;
	cmd = str_param(req, "cmd");
	for (size_t i = 0; cmd && i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(cmd, commands[i].name) == 0)
			r = commands[i].fn(c, req);
	if (r == NULL) {
		snprintf(err, sizeof(err),
			 "unknown command '%s' (known: status, ports, links, apply, set, counters, "
			 "reset, prometheus, capture, hold)",
			 cmd ? cmd : "(none)");
		r = reply_err(err);
	}
	json_decref(req);
	return r;
}

/* Write the whole reply; a client that stops reading is dropped, never waited for long. */
static int
send_reply(int fd, json_t *r)
{
	char *s = json_dumps(r, JSON_COMPACT);
	size_t len, off = 0;
	int rc = 0;

	json_decref(r);
	if (s == NULL)
		return -ENOMEM;
	len = strlen(s);
	s[len++] = '\n'; /* json_dumps leaves room: replace the NUL */
	while (off < len) {
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		ssize_t n = send(fd, s + off, len - off, MSG_NOSIGNAL);

		if (n > 0) {
			off += (size_t)n;
		} else if (n < 0 && (errno == EAGAIN || errno == EINTR) && poll(&p, 1, 1000) > 0) {
			continue;
		} else {
			rc = -EIO;
			break;
		}
	}
	free(s);
	return rc;
}

/* Refuse a client with a reply it can read: shut our side, then close. */
static void
refuse(int fd, const char *msg)
{
	send_reply(fd, reply_err(msg));
	shutdown(fd, SHUT_WR);
	close(fd);
}

static void
accept_client(struct fe_ctl *c, int lfd, int tcp)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), root = 0;
	struct ucred cred;
	socklen_t clen = sizeof(cred);

	if (fd < 0)
		return;
	if (!tcp && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0)
		root = cred.uid == 0;
	/* the last CTL_ROOT slots are root's: a crowd of slow clients cannot lock it out */
	for (unsigned i = 0; i < CTL_CLIENTS + (root ? CTL_ROOT : 0); i++)
		if (c->cl[i].fd < 0) {
			c->cl[i] = (struct client){.fd = fd,
						   .tcp = tcp,
						   .root = root,
						   .buf = malloc(FE_CTL_REQ_MAX + 1),
						   .last_ns = fe_mono_ns()};
			if (c->cl[i].buf == NULL)
				client_close(&c->cl[i]);
			return;
		}
	refuse(fd, "too many control clients (16 at a time, and 2 more for root on the UNIX "
		   "socket); try again");
}

/* Read what the client sent; serve every complete line. Returns requests served. */
static int
serve_client(struct fe_ctl *c, struct client *cl)
{
	ssize_t n = recv(cl->fd, cl->buf + cl->len, FE_CTL_REQ_MAX + 1 - cl->len, 0);
	char *nl;
	int served = 0;

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		if (cl->len) /* gone mid-message: nothing was applied */
			fprintf(stderr,
				"fabemu-dp: control client left mid-message (%zu bytes "
				"dropped)\n",
				cl->len);
		client_close(cl);
		return 0;
	}
	if (n < 0)
		return 0;
	cl->last_ns = fe_mono_ns();
	if (cl->len == 0)
		cl->req_ns = cl->last_ns;
	cl->len += (size_t)n;
	while ((nl = memchr(cl->buf, '\n', cl->len)) != NULL) {
		size_t line = (size_t)(nl - cl->buf);

		cl->req_ns = cl->last_ns; /* what follows the line is the next request's */
		if (send_reply(cl->fd, dispatch(c, cl->buf, line, cl->tcp, cl->root)) < 0) {
			client_close(cl);
			return served;
		}
		served++;
		memmove(cl->buf, nl + 1, cl->len - line - 1);
		cl->len -= line + 1;
	}
	if (cl->len > FE_CTL_REQ_MAX) {
		send_reply(cl->fd, reply_err("request larger than 65536 bytes: refused"));
		client_close(cl);
	}
	return served;
}

int
fe_ctl_poll(struct fe_ctl *c, int timeout_ms)
{
	struct pollfd p[CTL_CLIENTS + CTL_ROOT + 2];
	int idx[CTL_CLIENTS + CTL_ROOT + 2], n = 0, served = 0;
	uint64_t now = fe_mono_ns();

	if (c->unix_fd >= 0)
		p[n] = (struct pollfd){.fd = c->unix_fd, .events = POLLIN}, idx[n++] = -1;
	if (c->tcp_fd >= 0)
		p[n] = (struct pollfd){.fd = c->tcp_fd, .events = POLLIN}, idx[n++] = -2;
	for (int i = 0; i < CTL_CLIENTS + CTL_ROOT; i++) {
		struct client *cl = &c->cl[i];

		/* a request has a deadline as a whole: trickling bytes does not extend it */
		if (cl->fd >= 0 && cl->len && now - cl->req_ns > CTL_REQ_NS) {
			send_reply(cl->fd, reply_err("request not complete within 10 s: closed"));
			client_close(cl);
		}
		if (cl->fd >= 0 && now - cl->last_ns > CTL_IDLE_NS)
			client_close(cl);
		if (c->cl[i].fd >= 0)
			p[n] = (struct pollfd){.fd = c->cl[i].fd, .events = POLLIN}, idx[n++] = i;
	}
	if (c->cap)
		fe_capture_drain(c->cap);
	if (poll(p, (nfds_t)n, timeout_ms) <= 0)
		return 0;
	for (int i = 0; i < n; i++) {
		if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (idx[i] < 0)
			accept_client(c, p[i].fd, idx[i] == -2);
		else
			served += serve_client(c, &c->cl[idx[i]]);
	}
	return served;
}

char *
fe_ctl_request(struct fe_ctl *c, const char *line, size_t len, int root)
{
	json_t *r = dispatch(c, line, len, 0, root);
	char *s = json_dumps(r, JSON_COMPACT);

	json_decref(r);
	return s;
}
