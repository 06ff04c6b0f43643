#!/usr/bin/env bash
# No function outside the tests runs longer than LIMIT lines (default 120): a longer one is split
# into named pieces. Functions as universal-ctags finds them (C++ definitions, from their first to
# their last line; a lambda counts in the function that holds it), in every .h and .cpp of the
# tree but tests/ (the unit tests, the fuzz harnesses and their support) and build*/; apps/,
# bench/ and examples/ are read like the library, since people copy them.
# Usage: tools/test/function_length.sh [REPO_ROOT] [LIMIT]. Exit 0 with "function_length: ok",
# 1 listing every longer function as LINES FILE:LINE NAME, 2 when universal-ctags is missing.
set -euo pipefail
cd "${1:-$(dirname "$0")/../..}"
limit=${2:-120}

ctags=""
for candidate in ctags-universal universal-ctags ctags; do
  if command -v "$candidate" >/dev/null 2>&1 && "$candidate" --version 2>/dev/null | grep -q "Universal Ctags"; then
    ctags=$candidate
    break
  fi
done
if [[ -z $ctags ]]; then
  echo "function_length: universal-ctags is not installed (scripts/setup.sh installs it)" >&2
  exit 2
fi

# One line per function: LINES FILE:LINE NAME.
lengths=$(find . \( -path ./tests -o -path './build*' -o -path ./.git \) -prune -o \
            -type f \( -name '*.h' -o -name '*.cpp' \) -print |
          sort | "$ctags" -L - --kinds-C++=f --fields=+ne -f - --languages=C++ |
          awk -F'\t' '{
            line = ""; end = ""
            for (i = 4; i <= NF; i++) {
              if ($i ~ /^line:/) line = substr($i, 6)
              if ($i ~ /^end:/) end = substr($i, 5)
            }
            if (line != "" && end != "") printf "%d %s:%d %s\n", end - line + 1, substr($2, 3), line, $1
          }' | sort -k1,1nr -k2,2)
[[ -n $lengths ]] || { echo "function_length: ctags found no functions" >&2; exit 2; }

long=$(awk -v limit="$limit" '$1 > limit' <<<"$lengths")
if [[ -n $long ]]; then
  echo "function_length: $(wc -l <<<"$long") function(s) over $limit lines (split each into named pieces):"
  echo "$long"
  exit 1
fi
echo "function_length: ok ($(wc -l <<<"$lengths") functions outside tests/, none over $limit lines; the longest: $(head -1 <<<"$lengths"))"
