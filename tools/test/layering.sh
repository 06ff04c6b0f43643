#!/usr/bin/env bash
# The house's layering, checked on the sources (docs/architecture.md, "Layers"): every folder that
# holds code is named in the architecture's folder table, and no folder includes a layer it must
# not. Usage: tools/test/layering.sh [REPO_ROOT]. Exit 0 when both hold, 1 listing every breach.
set -euo pipefail
cd "${1:-$(dirname "$0")/../..}"
doc=docs/architecture.md
breaches=0
breach() { echo "layering: $*"; breaches=$((breaches + 1)); }

# Every code folder is in the table, as `folder/`.
folders=$(for d in */CMakeLists.txt; do dirname "$d"; done | grep -vE '^(build|tests|bench|examples|cmake|tools|visualize)$')  # tools' and visualize's folders are named one by one
folders+=" instrument/src/recorder $(cd visualize/src && for d in */; do echo "visualize/${d%/}"; done | grep -v '/report$')"
folders+=" $(for d in tools/*/; do d=${d%/}; [[ $d == tools/test ]] || echo "$d"; done)"
for folder in $folders; do
  grep -q "^| \`$folder/\`" "$doc" || grep -q "^| \`[^|]*\`$folder/\`" "$doc" || breach "$doc names no folder $folder/ in its table"
done

# forbid DIR PATTERN WHY: no source under DIR includes a header matching PATTERN.
forbid() {
  local dir=$1 pattern=$2 why=$3 hits
  hits=$(grep -rnE "^#include [<\"]($pattern)" "$dir" --include='*.h' --include='*.cpp' || true)
  [[ -z $hits ]] || breach "$why:"$'\n'"$hits"
}
# core/ is the bottom: it includes nothing of Moirai but itself.
hits=$(grep -rnE '^#include [<"]moirai/' core --include='*.h' --include='*.cpp' | grep -vE ':#include [<"]moirai/core/' || true)
[[ -z $hits ]] || breach "core/ includes nothing of Moirai but core/:"$'\n'"$hits"
# The old vocabulary headers (moirai/instrument/ids.h, ...) forward to core/ for users only.
hits=$(grep -rnE '^#include [<"]moirai/instrument/(ids|chore|construct_role|time_source|runtime_observer)\.h' . \
         --include='*.h' --include='*.cpp' --exclude-dir=build --exclude-dir=.git |
       grep -v '^\./instrument/include/moirai/instrument/' || true)
[[ -z $hits ]] || breach "the tree includes the vocabulary from moirai/core/, not its forwarding headers:"$'\n'"$hits"
forbid proto_runtime 'moirai/(ssr|vss|program|visualize|trace|instrument)/' \
  "proto_runtime/ knows no language, program, trace, recorder or view"
forbid trace 'moirai/(proto_runtime|ssr|vss|program|visualize|replay|instrument)/' \
  "trace/ includes only core/: the recorder (instrument/) sits above it"
forbid visualize 'moirai/(proto_runtime|ssr|vss|program|instrument)/' \
  "visualize/ never links the runtime or the recorder"
# visualize/ runs one way, stage by stage: a stage's sources and public headers include only the
# stages before it (output/ holds what every later stage prints and writes).
stages=(model output analyses views export)
printf -v order '%s -> ' "${stages[@]}"
order=${order% -> }
for dir in visualize/src/*/ visualize/include/moirai/visualize/*/; do
  [[ " ${stages[*]} " == *" $(basename "$dir") "* ]] || breach "${dir%/} is no stage of visualize/'s order ($order)"
done
for ((i = 0; i < ${#stages[@]} - 1; i++)); do
  later=$(IFS='|'; echo "${stages[*]:i+1}")
  for dir in visualize/src/${stages[i]} visualize/include/moirai/visualize/${stages[i]}; do
    [[ ! -d $dir ]] || forbid "$dir" "(moirai/visualize/)?($later)/" \
      "visualize/ runs $order, one way: $dir includes no later stage"
  done
done
forbid ssr_lang 'moirai/(vss|program|visualize|trace|instrument)/' "SSR knows no other language, program, trace, recorder or view"
forbid vss_lang 'moirai/(ssr|program|visualize|trace|instrument)/' "VSs knows no other language, program, trace, recorder or view"
forbid program 'moirai/(ssr|vss|visualize)/' "the programs' library links no language and no view"
forbid replay 'moirai/(ssr|vss|program|visualize|instrument)/' \
  "replay knows no language, program, recorder or view: it reads them from the trace and records through an observer"
forbid visualize 'moirai/replay/' "visualize/ never links replay (it runs the runtime)"
forbid apps/omp 'moirai/' "the OpenMP apps are ordinary OpenMP programs, with no Moirai header"

if [[ $breaches -gt 0 ]]; then
  echo "layering: $breaches breach(es)"
  exit 1
fi
echo "layering: ok ($(wc -w <<<"$folders") folders named in $doc, no include across a forbidden line)"
