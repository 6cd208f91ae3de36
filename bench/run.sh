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
echo "== data readers: 100 MB libsvm, MatrixMarket and UCI files, one and two threads"
data_gen=${DATA_GEN:-build/default/bench/data_gen}
data_bench=${DATA_BENCH:-build/default/bench/data_bench}
[ -x "$data_gen" ] || make --no-print-directory "$data_gen" > /dev/null
[ -x "$data_bench" ] || make --no-print-directory "$data_bench" > /dev/null
# FORMAT ROWS COLS DENSITY SEED DIGITS: about 100 MB each (the values of
# 17 digits, as %.17g and Python's repr write them, about 170 MB).
: > "$tmp/data.txt"
for spec in "libsvm 32000 200000 0.001 1 6" "libsvm 32000 200000 0.001 4 17" \
    "mm 32000 200000 0.0008 2 6" "uci 32000 200000 0.0012 3 6"; do
    set -- $spec
    "$data_gen" "$@" > "$tmp/data.$1"
    threads=1
    [ "$1" = libsvm ] && threads="1 2" # read in pieces side by side (spec/runtime.md)
    for t in $threads; do
        "$data_bench" "$1" "$tmp/data.$1" 5 "$t" | tr '\n' ' ' >> "$tmp/data.txt"
        echo "$spec $t" >> "$tmp/data.txt"
    done
    rm -f "$tmp/data.$1"
done
{
    echo
    echo "## Data readers"
    echo
    echo "Command: \`data_gen FORMAT ROWS COLS DENSITY SEED DIGITS > FILE; data_bench FORMAT FILE 5\`"
    echo "(bench/data_gen.c, bench/data_bench.c, -O2; libsvm also \`data_bench libsvm FILE 5 2\`: two threads,"
    echo "as \`ptm run --workers 2\` reads it, in pieces side by side). Random sparse matrices,"
    echo "values uniform in (-1, 1) times 10^k (k in -2..2) written with DIGITS significant digits"
    echo "(uci: counts 1..9); libsvm in row order, mm column by column, uci document by document."
    echo "Wall time of ptm_data_read() into CSR, the file in the page cache;"
    echo "5 runs after one warm-up, median; MB = 10^6 bytes of the file. Goal: at least"
    echo "150 MB/s for libsvm. CSC: building the column view of the result once."
    echo
    echo "| format | rows x cols, density | digits | threads | bytes | nnz | median s | MB/s | CSC s | runs (s) |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    while read -r fmt bytes rows cols nnz med mbs r1 r2 r3 r4 r5 _csc csc gfmt grows gcols gdens gseed gdig thr; do
        printf '| %s | %s x %s, %s | %s | %s | %s | %s | %.3f | %.0f | %.3f | %s %s %s %s %s |\n' "$fmt" \
            "$rows" "$cols" "$gdens" "$gdig" "$thr" "$bytes" "$nnz" "$med" "$mbs" "$csc" "$r1" "$r2" "$r3" "$r4" "$r5"
        printf 'data %s, %s thread(s): %s bytes, median %.3f s (%.0f MB/s); CSC %.3f s\n' "$fmt" \
            "$thr" "$bytes" "$med" "$mbs" "$csc" >&2
    done < "$tmp/data.txt"
} >> "$out"

echo "== lasso: a generated 20,000 x 200,000 problem, 0.1% dense; one core; scikit-learn alongside"
lasso_bench=${LASSO_BENCH:-build/default/bench/lasso_bench}
[ -x "$lasso_bench" ] || make --no-print-directory "$lasso_bench" > /dev/null
gen_args="--seed 1 --rows 20000 --cols 200000 --density 0.001 --group 10 --corr 0.5 --nonzeros 100 --noise 0.1"
runs=""
# shellcheck disable=SC2086
for i in 1 2 3; do runs="$runs $(seconds "$ptm" gen lasso $gen_args --out "$tmp/lasso")"; done
gen=$(printf '%s\n' $runs | median)
svm=$tmp/lasso/lasso.svm
bytes=$(wc -c < "$svm")
frac=0.1
sweeps=10
# scikit-learn from Debian's package (installed here when missing, never by make check).
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if ! "$py" -c 'import sklearn' 2> /dev/null; then
    scripts/deps.sh --bench >&2 || true
fi
have_sk=false
"$py" -c 'import sklearn' 2> /dev/null && have_sk=true
# Three rounds, ptm then scikit-learn back to back, so that a ratio compares
# measurements made under the same load (the machine is shared).
for i in 1 2 3; do
    "$lasso_bench" "$svm" "$frac" "$sweeps" 3 > "$tmp/lasso.$i.txt"
    read -r _ rows cols nnz lambda lmax tread tcsc < <(grep '^problem' "$tmp/lasso.1.txt")
    if $have_sk; then
        "$py" bench/lasso_sklearn.py "$svm" "$cols" "$lambda" 2 "$sweeps" 3 > "$tmp/sklearn.$i.txt" ||
            have_sk=false
    fi
done
# field NAME COLUMN: that column of the line starting with NAME, one per round.
field() { for i in 1 2 3; do awk -v k="$1" -v c="$2" '$1 == k { print $c }' "$tmp/$3.$i.txt"; done; }
kmed=$(field kernel 2 lasso | median)
kfirst=$(field kernel 3 lasso | median)
klater=$(field kernel 4 lasso | median)
kcpu=$(field kernel_cpu 2 lasso | median)
smed=$(field serial 2 lasso | median)
scpu=$(field serial_cpu 2 lasso | median)
kruns=$(field kernel 2 lasso | awk '{ printf " %.2f", $1 * 1e3 }')
sruns=$(field serial 2 lasso | awk '{ printf " %.2f", $1 * 1e3 }')
read -r _ _ kobj knz < <(grep "^sweep $sweeps " "$tmp/lasso.1.txt")
agree=$(awk '$1 == "agree" { print $2 }' "$tmp/lasso.1.txt")
ms() { awk -v x="$1" 'BEGIN { printf "%.2f", x * 1e3 }'; }
rate() { awk -v n="$nnz" -v x="$1" 'BEGIN { printf "%.0f", n / x / 1e6 }'; }
# ratio NAME COLUMN FILE NAME COLUMN FILE: the median over rounds of a / b.
ratio() {
    for i in 1 2 3; do
        a=$(awk -v k="$1" -v c="$2" '$1 == k { print $c }' "$tmp/$3.$i.txt")
        b=$(awk -v k="$4" -v c="$5" '$1 == k { print $c }' "$tmp/$6.$i.txt")
        awk -v a="$a" -v b="$b" 'BEGIN { print a / b }'
    done | median | awk '{ printf "%.2f", $1 }'
}
printf 'lasso gen: median %.3f s (%.0f MB/s); runs:%s\n' "$gen" \
    "$(awk -v b="$bytes" -v s="$gen" 'BEGIN { print b / s / 1e6 }')" "$runs" >&2
printf 'lasso kernel: median %s ms a sweep (CPU %s), %s M non-zeros/s; serial %s ms; rounds (ms):%s\n' \
    "$(ms "$kmed")" "$(ms "$kcpu")" "$(rate "$kmed")" "$(ms "$smed")" "$kruns" >&2
if $have_sk; then
    sk=$(awk '$1 == "sklearn" { print $2 }' "$tmp/sklearn.1.txt")
    skepoch=$(field epoch 2 sklearn | median)
    skepochcpu=$(field epoch 3 sklearn | median)
    skfit=$(for i in 1 2 3; do
        awk -v e="$sweeps" '$1 == "fit" && $2 == e { print $4 }' "$tmp/sklearn.$i.txt"
    done | median)
    skiter=$(awk -v e="$sweeps" '$1 == "fit" && $2 == e { print $3 }' "$tmp/sklearn.1.txt")
    skobj=$(awk -v e="$sweeps" '$1 == "fit" && $2 == e { print $6 }' "$tmp/sklearn.1.txt")
    sknz=$(awk -v e="$sweeps" '$1 == "fit" && $2 == e { print $7 }' "$tmp/sklearn.1.txt")
    skruns=$(field epoch 2 sklearn | awk '{ printf " %.2f", $1 * 1e3 }')
    rk=$(ratio epoch 2 sklearn kernel 2 lasso)
    rkc=$(ratio epoch 3 sklearn kernel_cpu 2 lasso)
    rs=$(ratio epoch 2 sklearn serial 2 lasso)
    rsc=$(ratio epoch 3 sklearn serial_cpu 2 lasso)
    printf 'lasso sklearn %s: %s ms an epoch (marginal; CPU %s); sklearn / ptm kernel %s (CPU %s), / serial %s\n' \
        "$sk" "$(ms "$skepoch")" "$(ms "$skepochcpu")" "$rk" "$rkc" "$rs" >&2
fi
{
    echo
    echo "## Lasso kernel"
    echo
    echo "Data: \`ptm gen lasso $gen_args\`: $rows x $cols,"
    echo "$nnz non-zeros, $bytes bytes; columns in groups of 10 with correlation 0.5. Generating it"
    echo "(the whole command, 3 runs): median $(printf '%.3f' "$gen") s, $(awk -v b="$bytes" -v s="$gen" 'BEGIN { printf "%.0f", b / s / 1e6 }') MB/s; runs (s):$runs."
    echo "Reading it with the libsvm reader: $(printf '%.3f' "$tread") s; its CSC view: $(printf '%.3f' "$tcsc") s."
    echo
    echo "Command: \`$lasso_bench FILE $frac $sweeps 3\` (bench/lasso_bench.c, -O2, one thread),"
    echo "lambda = $frac lambda_max = $lambda. ptm kernel: $sweeps round-robin sweeps from beta = 0, one"
    echo "column a round through lasso_push, lasso_pull and lasso_apply as the engine calls them, each"
    echo "sweep timed; serial: lasso_solve_serial, $sweeps sweeps timed whole. Three rounds, each of 3 runs"
    echo "of ptm then 3 fits of scikit-learn back to back; medians over the rounds of each round's"
    echo "median, and ratios taken within a round. CPU: CPU seconds of the process, which a busy machine"
    echo "inflates less than wall time. After $sweeps sweeps: objective $kobj, $knz non-zeros;"
    echo "kernel and serial beta differ by at most $agree."
    echo
    if $have_sk; then
        echo "scikit-learn $sk (Debian's python3-sklearn), bench/lasso_sklearn.py: \`Lasso(alpha=lambda,"
        echo "fit_intercept=False, selection='cyclic', tol=1e-30, max_iter=2, then $sweeps)\` on the same"
        echo "file, X in CSC before timing, \`fit(check_input=False)\`. Cyclic order from 0 makes its epochs"
        echo "the same coordinate updates as ptm's sweeps. An epoch: (fit of $sweeps - fit of 2) / $((sweeps - 2)),"
        echo "without fit()'s set-up. The fit of $sweeps ran $skiter epochs. After $sweeps epochs: objective"
        echo "$skobj, $sknz non-zeros (ptm: $kobj)."
        echo
    else
        echo "scikit-learn: not available (python3-sklearn could neither be imported nor installed);"
        echo "no comparison was made."
        echo
    fi
    echo "| solver | ms a sweep or epoch | CPU ms | M non-zeros/s | scikit-learn / it (wall, CPU) | rounds (ms) |"
    echo "|---|---|---|---|---|---|"
    printf '| ptm kernel (push/pull/apply) | %s (first sweep %s, later %s) | %s | %s | %s |%s |\n' \
        "$(ms "$kmed")" "$(ms "$kfirst")" "$(ms "$klater")" "$(ms "$kcpu")" "$(rate "$kmed")" \
        "$($have_sk && echo "$rk, $rkc")" "$kruns"
    printf '| ptm lasso_solve_serial | %s | %s | %s | %s |%s |\n' "$(ms "$smed")" "$(ms "$scpu")" \
        "$(rate "$smed")" "$($have_sk && echo "$rs, $rsc")" "$sruns"
    if $have_sk; then
        printf '| scikit-learn Lasso, an epoch | %s | %s | %s | 1, 1 |%s |\n' "$(ms "$skepoch")" \
            "$(ms "$skepochcpu")" "$(rate "$skepoch")" "$skruns"
        printf '| scikit-learn Lasso, whole fit / %s epochs | %s | | %s | | |\n' "$skiter" \
            "$(awk -v x="$skfit" -v e="$skiter" 'BEGIN { printf "%.2f", x / e * 1e3 }')" \
            "$(awk -v n="$nnz" -v x="$skfit" -v e="$skiter" 'BEGIN { printf "%.0f", n / (x / e) / 1e6 }')"
    fi
} >> "$out"

echo "== Lua hooks: a push of 256 columns and a Lasso round, against the same in C; one core"
lua_bench=${LUA_BENCH:-build/default/bench/lua_bench}
[ -x "$lua_bench" ] || make --no-print-directory "$lua_bench" > /dev/null
"$lua_bench" 5 > "$tmp/lua.txt"
{
    echo
    echo "## Lua hooks"
    echo
    echo "Command: \`$lua_bench 5\` (bench/lua_bench.c, -O2, one thread; CPU time of the thread, so"
    echo "a busy machine does not count against it). A random sparse matrix of 20,000 rows and"
    echo "4,096 columns held by one worker; each call gets 256 distinct random columns. push-col:"
    echo "z_j = x_j . r a column at a time in Lua, \`z[j] = X:col(j):dot(r)\`; push-bulk: the same"
    echo "with one call over the block list, \`X:cols(S):dot(r)\`; both against C's four-accumulator"
    echo "gather-dot, the host's work (the call, reading z back) included. lasso-col: a round of"
    echo "push, pull and apply written a column at a time; lasso-bulk: examples/lasso/lasso.lua,"
    echo "written with the block-list operations; both against the round in C as the built-in"
    echo "kernel does it (squared norms cached, zero changes skipped). The block-list loops in the"
    echo "host ask for a column's entries 8 columns ahead and its bounds 16 ahead, as the kernel's push does."
    echo "Density 0.001 is the case of interest; 0.01 and 0.1 (fewer calls) show what Lua adds"
    echo "per column against the work per column. 5 runs, C and Lua back to back in each; the"
    echo "ratio is the median of the runs' ratios. Goal: the whole Lasso in Lua at most 1.5x the"
    echo "C kernel."
    echo
    echo "| kind | density | non-zeros a column | calls a run | C µs a call | Lua µs a call" \
        "| Lua / C | runs (Lua / C) |"
    echo "|---|---|---|---|---|---|---|---|"
    while read -r kind dens per calls c lua ratio runs; do
        printf '| %s | %s | %s | %s | %.1f | %.1f | %.2f | %s |\n' "$kind" "$dens" "$per" \
            "$calls" "$c" "$lua" "$ratio" "$runs"
        printf 'lua %s at density %s (%s non-zeros a column): C %.1f us, Lua %.1f us a call, Lua / C %.2f\n' \
            "$kind" "$dens" "$per" "$c" "$lua" "$ratio" >&2
    done < "$tmp/lua.txt"
} >> "$out"

echo "== ptm run on the Lasso: the engine with the kernel and with lasso.lua, 1 and 2 workers"
# job SCHEDULE RULE: a job over $svm with lambda, objective every sweep, 12 sweeps;
# RULE is lua, builtin or seq (builtin with within = sequential).
job() {
    local upd obj
    if [ "$2" = lua ]; then
        upd="update lua \"$PWD/examples/lasso/lasso.lua\""
        obj="objective lua \"$PWD/examples/lasso/lasso.lua\" \"objective\""
    elif [ "$2" = seq ]; then
        upd="update builtin lasso_cd { lambda = lambda, within = sequential }"
        obj="objective builtin lasso_objective { lambda = lambda }"
    else
        upd="update builtin lasso_cd { lambda = lambda }"
        obj="objective builtin lasso_objective { lambda = lambda }"
    fi
    printf '%s\n' "job bench" "const lambda = $lambda" \
        "data X : sparse matrix from \"$svm\" format libsvm shard rows" \
        "data y : vector from labels(X)" "param beta : vector[cols(X)] = 0" \
        "param r : vector[rows(X)] = y shard like X" "blocks coef = beta each 1" \
        "schedule $1" "$upd" "$obj every 1 sweeps" "stop when sweeps >= 12" \
        "output beta to \"$tmp/beta.tsv\""
}
job "round_robin" builtin > "$tmp/k-rr.ptm"
job "random { per_round 256 }" builtin > "$tmp/k-rand.ptm"
job "round_robin" lua > "$tmp/l-rr.ptm"
job "random { per_round 256 }" lua > "$tmp/l-rand.ptm"
job "round_robin { per_round 4000 }" seq > "$tmp/k-seq.ptm"
# sweep_ms FILE: milliseconds a sweep between the progress lines of sweeps 2 and 12.
sweep_ms() { awk '$3 == "sweep" && $4 == 2 { a = $NF } $3 == "sweep" && $4 == 12 { b = $NF }
    END { sub("s", "", a); sub("s", "", b); printf "%.3f\n", (b - a) / 10 * 1e3 }' "$1"; }
# peak RSS (KiB) of a command, from the kernel's accounting of the child
peak_kib() { "$py" -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"; }
eng_rounds="1 2 3 4 5"
cases="k-rr:1 k-seq:1 k-seq:2 k-rand:1 k-rand:2 l-rr:1 l-rand:1 l-rand:2"
# five rounds of every case, each round with a scikit-learn epoch measured
# as in "Lasso kernel" (one fit of 2 and one of 10 epochs), side by side
for i in $eng_rounds; do
    for c in $cases; do
        "$ptm" run --workers "${c#*:}" "$tmp/${c%:*}.ptm" 2> "$tmp/run.$c.$i.txt"
        sweep_ms "$tmp/run.$c.$i.txt" > "$tmp/ms.$c.$i"
    done
    if $have_sk; then
        "$py" bench/lasso_sklearn.py "$svm" "$cols" "$lambda" 2 "$sweeps" 1 |
            awk '$1 == "epoch" { printf "%.3f\n", $2 * 1e3 }' > "$tmp/ms.sk.$i"
    fi
    # the same one-worker job on each core alone: how far apart the cores are
    if command -v taskset > /dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
        for cpu in 0 1; do
            taskset -c "$cpu" "$ptm" run --workers 1 "$tmp/k-seq.ptm" 2> "$tmp/run.cpu$cpu.$i.txt"
            sweep_ms "$tmp/run.cpu$cpu.$i.txt" > "$tmp/ms.cpu$cpu.$i"
        done
    fi
done
# Two workers against one, alone: the machine's speed drifts by tens of per
# cent within seconds, so 1 and 2 workers alternate (which goes first
# alternates too), each run 52 sweeps long; the ratio of each pair.
sed -e 's/sweeps >= 12/sweeps >= 52/' "$tmp/k-seq.ptm" > "$tmp/k-seq52.ptm"
sweep52_ms() { awk '$3 == "sweep" && $4 == 2 { a = $NF } $3 == "sweep" && $4 == 52 { b = $NF }
    END { sub("s", "", a); sub("s", "", b); printf "%.3f\n", (b - a) / 50 * 1e3 }' "$1"; }
pairs="1 2 3 4 5 6 7 8 9"
: > "$tmp/pairs.txt"
for i in $pairs; do
    order="1 2"; [ $((i % 2)) -eq 0 ] && order="2 1"
    for w in $order; do
        "$ptm" run --workers "$w" "$tmp/k-seq52.ptm" 2> "$tmp/run.pair$w.txt"
        sweep52_ms "$tmp/run.pair$w.txt" > "$tmp/pair$w.$i"
    done
    echo "$(cat "$tmp/pair1.$i") $(cat "$tmp/pair2.$i")" >> "$tmp/pairs.txt"
done
# the same sweeps without the engine (bench/split_bench.c): what two threads
# gain over one on this machine when nothing else is done
split_bench=${SPLIT_BENCH:-build/default/bench/split_bench}
[ -x "$split_bench" ] || make --no-print-directory "$split_bench" > /dev/null
"$split_bench" "$svm" "$frac" 52 9 > "$tmp/split.txt"
pair_ratio() { awk '{ print $1 / $2 }' "$tmp/pairs.txt" | median | awk '{ printf "%.2f", $1 }'; }
pair_quart() { awk '{ print $1 / $2 }' "$tmp/pairs.txt" | sort -g |
    awk '{ v[NR] = $1 } END { printf "%.2f .. %.2f", v[int((NR + 3) / 4)], v[int((3 * NR + 3) / 4)] }'; }
med_ms() { for i in $eng_rounds; do cat "$tmp/ms.$1.$i"; done | median; }
# run_ratio A B: the median over rounds of A's time / B's time
run_ratio() { for i in $eng_rounds; do awk -v a="$(cat "$tmp/ms.$1.$i")" -v b="$(cat "$tmp/ms.$2.$i")" \
    'BEGIN { print a / b }'; done | median | awk '{ printf "%.2f", $1 }'; }
obj_of() { awk '$3 == "sweep" && $4 == 12 { print $6 }' "$tmp/run.$1.1.txt"; }
rss=$(peak_kib "$ptm" run --quiet --workers 1 "$tmp/k-rand.ptm")
rss_lua=$(peak_kib "$ptm" run --quiet --workers 1 "$tmp/l-rand.ptm")
# the data as the reader holds it (CSR and labels) plus beta and r, in KiB
held=$(awk -v n="$rows" -v d="$cols" -v z="$nnz" 'BEGIN { printf "%.0f", (8 * (n + 1) + 12 * z + 8 * n + 8 * d + 8 * n) / 1024 }')
{
    echo
    echo "## Engine: \`ptm run\` on the Lasso"
    echo
    echo "The same generated file and lambda as \"Lasso kernel\"; jobs \`schedule S\`, \`update builtin"
    echo "lasso_cd\` or \`update lua \"examples/lasso/lasso.lua\"\` (with its objective), objective every"
    echo "sweep, 12 sweeps: \`ptm run --workers P JOB\`. A sweep's time: (elapsed at sweep 12 -"
    echo "elapsed at sweep 2) / 10 from the progress lines (reading the data and the first sweeps"
    echo "left out). Five rounds of all cases back to back; medians, ratios within a round."
    echo "round_robin updates one coefficient a round (the cyclic coordinate descent scikit-learn"
    echo "runs); random { per_round 256 } updates 256 drawn coefficients a round (Shotgun), which on"
    echo "this data converges (objective after 12 sweeps below); seq is round_robin { per_round 4000 }"
    echo "with \`lasso_cd { within = sequential }\`: each worker updates its share of a round one"
    echo "coefficient after the other, so on one worker it is cyclic coordinate descent again (the same"
    echo "objective as k-rr), in 50 rounds a sweep instead of 200,000. scikit-learn: an epoch as in"
    echo "\"Lasso kernel\" (one fit of 2 and one of $sweeps epochs), measured in each round after the ptm cases."
    echo
    echo "| case | workers | ms a sweep (median) | objective after 12 sweeps | runs (ms) |"
    echo "|---|---|---|---|---|"
    for c in $cases; do
        printf '| %s | %s | %.2f | %s |%s |\n' "${c%:*}" "${c#*:}" "$(med_ms "$c")" "$(obj_of "$c")" \
            "$(for i in $eng_rounds; do printf ' %.2f' "$(cat "$tmp/ms.$c.$i")"; done)"
    done
    echo
    if $have_sk; then
        printf '| scikit-learn, an epoch | 1 | %.2f | | %s |\n' "$(med_ms sk)" \
            "$(for i in $eng_rounds; do printf ' %.2f' "$(cat "$tmp/ms.sk.$i")"; done)"
    fi
    echo
    echo "(k: the built-in kernel; l: lasso.lua; rr: round_robin; rand: random { per_round 256 };"
    echo "seq: round_robin { per_round 4000 } with within = sequential.) The two cores of a virtual"
    echo "machine need not be equally fast (another tenant may share one): the last ratio below is"
    echo "k-seq on one worker pinned to each core in turn (\`taskset -c\`). Two workers that split"
    echo "every round evenly wait for the slower core, so with cores a factor c apart their speed-up"
    echo "is at most 2 / c over a worker on the faster one. The speed of this machine also drifts by"
    echo "tens of per cent within seconds, so 1 and 2 workers are compared again in 9 pairs of runs"
    echo "52 sweeps long, one right after the other (the order alternating), each pair giving a ratio;"
    echo "pairs (ms a sweep, 1 worker then 2):$(awk '{ printf " %.2f/%.2f", $1, $2 }' "$tmp/pairs.txt")."
    echo "bench/split_bench.c sweeps the same columns without the engine (lasso_push_seq over all"
    echo "columns on one thread, or over half of them on each of two threads, each with its own r):"
    echo "the most two workers can gain here, measured in the same minutes."
    echo
    echo "| ratio | measured | goal |"
    echo "|---|---|---|"
    if $have_sk; then
        printf '| kernel, 1 worker, seq, a sweep / scikit-learn an epoch | %s | at most 1.0 |\n' \
            "$(run_ratio k-seq:1 sk)"
        printf '| kernel, 1 worker, round_robin one column a round, a sweep / scikit-learn an epoch | %s | |\n' \
            "$(run_ratio k-rr:1 sk)"
    fi
    printf '| kernel, seq, 1 worker / 2 workers (12 sweeps, the rounds above) | %s | |\n' "$(run_ratio k-seq:1 k-seq:2)"
    printf '| kernel, seq, 1 worker / 2 workers (52 sweeps, 9 alternating pairs; quartiles %s) | %s | at least 1.7 |\n' \
        "$(pair_quart)" "$(pair_ratio)"
    printf '| the same sweeps without the engine, 1 thread / 2 threads (bench/split_bench.c, 9 runs) | %s | |\n' \
        "$(awk '$1 == "ratio" && $2 == "sweep" { print $3 }' "$tmp/split.txt")"
    printf '| reading X once, 1 thread / 2 threads (bench/split_bench.c, 9 runs) | %s | |\n' \
        "$(awk '$1 == "ratio" && $2 == "stream" { print $3 }' "$tmp/split.txt")"
    if [ -s "$tmp/ms.cpu1.1" ]; then
        printf '| kernel, seq, 1 worker on core 1 alone / on core 0 alone | %s (%.2f / %.2f ms) | |\n' \
            "$(run_ratio cpu1 cpu0)" "$(med_ms cpu1)" "$(med_ms cpu0)"
    fi
    printf '| lasso.lua / kernel, random 256, 1 worker | %s | at most 1.5 |\n' "$(run_ratio l-rand:1 k-rand:1)"
    printf '| lasso.lua / kernel, random 256, 2 workers | %s | at most 1.5 |\n' "$(run_ratio l-rand:2 k-rand:2)"
    printf '| lasso.lua / kernel, round_robin (one column a round), 1 worker | %s | |\n' "$(run_ratio l-rr:1 k-rr:1)"
    printf '| kernel, 1 worker / 2 workers, random 256 | %s | |\n' "$(run_ratio k-rand:1 k-rand:2)"
    printf '| lasso.lua, 1 worker / 2 workers, random 256 | %s | |\n' "$(run_ratio l-rand:1 l-rand:2)"
    printf '| peak RSS / (data + beta + r), kernel, 1 worker | %s (%s KiB / %s KiB) | at most 1.5 |\n' \
        "$(awk -v a="$rss" -v b="$held" 'BEGIN { printf "%.2f", a / b }')" "$rss" "$held"
    printf '| peak RSS / (data + beta + r), lasso.lua, 1 worker | %s (%s KiB) | |\n' \
        "$(awk -v a="$rss_lua" -v b="$held" 'BEGIN { printf "%.2f", a / b }')" "$rss_lua"
} >> "$out"
for c in $cases; do printf 'run %s P=%s: %s ms a sweep\n' "${c%:*}" "${c#*:}" "$(med_ms "$c")" >&2; done

echo "== schedulers: dynamic against random and round_robin (updates to a target), the scheduler's speed"
sched_bench=${SCHED_BENCH:-build/default/bench/sched_bench}
[ -x "$sched_bench" ] || make --no-print-directory "$sched_bench" > /dev/null
# its section, and its charts (bench/sched_bench_*.svg)
"$py" bench/sched_bench.py "$ptm" "$sched_bench" bench >> "$out"

echo "== 2 workers against 1: the Lasso example's whole command (reading, set-up, rounds)"
"$py" bench/whole_bench.py "$ptm" >> "$out"

echo "== 2 workers against 1 under within = parallel: rounds split, or on the first worker alone"
"$py" bench/rows_bench.py "$ptm" >> "$out"

echo "== the Lasso's intercept on rows like text's (beside glmnet)"
"$py" bench/icpt_bench.py "$ptm" >> "$out"

echo "== ptm run under Open MPI: 2 ranks x 1 thread against 1 rank x 2 threads; bytes a round"
if command -v mpirun > /dev/null 2>&1; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader
    mpi_run() { mpirun --bind-to none -np "$1" "$ptm" run --workers "$2" "$3"; }
    # mpi_pairs JOB TAG: 5 rounds of JOB on 1 rank x 2 threads, then on 2 ranks x 1
    # thread; ms a sweep to $tmp/TAG.thr.I and $tmp/TAG.mpi.I
    mpi_pairs() {
        for i in 1 2 3 4 5; do
            "$ptm" run --workers 2 "$1" 2> "$tmp/$2-t.$i.txt"
            sweep_ms "$tmp/$2-t.$i.txt" > "$tmp/$2.thr.$i"
            mpi_run 2 1 "$1" 2> "$tmp/$2-r.$i.txt"
            sweep_ms "$tmp/$2-r.$i.txt" > "$tmp/$2.mpi.$i"
        done
    }
    # pairs_ratio TAG: the median over the rounds of the threads' time / the ranks'
    pairs_ratio() {
        for i in 1 2 3 4 5; do awk -v a="$(cat "$tmp/$1.thr.$i")" -v b="$(cat "$tmp/$1.mpi.$i")" \
            'BEGIN { print a / b }'; done | median | awk '{ printf "%.2f", $1 }'
    }
    mpi_pairs "$tmp/k-rand.ptm" ms
    # bytes a round as the ranks grow, and with a smaller model (50,000 columns)
    sed 's/sweeps >= 12/sweeps >= 2/' "$tmp/k-rand.ptm" > "$tmp/k-short.ptm"
    # shellcheck disable=SC2086
    "$ptm" gen lasso $(echo "$gen_args" | sed 's/--cols 200000/--cols 50000/') --out "$tmp/small" > /dev/null
    sed -e "s|$svm|$tmp/small/lasso.svm|" "$tmp/k-short.ptm" > "$tmp/k-small.ptm"
    bytes_row() {
        for np in 1 2 4 8; do
            mpi_run "$np" 1 "$1" 2>&1 | awk -v np="$np" '/bytes sent between ranks/ {
                sub("[(]", "", $(NF - 2)); printf " %s: %s |", np, $(NF - 2) } 
                END { if (np == 1) printf " 1: 0 |" }'
        done
    }
    big_bytes=$(bytes_row "$tmp/k-short.ptm")
    small_bytes=$(bytes_row "$tmp/k-small.ptm")
    {
        echo
        echo "## Open MPI: \`mpirun -np R ptm run\`"
        echo
        echo "The \"Engine\" section's kernel job (random { per_round 256 }, 12 sweeps) on the same file:"
        echo "1 rank x 2 threads (\`ptm run --workers 2\`) against 2 ranks x 1 thread (\`mpirun --bind-to"
        echo "none -np 2 ptm run --workers 1\`, shared memory transport), ms a sweep as in \"Engine\","
        echo "5 rounds back to back. Goal: the ranks at least 0.8x the threads' throughput."
        echo
        echo "| setup | ms a sweep (median) | runs (ms) |"
        echo "|---|---|---|"
        printf '| 1 rank x 2 threads | %.2f |%s |\n' "$(for i in 1 2 3 4 5; do cat "$tmp/ms.thr.$i"; done | median)" \
            "$(for i in 1 2 3 4 5; do printf ' %.2f' "$(cat "$tmp/ms.thr.$i")"; done)"
        printf '| 2 ranks x 1 thread | %.2f |%s |\n' "$(for i in 1 2 3 4 5; do cat "$tmp/ms.mpi.$i"; done | median)" \
            "$(for i in 1 2 3 4 5; do printf ' %.2f' "$(cat "$tmp/ms.mpi.$i")"; done)"
        printf '\nThroughput of the ranks / the threads: %s (median of the rounds'"'"' ratios).\n' \
            "$(pairs_ratio ms)"
        echo
        echo "Bytes sent between ranks a round (the payload of the broadcasts, counted once per"
        echo "receiving rank, and of the reductions to rank 0; ptm prints it at the end of an MPI run),"
        echo "2 sweeps, 1 thread a rank, by the number of ranks:"
        echo
        echo "| model | ranks: bytes a round |"
        echo "|---|---|"
        echo "| 200,000 coefficients, 256 a round |$big_bytes"
        echo "| 50,000 coefficients, 256 a round |$small_bytes"
        echo
        echo "A round moves the round's blocks out (8 bytes each, plus the assignment), their sums"
        echo "in (2 doubles a coefficient from each rank) and the new values out (a double each): it"
        echo "grows with the blocks a round and linearly with the ranks, not with the model's size."
    } >> "$out"

    # matrix factorization on a rotation: the reference shape (50,000 x 20,000,
    # 5M ratings, rank 20), mf_sgd, RMSE every sweep, 12 sweeps
    "$ptm" gen mf --seed 1 --out "$tmp/mf" --rows 50000 --cols 20000 --rank 20 \
        --ratings 5000000 > /dev/null
    sed -e "s|\"data/|\"$tmp/mf/|g" -e "s|\"W.tsv\"|\"$tmp/W.tsv\"|" -e "s|\"H.tsv\"|\"$tmp/H.tsv\"|" \
        -e "s|^stop when .*|stop when sweeps >= 12|" -e "s|^const rank = .*|const rank = 20|" \
        examples/mf/mf.ptm > "$tmp/mf.ptm"
    train=$(awk 'NR > 1 && !/^%/ { print $3; exit }' "$tmp/mf/ratings.mtx")
    mpi_pairs "$tmp/mf.ptm" mf
    # bytes a round once the ratings are in place: the difference between 4
    # and 2 sweeps, over the rounds between them; and with rank 40
    sed 's/^stop when .*/stop when sweeps >= 2/' "$tmp/mf.ptm" > "$tmp/mf2.ptm"
    sed 's/^stop when .*/stop when sweeps >= 4/' "$tmp/mf.ptm" > "$tmp/mf4.ptm"
    sed 's/^const rank = 20/const rank = 40/' "$tmp/mf2.ptm" > "$tmp/mf2-40.ptm"
    sed 's/^const rank = 20/const rank = 40/' "$tmp/mf4.ptm" > "$tmp/mf4-40.ptm"
    mf_bytes_row() {
        for np in 2 4 8; do
            a=$(mpi_run "$np" 1 "$1" 2>&1 | awk '/bytes sent between ranks/ { print $(NF - 7) }')
            b=$(mpi_run "$np" 1 "$2" 2>&1 | awk '/bytes sent between ranks/ { print $(NF - 7) }')
            printf ' %s: %s |' "$np" "$(awk -v a="$a" -v b="$b" -v np="$np" \
                'BEGIN { printf "%.0f", (b - a) / (2 * np) }')"
        done
    }
    mf_bytes=$(mf_bytes_row "$tmp/mf2.ptm" "$tmp/mf4.ptm")
    mf_bytes40=$(mf_bytes_row "$tmp/mf2-40.ptm" "$tmp/mf4-40.ptm")
    {
        echo
        echo "Matrix factorization on a rotation (examples/mf/mf.ptm, mf_sgd, \`ptm gen mf --rows 50000"
        echo "--cols 20000 --rank 20 --ratings 5000000\`: $train training ratings, rank 20, RMSE every"
        echo "sweep), ms a sweep between sweeps 2 and 12, 5 rounds back to back. Under MPI each rank"
        echo "reads its byte range of ratings.mtx, the entries go to the ranks of their rows, and in"
        echo "every round each rank sends the block of H its first worker held to the previous rank."
        echo "W and H are the same bits as the threads' (tests/cli.sh)."
        echo
        echo "| setup | ms a sweep (median) | rating updates/s | runs (ms) |"
        echo "|---|---|---|---|"
        for k in thr mpi; do
            ms=$(for i in 1 2 3 4 5; do cat "$tmp/mf.$k.$i"; done | median)
            printf '| %s | %.1f | %.1fM |%s |\n' \
                "$([ $k = thr ] && echo "1 rank x 2 threads" || echo "2 ranks x 1 thread")" "$ms" \
                "$(awk -v n="$train" -v ms="$ms" 'BEGIN { print n / ms / 1e3 }')" \
                "$(for i in 1 2 3 4 5; do printf ' %.1f' "$(cat "$tmp/mf.$k.$i")"; done)"
        done
        printf '\nThroughput of the ranks / the threads: %s (median of the rounds'"'"' ratios).\n' \
            "$(pairs_ratio mf)"
        echo
        echo "Bytes sent between ranks a round once the ratings are in place (sweeps 2 to 4), by ranks:"
        echo
        echo "| model | ranks: bytes a round |"
        echo "|---|---|"
        echo "| H 20,000 x 20 |$mf_bytes"
        echo "| H 20,000 x 40 |$mf_bytes40"
        echo
        echo "A round moves one block of H (cols / ranks rows) from each rank to the next, H's size"
        echo "in all (3.2 MB at rank 20), whatever the ranks; the RMSE, once a sweep (ranks rounds),"
        echo "sums H over the ranks, H's size from each rank: as much again a round. Both grow with"
        echo "the rank of the factorization, not with the number of ranks or of ratings."
    } >> "$out"
else
    echo "mpirun not found: no MPI figures" >&2
fi

echo "== ptm run under rotation: matrix factorization by mf.lua against mf_sgd, 1 and 2 workers"
# Ranks 20 (the example's) and 100, generated data; examples/mf/mf_lua.ptm with
# the data's path, the rank, 15 sweeps and the objective every 5, and the same
# job with `update builtin mf_sgd` (the same steps: the outputs must be equal).
mfdir="$tmp/mfl"
mkdir -p "$mfdir"
mf_gen="--seed 1 --rows 20000 --cols 5000 --ratings 1000000 --test 0.1"
# shellcheck disable=SC2086
"$ptm" gen mf $mf_gen --rank 20 --out "$mfdir" > /dev/null
mf_train=$(awk '$1 == "train" { print $2 }' "$mfdir/info.tsv")
mf_job() { # RANK lua|kernel
    local upd='update lua "'"$PWD"'/examples/mf/mf.lua"'
    [ "$2" = kernel ] && upd='update builtin mf_sgd { rate = rate, decay = decay, reg = reg, step = fixed }'
    sed -e "s|\"data/|\"$mfdir/|" -e "s|^const rank = .*|const rank = $1|" \
        -e "s|^update lua .*|$upd|" -e 's|every 1 sweeps|every 5 sweeps|' \
        -e 's|^stop when .*|stop when sweeps >= 15|' \
        -e "s|\"W_lua.tsv\"|\"$mfdir/W-$1-$2.tsv\"|" -e "s|\"H_lua.tsv\"|\"$mfdir/H-$1-$2.tsv\"|" \
        examples/mf/mf_lua.ptm
}
mf_cases="20:kernel:1 20:lua:1 20:kernel:2 20:lua:2 100:kernel:1 100:lua:1 100:kernel:2 100:lua:2"
for r in 20 100; do for u in kernel lua; do mf_job "$r" "$u" > "$mfdir/$r-$u.ptm"; done; done
# mups FILE: million rating updates a second between the progress lines of
# sweeps 5 and 15
mups() { awk -v n="$mf_train" '$3 == "sweep" && $4 == 5 { a = $NF } $3 == "sweep" && $4 == 15 { b = $NF }
    END { sub("s", "", a); sub("s", "", b); printf "%.3f\n", n * 10 / (b - a) / 1e6 }' "$1"; }
mf_same=yes
mf_load=$(awk '{ print $1 }' /proc/loadavg)
for i in 1 2 3; do
    for c in $mf_cases; do
        IFS=: read -r r u p <<< "$c"
        "$ptm" run --workers "$p" "$mfdir/$r-$u.ptm" 2> "$mfdir/run.$c.$i.txt"
        mups "$mfdir/run.$c.$i.txt" > "$mfdir/mups.$c.$i"
    done
    for r in 20 100; do
        cmp -s "$mfdir/W-$r-kernel.tsv" "$mfdir/W-$r-lua.tsv" &&
            cmp -s "$mfdir/H-$r-kernel.tsv" "$mfdir/H-$r-lua.tsv" || mf_same=no
    done
done
mf_med() { for i in 1 2 3; do cat "$mfdir/mups.$1.$i"; done | median; }
# mf_ratios A B: each round's rate of A / rate of B; mf_ratio A B: their median
mf_ratios() { for i in 1 2 3; do awk -v a="$(cat "$mfdir/mups.$1.$i")" \
    -v b="$(cat "$mfdir/mups.$2.$i")" 'BEGIN { printf " %.2f", a / b }'; done; }
mf_ratio() { mf_ratios "$1" "$2" | tr ' ' '\n' | sed '/^$/d' | median | awk '{ printf "%.2f", $1 }'; }
{
    echo
    echo "## Lua under rotation: matrix factorization"
    echo
    echo "\`ptm gen mf $mf_gen --rank 20\`"
    echo "($mf_train training ratings); examples/mf/mf_lua.ptm (\`update lua \"mf.lua\"\`) and the"
    echo "same job with \`update builtin mf_sgd { rate = rate, decay = decay, reg = reg }\`, at rank"
    echo "20 (the example's) and 100, 15 sweeps, the objective (held-out RMSE) every 5: \`ptm run"
    echo "--workers P JOB\`. Rating updates a second over sweeps 5 to 15, from the progress lines"
    echo "(reading the data and the first sweeps left out). Three rounds of all cases back to back;"
    echo "medians, ratios within a round. mf.lua makes the kernel's steps in its order: W and H"
    echo "came out equal, bit for bit, in every run: $mf_same. Load average when it started:"
    echo "$mf_load on $(nproc) cores (a shared machine). Goal: mf.lua at most 1.5x the kernel's time."
    echo
    echo "| rank | workers | kernel M ratings/s | mf.lua M ratings/s | mf.lua time / kernel | runs (time / kernel) |"
    echo "|---|---|---|---|---|---|"
    for r in 20 100; do for p in 1 2; do
        printf '| %s | %s | %.2f | %.2f | %s |%s |\n' "$r" "$p" "$(mf_med "$r:kernel:$p")" \
            "$(mf_med "$r:lua:$p")" "$(mf_ratio "$r:kernel:$p" "$r:lua:$p")" \
            "$(mf_ratios "$r:kernel:$p" "$r:lua:$p")"
    done; done
    echo
    echo "| rate, 2 workers / 1 worker | kernel | mf.lua |"
    echo "|---|---|---|"
    for r in 20 100; do
        printf '| rank %s | %s | %s |\n' "$r" "$(mf_ratio "$r:kernel:2" "$r:kernel:1")" \
            "$(mf_ratio "$r:lua:2" "$r:lua:1")"
    done
    echo
    echo "mf.lua's loop makes three C calls a rating (the next rating with its row of H, a dot,"
    echo "a mix), and the interpreter runs its instructions with the count hook of the instruction"
    echo "budget set (runtime/lua/lua_host.c, DESIGN, has the costs): a loop over ratings in Lua stays"
    echo "at several times the kernel whatever the operations it calls; the gap narrows as the"
    echo "work of a rating grows with the rank."
} >> "$out"
for c in $mf_cases; do printf 'mf %s: %s M ratings/s\n' "$c" "$(mf_med "$c")" >&2; done

echo "== LDA kernel at K = 100: tokens a second on one core, the log-likelihood after 10 sweeps"
lda_bench=${LDA_BENCH:-build/default/bench/lda_bench}
[ -x "$lda_bench" ] || make --no-print-directory "$lda_bench" > /dev/null
lda_gen="--seed 1 --docs 20000 --words 20000 --topics 100 --length 150"
"$ptm" gen lda $lda_gen --out "$tmp/lda" > /dev/null
lda_tokens=$(awk -F'\t' '$1 == "tokens" { print $2 }' "$tmp/lda/info.tsv")
lda_load=$(cut -d' ' -f1 /proc/loadavg)
# five rounds: the machine's speed drifts by tens of per cent within
# seconds, so the best round is given beside the median
lda_rounds="1 2 3 4 5"
for i in $lda_rounds; do
    "$lda_bench" "$tmp/lda" 100 10 dense,sparse,alias,plain 1 > "$tmp/lda.$i"
    # ptm run, sampler sparse, 10 sweeps, the objective at the end only
    sed -e "s|\"data/|\"$tmp/lda/|g" -e "s|\"word_topic.tsv\"|\"$tmp/wt.tsv\"|" \
        -e "s|\"doc_topic.tsv\"|\"$tmp/dt.tsv\"|" -e 's|^stop when .*|stop when sweeps >= 10|' \
        -e 's|every 5 sweeps|every 10 sweeps|' examples/lda/lda.ptm > "$tmp/lda.ptm"
    for p in 1 2; do
        "$ptm" run --workers "$p" "$tmp/lda.ptm" 2>&1 | grep "^round " | tail -n 1 |
            awk -v n="$lda_tokens" -v p="$p" '{ for (f = 1; f < NF; f++) if ($f == "elapsed") s = $(f + 1)
                sub(/s$/, "", s); printf "%.2f\n", 10 * n / s / 1e6 / p }' > "$tmp/ldarun.$p.$i"
    done
done
# lda_field SAMPLER FIELD: the median over the rounds of a field of its "sampler" line
lda_fields() { for i in $lda_rounds; do awk -v s="$1" -v f="$2" '$1 == "sampler" && $2 == s { print $f }' \
    "$tmp/lda.$i"; done; }
lda_field() { lda_fields "$1" "$2" | median; }
lda_best() { lda_fields "$1" "$2" | sort -g | tail -n 1; }
lda_run() { for i in $lda_rounds; do cat "$tmp/ldarun.$1.$i"; done | median; }
lda_run_best() { for i in $lda_rounds; do cat "$tmp/ldarun.$1.$i"; done | sort -g | tail -n 1; }
{
    echo
    echo "## LDA kernel at K = 100"
    echo
    echo "\`ptm gen lda $lda_gen\`: 20,000 documents, 20,000 words, $lda_tokens tokens, K = 100"
    echo "(the shape of the reference figures: a plain collapsed Gibbs sampler in C++ 3.9 M tokens/s"
    echo "on one thread, SparseLDA 2.7 M/s, WarpLDA 18.6 M/s on one thread and 33 M/s on 2). Goal:"
    echo "at least 10 M tokens/s a core at the log-likelihood per token of a plain Gibbs sampler"
    echo "after the same sweeps. \`lda_bench DIR 100 10 dense,sparse,alias,plain 1\` (bench/lda_bench.c:"
    echo "the kernel on one core as the engine calls it, every sampler from the same random start,"
    echo "10 sweeps, M tokens/s the median over the sweeps) and \`ptm run --workers P\` on"
    echo "examples/lda/lda.ptm (sampler dense, 10 sweeps, the objective once at the end; tokens/s"
    echo "a core from the progress line's seconds, objective included). Five rounds; the median"
    echo "and the best round (the speed with the least interference from the machine's other load)."
    echo "Load average when it started: $lda_load on $(nproc) cores (a shared machine)."
    echo
    echo "| sampler | M tokens/s, one core (median) | best round | rounds | log-likelihood per token after 10 sweeps |"
    echo "|---|---|---|---|---|"
    for smp in dense sparse alias plain; do
        printf '| %s | %.2f | %.2f |%s | %.6f |\n' "$smp" "$(lda_field "$smp" 3)" "$(lda_best "$smp" 3)" \
            "$(lda_fields "$smp" 3 | awk '{ printf " %.2f", $1 }')" "$(lda_field "$smp" 5)"
    done
    echo
    echo "| \`ptm run\`, sampler dense | M tokens/s a core (median) | best round |"
    echo "|---|---|---|"
    printf '| 1 worker | %.2f | %.2f |\n| 2 workers | %.2f | %.2f |\n' "$(lda_run 1)" "$(lda_run_best 1)" \
        "$(lda_run 2)" "$(lda_run_best 2)"
    echo
    echo "dense, sparse and plain draw from the same exact conditional (dense sums in single"
    echo "precision), so their log-likelihoods after the same sweeps agree up to the chains'"
    echo "randomness; alias (Metropolis-Hastings with O(1) proposals) is cheaper a token but gains"
    echo "less a sweep."
} >> "$out"
printf 'lda: dense %s, sparse %s, alias %s, plain %s M tokens/s; ptm run %s / %s a core\n' \
    "$(lda_field dense 3)" "$(lda_field sparse 3)" "$(lda_field alias 3)" "$(lda_field plain 3)" "$(lda_run 1)" "$(lda_run 2)" >&2

echo "== Checkpoints: the LDA job's (the largest state of the examples), the time to write one"
# the LDA job above for 3 sweeps on 2 workers, a checkpoint every sweep:
# the manifest of the last one says how long it took (part, trace, sync)
sed -e 's|^stop when .*|stop when sweeps >= 3|' "$tmp/lda.ptm" > "$tmp/ldack.ptm"
ck_rounds="1 2 3 4 5"
for i in $ck_rounds; do
    rm -rf "$tmp/ck"
    "$ptm" run --quiet --workers 2 --checkpoint "$tmp/ck" --every 1sweeps "$tmp/ldack.ptm"
    awk '$1 == "took" { t = $2 } $1 == "part" { b += $3 } END { printf "%s %s\n", t, b }' \
        "$tmp/ck/manifest" > "$tmp/ck.$i"
done
ck_took=$(for i in $ck_rounds; do cut -d' ' -f1 "$tmp/ck.$i"; done | median)
ck_bytes=$(cut -d' ' -f2 "$tmp/ck.1")
{
    echo
    echo "## Checkpoints"
    echo
    echo "The LDA job of the section above (\`ptm gen lda $lda_gen\`, $lda_tokens tokens, K = 100,"
    echo "sampler dense) on 2 workers, a checkpoint every sweep (\`ptm run --checkpoint DIR --every"
    echo "1sweeps\`); the manifest's \`took\`: the seconds from the start of the checkpoint to its"
    echo "manifest, the part written, synced and renamed. Median of five runs. Its state is the"
    echo "largest of the examples' (every token's topic, the count tables, the store of n_k)."
    echo
    echo "| checkpoint size | seconds to write (median) | runs | share of the default interval (10 min) | of a 1 min interval |"
    echo "|---|---|---|---|---|"
    printf '| %.1f MB | %.3f |%s | %.3f%% | %.2f%% |\n' "$(echo "$ck_bytes" | awk '{ print $1 / 1e6 }')" \
        "$ck_took" "$(for i in $ck_rounds; do cut -d' ' -f1 "$tmp/ck.$i"; done | awk '{ printf " %.3f", $1 }')" \
        "$(echo "$ck_took" | awk '{ print 100 * $1 / 600 }')" "$(echo "$ck_took" | awk '{ print 100 * $1 / 60 }')"
    echo
    echo "Target (spec/runtime.md, Checkpoints): under 10% of the interval at the default interval."
} >> "$out"
printf 'checkpoint: %s bytes in %s s\n' "$ck_bytes" "$ck_took" >&2

echo "== SSP against BSP with a straggler: logistic regression, time to a target loss"
# its section, and its charts (bench/ssp_bench_*.svg)
bash bench/ssp_bench.sh "$ptm" bench >> "$out"

echo "== peers: scikit-learn, glmnet, liblinear and gensim beside ptm on the same files"
# its section, and its charts (bench/peers_*.svg)
bash bench/peers.sh "$ptm"

echo "results written to $out"
