#!/bin/sh
# dev_full.sh MOIRAI TRACE DIR: every subcommand with standard output on /dev/full, and every
# file output named /dev/full, must exit non-zero saying it could not write; the device must be
# left a character device (a writer that replaced it with a file would pass the exit check).
moirai=$1 trace=$2 dir=$3
fail() { echo "dev_full: FAIL: $*"; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot create $dir"
expect_failure() {
  what=$1
  shift
  "$@" >"$dir/out" 2>"$dir/err" </dev/null
  code=$?
  [ "$code" -ne 0 ] || fail "$what exited 0"
  grep -q "cannot write" "$dir/err" || fail "$what said no 'cannot write': $(cat "$dir/err")"
  [ -c /dev/full ] || fail "$what left /dev/full no character device"
  echo "dev_full: $what: exit $code: $(grep 'cannot write' "$dir/err" | head -1)"
}
expect_failure "stats >/dev/full" sh -c "'$moirai' stats '$trace' >/dev/full"
expect_failure "stats --json >/dev/full" sh -c "'$moirai' stats --json '$trace' >/dev/full"
expect_failure "report >/dev/full" sh -c "'$moirai' report '$trace' >/dev/full"
expect_failure "report --critical-path >/dev/full" sh -c "'$moirai' report --critical-path '$trace' >/dev/full"
expect_failure "scg -o - >/dev/full" sh -c "'$moirai' scg '$trace' -o - >/dev/full"
expect_failure "scg summary >/dev/full" sh -c "'$moirai' scg '$trace' -o '$dir/x.svg' >/dev/full"
expect_failure "ucc -o - >/dev/full" sh -c "'$moirai' ucc '$trace' -o - >/dev/full"
expect_failure "export perfetto -o - >/dev/full" sh -c "'$moirai' export '$trace' --format perfetto -o - >/dev/full"
expect_failure "export sqlite summary >/dev/full" sh -c "'$moirai' export '$trace' --format sqlite -o '$dir/x.db' >/dev/full"
expect_failure "--help >/dev/full" sh -c "'$moirai' --help >/dev/full"
expect_failure "record --help >/dev/full" sh -c "'$moirai' record --help >/dev/full"
expect_failure "scg -o /dev/full" "$moirai" scg "$trace" -o /dev/full -T svg
expect_failure "ucc -o /dev/full" "$moirai" ucc "$trace" -o /dev/full -T svg
expect_failure "export perfetto -o /dev/full" "$moirai" export "$trace" --format perfetto -o /dev/full
expect_failure "export sqlite -o /dev/full" "$moirai" export "$trace" --format sqlite -o /dev/full
expect_failure "stats -o /dev/full" "$moirai" stats "$trace" -o /dev/full
expect_failure "record -o /dev/full" "$moirai" record -o /dev/full -- sh -c 'cp "$1" "$MOIRAI_OMPT_TRACE"' sh "$trace"
echo "dev_full: ok"
