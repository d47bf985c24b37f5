/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Processes: spawning in their own session, shell commands with logs, stopping groups;
 * killing what runs in a testbed's hosts; the runner's watchdog.
 */
#define _GNU_SOURCE /* pipe2 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
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

/*
 * Start argv[0] in its own session (so that we signal the whole group); output to log.
 * It dies with us: a runner killed outright leaves no dataplane, job or script behind
 * (what they started in the hosts, the watchdog kills).
 */
pid_t
cg_spawn(char *const argv[], const char *log, int *out_fd)
{
	int p[2] = {-1, -1};
	pid_t pid, parent = getpid();

	if (out_fd)
		*out_fd = -1;
	if (out_fd && pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int fd;

		/* the parent may have died before the death signal was armed */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
			_exit(127);
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
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

/* The status of a process waited for, as a shell says it. */
static int
exit_status(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * Wait for a shell command. A signal that interrupts the wait does not end it: a script
 * left running would go on building hosts while we take them down. A stoppable one gets
 * our Ctrl-C (SIGINT to its group, once) and is waited for as it stops.
 */
static int
sh_wait(pid_t pid, int stoppable)
{
	int st, sent = 0;

	for (;;) {
		pid_t w = waitpid(pid, &st, stoppable ? WNOHANG : 0);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -1;
		if (stoppable && cg_interrupted && !sent) {
			kill(-pid, SIGINT);
			sent = 1;
		}
		if (w == 0)
			usleep(10000);
	}
	return exit_status(st);
}

static int
vsh(const char *log, int stoppable, const char *fmt, va_list ap)
{
	char *cmd = NULL;
	char *argv[] = {"/bin/sh", "-c", NULL, NULL};
	pid_t pid;

	/* as long as the command is: never run one cut short */
	if (vasprintf(&cmd, fmt, ap) < 0)
		return -1;
	argv[2] = cmd;
	pid = cg_spawn(argv, log, NULL);
	free(cmd);
	return pid < 0 ? -1 : sh_wait(pid, stoppable);
}

int
cg_sh(const char *log, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vsh(log, 0, fmt, ap);
	va_end(ap);
	return rc;
}

int
cg_sh_stoppable(const char *log, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vsh(log, 1, fmt, ap);
	va_end(ap);
	return rc;
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

/*
 * Stop n process groups together: sig to each (0: none, wait for them to end), then all
 * waited for at once, and KILL to those left after wait_ms. rc[i]: each one's status
 * (0 for one not running).
 */
void
cg_stop_groups(pid_t *const pid[], unsigned n, int sig, int wait_ms, int rc[])
{
	unsigned left = 0;
	int st;

	for (unsigned i = 0; i < n; i++) {
		rc[i] = 0;
		if (*pid[i] > 0) {
			kill(-*pid[i], sig);
			left++;
		}
	}
	for (int t = 0; left && t < wait_ms / 10; t++) {
		for (unsigned i = 0; i < n; i++)
			if (*pid[i] > 0 && waitpid(*pid[i], &st, WNOHANG) == *pid[i]) {
				rc[i] = exit_status(st);
				*pid[i] = 0;
				left--;
			}
		if (left)
			usleep(10000);
	}
	for (unsigned i = 0; i < n; i++) {
		if (*pid[i] <= 0)
			continue;
		kill(-*pid[i], SIGKILL);
		waitpid(*pid[i], &st, 0);
		rc[i] = 128 + SIGKILL;
		*pid[i] = 0;
	}
}

/* Stop a process group: sig, then KILL after wait_ms. */
int
cg_stop_group(pid_t *pid, int sig, int wait_ms)
{
	pid_t *one[] = {pid};
	int rc;

	cg_stop_groups(one, 1, sig, wait_ms, &rc);
	return rc;
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

/* The namespace inodes of a testbed's hosts (/run/netns/NAME-hN), up to max. */
static size_t
host_namespaces(const char *testbed, ino_t *ino, dev_t *dev, size_t max)
{
	DIR *d = opendir("/run/netns");
	size_t n = 0, len = strlen(testbed);
	struct dirent *e;

	while (d && (e = readdir(d)) != NULL && n < max) {
		char p[300];
		struct stat st;

		if (strncmp(e->d_name, testbed, len) != 0 ||
		    strncmp(e->d_name + len, "-h", 2) != 0 ||
		    !isdigit((unsigned char)e->d_name[len + 2]))
			continue;
		snprintf(p, sizeof(p), "/run/netns/%s", e->d_name);
		if (stat(p, &st) == 0) {
			ino[n] = st.st_ino;
			dev[n++] = st.st_dev;
		}
	}
	if (d)
		closedir(d);
	return n;
}

/* Whether process pid's network namespace is one of the n given. */
static int
in_namespaces(const char *pid, const ino_t *ino, const dev_t *dev, size_t n)
{
	char p[64];
	struct stat st;

	snprintf(p, sizeof(p), "/proc/%s/ns/net", pid);
	if (stat(p, &st) != 0) /* gone, or a zombie */
		return 0;
	for (size_t i = 0; i < n; i++)
		if (st.st_ino == ino[i] && st.st_dev == dev[i])
			return 1;
	return 0;
}

/* Whether process pid has arg among its arguments. */
static int
has_arg(const char *pid, const char *arg)
{
	char p[64], buf[8192];
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "/proc/%s/cmdline", pid);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1)
		if (strcmp(buf + i, arg) == 0)
			return 1;
	return 0;
}

/* The socket inodes process pid holds (its /proc/PID/fd links "socket:[N]"), up to max. */
static size_t
socket_inodes(const char *pid, unsigned long *ino, size_t max)
{
	char p[300], link[64];
	DIR *d;
	struct dirent *e;
	size_t n = 0;

	snprintf(p, sizeof(p), "/proc/%s/fd", pid);
	d = opendir(p);
	while (d && (e = readdir(d)) != NULL && n < max) {
		ssize_t k;

		snprintf(p, sizeof(p), "/proc/%s/fd/%s", pid, e->d_name);
		k = readlink(p, link, sizeof(link) - 1);
		link[k > 0 ? k : 0] = '\0';
		if (sscanf(link, "socket:[%lu]", &ino[n]) == 1)
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

/* Whether one of the n sockets listens in file (/proc/PID/net/tcp or tcp6: state 0A). */
static int
sockets_listen(const char *file, const unsigned long *ino, size_t n)
{
	FILE *f = fopen(file, "re");
	char line[512];
	int on = 0;

	while (f && !on && fgets(line, sizeof(line), f)) {
		unsigned long inode;
		unsigned st;

		if (sscanf(line,
			   " %*u: %*[0-9A-Fa-f]:%*x %*[0-9A-Fa-f]:%*x %x %*s %*s %*s %*u %*u %lu",
			   &st, &inode) != 2 ||
		    st != 0x0A)
			continue;
		for (size_t i = 0; i < n && !on; i++)
			on = inode == ino[i];
	}
	if (f)
		fclose(f);
	return on;
}

int
cg_group_listens(pid_t pgid)
{
	static const char *const files[] = {"tcp", "tcp6"};
	DIR *d = opendir("/proc");
	struct dirent *e;
	int on = 0;

	while (d && !on && (e = readdir(d)) != NULL) {
		unsigned long ino[64];
		char p[300];
		size_t n;

		if (!isdigit((unsigned char)e->d_name[0]) || getpgid(atoi(e->d_name)) != pgid)
			continue;
		if ((n = socket_inodes(e->d_name, ino, 64)) == 0)
			continue;
		for (size_t k = 0; k < 2 && !on; k++) {
			snprintf(p, sizeof(p), "/proc/%s/net/%s", e->d_name, files[k]);
			on = sockets_listen(p, ino, n);
		}
	}
	if (d)
		closedir(d);
	return on;
}

/* SIGKILL, in rounds until a round finds none (what they fork in the meantime). */
static int
kill_matching(const char *testbed, const char *arg)
{
	ino_t ino[CG_MAX_HOSTS * 4];
	dev_t dev[CG_MAX_HOSTS * 4];
	size_t n = testbed ? host_namespaces(testbed, ino, dev, CG_MAX_HOSTS * 4) : 0;
	int total = 0, found = 1;

	if (testbed && n == 0)
		return 0;
	for (int round = 0; round < 100 && found; round++) {
		DIR *d = opendir("/proc");
		struct dirent *e;

		found = 0;
		while (d && (e = readdir(d)) != NULL) {
			if (!isdigit((unsigned char)e->d_name[0]) || atoi(e->d_name) == getpid())
				continue;
			if (testbed ? in_namespaces(e->d_name, ino, dev, n)
				    : has_arg(e->d_name, arg))
				found += kill(atoi(e->d_name), SIGKILL) == 0;
		}
		if (d)
			closedir(d);
		total += found;
		if (found)
			usleep(20000);
	}
	return total;
}

int
cg_kill_netns(const char *testbed)
{
	return kill_matching(testbed, NULL);
}

int
cg_kill_arg(const char *arg)
{
	return kill_matching(NULL, arg);
}

unsigned long long
cg_proc_start(pid_t pid)
{
	char p[64], buf[1024], *rp;
	unsigned long long start = 0;
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* after the name (which may hold anything): state is field 3, starttime field 22 */
	if ((rp = strrchr(buf, ')')) == NULL ||
	    sscanf(rp + 2,
		   "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d "
		   "%*d %llu",
		   &start) != 1)
		return 0;
	return start;
}

/*
 * The watchdog: a process of its own session (a Ctrl-C at the terminal is the runner's
 * to handle), blocked on a pipe whose only write end the runner holds (close-on-exec:
 * no child keeps it). However the runner goes, SIGKILL included, the pipe then reads
 * EOF; if the runner's record is still there, the runner did not get to clean up, and
 * the watchdog does: what the runner's children started in the hosts (iperf3, the MPI
 * ranks) outlives them, and the testbed outlives everything.
 */
int
cg_watchdog_start(struct cg_run *r)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		struct cg_owner o;
		char c;
		ssize_t n;

		close(p[1]);
		setsid();
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		signal(SIGTERM, SIG_DFL);
		while ((n = read(p[0], &c, 1)) != 0)
			if (n < 0 && errno != EINTR)
				break;
		if (cg_record_read(r->record, &o) == 0)
			cg_record_clean(r->record, &o, "its watchdog");
		_exit(0);
	}
	close(p[0]);
	r->watchdog = pid;
	r->watchdog_fd = p[1];
	return 0;
}

/* The runner cleaned up itself (its record is gone): the watchdog exits. */
void
cg_watchdog_stop(struct cg_run *r)
{
	if (r->watchdog <= 0)
		return;
	close(r->watchdog_fd);
	while (waitpid(r->watchdog, NULL, 0) < 0 && errno == EINTR)
		;
	r->watchdog = 0;
}

/* One task's stat: its name and last core (field 39); 0, or -1 if it is gone. */
static int
task_stat(const char *dir, struct cg_task *t)
{
	char path[320], buf[1024], *close;
	FILE *f;
	size_t n;
	int k = 0;

	snprintf(path, sizeof(path), "%s/stat", dir);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if ((close = strrchr(buf, ')')) == NULL || strchr(buf, '(') == NULL)
		return -1;
	*close = '\0';
	snprintf(t->comm, sizeof(t->comm), "%s", strchr(buf, '(') + 1);
	/* past ") ": state is field 3, processor field 39 */
	for (char *p = close + 2; *p; p++)
		if (*p == ' ' && ++k == 36) {
			t->cpu = (unsigned)strtoul(p + 1, NULL, 10);
			return 0;
		}
	return -1;
}

size_t
cg_tasks_read(struct cg_task *t, size_t max)
{
	DIR *proc = opendir("/proc"), *task;
	struct dirent *p, *e;
	size_t n = 0;

	while (proc && n < max && (p = readdir(proc)) != NULL) {
		char dir[300];

		if (!isdigit((unsigned char)p->d_name[0]))
			continue;
		snprintf(dir, sizeof(dir), "/proc/%s/task", p->d_name);
		if ((task = opendir(dir)) == NULL)
			continue;
		while (n < max && (e = readdir(task)) != NULL) {
			char tdir[320], path[340];
			unsigned long long run = 0;
			FILE *f;

			if (!isdigit((unsigned char)e->d_name[0]))
				continue;
			snprintf(tdir, sizeof(tdir), "%s/%s", dir, e->d_name);
			snprintf(path, sizeof(path), "%s/schedstat", tdir);
			if ((f = fopen(path, "r")) == NULL)
				continue;
			if (fscanf(f, "%llu", &run) != 1)
				run = 0;
			fclose(f);
			t[n].pid = (pid_t)atoi(p->d_name);
			t[n].tid = (pid_t)atoi(e->d_name);
			t[n].run_ns = run;
			if (task_stat(tdir, &t[n]) == 0)
				n++;
		}
		closedir(task);
	}
	if (proc)
		closedir(proc);
	return n;
}
