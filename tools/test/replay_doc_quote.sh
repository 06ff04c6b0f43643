#!/bin/sh
# docs/replay.md quotes what its first command prints: run it as printed (from the repository,
# without --trace) and find its first line, word for word, in the doc.
#   replay_doc_quote.sh MOIRAI ROOT
set -u
moirai=$1
cd "$2" || exit 1
line=$("$moirai" replay ../shared/reference-traces/xeon16/c2-p64.mtrace --machine sim:16 | head -n 1)
grep -qxF "$line" docs/replay.md || { echo "replay_doc_quote: FAIL: docs/replay.md does not quote: $line"; exit 1; }
echo "replay_doc_quote: ok"
