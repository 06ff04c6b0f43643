#!/usr/bin/env bash
# Runs an MPI command with its ranks on two nodes, node-a and node-b (2 slots each), that are both
# this machine: the launcher starts each node's daemon through this script (as its rsh agent),
# which runs it in a UTS namespace of its own whose host name is the node's. Open MPI then sees
# two hosts: ranks on one node talk through shared memory, ranks on different nodes through TCP
# (over the loopback interface), as on a cluster. Nothing is left on the machine: the host names
# live only in the namespaces, the host file in a temporary folder this script removes.
# Needs root (unshare --uts). docs/mpi-two-nodes.md says how a real cluster run differs.
usage() {
  cat <<'USAGE'
usage: scripts/mpi_two_nodes.sh [--offset-ns N] [--offset-a-ns N] -- COMMAND [ARGS...]
  Runs COMMAND (e.g. `mpirun -np 4 ./prog`, or `moirai record -o run.mtrace -- mpirun -np 4 ./prog`)
  with the launcher placing ranks 0-1 on node-a and 2-3 on node-b: Open MPI's mpirun (the nodes
  talk TCP), or MPICH's mpiexec.mpich (Hydra; two hosts, but UCX still shares memory between them).
  --offset-ns N     node-b's ranks get MOIRAI_MPI_TEST_CLOCK_OFFSET_NS=N (ns, may be negative):
                    the MPI tool adds it to their clock readings, a clock that is off by N
  --offset-a-ns N   the same for node-a's ranks
  Exit status: COMMAND's; 2 on bad arguments; 77 when this machine cannot make the nodes
  (not root, or no unshare).
USAGE
}
set -euo pipefail
readonly nodes=(node-a node-b)

# Agent mode: the launcher runs `<this script> <node> <daemon command...>` (as it would run ssh).
if [ $# -ge 1 ] && [[ " ${nodes[*]} " == *" $1 "* ]]; then
  node=$1
  shift
  var=MOIRAI_TWO_NODES_OFFSET_${node//-/_}_NS
  offset=${!var-}
  # The offset is set or unset explicitly: a daemon may start another node's daemon (Open MPI's
  # tree spawn), and the child must not inherit the starting node's offset.
  exec unshare --uts sh -c '
    hostname "$0" || exit 1
    if [ -n "$1" ]; then export MOIRAI_MPI_TEST_CLOCK_OFFSET_NS="$1"; else unset MOIRAI_MPI_TEST_CLOCK_OFFSET_NS; fi
    exec sh -c "$2"' "$node" "$offset" "$*"
fi

offset_a="" offset_b=""
is_integer() { [[ "$1" =~ ^-?[0-9]+$ ]]; }
while [ $# -gt 0 ]; do
  case "$1" in
    --offset-ns|--offset-a-ns)
      [ $# -ge 2 ] && is_integer "$2" || { echo "mpi_two_nodes.sh: $1 needs an integer (ns), got '${2-}'" >&2; exit 2; }
      if [ "$1" = --offset-ns ]; then offset_b=$2; else offset_a=$2; fi
      shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) echo "mpi_two_nodes.sh: unknown argument '$1' (the command follows --)" >&2; usage >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "mpi_two_nodes.sh: no command after --" >&2; usage >&2; exit 2; }
if ! unshare --uts true 2>/dev/null; then
  echo "mpi_two_nodes.sh: cannot make a UTS namespace (unshare --uts needs root): no two nodes here" >&2
  exit 77
fi

self=$(readlink -f "${BASH_SOURCE[0]}")
work=$(mktemp -d "${TMPDIR:-/tmp}/moirai-two-nodes.XXXXXX")
trap 'rm -rf "$work"' EXIT
printf '%s slots=2\n' "${nodes[@]}" > "$work/hosts"
printf '%s:2\n' "${nodes[@]}" > "$work/hosts.hydra"

export MOIRAI_TWO_NODES_OFFSET_node_a_NS=$offset_a MOIRAI_TWO_NODES_OFFSET_node_b_NS=$offset_b
# Open MPI reads its parameters from OMPI_MCA_* variables, so COMMAND needs no flag of ours and
# may be any command that runs mpirun (moirai record, a test script). The loopback interface is
# the one both nodes share on every machine.
export OMPI_MCA_plm_rsh_agent=$self OMPI_MCA_orte_default_hostfile=$work/hosts \
       OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
# MPICH's launcher (Hydra, mpiexec.mpich) takes the same agent through its own variables.
export HYDRA_HOST_FILE=$work/hosts.hydra HYDRA_LAUNCHER=rsh HYDRA_LAUNCHER_EXEC=$self
# Debian's MPICH (ch4:ucx) sends between nodes through UCX, which knows the machine by its boot
# and network card, not its host name, and so keeps to shared memory between these two nodes
# (UCX_TLS=self,tcp would force TCP, but MPICH 4.0.2 with UCX 1.13.1 then hangs in most runs,
# on one node too): MPICH's nodes here are two hosts and two shared-memory groups, not TCP.
status=0
"$@" || status=$?
exit "$status"
