#!/bin/sh
# OpenMPI's launcher agent (--mca plm_rsh_agent) for a campaign's hosts: mpirun calls it
# as "mpi-agent.sh HOST COMMAND..." like ssh; the command runs on HOST with HOST as its
# host name (a private UTS namespace), so that every rank's node has its own name and
# address. A veth testbed's HOST is a network namespace (ip netns exec HOST); existing
# hosts (a campaign's testbed kind hosts) are reached by their prefixes, which the
# campaign passes in FE_AGENT_HOSTS, a line a host: "NAME<TAB>SHELL<TAB>PREFIX" (SHELL 1:
# the prefix hands its arguments to a shell that parses them again, as ssh does).
host=$1
shift
cmd="hostname '$host' && exec $*"
line=$(printf '%s\n' "${FE_AGENT_HOSTS:-}" | awk -F '\t' -v h="$host" '$1 == h { print; exit }')
[ -n "$line" ] || exec ip netns exec "$host" unshare --uts /bin/sh -c "$cmd"
shell=$(printf '%s\n' "$line" | cut -f2)
prefix=$(printf '%s\n' "$line" | cut -f3-)
if [ "$shell" = 1 ]; then
	# one string for the remote shell: the command quoted once more
	q=$(printf '%s' "$cmd" | sed "s/'/'\\\\''/g")
	# the prefix parsed as a shell parses it, as the campaign runs it
	eval "exec $prefix \"unshare --uts /bin/sh -c '\$q'\""
fi
eval "exec $prefix unshare --uts /bin/sh -c \"\$cmd\""
