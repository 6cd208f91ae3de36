#!/usr/bin/env bash
# bench/peers.sh [--quick] [PTM]: ptm beside scikit-learn, glmnet, liblinear and
# gensim on the same generated files (bench/peers/peers.py does the work).
# Writes the "## Peers" section of bench/RESULTS.md, replacing the one there or
# appending it, and the charts bench/peers_*.svg. `make bench-peers` runs it
# alone; bench/run.sh runs it last. Installs the peers when missing
# (scripts/deps.sh --bench). About 10 minutes on 2 cores.
# --quick: every step on small data, the section to stdout and the charts to a
# temporary directory; RESULTS.md is left alone.
set -euo pipefail
quick=false
if [ "${1:-}" = --quick ]; then
    quick=true
    shift
fi
ptm=${1:-bin/ptm}
cd "$(dirname "$0")/.."
out=bench/RESULTS.md
[ -x "$ptm" ] || make --no-print-directory "$ptm" > /dev/null
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if ! "$py" -c 'import sklearn, gensim, scipy' 2> /dev/null || ! command -v liblinear-train > /dev/null ||
    ! Rscript -e 'library(glmnet)' > /dev/null 2>&1; then
    scripts/deps.sh --bench >&2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if $quick; then
    "$py" bench/peers/peers.py "$ptm" "$tmp" --quick
    exit 0
fi
"$py" bench/peers/peers.py "$ptm" bench > "$tmp/section.md"
[ -f "$out" ] || : > "$out"
# the section replaces "## Peers" up to the next "## " heading, or goes last
"$py" - "$out" "$tmp/section.md" << 'EOF'
import re
import sys

out, sec = sys.argv[1], open(sys.argv[2]).read().strip("\n") + "\n"
text = open(out).read()
m = re.search(r"^## Peers\n.*?(?=^## |\Z)", text, flags=re.M | re.S)
if m:
    rest = text[m.end():]
    text = text[:m.start()] + sec + ("\n" + rest if rest else "")
else:
    text = text.rstrip("\n") + ("\n\n" if text.strip() else "") + sec
open(out, "w").write(text)
EOF
echo "peers: section written to $out" >&2
