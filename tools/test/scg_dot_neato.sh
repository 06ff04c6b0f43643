#!/bin/sh
# The DOT `moirai scg -o x.dot` writes is for Graphviz's own tools: `neato -n2 -Tsvg` renders it
# without a warning into the picture moirai draws (the same texts, nodes and edges; no internal
# node name shows), and gvpr reads it (counting the blocks moirai reported, recolouring them).
#   scg_dot_neato.sh MOIRAI TRACE DIR
set -u
moirai=$1 trace=$2 dir=$3
fail() { echo "scg_dot_neato: FAIL: $*"; exit 1; }
rm -rf "$dir"
mkdir -p "$dir"
"$moirai" scg "$trace" -o "$dir/own.svg" >/dev/null || fail "moirai scg -o own.svg"
drawn=$("$moirai" scg "$trace" -o "$dir/x.dot") || fail "moirai scg -o x.dot"
echo "$drawn"
head -1 "$dir/x.dot" | grep -q '^digraph' || fail "x.dot is not DOT (the format must follow the extension)"
grep -q 'node \[label=""\]' "$dir/x.dot" || fail "x.dot does not declare the empty node label"
neato -n2 -Tsvg "$dir/x.dot" -o "$dir/neato.svg" 2>"$dir/neato.err" || fail "neato -n2 failed: $(cat "$dir/neato.err")"
[ -s "$dir/neato.err" ] && fail "neato warned: $(head -3 "$dir/neato.err")"
texts() { grep -o '<text[^>]*>[^<]*</text>' "$1" | sed 's/<text[^>]*>//; s/<\/text>//' | sort; }
texts "$dir/own.svg" >"$dir/own.texts"
texts "$dir/neato.svg" >"$dir/neato.texts"
diff "$dir/own.texts" "$dir/neato.texts" >"$dir/texts.diff" || fail "neato's texts differ from moirai's: $(head -5 "$dir/texts.diff")"
for kind in node edge; do
  own=$(grep -c "<g id=\"$kind" "$dir/own.svg")
  neato=$(grep -c "<g id=\"$kind" "$dir/neato.svg")
  [ "$own" = "$neato" ] || fail "$own ${kind}s drawn by moirai, $neato by neato"
done
# No internal node name (b12, o3, t0, core1) is drawn as text.
if grep -E -x 'b[0-9]+|o[0-9]+|t[0-9]+|core[0-9]+' "$dir/neato.texts"; then fail "internal node names show"; fi
# gvpr: the unit blocks, counted and recoloured.
units=$(gvpr 'BEGIN{int n=0;} N[class=="scgunit" || class=="scgmerged"]{n++;} END{printf("%d\n",n);}' "$dir/x.dot") || fail "gvpr cannot read x.dot"
echo "$drawn" | grep -q "^$dir/x.dot: $units blocks" || fail "gvpr counts $units blocks"
gvpr -c 'N[class=="scgunit"]{fillcolor="red";}' "$dir/x.dot" | neato -n2 -Tsvg -o "$dir/red.svg" || fail "gvpr | neato"
grep -q 'fill="red"' "$dir/red.svg" || fail "the recoloured blocks are not red"
echo "neato: $(wc -l <"$dir/neato.texts") texts as moirai drew them; gvpr: $units blocks"
echo "scg_dot_neato: ok"
