/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Campaigns, inside (docs/campaigns.md is the user's side). One file a stage:
 *
 *   cg_file.c       the file's schema, and compiling it into struct cg_campaign
 *   cg_proc.c       processes: spawn, shell commands, stopping groups, progress; killing
 *                   what runs in the hosts; the runner's watchdog
 *   cg_testbed.c    the hosts: up and down, their counters, the wire (a bridge), capacity;
 *                   the runner's record, and cleaning up after a dead runner
 *   cg_dataplane.c  fabemu-dp: start, reset, counters, stop
 *   cg_job.c        the job and its faults (hooks at iterations, steps in time), beside
 *   cg_run.c        one run of a regime, and the campaign's loop
 *   cg_figures.c    a run's figures from the raw counters: drops, lanes, lateness, edge,
 *                   conservation
 *   cg_verdict.c    fidelity: faithful, or distorted and why
 *   cg_stats.c      intervals (a bootstrap over repetitions, then iterations) and the
 *                   word of a comparison
 *   cg_summary.c    rows per regime and size, the baselines and the ratios to them, the
 *                   campaign's questions
 *   cg_scale.c      the all-reduce projected to cluster scale from the rows (a model of
 *                   stalls per packet and a ring's steps), and its check against a
 *                   regime measured at more ranks
 *   cg_text.c       the terminal's tables
 *   cg_csv.c, cg_plot.c, cg_html.c   the results directory (cg_csv.c: its files,
 *                   written whole or not at all)
 *
 * A runner that dies, however it dies, leaves nothing running: what it starts dies with
 * it (PR_SET_PDEATHSIG), and its watchdog (cg_proc.c) kills what they started in the
 * hosts and removes the rest, as the runner's record (/run/fabemu/campaign-PID.run,
 * written before anything is made) lists it. Should the watchdog die too, `fabemuctl
 * testbed clean` and the next `campaign run` remove what a dead runner's record lists.
 *
 * A run's raw data and figures go into one JSON object (struct cg_run.results.runs[]),
 * and every later stage reads that object, so a summary can always be recomputed from
 * campaign.json.
 */
#ifndef FE_CG_H
#define FE_CG_H

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include <jansson.h>

#include "fe_fabric.h"
#include "fe_linkdef.h"
#include "fe_qhist.h"
#include "fe_path.h"
#include "fe_topo.h"

#define CG_MAX_BYTES   (64U << 10)
#define CG_MAX_REGIMES 16
#define CG_MAX_ACTIONS 64
#define CG_MAX_SIZES   8
#define CG_MAX_BESIDE  16
#define CG_MAX_HOSTS   16
#define CG_MAX_ITERS   100000
#define CG_MAX_DPARGS  16
#define CG_STEPS_MAX   (2 * CG_MAX_ACTIONS)
/* A stall (docs/campaigns.md): an iteration at least CG_STALL_RECOVERY of its transport's
 * recovery time above the row's median, and far out of the distribution of the row's
 * ordinary iterations, those below that line (Tukey: above their p75 + CG_STALL_IQR x
 * their interquartile range). The hosts' TCP recovers a lone loss in
 * its minimum RTO (Linux's TCP_RTO_MIN); neither it nor a NIC's timeout is dilated. */
#define CG_TCP_RTO_MIN_MS 200.0
#define CG_STALL_RECOVERY 0.75
#define CG_STALL_IQR	  3.0

enum cg_exit {
	CG_OK = 0,
	CG_BAD_FILE = 1,
	CG_USAGE = 2,
	CG_SETUP = 3,	      /* testbed or dataplane could not start */
	CG_DP_DIED = 4,	      /* the dataplane died during a run */
	CG_JOB_FAILED = 5,    /* the job failed (a wrong all-reduce result, a crash) */
	CG_UNWRITTEN = 6,     /* a file of the results could not be written */
	CG_FAULTS_FAILED = 7, /* complete, but a fault step's command failed at run time */
	CG_UNFAITHFUL = 8,    /* calibration: no scale in range of a scale: auto regime is
				 faithful on this box (said before the regimes ran) */
	CG_DISAGREE = 9,      /* agree: a row or a comparison word of two runs disagrees */
	CG_INTERRUPTED = 130,
};

enum cg_kind {
	CG_DATAPLANE, /* the hosts through fabemu-dp */
	CG_WIRE,      /* the same hosts joined by a Linux bridge: the testbed without fabemu */
};

/* One fabemuctl command line, run at an iteration (by the job's hook) or a time. */
/* A link's name as a step or a links: entry gives it: a port's ("0.up"), "fabric", "all",
 * or a link between switches as the dataplane names it ("leaf1-spine2.2", "A>B"). */
#define CG_LINK_NAME (2 * FE_TOPO_NAME + 16)

struct cg_step {
	int at_iter;		 /* > 0: before this iteration */
	uint64_t at_ns;		 /* else: this long after the job started */
	char args[1200];	 /* fabemuctl arguments, shell-quoted */
	char what[200];		 /* for the progress line, the results and the plots */
	char src[32];		 /* where the file asks for it: timeline.N.at, .until, .duration */
	char link[CG_LINK_NAME]; /* the link it is on ("": any the regime has) */
	int revert;
};

/* Where the hosts meet: the testbed's side of a regime (campaign-wide, or the regime's). */
struct cg_edge {
	char pmd[16];	  /* af_packet, af_xdp */
	uint32_t ring;	  /* AF_PACKET frames a port's ring holds */
	uint32_t mtu;	  /* the hosts' MTU */
	char dpargs[512]; /* more fabemu-dp options, shell-quoted */
};

struct cg_regime {
	char name[64];
	enum cg_kind kind;
	char profile[512]; /* path */
	char profile_name[64];
	uint32_t scale;
	char links[16][300];
	unsigned nlinks;
	char nic[300];	    /* --nic on top of the profile's; "": none */
	char topology[512]; /* several switches: the topology's file; "": one switch */
	char topology_name[64];
	enum fe_path path;
	int path_set; /* path: given (else the profile's) */
	struct fe_fabric fabric;
	/* the hosts' ports as the regime's dataplane runs them: profile, scale, links: */
	struct fe_linkdef up[CG_MAX_HOSTS], down[CG_MAX_HOSTS];
	struct cg_edge edge;
	uint64_t hop_ns; /* configured: one link's delay + a full frame (MTU + 38 B) at its rate */
	uint64_t offered_bps; /* what the hosts may send at once: the sum of the up links'
				 rates; 0: unbounded (a link without a rate, or the wire) */
	int ideal;	      /* an ideal fabric: every host port without rate, delay or
				 impairment, lossy regime, no topology, no links: entry */
	int baseline;	      /* 1: the first wire regime, 2: the first ideal one; 0: neither
				 (cg_file.c decides; docs/campaigns.md) */
	int split;	      /* the topology split across boxes: a fabemu-dp a box (--box) */
	int realtime;	      /* split: the other boxes SCHED_FIFO (--realtime) */
	unsigned ranks;	      /* the job's ranks: hosts 1..ranks; 0: every host */
	/* like for like (alike: REGIME): regime alike_of's profile, scale, NICs and links:
	 * over the campaign's alike-links; links[0 .. nalike - 1] are theirs (cg_file.c) */
	int alike;
	unsigned alike_of, nalike;
	/* scale: auto (docs/campaigns.md, "Calibration"): scale chosen before the regimes,
	 * at least scale_min (0: 1), at most scale_max (0: the most the regime compiles at);
	 * compiled at the floor until then. An alike regime's follows its twin's. */
	int scale_auto;
	uint32_t scale_min, scale_max;
};

/* The ranks regime g's job runs on: its ranks:, else every host of the campaign. */
#define cg_regime_ranks(c, g) ((g)->ranks ? (g)->ranks : (c)->hosts)

/* projection: the all-reduce at cluster scale (cg_scale.c, docs/campaigns.md) */
#define CG_PROJ_MAX_N	  12
#define CG_PROJ_MAX_CHECK 4
struct cg_projection_cfg {
	unsigned ranks[CG_PROJ_MAX_N]; /* the cluster sizes projected; nranks 0: the default */
	unsigned nranks;
	double compute_ms; /* a training step's compute; 0: not given (no share waiting) */
	/* each series one fabric measured at one or more rank counts: fitted to fit[]'s
	 * rows, checked against check[]'s (reg[] indexes); nseries 0: every regime but the
	 * baselines a series of its own, fitted to itself */
	struct {
		char name[64];
		unsigned fit[CG_MAX_REGIMES], nfit;
		unsigned check[CG_PROJ_MAX_CHECK], ncheck;
	} series[CG_MAX_REGIMES];
	unsigned nseries;
};

/*
 * alike-links: the links every alike regime runs over (docs/campaigns.md, "Like for
 * like"): one profile's ports at one scale, the same for every port of a direction. up and
 * down are the --link entries that set them ("up:rate=100Mbit,delay=500us"); with_buffer,
 * the same with the buffer, for a regime that tail-drops (a lossless one keeps the buffers
 * its flow control is sized to); fabric, those of a topology's links between switches (a
 * switch's egress: the profile's down link).
 */
struct cg_alike {
	int set;
	char profile[512], profile_name[64];
	uint32_t scale;
	char up[2][160], down[2][160]; /* [0]: rate and delay; [1]: and the buffer */
	char fabric[2][160];	       /* on a topology, the links between switches: the egress's */
};

/* The thresholds of the fidelity verdict (docs/campaigns.md). */
struct cg_fidelity {
	double late;	 /* lateness and edge wait p99 at most this fraction of a hop */
	double load;	 /* offered load at most this fraction of the measured capacity */
	int capacity;	 /* measure the capacity before the regimes */
	uint64_t cap_ns; /* for this long */
	int calibrate;	 /* every dataplane regime's scale a floor (scale_auto) */
};

/*
 * The testbed's kind (docs/campaigns.md, "Existing hosts"): veth, the hosts this
 * campaign makes (namespaces over veth pairs, testbeds/veth.sh), or hosts, ones that
 * exist already, each reached by the command prefix the file gives it (`ssh HOST`, `ip
 * netns exec NAME`) and joined to a port of the dataplane that the file names. Every
 * command run on a host is built by cg_host_sh(), whatever the kind.
 */
enum cg_testbed_kind {
	CG_TB_VETH,
	CG_TB_HOSTS,
};

#define CG_HOST_NAME 32
struct cg_host {
	char name[CG_HOST_NAME]; /* hosts: the file's; veth: "" (NAME-hI, the run's) */
	char prefix[256];	 /* hosts: the command prefix; veth: "" (cg_host_prefix()) */
	int shell;		 /* the prefix hands its arguments to a shell that parses them
				    again (ssh): the command is quoted once more */
	char addr[48];		 /* its IPv4 address, dotted */
	char ifname[16];	 /* its interface to the dataplane */
	char port[300];		 /* hosts: the dataplane's port, as EAL takes it: a PCI
				    address (-a) or a vdev's arguments (--vdev=) */
	int pci;		 /* port is a PCI address */
	char port_iface[16];	 /* an af_packet or af_xdp port's iface= ("": none) */
};

struct cg_campaign {
	char name[64], description[256], source[512];
	char *text; /* the file */
	unsigned hosts;
	enum cg_testbed_kind tb;
	struct cg_host host[CG_MAX_HOSTS + 1]; /* host[1..hosts] */
	char huge_dir[256];  /* hosts with a PCI port: the dataplane's hugepages ("": EAL's) */
	unsigned lcore;	     /* kind hosts: the dataplane's core (testbed.lcore; else 0) */
	struct cg_edge edge; /* the regimes' default */
	int split;	     /* cores: split (core 0 the network's, the others the hosts') */
	unsigned reps;
	uint64_t seed;
	int host_ecn;  /* the hosts ask for ECN (net.ipv4.tcp_ecn=1) */
	int allreduce; /* an all-reduce of sizes and iterations; else: a command */
	int torch;     /* the all-reduce: PyTorch's torch.distributed over gloo (kind torch),
			  else MPI's (kind allreduce) */
	int perm;      /* kind permutation: MPI's job, each rank's SIZE to rank r + n/2, in
			  place of the all-reduce (its sizes and iterations the same) */
	char command[1024];
	uint64_t sizes[CG_MAX_SIZES];
	unsigned nsizes, iters, warmup;
	struct {
		unsigned host;
		char command[1024];
	} beside[CG_MAX_BESIDE];
	unsigned nbeside;
	struct cg_regime reg[CG_MAX_REGIMES];
	unsigned nreg;
	struct cg_step steps[CG_STEPS_MAX];
	unsigned nsteps;
	struct cg_fidelity fid;
	struct cg_alike alike;
#define CG_MAX_QUESTIONS 8
	/* question: the pairs of regimes the campaign asks about, a against b (reg[] indexes;
	 * docs/campaigns.md): the summary's last lines answer them */
	struct {
		unsigned a, b;
	} question[CG_MAX_QUESTIONS];
	unsigned nquestions;
	struct cg_projection_cfg proj;
	/* a suite (scenes:, docs/campaigns.md): the campaigns it runs one after the other,
	 * each a file or a name as cg_find() takes it (a name resolved beside the suite's
	 * file first); a suite has nothing else but its name and description */
#define CG_MAX_SCENES 8
	char scene[CG_MAX_SCENES][PATH_MAX / 4];
	unsigned nscenes;
};

/* A baseline (the first wire regime, the first with an ideal fabric: g->baseline, set by
 * cg_load()): the denominator of the ratios, run without the timeline's faults
 * (docs/campaigns.md). */
static inline int
cg_baseline(const struct cg_regime *g)
{
	return g->baseline != 0;
}

/* Whether a regime runs through fabemu-dp: the fabric's figures (drops, marks) exist. */
static inline int
cg_has_fabric(const struct cg_campaign *c)
{
	for (unsigned g = 0; g < c->nreg; g++)
		if (c->reg[g].kind == CG_DATAPLANE)
			return 1;
	return 0;
}

/* cg_file.c */
int cg_load(const char *path, struct cg_campaign *c, char *err, size_t errlen);
/* Whether regime g's fabric has the links sel selects, as its dataplane takes sel
 * (fe_linkspec_pick()): its ports', and with a topology its links between switches by name
 * (fabric, A-B, A>B, a parallel link's number kept). */
int cg_regime_has_link(const struct cg_campaign *c, const struct cg_regime *g, const char *sel);
/*
 * Regime g's links between switches as its dataplane will run them (fabemu-dp --topology):
 * its profile's fabric class at its scale, what the topology sets over it, then its links:
 * entries; def and dir [2 x FE_TOPO_LINKS], each link a>b then b>a. Their count (0: no
 * topology), or -1 with a message in err.
 */
int cg_regime_hops(const struct cg_campaign *c, const struct cg_regime *g, struct fe_linkdef *def,
		   char (*dir)[80], char *err, size_t errlen);
/* Regime g compiled again at scale (calibration): 0, or -EINVAL with err (g unchanged). */
int cg_regime_rescale(const struct cg_campaign *c, struct cg_regime *g, uint32_t scale, char *err,
		      size_t errlen);
const char *cg_size_name(uint64_t s, char *buf, size_t len);
/* "2 regimes, 1 fault (2 steps)": the campaign's regimes, faults and their steps */
const char *cg_describe(const struct cg_campaign *c, char *buf, size_t len);

/* cg_find.c: NAME as given if that file exists, else testbeds/campaigns/NAME.yaml; the
 * error names both and the shipped campaigns. cg_shipped: their names, sorted (how many,
 * or -errno). */
#define CG_NAME_LEN 64
int cg_find(const char *name, char *path, size_t len, char *err, size_t errlen);
const char *cg_shipped_dir(char *buf, size_t len);
/* the project's tree: $FABEMU_ROOT, else the source tree it was built from */
const char *cg_root(void);
/* A name that names files and hosts: letters, digits, '_', '-' and '.', 1 to max - 1 of
 * them; 1 if not (cg_file.c). */
int cg_name_bad(const char *s, size_t max);
int cg_shipped(char (*names)[CG_NAME_LEN], unsigned max);

/* cg_proc.c */
extern volatile sig_atomic_t cg_interrupted;
void cg_on_signal(int sig);
uint64_t cg_now_ns(clockid_t clk);
void cg_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Start argv in its own session; it dies (SIGKILL) when this process does. */
pid_t cg_spawn(char *const argv[], const char *log, int *out_fd);
/* Run a shell command to completion (a Ctrl-C does not cut it short); its exit status. */
int cg_sh(const char *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same for a command that a Ctrl-C stops: on cg_interrupted its group gets SIGINT. */
int cg_sh_stoppable(const char *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Run a shell command; its standard output (up to len - 1 bytes) into out. */
int cg_sh_out(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Stop a process group: sig, then KILL after wait_ms; its status (0: not running). */
int cg_stop_group(pid_t *pid, int sig, int wait_ms);
/* The same for n groups together (each given the same wait_ms): their statuses in rc[]. */
void cg_stop_groups(pid_t *const pid[], unsigned n, int sig, int wait_ms, int rc[]);
void cg_quote(char *out, size_t len, const char *s);
/* buf[*n...] += the formatted text, cut at len: 0, or -1 once it does not fit (*n then
 * past len, and nothing more is written) */
int cg_addf(char *buf, size_t len, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* SIGKILL every process in the hosts of testbed NAME (namespaces NAME-h*) until none is
 * left, and every process with ARG among its arguments (a DPDK file prefix: the
 * dataplane); how many. */
int cg_kill_netns(const char *testbed);
int cg_kill_arg(const char *arg);
/* A process's start time (/proc/PID/stat, clock ticks since boot); 0 if it is gone. */
unsigned long long cg_proc_start(pid_t pid);

/* What a runner makes, as its record lists it (the runner's pid and start time tell a
 * live runner from a dead one whose pid came back). */
struct cg_owner {
	pid_t pid, watchdog;
	unsigned long long start;
	int own_testbed;
	char testbed[32], sock[128], prefix[64];
	char root[PATH_MAX], out[PATH_MAX];
};
#define CG_STATE_DIR "/run/fabemu"
/* OpenMPI's session directories for a runner's MPI job on its veth testbed (TMPDIR of
 * mpirun and its daemons; by default /tmp/ompi.HOST.UID, which a job that is stopped
 * leaves): removed when the job ends, and with what a dead runner left; %s is the
 * testbed's name */
#define CG_MPI_DIR CG_STATE_DIR "/mpi-%s"

struct cg_run {
	const struct cg_campaign *c;
	char out[PATH_MAX];
	char self[PATH_MAX], bindir[PATH_MAX], root[PATH_MAX];
	char testbed[32];
	int own_testbed;
	char sock[128], prefix[64];
	char record[PATH_MAX]; /* CG_STATE_DIR/campaign-PID.run: what this runner makes */
	pid_t dp, job, beside[CG_MAX_BESIDE];
	pid_t box[FE_TOPO_BOXES]; /* a split regime: the other boxes' dataplanes (box[0] unused) */
	unsigned nboxes;	  /* ... their number, the first (dp) counted; 0: not split */
	pid_t watchdog;
	int watchdog_fd; /* the watchdog sees EOF on its end when this runner is gone */
	unsigned iters_override;
	uint32_t mtu_now;  /* the testbed's MTU as set */
	char pin[64];	   /* "taskset -c CPUS" for the hosts' programs (cores: split), or "" */
	json_t *results;   /* the whole document */
	json_t *capacity;  /* {"ideal_bps": ..., "wire_bps": ...} */
	json_t *warnings;  /* ["...", ...]: what the results must say (a fault that did not run) */
	json_t *unwritten; /* ["FILE: error", ...]: results files that could not be written */
	unsigned steps_failed; /* fault steps whose command failed at run time */
	/* the testbed's ports as --vdev options (veth.sh vdevs), for the edge and MTU in
	 * vdevs_for: asked again only when they change */
	char vdevs[8192], vdevs_for[96];
};

/* cg_proc.c: whether a process of group pgid holds a listening TCP socket (a server
 * ready). */
int cg_group_listens(pid_t pgid);

/* cg_proc.c: the watchdog of this runner (r->record must exist) */
int cg_watchdog_start(struct cg_run *r);
void cg_watchdog_stop(struct cg_run *r);

void cg_logpath(const struct cg_run *r, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* cg_testbed.c */
/* The command prefix that runs a command on host h (1..hosts): the veth kind's `ip netns
 * exec NAME-hH`, else the file's. */
const char *cg_host_prefix(const struct cg_run *r, unsigned h, char *buf, size_t len);
/* The shell command that runs cmd (a shell command) on host h: its prefix, then `sh -c`
 * and cmd quoted for it (twice for a prefix that parses again: ssh). 0, or -1 if it does
 * not fit in len (never cut). */
int cg_host_sh(const struct cg_run *r, unsigned h, const char *cmd, char *buf, size_t len);
int cg_testbed_up(struct cg_run *r);
void cg_testbed_down(struct cg_run *r);
int cg_mtu(struct cg_run *r, uint32_t mtu);
int cg_wire_up(struct cg_run *r);
void cg_wire_down(struct cg_run *r);

/* A host's counters: TCP (nstat), its interface (eth0) and its veth's other end. */
struct cg_host_ctr {
	uint64_t retrans, dsack, timeouts, probes, ce;
	uint64_t tx_packets, tx_dropped, rx_packets, rx_dropped;
	uint64_t peer_tx_dropped, peer_rx_dropped; /* the testbed's side (the bridge's port) */
};
void cg_host_read(const struct cg_run *r, unsigned host, struct cg_host_ctr *t);
/* The runner's thread into host h's network namespace (0, or -1), and back: between the
 * two, only reads of the kernel (/proc/thread-self/net, a netlink socket), nothing started. */
int cg_host_enter(const struct cg_run *r, unsigned host);
void cg_host_leave(void);
/* Whether a TCP connection of the hosts is still opening or closing (its handshake or its
 * FINs and their last ACK not through yet): 1 (or not known), else 0. */
int cg_hosts_unsettled(const struct cg_run *r);
double cg_ping_rtt_us(const struct cg_run *r);
/* Aggregate TCP goodput of every host sending to the next (a ring), in bit/s; -1: failed. */
double cg_ring_goodput(struct cg_run *r, const char *tag, uint64_t ns);
void cg_kill_hosts(const struct cg_run *r);
/* The runner's record: written before anything is made, removed once all of it is gone. */
int cg_record_write(const struct cg_run *r);
int cg_record_read(const char *path, struct cg_owner *o);
/* Remove what the runner of a record made (its processes, the testbed or what it changed
 * in a lent one, the socket, the DPDK directory), then the record; who says who does it. */
void cg_record_clean(const char *path, const struct cg_owner *o, const char *who);
/* Every record whose runner is gone: cleaned. How many; -1 if one could not be read. */
int cg_clean_dead(int verbose);

/* cg_dataplane.c */
int cg_dp_start(struct cg_run *r, const struct cg_regime *g, const char *profile, unsigned rep,
		const char *tag, char *err, size_t errlen);
void cg_dp_stop(struct cg_run *r, int *rc_out);
int cg_dp_reset(const struct cg_run *r);
json_t *cg_dp_counters(const struct cg_run *r);

/* cg_job.c */
struct cg_job_result {
	json_t *iters;		   /* [[g, size, i, time_us, start_ns], ...] */
	uint64_t start_ns, end_ns; /* end_ns: at its EOF when it ended, else once stopped */
	uint64_t eof_ns;	   /* when its output ended (or the run stopped following it) */
	int status;
	int dp_died;
	/* where the run's time went (the progress says it): the beside commands started, and
	 * after the job's output ended, the job and the beside commands stopped */
	uint64_t beside_ns, stop_ns;
};
void cg_run_job(struct cg_run *r, const struct cg_regime *g, unsigned rep, const char *marks,
		struct cg_job_result *jr);
void cg_stop_beside(struct cg_run *r);
/*
 * The marks file a job's hook and the runner append to ("ITER NS WHAT", "x ITER NS WHAT"
 * for a step whose command failed, "t NS WHAT" for a step in time), followed while the
 * job runs: each cg_marks_poll() says in out the faults at iterations written since the
 * last one. The file (removed before the job, then only appended to) is opened once it
 * exists and kept open until cg_marks_close(). Start from {.path = ...}.
 */
struct cg_marks {
	const char *path; /* the caller's, for as long as it follows the file */
	FILE *f;
	long at; /* after the last whole line read */
};
void cg_marks_poll(struct cg_marks *m, const char *regime, FILE *out);
void cg_marks_close(struct cg_marks *m);
/* The room a step's shell command may need: fabemuctl's path and socket for each of its
 * set commands (one per links: entry and link), the entries themselves quoted. */
#define CG_STEP_CMD (2 * PATH_MAX + 64 * 1024)
/* The shell command of a step in regime g: a fault, or its end (the link back to the
 * regime's profile and the regime's own links: overrides for it); -1 and err if it does
 * not fit in len (never cut). */
int cg_step_command(const struct cg_run *r, const struct cg_regime *g, const struct cg_step *s,
		    char *cmd, size_t len, char *err, size_t elen);
/* Whether step s runs in regime g: not in a baseline, nor on a link g's fabric lacks. */
int cg_step_runs(const struct cg_run *r, const struct cg_regime *g, const struct cg_step *s);
/* When a step is due, as every output says it (campaign show, the results, the warnings,
 * report.html): "iteration 15", "1.5 s", "2 s". */
void cg_step_at(const struct cg_step *s, char *at, size_t len);

/* cg_run.c */
/*
 * What became of a timeline step in a run: decided where the runner knows it (the marks
 * of the steps that ran or failed, cg_faults_missed(), cg_faults_skipped()) and kept with
 * the step in campaign.json ("outcome"). The report and the terminal read it, never the
 * reason (why), which is text for people.
 */
enum cg_outcome {
	CG_STEP_RAN,	     /* its command ran and took (runs[].faults[]) */
	CG_STEP_FAILED,	     /* its fabemuctl command failed: the fault was not injected */
	CG_STEP_NOT_REACHED, /* the job ended before it was due */
	CG_STEP_SKIPPED,     /* not run in this regime: a baseline's, or on a link it lacks */
	CG_STEP_OUTCOMES
};
/* The outcome's name in campaign.json: "ran", "failed", "not_reached", "skipped". */
const char *cg_outcome_name(enum cg_outcome o);
/* The outcome of a step of a run in campaign.json (its "outcome"); -1: none, or unknown. */
int cg_outcome_of(json_t *step);
int cg_campaign_run(const char *file, const char *outdir, const char *testbed, unsigned iters);
/* The k-th run of a campaign (from 0 to nreg x reps - 1): regime *g, repetition *rep
 * (from 0). Repetitions are interleaved: every regime's first, then every regime's
 * second, ... */
void cg_run_order(const struct cg_campaign *c, unsigned k, unsigned *g, unsigned *rep);
/* A run's steps that do not run in regime g (a baseline's, or on a link its fabric lacks),
 * each {step, what, at, outcome: skipped, why}. */
json_t *cg_faults_skipped(const struct cg_run *r, const struct cg_regime *g);
/* A run's steps that did not run, each {step, what, at, outcome, why}, from the marks of
 * those that ran (faults) and failed (failed): a failed one (outcome failed) counted in
 * r->steps_failed, one the job's end (jr->eof_ns) left unreached (not_reached, only when
 * whole) not; each a warning. */
json_t *cg_faults_missed(struct cg_run *r, const struct cg_regime *g, const char *tag,
			 json_t *faults, json_t *failed, const struct cg_job_result *jr, int whole);
/* The campaign's status as the results say it: "complete", "complete, 2 fault step(s)
 * failed", "interrupted (partial results)", with the files not written if any. */
const char *cg_status_text(int status, unsigned steps_failed, size_t unwritten, char *buf,
			   size_t len);

/* cg_figures.c: a run's figures, added to the run object */
void cg_figures(const struct cg_campaign *c, const struct cg_regime *g, json_t *run);
/* Add a quarter-octave histogram (a JSON array, fe_qhist.h) into sum; what it counts. */
uint64_t cg_qhist_add(uint64_t *sum, json_t *h);
/* Whether a run is one of regime g's. */
static inline int
cg_run_of(json_t *run, const struct cg_regime *g)
{
	return strcmp(json_string_value(json_object_get(run, "regime")) ?: "", g->name) == 0;
}

/* Whether an iteration ([group, size, i, time_us, start_ns]) is one of size (the job's
 * size, which the all-reduce runs in 4-byte integers; 0: any size). */
static inline int
cg_iter_of_size(json_t *it, uint64_t size)
{
	return size == 0 || (uint64_t)json_integer_value(json_array_get(it, 1)) == size / 4 * 4;
}

/* Sum of one key over the lane counters of a counters document (pause frames, stalls). */
json_int_t cg_lane_sum(json_t *counters, const char *key);
/* The fabric's drops in a counters document: every link's, every cause but wire and trim
 * (a trimmed frame is not lost: its header goes on and its sender resends it). */
json_int_t cg_fabric_drops(json_t *counters);

/*
 * cg_events.c: what the fabric and the transports did while a job ran, read every
 * CG_EVENT_MS by a thread beside it; each run's "events" (docs/campaigns.md, "Stalls"):
 * a row a read, [t_ns, drops, retrans, timeouts, nic_timeouts], counted from the first.
 */
#define CG_EVENT_MS 100
enum { CG_EV_DROPS, CG_EV_RETRANS, CG_EV_TIMEOUTS, CG_EV_NIC_TIMEOUTS, CG_EV_N };
struct cg_sampler;
/* Start reading (the first row now); NULL if out of memory. */
struct cg_sampler *cg_sampler_start(const struct cg_run *r, const struct cg_regime *g);
/* Stop, read once more: the rows (JSON null for a NULL sampler). */
json_t *cg_sampler_stop(struct cg_sampler *s);
/* What a stall is put down to: the first of these its window saw. */
enum cg_cause {
	CG_CAUSE_TIMEOUT, /* a TCP retransmission timeout, or an emulated NIC's timeout */
	CG_CAUSE_RETRANS, /* a TCP retransmission (not shown spurious by a D-SACK) */
	CG_CAUSE_DROP,	  /* a drop in the fabric */
	CG_CAUSE_NONE,	  /* nothing of these */
	CG_CAUSES
};
const char *cg_cause_name(enum cg_cause c);
/* What the events rows saw between the last read at or before from_ns and the first at or
 * after to_ns (CLOCK_REALTIME): the window widened by up to a read's period each side. */
enum cg_cause cg_stall_cause(const json_t *rows, uint64_t from_ns, uint64_t to_ns);
/* Frames in flight at the dataplane's edge (its own kernel view, docs/counters.md: what a
 * host sent that it has not read yet, what it sent that the kernel has not passed on; the
 * positive rx_unexplained and tx_unexplained, a negative one being a frame caught across
 * the counters' reset); 0: at rest. */
json_int_t cg_edge_in_flight(json_t *counters);

/* cg_verdict.c: "faithful", or "distorted: reason; reason" into the run (verdict, reasons) */
void cg_verdict(const struct cg_campaign *c, const struct cg_regime *g, json_t *capacity,
		json_t *run);
/* "faithful" or "distorted: a; b", then " (not checked: c; d)" */
void cg_verdict_text(json_t *reasons, json_t *notes, char *v, size_t len);
/* "partial: P; VERDICT" into v, or "partial: P" when verdict is empty or NULL (never a
 * dangling "; "): a run cut short, a regime's row. */
void cg_verdict_partial(const char *partial, const char *verdict, char *v, size_t len);

/*
 * cg_calib.c: calibration (docs/campaigns.md, "Calibration"). Before its regimes, a
 * campaign with a regime at scale: auto runs its job through the ideal dataplane and
 * takes the box's timing noise from that run (cg_noise_of()); cg_calib_choose() gives
 * each such regime the least scale, at or above its floor and at most its most, at which
 * the verdict's bounds hold with CG_CALIB_MARGIN: the noise's p99 (lateness, edge wait)
 * at most fid.late / CG_CALIB_MARGIN of a hop, the offered load at most fid.load of the
 * capacity. Pure: no I/O.
 */
#define CG_CALIB_MARGIN 2.0
struct cg_noise {
	double late_p99_ns, late_max_ns; /* the worst link's lateness p99, the max; NAN: none */
	double wait_p99_ns, wait_max_ns; /* the edge wait over every timed port; NAN: none */
	double window_s;		 /* the counters' window (0: not known) */
	/* over the window, what the kernel saw take the lcore's core (counters.lcores) */
	double preempted, runq_wait_ns, irq_ns, softirq_ns, steal_ns;
	int lcores_unknown; /* the run had no lcores figures: the kernel's not said */
	/* the loop's passes (counters.idle.pass_hist_ns): ns from one pass's start to the
	 * next; a long one is time every port waited, whoever took it */
	uint64_t pass_hist[FE_QHIST_BUCKETS];
	char takes[768]; /* what the runner saw most on that core ("": nothing found) */
};
/* A regime as calibration sees it: its hop and load as functions of its scale s. */
struct cg_calib_want {
	double hop_ns, hop_fixed_ns;	       /* hop(s) = hop_ns x s + hop_fixed_ns */
	double offered_bps, offered_fixed_bps; /* offered(s) = offered_bps / s + fixed; both
						  0: unbounded (not checked) */
	uint32_t floor, max;		       /* the range of scales it may run at */
	double late, load;		       /* the verdict's fractions (fid) */
	double capacity_bps;		       /* measured through the ideal dataplane; 0: not */
};
enum cg_calib_result {
	CG_CAL_CHOSEN,	   /* scale: the least in range where the bounds hold */
	CG_CAL_UNMEASURED, /* no noise measured: scale is the floor (or the load's least) */
	CG_CAL_NONE,	   /* no scale in range: scale is the most, why says what fails */
};
struct cg_calib_choice {
	enum cg_calib_result result;
	uint32_t scale;
	double hop_ns;	    /* at scale */
	double need_hop_ns; /* the least hop the noise allows (NAN: no noise measured) */
	char why[1024];
};
/* The noise of a run through the ideal dataplane (its figures: cg_figures()); takes "". */
void cg_noise_of(json_t *run, struct cg_noise *n);
/*
 * "its loop came back to its ports more than 62.3 us after it left them 502 times (...);
 * its lcore was preempted 1200 times (...); its core spent 800 ms in interrupts (...)";
 * the loop's passes longer than over_ns are said (0: not).
 */
const char *cg_noise_cause(const struct cg_noise *n, double over_ns, char *buf, size_t len);
void cg_calib_choose(const struct cg_noise *n, const struct cg_calib_want *w,
		     struct cg_calib_choice *out);
/* A task as /proc has it: its run time so far (schedstat) and the core it last ran on. */
struct cg_task {
	pid_t pid, tid;
	unsigned cpu;
	uint64_t run_ns;
	char comm[16];
};
/* cg_proc.c: every task of the machine, up to max; how many. */
size_t cg_tasks_read(struct cg_task *t, size_t max);
/* The tasks (up to 3) that ran most between two reads and were last on core cpu, 1 ms or
 * more: "tasks last seen on CPU0: fabemu-dp (pid 17173) ran 2400 ms, cc1 (...) ..."; "". */
const char *cg_tasks_on(const struct cg_task *a, size_t na, const struct cg_task *b, size_t nb,
			unsigned cpu, char *out, size_t len);
/* What grew most on CPU cpu between two reads of /proc/interrupts and of /proc/softirqs
 * (their text), secs apart: "on CPU0: interrupt LOC 998/s (Local timer interrupts),
 * softirq NET_RX 11800/s, ..." (up to 3 of each); "" if nothing did. */
const char *cg_core_takers(const char *irq_before, const char *irq_after, const char *soft_before,
			   const char *soft_after, unsigned cpu, double secs, char *out,
			   size_t len);

/*
 * cg_stats.c: the uncertainty of a row and the word of a comparison (docs/campaigns.md,
 * "Intervals and comparisons"). A sample is a row's iteration times grouped by
 * repetition; the bootstrap draws repetitions with replacement, then iterations within
 * each drawn one, CG_RESAMPLES times, from a seeded PRNG (the same seed, the same
 * intervals). An interval is the central CG_CONFIDENCE of the resamples.
 */
#define CG_RESAMPLES	 2000
#define CG_CONFIDENCE	 0.95
#define CG_P99_MIN_N	 100 /* a p99 from this many iterations; below: the maximum, and n */
#define CG_WORD_MIN_REPS 2   /* faster or slower: both sides ran this many repetitions */

struct cg_sample {
	const double *v;     /* the values, repetition after repetition */
	const size_t *first; /* repetition r: v[first[r]] .. v[first[r + 1] - 1] (none empty) */
	unsigned nrep;
};
/* b resamples of s, as cg_bootstrap() draws them (its own stream), each one's share of
 * values at or above at into share[]. 0, or as cg_bootstrap(). */
int cg_bootstrap_share(const struct cg_sample *s, uint64_t seed, uint64_t stream, unsigned b,
		       double at, double *share);
/* b resamples of s: the repetitions drawn from seed's stream 0, the same for every sample
 * of as many repetitions (paired), the iterations from its stream (> 0, one a row); each
 * one's p50 into p50[] and p99 into p99[] (either may be NULL). 0; -EINVAL for an empty
 * sample or repetition; -ENOMEM. */
int cg_bootstrap(const struct cg_sample *s, uint64_t seed, uint64_t stream, unsigned b, double *p50,
		 double *p99);
/* The central CG_CONFIDENCE of b values (sorted here, nearest rank): [*lo, *hi]. */
void cg_interval(double *x, unsigned b, double *lo, double *hi);

enum cg_word {
	CG_WORD_NONE, /* no figure to compare */
	CG_FASTER,    /* the interval of a / b entirely below 1 */
	CG_SLOWER,    /* entirely above 1 */
	CG_UNRESOLVED /* it holds 1, or a side ran fewer than CG_WORD_MIN_REPS repetitions */
};
/* "faster", "slower", "no difference resolved"; "" for none */
const char *cg_word_name(enum cg_word w);
enum cg_word cg_word_of(double lo, double hi, unsigned reps_a, unsigned reps_b);

/* A comparison of two rows: the ratio of their p50s, a over b, its interval, its word. */
struct cg_ratio {
	double v, lo, hi; /* NAN: not compared */
	enum cg_word word;
	unsigned reps_a, reps_b; /* the repetitions behind each side */
};
/* a50 / b50, its interval from the rows' resampled p50s ba[k] / bb[k] (b of each: the
 * k-th of each drew the same repetitions, when they have as many) */
void cg_ratio_of(double a50, double b50, const double *ba, const double *bb, unsigned b,
		 unsigned reps_a, unsigned reps_b, struct cg_ratio *out);

/* cg_summary.c: one row a regime and size, over its repetitions */
struct cg_row {
	char regime[64], size[16], verdict[1024];
	char partial[256]; /* "partial: 47 of 200 iterations (interrupted)"; "": whole */
	int baseline;	   /* 1 wire, 2 ideal */
	double hop_us, rtt_us, p50, p99, max, job_s;
	double wire_p50, wire_p99, ideal_p50, ideal_p99; /* NAN: no such baseline */
	double late_p50_us, late_p99_us, late_max_us;	 /* NAN: none measured */
	double late_worst_p99_us; /* the worst link's p99 (the verdict's), the worst run */
	char late_worst_link[16];
	double wait_p50_us, wait_p99_us, wait_max_us;
	double offered_gbps; /* NAN: unbounded */
	long long drops, trims, marks, real_retrans, timeouts, probes, pauses, stalls;
	long long edge_lost; /* lost at the edge, and dropped by the dataplane outside its model */
	long long unexplained;
	double paused_ms, stall_ms;
	/* the emulated NICs (docs/nic.md), per run; nic_model "tcp": none */
	char nic_model[16];
	long long nic_ce, nic_cnp, nic_resent, nic_naks, nic_timeouts, nic_discards;
	/* NIC timeouts that fired with nothing lost, at least: a run's timeouts less every
	 * frame it lost (fabric drops, the edge's, the box's) */
	long long nic_timeouts_unlost;
	double nic_rate_min_bps; /* NAN: no rate was set */
	int first;     /* the first row of its regime: the run's network figures go here */
	int wire;      /* no dataplane: the fabric's figures do not apply */
	unsigned runs; /* repetitions that ran */
	size_t n;
	/* the job's time, its uncertainty (cg_stats.c): p99 is NAN below CG_P99_MIN_N
	 * iterations (max then stands for it) */
	double p50_lo, p50_hi, p99_lo, p99_hi; /* NAN: none */
	unsigned nrep;			       /* repetitions with iterations of this size */
	double rep_p50_min, rep_p50_max;       /* the spread of the repetitions' own p50s;
						  NAN below 2 repetitions */
	struct cg_ratio vs_wire, vs_ideal;     /* p50 over the baseline's (none in its own row) */
	struct cg_ratio q[CG_MAX_QUESTIONS];   /* question k, in the rows of its regime a */
	/* an alike regime's row: its as-specified regime's p50 over its own (the links' part
	 * of the gap); alike_of: that regime's name ("": not an alike regime) */
	struct cg_ratio vs_spec;
	char alike_of[64];
	/* stalls: iterations at or above stall_at_ms (the rule above cg_regime_recovery()) */
	double recovery_ms, stall_at_ms;
	const char *recovery; /* what recovery_ms is: cg_regime_recovery()'s */
	double stall_share, stall_share_lo, stall_share_hi; /* stalls per iteration, its CI */
	double stall_excess_ms; /* a stall's mean time above the median; NAN: no stall */
	/* the stalls by what their iterations' windows saw (cg_stall_cause()); runs with no
	 * events (a campaign's results from before) count in none */
	long long stall_cause[CG_CAUSES];
};

/* Whether a regime of the rows has emulated NICs (roce, ib, host): their table is printed. */
static inline int
cg_rows_nic(const struct cg_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].first && strcmp(rows[i].nic_model, "tcp") != 0 &&
		    strcmp(rows[i].nic_model, "-") != 0)
			return 1;
	return 0;
}

/* A fabric's figure of a row, or NAN for the wire, which has no fabric. */
static inline double
cg_fab(const struct cg_row *w, double v)
{
	return w->wire ? NAN : v;
}
size_t cg_summarize(const struct cg_campaign *c, json_t *runs, struct cg_row *rows);
/* The time a lost packet costs regime g's transport to recover, in ms, and what it is:
 * TCP's minimum RTO ("TCP's minimum RTO") where the hosts' TCP meets the fabric (the wire,
 * NIC models tcp and host), the NICs' timeout ("the NICs' timeout") where RoCE or IB NICs
 * recover losses, unless TCP's would fire first. */
double cg_regime_recovery(const struct cg_regime *g, const char **what);
/* The stall threshold of a row's sorted times v (n > 0), its median p50, its transport's
 * recovery time: the larger of p50 + CG_STALL_RECOVERY x recovery and Tukey's far-out
 * fence p75 + CG_STALL_IQR x (p75 - p25) of the iterations below the first. */
double cg_stall_threshold(const double *v, size_t n, double p50, double recovery_ms);
/* "1.21 [1.10, 1.35] slower", "-" when not compared */
const char *cg_ratio_text(const struct cg_ratio *x, char *buf, size_t len);
/* The answer to question k in row w (a row of its regime a), as the summary's last lines
 * and the report say it: "1MiB: eth is slower than ib (p50 ratio 1.21 [1.10, 1.35])", or
 * "... eth against ib: no difference resolved (...)". */
const char *cg_answer(const struct cg_campaign *c, unsigned k, const struct cg_row *w, char *buf,
		      size_t len);
/* campaign.json's summary: the method, every row's figures and intervals, the answers */
json_t *cg_summary_json(const struct cg_campaign *c, const struct cg_row *rows, size_t nrows);
/* "baselines run without the timeline's faults: wire, ideal (N step(s) each)", or NULL
 * when no fault was skipped that way (no timeline, or no baseline). */
const char *cg_baseline_note(const struct cg_campaign *c, char *buf, size_t len);

/*
 * cg_scale.c: the all-reduce at cluster scale (docs/campaigns.md): the model's fit to
 * rows measured at some ranks, projected to N ranks, and checked against rows measured
 * at more. Every output (the terminal, campaign.json, projection.csv, report.html and its
 * plot) prints what cg_project() gives.
 */
struct cg_proj_at {
	unsigned n;
	double packets;			  /* sent by the cluster in one iteration */
	double stall, stall_lo, stall_hi; /* P(an iteration holds at least one stall) */
	double base, base_lo, base_hi;	  /* an iteration without a stall, ms */
	double mean, mean_lo, mean_hi;	  /* the expected iteration, ms */
	double p99, p99_lo, p99_hi;	  /* its p99, ms */
	double wait, wait_lo, wait_hi;	  /* the cluster's share of time waiting; NAN:
					     no compute given */
	double gpuh, gpuh_lo, gpuh_hi;	  /* GPU-hours waiting per 1,000 steps */
	double stall_gpuh;		  /* ... of which stalls */
};
struct cg_proj_check {
	unsigned reg;		/* the regime measured at more ranks */
	struct cg_proj_at pred; /* predicted at its ranks */
	int measured;		/* it has iterations */
	size_t n;
	double p50, p50_lo, p50_hi, p99, p99_lo, p99_hi, max; /* measured (NAN: none) */
	double stall, stall_lo, stall_hi;		      /* its stall share, CI */
};
struct cg_proj {
	char series[64], size[16];
	uint64_t bytes;
	unsigned mss;
	unsigned nfit, fit_ranks[CG_MAX_REGIMES]; /* the fitted rows' ranks */
	size_t iterations;			  /* ... their iterations */
	long long stalls;			  /* ... their stalled iterations */
	double exposure;			  /* ... the packets their iterations sent */
	double p, p_lo, p_hi;			  /* stalls a packet, its interval */
	double a, b, a_lo, b_lo, a_hi, b_hi;	  /* a step: a ms + b ms a byte of a chunk */
	int base_from_ping;			  /* one rank count: a from the ping */
	double cost_ms;				  /* a stall's cost */
	int cost_measured;			  /* 0: the transport's recovery time */
	double compute_ms;
	struct cg_proj_at at[CG_PROJ_MAX_N];
	unsigned nat;
	struct cg_proj_check check[CG_PROJ_MAX_CHECK];
	unsigned ncheck;
};
/* Whether the campaign's job is an all-reduce of sizes, which the projection models
 * (not a command job's, nor a permutation's). */
static inline int
cg_projects(const struct cg_campaign *c)
{
	return c->allreduce && !c->perm;
}
/* The projections of a campaign's rows: one a series and size (out: room for
 * CG_MAX_REGIMES x CG_MAX_SIZES); how many (0 but where cg_projects()). */
size_t cg_project(const struct cg_campaign *c, const struct cg_row *rows, size_t nrows,
		  struct cg_proj *out);
/* The model of p at n ranks (compute_ms 0: no share waiting). */
void cg_proj_at(const struct cg_proj *p, unsigned n, double compute_ms, struct cg_proj_at *at);
/* The model's parts: a packet's payload, a ring's packets a step and an iteration, the
 * exact Poisson interval of a count k (of its mean), the q-quantile of a binomial. */
unsigned cg_proj_mss(uint32_t mtu);
double cg_ring_step_packets(unsigned n, uint64_t bytes, unsigned mss);
double cg_ring_packets(unsigned n, uint64_t bytes, unsigned mss);
void cg_poisson_interval(long long k, double conf, double *lo, double *hi);
unsigned cg_binom_quantile(unsigned trials, double prob, double q);
/* v within [lo, hi] (rounding aside) */
int cg_proj_inside(double v, double lo, double hi);
/* What the model assumes, one sentence each, NULL-terminated: printed beside the table. */
extern const char *const cg_proj_assumptions[];
/* campaign.json's projection[] */
json_t *cg_projection_json(const struct cg_campaign *c, const struct cg_proj *p, size_t n);
/* The terminal's projection tables */
void cg_print_projection(FILE *f, const struct cg_campaign *c, const struct cg_proj *p, size_t n);

/*
 * A results file is written whole or not at all: cg_out_open() opens FILE.part,
 * cg_out_close() checks every write, the flush and the close, then renames it to FILE;
 * a file that failed is removed, said (naming it) and listed in r->unwritten (r NULL:
 * said only, outside a run).
 */
FILE *cg_out_open(const struct cg_run *r, const char *path);
/* A CSV field: a number after a comma, nothing where there is no such figure (NAN); a
 * text, quoted when it needs it (RFC 4180: a comma, a quote, a line break, or space at an
 * end), so that a value can never shift the columns. */
void cg_csv_num(FILE *f, double v, int prec);
void cg_csv_str(FILE *f, const char *s);
int cg_out_close(const struct cg_run *r, FILE *f, const char *path);
/* A file given up (its writer failed, why says how): closed, removed, said, listed. */
void cg_out_abandon(const struct cg_run *r, FILE *f, const char *path, const char *why);
void cg_out_failed(const struct cg_run *r, const char *path, const char *why);

/* cg_text.c, cg_csv.c, cg_plot.c, cg_html.c */
/* cg_agree.c: two runs of a campaign, their summaries compared (fabemuctl campaign agree) */
struct cg_agreement {
	unsigned rows, rows_agree;  /* rows in both, those whose p50 intervals overlap */
	unsigned rows_unmatched;    /* rows of the first not in the second, or without one */
	unsigned words, words_held; /* comparison words in both, those that are the same */
};
/* Each row and word of a (campaign.json) against b's, printed to f; the counts into g. */
void cg_agree(FILE *f, json_t *a, json_t *b, struct cg_agreement *g);
void cg_print_summary(FILE *f, const struct cg_campaign *c, json_t *capacity,
		      const struct cg_row *rows, size_t n);
int cg_write_csvs(const struct cg_run *r, json_t *runs, const struct cg_row *rows, size_t nrows);
/* The column of summary.csv named name, from 1 (gnuplot's numbering); -1 if none. */
int cg_summary_column(const char *name);
int cg_plots(const struct cg_run *r, json_t *runs, const struct cg_row *rows, size_t nrows);
int cg_html(const struct cg_run *r, json_t *runs, const struct cg_row *rows, size_t nrows,
	    const char *status);

#endif
