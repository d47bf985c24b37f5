/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * allreduce: the collective job of fabemu's campaigns. Every rank runs MPI_Allreduce
 * (MPI_SUM of int32) of each size for a number of iterations, after a barrier; each
 * iteration's time is the slowest rank's (MPI_Reduce of the times with MPI_MAX), and
 * every rank checks every element of the result: a wrong sum is a failure (exit 3),
 * never a number.
 *
 * Rank 0 prints one line an iteration, flushed, so that a campaign follows it live:
 *   iter G SIZE I TIME_US START_NS     G: iteration number over all sizes, from 1
 *   done
 * START_NS is the wall clock (CLOCK_REALTIME) when rank 0 left the barrier.
 * --hook CMD runs "CMD G" on rank 0 before the barrier of each iteration G listed in
 * --hook-iters, so that a fault is in place before any rank starts that iteration.
 *
 * --pattern permutation runs, in place of the all-reduce, a permutation: rank r sends its
 * SIZE bytes to rank (r + n/2) mod n and receives as many from (r - n/2) mod n, all at
 * once (MPI_Sendrecv), so that an iteration's time, the slowest rank's, is the tail
 * flow completion time of n flows (on a leaf-spine whose leaves hold n/2 ranks each,
 * every flow crosses the spines). Every element received is checked the same way.
 *
 * FE_ALLREDUCE_CORRUPT=G (tests): the last rank adds 1 to one element of what it sends in
 * iteration G (from 1, as the iter lines count), so that the result is wrong and the job
 * must fail (as allreduce_torch.py does).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#define MAX_SIZES 16
#define MAX_HOOKS 64

struct opts {
	uint64_t sizes[MAX_SIZES];
	int nsizes;
	int iters, warmup;
	const char *hook;
	int hook_iters[MAX_HOOKS];
	int nhooks;
	int perm; /* --pattern permutation */
};

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: allreduce [--sizes SIZE[,SIZE...]] [--iters N] [--warmup N]\n"
		"                 [--hook CMD --hook-iters G[,G...]] [--pattern P]\n"
		"  --sizes     bytes per rank, with K/M/KiB/MiB suffixes (default 1MiB)\n"
		"  --iters     measured iterations per size (default 20)\n"
		"  --warmup    unmeasured iterations per size first (default 2)\n"
		"  --hook      rank 0 runs 'CMD G' before iteration G (G from 1, over all sizes)\n"
		"  --hook-iters the iterations G that run the hook\n"
		"  --pattern   allreduce (default) | permutation: rank r sends SIZE bytes to\n"
		"              rank r + n/2 (mod n) and receives from r - n/2\n");
}

static int
parse_size(const char *s, uint64_t *out)
{
	char *end;
	double v = strtod(s, &end);
	uint64_t m = 1;

	if (end == s || v <= 0)
		return -EINVAL;
	if (!strcmp(end, "KiB") || !strcmp(end, "K"))
		m = 1024;
	else if (!strcmp(end, "MiB") || !strcmp(end, "M"))
		m = 1024 * 1024;
	else if (!strcmp(end, "KB"))
		m = 1000;
	else if (!strcmp(end, "MB"))
		m = 1000000;
	else if (*end && strcmp(end, "B"))
		return -EINVAL;
	*out = (uint64_t)(v * (double)m);
	return *out >= 4 && *out <= (1ULL << 30) ? 0 : -ERANGE;
}

static int
parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {{"sizes", required_argument, NULL, 's'},
					   {"iters", required_argument, NULL, 'i'},
					   {"warmup", required_argument, NULL, 'w'},
					   {"hook", required_argument, NULL, 'k'},
					   {"hook-iters", required_argument, NULL, 'g'},
					   {"pattern", required_argument, NULL, 'p'},
					   {"help", no_argument, NULL, 'h'},
					   {NULL, 0, NULL, 0}};
	char *save = NULL, *t;
	int c;

	*o = (struct opts){.sizes = {1 << 20}, .nsizes = 1, .iters = 20, .warmup = 2};
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			o->nsizes = 0;
			for (t = strtok_r(optarg, ",", &save); t; t = strtok_r(NULL, ",", &save))
				if (o->nsizes == MAX_SIZES ||
				    parse_size(t, &o->sizes[o->nsizes++]) < 0) {
					fprintf(stderr,
						"allreduce: --sizes: bad size '%s' (4 B to 1GiB)\n",
						t);
					return -1;
				}
			break;
		case 'i':
		case 'w':
			*(c == 'i' ? &o->iters : &o->warmup) = atoi(optarg);
			if (o->iters < 1 || o->iters > 1000000 || o->warmup < 0) {
				fprintf(stderr, "allreduce: bad --iters/--warmup '%s'\n", optarg);
				return -1;
			}
			break;
		case 'k':
			o->hook = optarg;
			break;
		case 'g':
			for (t = strtok_r(optarg, ",", &save); t && o->nhooks < MAX_HOOKS;
			     t = strtok_r(NULL, ",", &save))
				o->hook_iters[o->nhooks++] = atoi(t);
			break;
		case 'p':
			o->perm = !strcmp(optarg, "permutation");
			if (!o->perm && strcmp(optarg, "allreduce")) {
				fprintf(stderr,
					"allreduce: --pattern: '%s' (allowed: allreduce, "
					"permutation)\n",
					optarg);
				return -1;
			}
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	return 0;
}

static int
hooked(const struct opts *o, int g)
{
	for (int i = 0; i < o->nhooks; i++)
		if (o->hook_iters[i] == g)
			return 1;
	return 0;
}

static uint64_t
wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

/* Rank r's contribution to element i in iteration it; the sum over ranks is known. */
static inline int32_t
value(int r, size_t i, int it)
{
	return (int32_t)((r + 1) * (int)((i + (size_t)it) % 1000 + 1));
}

static long
check(const int32_t *recv, size_t n, int ranks, int it)
{
	long bad = 0;

	for (size_t i = 0; i < n; i++)
		if (recv[i] !=
		    (int32_t)(ranks * (ranks + 1) / 2 * (int)((i + (size_t)it) % 1000 + 1)))
			bad++;
	return bad;
}

/* The permutation: what rank `from` sent (value()) must be what arrived. */
static long
check_from(const int32_t *recv, size_t n, int from, int it)
{
	long bad = 0;

	for (size_t i = 0; i < n; i++)
		if (recv[i] != value(from, i, it))
			bad++;
	return bad;
}

/*
 * One iteration of n elements; returns the slowest rank's time in seconds (rank 0).
 * perm: the permutation (above) in place of the all-reduce.
 */
static double
iteration(int32_t *send, int32_t *recv, size_t n, int rank, int ranks, int it, int perm,
	  int corrupt, long *bad)
{
	int to = (rank + ranks / 2) % ranks, from = (rank - ranks / 2 + ranks) % ranks;
	double t0, dt, slowest = 0;
	long mine, all = 0;

	for (size_t i = 0; i < n; i++)
		send[i] = value(rank, i, it);
	if (corrupt && rank == ranks - 1)
		send[n / 2]++;
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	if (perm)
		MPI_Sendrecv(send, (int)n, MPI_INT32_T, to, it, recv, (int)n, MPI_INT32_T, from, it,
			     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	else
		MPI_Allreduce(send, recv, (int)n, MPI_INT32_T, MPI_SUM, MPI_COMM_WORLD);
	dt = MPI_Wtime() - t0;
	mine = perm ? check_from(recv, n, from, it) : check(recv, n, ranks, it);
	MPI_Reduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(&mine, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	*bad = all;
	return slowest;
}

int
main(int argc, char **argv)
{
	struct opts o;
	const char *ce = getenv("FE_ALLREDUCE_CORRUPT");
	int rank, ranks, g = 0, it = 0, rc = 0, corrupt_at = ce ? atoi(ce) : 0;
	int32_t *send, *recv;
	uint64_t maxn = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &ranks);
	if (parse_args(argc, argv, &o) < 0)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (int s = 0; s < o.nsizes; s++)
		maxn = o.sizes[s] / 4 > maxn ? o.sizes[s] / 4 : maxn;
	send = malloc(maxn * 4);
	recv = malloc(maxn * 4);
	if (send == NULL || recv == NULL)
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (rank == 0) {
		printf("# allreduce ranks=%d iters=%d warmup=%d pattern=%s sizes=", ranks, o.iters,
		       o.warmup, o.perm ? "permutation" : "allreduce");
		for (int s = 0; s < o.nsizes; s++)
			printf("%s%" PRIu64, s ? "," : "", o.sizes[s] / 4 * 4);
		printf("\n");
		fflush(stdout);
	}
	for (int s = 0; s < o.nsizes && rc == 0; s++) {
		size_t n = o.sizes[s] / 4;
		long bad;

		for (int w = 0; w < o.warmup; w++)
			iteration(send, recv, n, rank, ranks, it++, o.perm, 0, &bad);
		for (int i = 1; i <= o.iters && rc == 0; i++) {
			uint64_t start;
			double t;

			g++;
			if (rank == 0 && o.hook && hooked(&o, g)) {
				char cmd[4096];

				snprintf(cmd, sizeof(cmd), "%s %d", o.hook, g);
				if (system(cmd) != 0)
					fprintf(stderr, "allreduce: hook '%s' failed\n", cmd);
			}
			start = wall_ns();
			t = iteration(send, recv, n, rank, ranks, it++, o.perm, g == corrupt_at,
				      &bad);
			if (rank == 0) {
				if (bad) {
					fprintf(stderr,
						"allreduce: iteration %d (%zu bytes): %ld wrong "
						"elements "
						"in the result\n",
						g, n * 4, bad);
					rc = 3;
				}
				printf("iter %d %zu %d %.3f %" PRIu64 "\n", g, n * 4, i, t * 1e6,
				       start);
				fflush(stdout);
			}
			MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
		}
	}
	if (rank == 0 && rc == 0) {
		printf("done\n");
		fflush(stdout);
	}
	free(send);
	free(recv);
	MPI_Finalize();
	return rc;
}
