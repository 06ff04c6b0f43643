#!/bin/bash
# Records a matmul on 2 cores while a busy loop holds CPU 1, then prints the first line of
# `moirai report`: the report must say first that the machine was busy, naming the core that ran
# on CPU 1 and the OS's share of it.
#   busy_run.sh MATMUL MOIRAI TRACE
set -u
matmul=$1 moirai=$2 trace=$3
taskset -c 1 sh -c 'while :; do :; done' &
busy=$!
trap 'kill "$busy" 2>/dev/null' EXIT
"$matmul" --size 960 --cores 2 --counters none --trace "$trace" >/dev/null || exit 1
kill "$busy"
"$moirai" report "$trace" | head -n 1
rm -f "$trace"
