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

echo "== expression bytecode: the Lasso priority and depend programs, one core"
prog_bench=${2:-build/default/bench/prog_bench}
[ -x "$prog_bench" ] || make --no-print-directory "$prog_bench" > /dev/null
"$prog_bench" 5 > "$tmp/prog.txt"
{
    echo
    echo "## Expression bytecode"
    echo
    echo "Command: \`$prog_bench 5\` (bench/prog_bench.c, -O2, one thread; rates per CPU"
    echo "second of that thread, so a busy machine does not count against it). priority:"
    echo "the program for all j of a 2^20-element delta array (callback: array lookup with"
    echo "a bounds check), 16 passes a run; depend: every pair i < j of a 256-candidate"
    echo "sample (callback: a 256 x 256 correlation table), 400 times a run. 5 runs,"
    echo "median; goal: at least 20 M/s for the priority. Direct C: the same expression"
    echo "written in C around the same callback, for the cost of interpretation."
    echo
    echo "| program | instructions | evaluations a run | median M evals/s | direct C M evals/s" \
        "| runs (M evals/s) |"
    echo "|---|---|---|---|---|---|"
    while read -r name ninsn evals med direct runs; do
        case "$name" in
        priority) src='`abs(delta(beta[j])) + 1e-4`' ;;
        depend) src='`abs(corr(col(X, i), col(X, j))) > 0.1`' ;;
        *) src=$name ;;
        esac
        mruns=$(printf '%s\n' $runs | awk '{ printf " %.1f", $1 / 1e6 }')
        printf '| %s %s | %s | %s | %.1f | %.1f |%s |\n' "$name" "$src" "$ninsn" "$evals" \
            "$(awk -v x="$med" 'BEGIN { print x / 1e6 }')" \
            "$(awk -v x="$direct" 'BEGIN { print x / 1e6 }')" "$mruns"
        printf 'prog %s: median %.1f M evals/s (direct C %.1f M/s); runs (M/s):%s\n' "$name" \
            "$(awk -v x="$med" 'BEGIN { print x / 1e6 }')" \
            "$(awk -v x="$direct" 'BEGIN { print x / 1e6 }')" "$mruns" >&2
    done < "$tmp/prog.txt"
} >> "$out"

echo "== parameter store: the hot path, and time blocked under SSP"
pstore_bench=${3:-build/default/bench/pstore_bench}
[ -x "$pstore_bench" ] || make --no-print-directory "$pstore_bench" > /dev/null
load=$(cut -d' ' -f1 /proc/loadavg)
"$pstore_bench" 5 > "$tmp/pstore.txt"
{
    echo
    echo "## Parameter store"
    echo
    echo "Command: \`$pstore_bench 5\` (bench/pstore_bench.c, -O2). 5 runs, medians."
    echo "Hot path: operations on rows already in the worker's cache, 1 thread, then 2"
    echo "threads on the same table (one worker each), a clock every 2^20 operations;"
    echo "inc_dense and get_dense on a 64 x 64 dense table, inc_sparse on 64 sparse rows"
    echo "of 4096 columns holding 16 non-zeros each. Wall rates count all threads; the"
    echo "CPU rate is one thread's per CPU second, which a busy machine does not lower."
    echo "The 2/1 ratio is taken per run from the two measurements made back to back."
    echo "Load average when it started: $load on $(nproc) cores (a shared machine)."
    echo
    echo "| operation | threads | median M ops/s (wall) | median M ops/s per CPU second" \
        "| 2 threads / 1 thread (wall) | runs (M ops/s, wall) |"
    echo "|---|---|---|---|---|---|"
    while read -r kind op a b c rest; do
        case "$kind" in
        hot)
            mruns=$(printf '%s\n' $rest | awk '{ printf " %.1f", $1 / 1e6 }')
            ratio=""
            [ "$a" = 2 ] && ratio=$(awk -v o="$op" '$1 == "ratio" && $2 == o { print $3 }' "$tmp/pstore.txt")
            printf '| %s | %s | %.1f | %.1f | %s |%s |\n' "$op" "$a" \
                "$(awk -v x="$b" 'BEGIN { print x / 1e6 }')" \
                "$(awk -v x="$c" 'BEGIN { print x / 1e6 }')" "$ratio" "$mruns"
            printf 'pstore %s, %s thread(s): median %.1f M/s wall, %.1f M/s per CPU second\n' \
                "$op" "$a" "$(awk -v x="$b" 'BEGIN { print x / 1e6 }')" \
                "$(awk -v x="$c" 'BEGIN { print x / 1e6 }')" >&2
            ;;
        esac
    done < "$tmp/pstore.txt"
    echo
    echo "Blocked time: 2 workers, 100 clocks, staleness s = 0, 1, 3 run back to back"
    echo "in each run. slow: worker 0 works 1 ms per clock (increments in a loop),"
    echo "worker 1 sleeps 2 ms per clock. straggler: both work 1 ms per clock and, in 25"
    echo "of their clocks picked at random (seeded, the same for every s), sleep 3 ms more:"
    echo "equal totals, only the timing of the delays differs."
    echo "Blocked: the share of a worker's wall time spent waiting in pstore_clock()."
    echo "Time vs s = 0: the run's wall time over that of s = 0 in the same run."
    echo
    echo "| scenario | s | worker 0 blocked | worker 1 blocked | median seconds" \
        "| time vs s = 0 |"
    echo "|---|---|---|---|---|---|"
    while read -r kind sc s w0 w1 secs rel; do
        [ "$kind" = wait ] || continue
        printf '| %s | %s | %.0f%% | %.0f%% | %.3f | %.2f |\n' "$sc" "$s" \
            "$(awk -v x="$w0" 'BEGIN { print x * 100 }')" \
            "$(awk -v x="$w1" 'BEGIN { print x * 100 }')" "$secs" "$rel"
        printf 'pstore %s s=%s: blocked %.0f%% / %.0f%%, %.3f s (%.2f of s = 0)\n' "$sc" "$s" \
            "$(awk -v x="$w0" 'BEGIN { print x * 100 }')" \
            "$(awk -v x="$w1" 'BEGIN { print x * 100 }')" "$secs" "$rel" >&2
    done < "$tmp/pstore.txt"
} >> "$out"
echo "== data readers: 100 MB libsvm, MatrixMarket and UCI files, one core"
data_gen=${DATA_GEN:-build/default/bench/data_gen}
data_bench=${DATA_BENCH:-build/default/bench/data_bench}
[ -x "$data_gen" ] || make --no-print-directory "$data_gen" > /dev/null
[ -x "$data_bench" ] || make --no-print-directory "$data_bench" > /dev/null
# FORMAT ROWS COLS DENSITY SEED: about 100 MB each.
: > "$tmp/data.txt"
for spec in "libsvm 32000 200000 0.001 1" "mm 32000 200000 0.0008 2" "uci 32000 200000 0.0012 3"; do
    set -- $spec
    "$data_gen" "$@" > "$tmp/data.$1"
    "$data_bench" "$1" "$tmp/data.$1" 5 | tr '\n' ' ' >> "$tmp/data.txt"
    echo "$spec" >> "$tmp/data.txt"
    rm -f "$tmp/data.$1"
done
{
    echo
    echo "## Data readers"
    echo
    echo "Command: \`data_gen FORMAT ROWS COLS DENSITY SEED > FILE; data_bench FORMAT FILE 5\`"
    echo "(bench/data_gen.c, bench/data_bench.c, -O2, one thread). Random sparse matrices,"
    echo "values uniform in (-1, 1) times 10^k (k in -2..2) written with %.6g (uci: counts"
    echo "1..9); libsvm in row order, mm column by column, uci document by document."
    echo "Wall time of ptm_data_read() into CSR, the file in the page cache;"
    echo "5 runs after one warm-up, median; MB = 10^6 bytes of the file. Goal: at least"
    echo "150 MB/s for libsvm. CSC: building the column view of the result once."
    echo
    echo "| format | rows x cols, density | bytes | nnz | median s | MB/s | CSC s | runs (s) |"
    echo "|---|---|---|---|---|---|---|---|"
    while read -r fmt bytes rows cols nnz med mbs r1 r2 r3 r4 r5 _csc csc gfmt grows gcols gdens gseed; do
        printf '| %s | %s x %s, %s | %s | %s | %.3f | %.0f | %.3f | %s %s %s %s %s |\n' "$fmt" \
            "$rows" "$cols" "$gdens" "$bytes" "$nnz" "$med" "$mbs" "$csc" "$r1" "$r2" "$r3" "$r4" "$r5"
        printf 'data %s: %s bytes, median %.3f s (%.0f MB/s); CSC %.3f s\n' "$fmt" "$bytes" \
            "$med" "$mbs" "$csc" >&2
    done < "$tmp/data.txt"
} >> "$out"
echo "results written to $out"
