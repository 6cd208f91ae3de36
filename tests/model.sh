#!/bin/sh
# model.sh - a new built-in model is one folder plus one line of
# runtime/models/models.def: copy the sources, add the ridge model of
# tests/model/ridge/ that way and nothing else, build (from this build's
# objects, so that make's dependencies must find what the new line
# touches), and check that the compiler knows its rule and options and
# that a run reaches the optimum (the gradient of the ridge objective
# vanishes at the coefficients written).
#
#   sh tests/model.sh      (from the repository root; make test does this)
#
# SANITIZE is passed to the build. Exits 1 when a check failed.

ROOT=$(pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/ptm-model.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM
failed=0

fail() {
    echo "FAIL  $1"
    failed=1
}

# the sources, one folder and one line more
mkdir "$T/src" &&
    tar -C "$ROOT" -cf - Makefile lang compiler runtime schedulers viz cli | tar -C "$T/src" -xf - &&
    cp -R tests/model/ridge "$T/src/runtime/models/ridge" &&
    sed 's/^#undef PTM_MODEL$/PTM_MODEL(ridge)\n&/' runtime/models/models.def \
        >"$T/src/runtime/models/models.def" || exit 1
grep -q '^PTM_MODEL(ridge)$' "$T/src/runtime/models/models.def" || { fail "models.def edit"; exit 1; }
if [ -n "$SANITIZE" ]; then
    BDIR=build/$(echo "$SANITIZE" | tr , -)
    PTM=$BDIR/ptm
else
    BDIR=build/default
    PTM=bin/ptm
fi
# the objects this build already has (with their times and dependency
# files), so that make compiles again only what the new model touches: the
# files that include models.def, and the model's own
if [ -d "$BDIR" ]; then
    find "$BDIR" -path "$BDIR/tests" -prune -o \( -name '*.o' -o -name '*.d' -o -path "$BDIR/gen/*" \) \
        -type f -print | tar -cf - -T - | tar -C "$T/src" -xf - || exit 1
fi
if ! make -C "$T/src" -j2 SANITIZE="$SANITIZE" "$PTM" >"$T/build.log" 2>&1; then
    tail -20 "$T/build.log"
    fail "build with the ridge model"
    exit 1
fi
echo "ok    build with the ridge model"
PTM=$T/src/$PTM

# data: 300 rows, 40 correlated columns
"$PTM" gen lasso --seed 3 --rows 300 --cols 40 --density 0.3 --group 4 --corr 0.8 \
    --nonzeros 10 --out "$T/d" >/dev/null || { fail "ptm gen lasso"; exit 1; }

job() { # job LAMBDA: a ridge job on that data
    cat <<JOB
job ridge
data X : sparse matrix from "d/lasso.svm" format libsvm shard rows
data y : vector from labels(X)
param beta : vector[cols(X)] = 0
blocks coef = beta each 1
schedule round_robin { per_round 1 }
update builtin ridge_cd { lambda = $1 }
objective builtin ridge_objective { lambda = $1 } every 5 sweeps
stop when sweeps >= 400 or rel_change(objective) < 1e-13
output beta to "beta.tsv"
JOB
}

# the compiler checks the model's options from its table
job -1 >"$T/bad.ptm"
if "$PTM" check "$T/bad.ptm" >/dev/null 2>"$T/err"; then
    fail "lambda = -1 is refused"
elif grep -q "lambda" "$T/err"; then
    echo "ok    lambda = -1 is refused"
else
    cat "$T/err"
    fail "lambda = -1 is refused with a message naming lambda"
fi
sed 's/round_robin { per_round 1 }/dynamic { sample 4 }/' "$T/bad.ptm" >"$T/dynamic.ptm"
"$PTM" check "$T/dynamic.ptm" >/dev/null 2>"$T/err"
if grep -q "ridge_cd.*dynamic\|dynamic.*ridge_cd" "$T/err"; then
    echo "ok    ridge_cd under dynamic is refused (its table lists round_robin and random)"
else
    cat "$T/err"
    fail "ridge_cd under dynamic is refused"
fi

# the run, on 2 workers: at beta the gradient
#   -(1/n) X'(y - X beta) + lambda beta
# vanishes (up to the stop rule's tolerance)
lambda=0.05
job $lambda >"$T/ridge.ptm"
if ! (cd "$T" && "$PTM" run --workers 2 ridge.ptm >run.log 2>&1); then
    cat "$T/run.log"
    fail "ptm run ridge.ptm"
    exit 1
fi
awk -v lambda=$lambda '
    FNR == NR { b[NR - 1] = $1 + 0; p = NR; next }
    {
        r = $1
        for (i = 2; i <= NF; i++) { split($i, kv, ":"); r -= kv[2] * b[kv[1] - 1] }
        for (i = 2; i <= NF; i++) { split($i, kv, ":"); g[kv[1] - 1] += kv[2] * r }
        n++
    }
    END {
        worst = 0; size = 0
        for (j = 0; j < p; j++) {
            e = -g[j] / n + lambda * b[j]; if (e < 0) e = -e
            if (e > worst) worst = e
            if (b[j] > size || -b[j] > size) size = b[j] < 0 ? -b[j] : b[j]
        }
        printf "max |gradient| %.3g over %d coefficients, max |beta| %.3g\n", worst, p, size
        exit !(p == 40 && size > 0.1 && worst < 1e-6)
    }' "$T/beta.tsv" "$T/d/lasso.svm" >"$T/kkt" 2>&1
if [ $? -eq 0 ]; then
    echo "ok    ridge_cd reaches the optimum: $(cat "$T/kkt")"
else
    cat "$T/kkt" "$T/run.log"
    fail "ridge_cd reaches the optimum"
fi
exit $failed
