#!/usr/bin/env bash
# doc_commands.sh DOC SOURCE_DIR MOIRAI: runs every line of DOC's ```sh blocks, as printed, in a
# scratch folder that sees the source tree's apps/ and has MOIRAI's folder first on PATH, and
# fails on the first line that fails (so a doc's commands cannot drift from what works).
set -euo pipefail
doc=$1 source_dir=$2 moirai=$3
[ -f "$doc" ] || { echo "doc_commands: no such doc: $doc" >&2; exit 2; }
[ -x "$moirai" ] || { echo "doc_commands: not executable: $moirai" >&2; exit 2; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
ln -s "$source_dir/apps" "$scratch/apps"
export PATH="$(cd "$(dirname "$moirai")" && pwd):$PATH"
count=0
while IFS= read -r line; do
  count=$((count + 1))
  echo "\$ $line"
  if ! (cd "$scratch" && bash -euo pipefail -c "$line" > "$scratch/.out" 2>&1); then
    cat "$scratch/.out" >&2
    echo "doc_commands: $doc: this line failed: $line" >&2
    exit 1
  fi
done < <(awk '/^```sh$/ {inside = 1; next} /^```/ {inside = 0} inside && NF' "$doc")
[ "$count" -gt 0 ] || { echo "doc_commands: $doc has no sh block" >&2; exit 1; }
echo "doc_commands: $count lines of $doc ran"
