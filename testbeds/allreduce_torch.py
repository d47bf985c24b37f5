#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""allreduce_torch: the campaigns' second collective (job kind torch): PyTorch's
torch.distributed all-reduce over gloo, the job testbeds/allreduce.c does over MPI.

One process a rank, each started in its host's namespace; rank 0's host holds the TCP
rendezvous (--master, --port). Every rank all-reduces (SUM of int32) each size for a
number of iterations, after a barrier; an iteration's time is the slowest rank's (an
all-reduce of the times with MAX), and every rank checks every element of the result: a
wrong sum is a failure (exit 3), never a number.

Rank 0 prints the iter lines a campaign reads (docs/campaigns.md, "The iter lines"),
one an iteration, flushed:
  iter G SIZE I TIME_US START_NS     G: iteration number over all sizes, from 1
  done
START_NS is the wall clock (CLOCK_REALTIME) when rank 0 left the barrier. --hook CMD runs
"CMD G" on rank 0 before the barrier of each iteration G listed in --hook-iters, so that
a fault is in place before any rank starts that iteration.

FE_ALLREDUCE_CORRUPT=G (tests): the last rank adds 1 to one element of what it sends in
iteration G, so that the sum is wrong and the job must fail.
"""
import argparse
import datetime
import os
import subprocess
import sys
import time

import torch
import torch.distributed as dist


def parse_size(s):
    units = {"KiB": 1024, "K": 1024, "MiB": 1 << 20, "M": 1 << 20, "KB": 1000, "MB": 1000000,
             "B": 1, "": 1}
    for u in sorted(units, key=len, reverse=True):
        if s.endswith(u):
            n = int(float(s[:len(s) - len(u)]) * units[u])
            if 4 <= n <= 1 << 30:
                return n
            break
    raise argparse.ArgumentTypeError("bad size '%s' (4 B to 1GiB)" % s)


def args():
    p = argparse.ArgumentParser(
        description="torch.distributed all-reduce over gloo, one process a rank")
    p.add_argument("--rank", type=int, required=True, help="this process's rank, from 0")
    p.add_argument("--world", type=int, required=True, help="the number of ranks")
    p.add_argument("--master", required=True, help="rank 0's address (the rendezvous)")
    p.add_argument("--port", type=int, default=29500, help="the rendezvous's TCP port")
    p.add_argument("--sizes", default="1MiB",
                   help="bytes per rank, with K/M/KiB/MiB suffixes (default 1MiB)")
    p.add_argument("--iters", type=int, default=20, help="measured iterations per size")
    p.add_argument("--warmup", type=int, default=2, help="unmeasured iterations per size first")
    p.add_argument("--hook", help="rank 0 runs 'HOOK G' before iteration G")
    p.add_argument("--hook-iters", default="", help="the iterations G that run the hook")
    p.add_argument("--timeout", type=float, default=120,
                   help="seconds a collective may wait for a peer before failing")
    a = p.parse_args()
    a.sizes = [parse_size(s) for s in a.sizes.split(",")]
    a.hook_iters = {int(g) for g in a.hook_iters.split(",") if g}
    if a.iters < 1 or a.warmup < 0 or not 0 <= a.rank < a.world:
        p.error("bad --iters, --warmup or --rank")
    return a


def pattern(n, it):
    """Element i of iteration it, before the rank's factor: (i + it) % 1000 + 1."""
    return (torch.arange(n, dtype=torch.int64) + it) % 1000 + 1


def iteration(a, n, it, corrupt):
    """One all-reduce of n int32; the slowest rank's time (s) and the wrong elements seen
    by all ranks together."""
    send = (pattern(n, it) * (a.rank + 1)).to(torch.int32)
    if corrupt and a.rank == a.world - 1:
        send[n // 2] += 1
    dist.barrier()
    t0 = time.perf_counter()
    dist.all_reduce(send, op=dist.ReduceOp.SUM)
    dt = torch.tensor([time.perf_counter() - t0], dtype=torch.float64)
    want = (pattern(n, it) * (a.world * (a.world + 1) // 2)).to(torch.int32)
    bad = torch.tensor([int((send != want).sum())], dtype=torch.int64)
    dist.all_reduce(dt, op=dist.ReduceOp.MAX)
    dist.all_reduce(bad, op=dist.ReduceOp.SUM)
    return float(dt[0]), int(bad[0])


def main():
    a = args()
    corrupt_at = int(os.environ.get("FE_ALLREDUCE_CORRUPT", "0") or 0)
    dist.init_process_group("gloo", init_method="tcp://%s:%d" % (a.master, a.port),
                            rank=a.rank, world_size=a.world,
                            timeout=datetime.timedelta(seconds=a.timeout))
    if a.rank == 0:
        print("# allreduce-torch ranks=%d iters=%d warmup=%d sizes=%s torch=%s" %
              (a.world, a.iters, a.warmup, ",".join(str(s // 4 * 4) for s in a.sizes),
               torch.__version__), flush=True)
    g = it = rc = 0
    for size in a.sizes:
        n = size // 4
        for _ in range(a.warmup):
            iteration(a, n, it, False)
            it += 1
        for i in range(1, a.iters + 1):
            g += 1
            if a.rank == 0 and a.hook and g in a.hook_iters:
                if subprocess.call("%s %d" % (a.hook, g), shell=True) != 0:
                    print("allreduce-torch: hook '%s %d' failed" % (a.hook, g),
                          file=sys.stderr, flush=True)
            start = time.time_ns()
            t, bad = iteration(a, n, it, g == corrupt_at)
            it += 1
            if bad:
                if a.rank == 0:
                    print("allreduce-torch: iteration %d (%d bytes): %d wrong elements in "
                          "the result" % (g, n * 4, bad), file=sys.stderr, flush=True)
                rc = 3
            if a.rank == 0:
                print("iter %d %d %d %.3f %d" % (g, n * 4, i, t * 1e6, start), flush=True)
            if rc:
                break
        if rc:
            break
    if a.rank == 0 and rc == 0:
        print("done", flush=True)
    dist.destroy_process_group()
    return rc


if __name__ == "__main__":
    sys.exit(main())
