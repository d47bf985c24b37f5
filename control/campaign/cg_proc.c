/* SPDX-License-Identifier: BSD-3-Clause */
/* Processes: spawning in their own session, shell commands with logs, stopping groups. */
#define _GNU_SOURCE /* pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cg.h"

volatile sig_atomic_t cg_interrupted;

void
cg_on_signal(int sig)
{
	(void)sig;
	cg_interrupted = 1;
}

uint64_t
cg_now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

void
cg_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

/* Start argv[0] in its own session (so that we signal the whole group); output to log. */
pid_t
cg_spawn(char *const argv[], const char *log, int *out_fd)
{
	int p[2] = {-1, -1};
	pid_t pid;

	if (out_fd)
		*out_fd = -1;
	if (out_fd && pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);

		setsid();
		if (out_fd) /* the caller reads stdout, even if the log cannot be opened */
			dup2(p[1], STDOUT_FILENO);
		if (fd >= 0) {
			if (!out_fd)
				dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (out_fd) {
		close(p[1]);
		*out_fd = pid > 0 ? p[0] : -1;
		if (pid < 0)
			close(p[0]);
	}
	return pid;
}

/* Run a shell command to completion; its output into log. Returns its exit status. */
int
cg_sh(const char *log, const char *fmt, ...)
{
	char cmd[4096];
	char *argv[] = {"/bin/sh", "-c", cmd, NULL};
	int st;
	pid_t pid;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	pid = cg_spawn(argv, log, NULL);
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int
cg_sh_out(char *out, size_t len, const char *fmt, ...)
{
	char cmd[4096];
	size_t n = 0;
	va_list ap;
	FILE *f;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	out[0] = '\0';
	f = popen(cmd, "r");
	if (f == NULL)
		return -1;
	while (n + 1 < len) {
		size_t k = fread(out + n, 1, len - 1 - n, f);

		if (k == 0)
			break;
		n += k;
	}
	out[n] = '\0';
	st = pclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Stop a process group: sig, then KILL after wait_ms. */
int
cg_stop_group(pid_t *pid, int sig, int wait_ms)
{
	int st = 0;

	if (*pid <= 0)
		return 0;
	kill(-*pid, sig);
	for (int i = 0; i < wait_ms / 10; i++) {
		if (waitpid(*pid, &st, WNOHANG) == *pid) {
			*pid = 0;
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
		usleep(10000);
	}
	kill(-*pid, SIGKILL);
	waitpid(*pid, &st, 0);
	*pid = 0;
	return 128 + SIGKILL;
}

void
cg_logpath(const struct cg_run *r, char *buf, size_t len, const char *fmt, ...)
{
	char name[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	snprintf(buf, len, "%s/logs/%s", r->out, name);
}
