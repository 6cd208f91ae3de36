#!/usr/bin/env bash
# bench/lda_warp.sh [PTM]: LDA time to quality, ptm's samplers against WarpLDA,
# on a corpus shaped like short real documents: `ptm gen lda --seed 1 --docs
# 60000 --words 20000 --topics 100 --length 35` (2.1 M tokens, 35 a document).
#
# The quality is the collapsed joint log-likelihood per token, log p(w, z) / N,
# which ptm's lda_loglik prints and WarpLDA prints as "log_likelihood (per
# token)" (bench/peers/lda_joint.py recomputes it from WarpLDA's assignments).
# The target for each K is that of an exact sampler after 30 sweeps (the
# quality of F+LDA's 30 iterations: F+LDA draws from the same exact
# conditional): ptm's dense sampler, 1 worker, seed 1, 30 sweeps. Then every
# system runs until its log-likelihood reaches the target, rounds alternating
# the systems; the seconds are those of the sampling iterations (ptm: the
# progress line's elapsed, the objective evaluated every sweep included;
# WarpLDA: the sum of its iterations' seconds, its log-likelihood included),
# neither reading nor initialization. Peak RSS from /usr/bin/time.
#
# WarpLDA is not a Debian package: PTM_WARPLDA names its `warplda` binary (its
# `format` tool next to it, or PTM_WARPLDA_FORMAT); without it the WarpLDA
# runs print a SKIP line. Environment: LDA_WARP_K (default "50 200"),
# LDA_WARP_WORKERS ("1 2"), LDA_WARP_SAMPLERS ("dense sparse alias"),
# LDA_WARP_ROUNDS (3), LDA_WARP_MAX (most sweeps of any run, 2000), LDA_WARP_DIR
# (the corpus, kept between runs; default /tmp/ptm-lda-warp), LDA_WARP_RENUMBER=1
# (words numbered by first appearance, as many tools number them, which puts
# most tokens in the first part of the vocabulary; made once, in the corpus).
#
# Prints a line a run:
#   target K LL
#   run K SYSTEM WORKERS ROUND SECONDS SWEEPS M_TOKENS_S PEAK_RSS_MB LL
# (SECONDS and SWEEPS to the target, "-" when it was not reached), then
#   median K SYSTEM WORKERS SECONDS M_TOKENS_S PEAK_RSS_MB RATIO
# (RATIO: the median over rounds of SECONDS over WarpLDA's in the same round).
set -euo pipefail
ptm=${1:-bin/ptm}
cd "$(dirname "$0")/.."
[ -x "$ptm" ] || make --no-print-directory "$ptm" > /dev/null
ptm=$(cd "$(dirname "$ptm")" && pwd)/$(basename "$ptm")
ks=${LDA_WARP_K:-50 200}
workers=${LDA_WARP_WORKERS:-1 2}
samplers=${LDA_WARP_SAMPLERS:-dense sparse alias}
rounds=${LDA_WARP_ROUNDS:-3}
max=${LDA_WARP_MAX:-2000}
dir=${LDA_WARP_DIR:-/tmp/ptm-lda-warp}
warp=${PTM_WARPLDA:-}
fmt=${PTM_WARPLDA_FORMAT:-${warp:+$(dirname "$warp")/format}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$dir"
if [ ! -f "$dir/docword.txt" ]; then
    "$ptm" gen lda --seed 1 --out "$dir" --docs 60000 --words 20000 --topics 100 --length 35 > /dev/null
    if [ "${LDA_WARP_RENUMBER:-0}" = 1 ]; then
        awk 'NR <= 3 { print; next } { if (!($2 in id)) id[$2] = ++n; print $1, id[$2], $3 }' \
            "$dir/docword.txt" > "$dir/renumbered"
        (head -3 "$dir/renumbered" && tail -n +4 "$dir/renumbered" | sort -k1,1n -k2,2n) \
            > "$dir/docword.txt"
        rm "$dir/renumbered"
    fi
fi
W=$(sed -n 2p "$dir/docword.txt")
if [ -n "$warp" ]; then
    if [ ! -x "$warp" ] || [ ! -x "$fmt" ]; then
        echo "lda_warp: PTM_WARPLDA=$warp: no warplda binary with its format tool next to it" >&2
        exit 1
    fi
    if [ ! -f "$dir/warp.bin.u.idx" ]; then
        # Yahoo LDA's text (a line a document: two ids, then its words), then
        # WarpLDA's binary form of it
        awk 'NR > 3 { if ($1 != d) { if (d) print line; d = $1; line = "d" $1 " x" }
                      for (i = 0; i < $3; i++) line = line " w" $2 }
             END { print line }' "$dir/docword.txt" > "$dir/yahoo.txt"
        (cd "$dir" && "$fmt" -input yahoo.txt -prefix warp > /dev/null)
    fi
fi

# job K SAMPLER STOP EVERY: the example job on the corpus, no outputs (WarpLDA
# writes none either) and no document-topic table
job() {
    sed -e "s|data/docword.txt|$dir/docword.txt|; s|data/vocab.txt|$dir/vocab.txt|" \
        -e "s|sampler = dense|sampler = $2|; s|every 5 sweeps|every $4 sweeps|" \
        -e "s|^stop when .*|stop when $3|" -e '/ndk/d; /^output/d' \
        examples/lda/lda.ptm > "$tmp/job.ptm"
}

# ptm_run K SAMPLER P TARGET ROUND
ptm_run() {
    job "$1" "$2" "objective >= $4 or sweeps >= $max" 1
    /usr/bin/time -f %M -o "$tmp/rss" "$ptm" run --workers "$3" --seed "$(($5 + 1))" --set topics="$1" \
        "$tmp/job.ptm" > "$tmp/out" 2>&1 || { cat "$tmp/out" >&2; exit 1; }
    local rss
    rss=$(tail -1 "$tmp/rss")
    awk -v K="$1" -v s="$2" -v P="$3" -v r="$5" -v T="$4" -v rss="$rss" -v n="$ntok" '
        /^round .* objective / { sw = $4; ll = $6; el = $NF; sub(/s$/, "", el)
            if (ll + 0 >= T + 0 && !hit) { hit = 1; hs = el; hw = sw } }
        END { printf "run %s %s %s %s %s %s %.2f %.1f %s\n", K, s, P, r, (hit ? hs : "-"),
                     (hit ? hw : "-"), (el > 0 ? n * sw / el / 1e6 : 0), rss / 1024, ll }' "$tmp/out"
}

# warp_run K P TARGET ROUND: stops when WarpLDA reaches the target (its output
# is closed, the next line it writes ends it)
warp_run() {
    if [ -z "$warp" ]; then
        echo "SKIP warplda K=$1 workers=$2: PTM_WARPLDA is not set"
        return
    fi
    rm -f "$tmp/fifo"
    mkfifo "$tmp/fifo"
    (cd "$dir" && OMP_NUM_THREADS=$2 exec /usr/bin/time -f %M -o "$tmp/rss" "$warp" \
        --prefix warp --k "$1" --alpha "$(awk -v k="$1" 'BEGIN { print 0.1 * k }')" --beta 0.01 \
        --niter "$max" --dumpz=false --writeinfo=false --dumpmodel=false > "$tmp/fifo" 2>&1) &
    local pid=$!
    awk -v K="$1" -v P="$2" -v r="$4" -v T="$3" -v n="$ntok" '
        /^Iteration/ { it++; s += $3; ll = $NF
            if (ll + 0 >= T + 0) { hit = 1; exit } }
        END { printf "run %s warplda %s %s %s %s %.2f RSS %s\n", K, P, r, (hit ? s : "-"),
                     (hit ? it : "-"), (s > 0 ? n * it / s / 1e6 : 0), ll }' < "$tmp/fifo" > "$tmp/line"
    wait "$pid" 2> /dev/null || true
    local rss
    rss=$(tail -1 "$tmp/rss")
    sed "s/ RSS / $(awk -v m="$rss" 'BEGIN { printf "%.1f", m / 1024 }') /" "$tmp/line"
}

ntok=$(awk 'NR > 3 { n += $3 } END { print n }' "$dir/docword.txt")
echo "corpus $dir $(sed -n 1p "$dir/docword.txt") documents $W words $ntok tokens; load $(cut -d' ' -f1-3 /proc/loadavg)"
for K in $ks; do
    job "$K" dense "sweeps >= 30" 30
    "$ptm" run --workers 1 --seed 1 --set topics="$K" "$tmp/job.ptm" > "$tmp/out" 2>&1
    target=$(awk '/^round .* objective / { ll = $6 } END { print ll }' "$tmp/out")
    echo "target $K $target"
    for r in $(seq 1 "$rounds"); do
        for P in $workers; do
            for s in $samplers; do
                ptm_run "$K" "$s" "$P" "$target" "$r"
            done
            warp_run "$K" "$P" "$target" "$r"
        done
    done
done | tee "$tmp/all"
/usr/bin/python3 - "$tmp/all" << 'EOF'
import statistics
import sys

runs = {}
for line in open(sys.argv[1]):
    f = line.split()
    if f and f[0] == "run":
        runs.setdefault((f[1], f[2], f[3]), []).append(f)
for (K, system, P), rs in runs.items():
    def med(i):
        v = [float(r[i]) for r in rs if r[i] != "-"]
        return "%.3g" % statistics.median(v) if v else "-"
    # the seconds to the target over WarpLDA's of the same round
    warp = {r[4]: r for r in runs.get((K, "warplda", P), [])}
    ratios = [float(r[5]) / float(warp[r[4]][5]) for r in rs
              if r[5] != "-" and r[4] in warp and warp[r[4]][5] not in ("-", "0")]
    ratio = "%.2f" % statistics.median(ratios) if ratios and system != "warplda" else "-"
    print("median", K, system, P, med(5), med(7), med(8), ratio)
EOF
