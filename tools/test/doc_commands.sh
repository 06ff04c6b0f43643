#!/usr/bin/env bash
# doc_commands.sh DOC SOURCE_DIR MOIRAI [SECTION]: runs every line of DOC's ```sh blocks (only
# those under the heading `## SECTION`, when given), as printed, in a scratch folder that sees the
# source tree's apps/ and docs/ and the build of MOIRAI as build/release/, and has MOIRAI's folder
# first on PATH; fails on the first line that fails (so a doc's commands cannot drift from what
# works). With DOC_COMMANDS_KEEP=DIR the lines run in DIR (empty or new), which is kept.
set -euo pipefail
doc=$1 source_dir=$2 moirai=$3 section=${4:-}
[ -f "$doc" ] || { echo "doc_commands: no such doc: $doc" >&2; exit 2; }
[ -x "$moirai" ] || { echo "doc_commands: not executable: $moirai" >&2; exit 2; }
if [ -n "${DOC_COMMANDS_KEEP:-}" ]; then
  scratch=$DOC_COMMANDS_KEEP
  mkdir -p "$scratch"
else
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
fi
ln -s "$source_dir/apps" "$scratch/apps"
ln -s "$source_dir/docs" "$scratch/docs"
mkdir -p "$scratch/build"
ln -s "$(cd "$(dirname "$moirai")/.." && pwd)" "$scratch/build/release"
export PATH="$(cd "$(dirname "$moirai")" && pwd):$PATH"
count=0
while IFS= read -r line; do
  count=$((count + 1))
  echo "\$ $line"
  # stdin from /dev/null: a command that reads it (mpirun does) would eat the doc's next lines.
  if ! (cd "$scratch" && bash -euo pipefail -c "$line" < /dev/null > "$scratch/.out" 2>&1); then
    cat "$scratch/.out" >&2
    echo "doc_commands: $doc: this line failed: $line" >&2
    exit 1
  fi
done < <(awk -v section="$section" 'BEGIN {here = (section == "")} /^## / {here = (section == "" || substr($0, 4) == section)}
  /^```sh$/ {inside = here; next} /^```/ {inside = 0} inside && NF' "$doc")
[ "$count" -gt 0 ] || { echo "doc_commands: $doc has no sh block${section:+ under ## $section}" >&2; exit 1; }
echo "doc_commands: $count lines of $doc ran"
