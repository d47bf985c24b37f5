/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "fe_client.h"
#include "fe_ctl_proto.h"

const char *
fe_client_token(const char *tcp, const char *file)
{
	static char tok[FE_CTL_TOKEN_LEN + 2];
	const char *env = getenv(FE_CTL_ENV_TOKEN), *colon = strrchr(tcp, ':');
	char path[300];
	FILE *f;

	if (env && *env)
		return env;
	if (file)
		snprintf(path, sizeof(path), "%s", file);
	else
		snprintf(path, sizeof(path), FE_CTL_TOKEN_DIR "/token-%s", colon ? colon + 1 : tcp);
	f = fopen(path, "r");
	if (f == NULL || fgets(tok, sizeof(tok), f) == NULL) {
		fprintf(stderr,
			"fabemuctl: no token for TCP: %s: %s (it is root-only; give "
			"--token-file FILE or $" FE_CTL_ENV_TOKEN ")\n",
			path, f ? "empty" : strerror(errno));
		if (f)
			fclose(f);
		return NULL;
	}
	fclose(f);
	tok[strcspn(tok, "\r\n")] = '\0';
	return tok;
}

json_t *
fe_client_request(const char *cmd)
{
	return json_pack("{s:i, s:s}", "fabemu", FE_CTL_VERSION, "cmd", cmd);
}

/*
 * connect() that gives up after timeout_ms: a dataplane whose control thread does not
 * accept (its backlog full) would otherwise hold a UNIX connect forever, and a TCP one
 * for minutes. 0, or -1 with errno set (ETIMEDOUT).
 */
static int
connect_wait(int fd, const struct sockaddr *a, socklen_t len, int timeout_ms)
{
	int fl = fcntl(fd, F_GETFL), err = 0, rc;
	socklen_t elen = sizeof(err);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -1;
	for (int waited = 0;; waited += 10) {
		rc = connect(fd, a, len);
		if (rc == 0 || errno != EAGAIN) /* EAGAIN: a UNIX listener's backlog is full */
			break;
		if (waited >= timeout_ms) {
			errno = ETIMEDOUT;
			return -1;
		}
		usleep(10000);
	}
	if (rc < 0 && errno == EINPROGRESS) { /* TCP: wait for it to complete */
		struct pollfd p = {.fd = fd, .events = POLLOUT};

		if (poll(&p, 1, timeout_ms) <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0 || err) {
			errno = err ? err : errno;
			return -1;
		}
		rc = 0;
	}
	if (rc == 0 && fcntl(fd, F_SETFL, fl) < 0)
		return -1;
	return rc;
}

static int
connect_dp(const struct fe_client *o)
{
	int fd;

	if (o->tcp) {
		struct sockaddr_in a = {.sin_family = AF_INET};
		const char *colon = strrchr(o->tcp, ':');
		char host[64] = "127.0.0.1";

		if (colon)
			snprintf(host, sizeof(host), "%.*s", (int)(colon - o->tcp), o->tcp);
		a.sin_port = htons((uint16_t)atoi(colon ? colon + 1 : o->tcp));
		if (inet_pton(AF_INET, host, &a.sin_addr) != 1) {
			fprintf(stderr, "fabemuctl: --tcp '%s': expected [IPV4:]PORT\n", o->tcp);
			return -1;
		}
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect_wait(fd, (struct sockaddr *)&a, sizeof(a), 30000) == 0)
			return fd;
		fprintf(stderr, "fabemuctl: cannot reach fabemu-dp at %s: %s\n", o->tcp,
			strerror(errno));
	} else {
		struct sockaddr_un a = {.sun_family = AF_UNIX};

		snprintf(a.sun_path, sizeof(a.sun_path), "%s", o->socket);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect_wait(fd, (struct sockaddr *)&a, sizeof(a), 30000) == 0)
			return fd;
		fprintf(stderr, "fabemuctl: cannot reach fabemu-dp at %s: %s%s\n", o->socket,
			strerror(errno),
			errno == EACCES	     ? " (the control socket is root-only)"
			: errno == ETIMEDOUT ? " (it did not accept within 30 s)"
			: errno == ENOENT || errno == ECONNREFUSED
				? " (is fabemu-dp running? its --control option names the socket)"
				: "");
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Send one request, read one reply (a line of at most FE_CTL_REPLY_MAX bytes). */
json_t *
fe_client_roundtrip(const struct fe_client *o, json_t *req)
{
	char *s = NULL, *buf = NULL;
	size_t len = 0, cap = 0;
	json_t *r = NULL;
	int fd = connect_dp(o), sent;

	if (o->tcp && o->token && json_is_object(req))
		json_object_set_new(req, "token", json_string(o->token));
	s = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (fd < 0 || s == NULL)
		goto out;
	/* a dataplane that refuses us (too many clients) has replied and closed: read it */
	sent = send(fd, s, strlen(s), MSG_NOSIGNAL) >= 0 && send(fd, "\n", 1, MSG_NOSIGNAL) >= 0;
	if (!sent && errno != EPIPE && errno != ECONNRESET) {
		fprintf(stderr, "fabemuctl: send: %s\n", strerror(errno));
		goto out;
	}
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t n;

		if (len == cap) {
			char *nb =
				cap < FE_CTL_REPLY_MAX ? realloc(buf, cap ? cap * 2 : 65536) : NULL;

			if (nb == NULL) {
				fprintf(stderr, "fabemuctl: reply larger than %u bytes\n",
					FE_CTL_REPLY_MAX);
				goto out;
			}
			buf = nb;
			cap = cap ? cap * 2 : 65536;
		}
		if (poll(&p, 1, 30000) <= 0) {
			fprintf(stderr, "fabemuctl: no reply from fabemu-dp within 30 s\n");
			goto out;
		}
		n = recv(fd, buf + len, cap - len, 0);
		if (n <= 0) {
			fprintf(stderr, "fabemuctl: fabemu-dp closed the connection\n");
			goto out;
		}
		len += (size_t)n;
		if (memchr(buf + len - (size_t)n, '\n', (size_t)n))
			break;
	}
	r = json_loadb(buf, len, 0, NULL);
	if (r == NULL)
		fprintf(stderr, "fabemuctl: the reply is not JSON\n");
out:
	free(s);
	free(buf);
	if (fd >= 0)
		close(fd);
	return r;
}

int
fe_client_run(const struct fe_client *o, json_t *req)
{
	json_t *r = fe_client_roundtrip(o, req), *v;
	int rc;

	if (r == NULL)
		return FE_EXIT_NODP;
	if (!json_is_true(json_object_get(r, "ok"))) {
		fprintf(stderr, "fabemuctl: %s\n",
			json_string_value(json_object_get(r, "error")) ?: "refused");
		rc = FE_EXIT_REFUSED;
	} else if (o->quiet) {
		rc = 0;
	} else if (o->json && (v = json_object_get(r, "data")) != NULL) {
		json_dumpf(v, stdout, JSON_INDENT(2));
		putchar('\n');
		rc = 0;
	} else {
		fputs(json_string_value(json_object_get(r, "text")) ?: "", stdout);
		rc = 0;
	}
	json_decref(r);
	return rc;
}
