#!/bin/sh
# OpenMPI's launcher agent (--mca plm_rsh_agent) for testbed hosts: mpirun calls it as
# "mpi-agent.sh HOST COMMAND..." like ssh; the command runs in network namespace HOST,
# with HOST as its host name (a private UTS namespace), so that every rank's node has
# its own name and address.
host=$1
shift
exec ip netns exec "$host" unshare --uts /bin/sh -c "hostname '$host' && exec $*"
