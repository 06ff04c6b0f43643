#!/usr/bin/env bash
# The two-node test (docs/mpi-two-nodes.md): runs where_am_i on 4 ranks through
# scripts/mpi_two_nodes.sh with node-b's clock offset set, and checks that the launcher made two
# nodes of this machine: 2 ranks on each of node-a and node-b, one shared-memory group per node,
# the offset seen by node-b's ranks only. With Open MPI it also checks that the nodes talk through
# TCP: without the tcp transport the job cannot reach the other node.
# Usage: two_nodes_test.sh REPO_ROOT openmpi|mpich WHERE_AM_I LAUNCHER [LAUNCHER FLAGS...]
# Exit 0 when all holds, 1 naming what did not, 77 when this machine cannot make two nodes.
set -uo pipefail
root=$1 kind=$2 probe=$3
shift 3
launcher=("$@")
offset=5000000
fail() { echo "two_nodes_test: $*" >&2; exit 1; }

out=$(bash "$root/scripts/mpi_two_nodes.sh" --offset-ns "$offset" -- "${launcher[@]}" -np 4 "$probe")
status=$?
[ "$status" -eq 77 ] && exit 77
[ "$status" -eq 0 ] || fail "the job exited with $status; it printed:"$'\n'"$out"
echo "$out"

lines=$(grep -c '^rank ' <<<"$out")
[ "$lines" -eq 4 ] || fail "expected 4 ranks' lines, got $lines"
declare -A host_of group_of offset_of
while read -r _ rank _ host _ group _ size _ rank_offset; do
  host_of[$rank]=$host group_of[$rank]=$group offset_of[$rank]=$rank_offset
  [ "$size" -eq 2 ] || fail "rank $rank's shared-memory group has $size ranks, not 2"
done < <(grep '^rank ' <<<"$out")
for rank in 0 1 2 3; do
  [ -n "${host_of[$rank]-}" ] || fail "rank $rank printed no line"
  want_host=node-a want_offset=-
  if [ "$rank" -ge 2 ]; then want_host=node-b want_offset=$offset; fi
  [ "${host_of[$rank]}" = "$want_host" ] || fail "rank $rank runs on '${host_of[$rank]}', not $want_host"
  [ "${offset_of[$rank]}" = "$want_offset" ] || fail "rank $rank sees clock offset '${offset_of[$rank]}', not $want_offset"
done
[ "${group_of[0]}" = "${group_of[1]}" ] && [ "${group_of[2]}" = "${group_of[3]}" ] ||
  fail "ranks on one node are in different shared-memory groups"
[ "${group_of[0]}" != "${group_of[2]}" ] || fail "node-a's and node-b's ranks share one shared-memory group"

# Open MPI with shared memory (vader) and self only: a rank on the other node is unreachable, so
# the ranks above talked through TCP. (MPICH's UCX shares memory between the two nodes of one
# machine: scripts/mpi_two_nodes.sh says why that is not forced to TCP.)
if [ "$kind" = openmpi ]; then
  out=$(bash "$root/scripts/mpi_two_nodes.sh" -- "${launcher[@]}" --mca btl self,vader -np 4 "$probe" 2>&1)
  [ $? -ne 0 ] || fail "the job ran without the tcp transport: the nodes share memory"
  grep -q 'unreachable' <<<"$out" || fail "without tcp the job failed, but not for an unreachable rank:"$'\n'"$out"
fi
echo "two_nodes_test: ok (2 nodes x 2 ranks, node-b offset $offset ns${kind:+, $kind})"
