#!/usr/bin/env bash
# make bench: every benchmark, results to bench/RESULTS.md.
# Timings are medians of several runs; the machine is shared and noisy.
set -euo pipefail
ptm=${1:-bin/ptm}
cd "$(dirname "$0")/.."
out=bench/RESULTS.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# Wall seconds of one command, to stdout.
seconds() {
    local t0 t1
    t0=$(date +%s.%N)
    "$@" > /dev/null
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
}

echo "== parse: a generated 100,000-line spec"
sh bench/gen_spec.sh 100000 > "$tmp/big.ptm"
lines=$(wc -l < "$tmp/big.ptm")
bytes=$(wc -c < "$tmp/big.ptm")
"$ptm" check "$tmp/big.ptm" > /dev/null
runs=""
for i in 1 2 3 4 5; do runs="$runs $(seconds "$ptm" check "$tmp/big.ptm")"; done
parse=$(printf '%s\n' $runs | median)
mbs=$(awk -v b="$bytes" -v s="$parse" 'BEGIN { printf "%.0f", b / s / 1e6 }')
printf 'parse: %s lines, %s bytes, median %.3f s (%s MB/s); runs:%s\n' "$lines" "$bytes" "$parse" "$mbs" "$runs"

{
    echo "# Benchmarks"
    echo
    echo "Written by \`make bench\` (bench/run.sh). Machine: $(nproc) cores,"
    echo "$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo),"
    echo "$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1). Date: $(date -u +%Y-%m-%d)."
    echo
    echo "## Parsing"
    echo
    echo "Command: \`sh bench/gen_spec.sh 100000 > big.ptm; ptm check big.ptm\`"
    echo "(5 runs, median wall time of the whole command; goal: under 0.5 s)."
    echo
    echo "| lines | bytes | median seconds | MB/s | runs (s) |"
    echo "|---|---|---|---|---|"
    printf '| %s | %s | %.3f | %s |%s |\n' "$lines" "$bytes" "$parse" "$mbs" "$runs"
} > "$out"
echo "results written to $out"
