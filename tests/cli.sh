#!/bin/sh
# cli.sh - the ptm command from the outside: flags, help, exit codes,
# diagnostics on stderr, stdin, colour.
#
#   PTM=bin/ptm sh tests/cli.sh      (from the repository root; make test does this)
#
# Prints one line per case and ends with "N passed, M failed"; exits 1 when
# a case failed. A failed case shows what the command wrote to stderr.

. "$(dirname "$0")/lib.sh"

# ---- version and help -------------------------------------------------------

begin "--version prints the version"
run --version
want_rc 0; out_is "ptm 0.1.0"; err_empty
end

begin "-V prints the version"
run -V
want_rc 0; out_is "ptm 0.1.0"; err_empty
end

begin "--help prints usage on stdout"
run --help
want_rc 0; out_has "usage: ptm"; out_has "check"; out_has "exit status"; err_empty
cp "$T/out" "$T/usage"
end

begin "-h is --help"
run -h
want_rc 0; cmp -s "$T/out" "$T/usage" || no "differs from --help"; err_empty
end

begin "help is --help"
run help
want_rc 0; cmp -s "$T/out" "$T/usage" || no "differs from --help"; err_empty
end

begin "help check"
run help check
want_rc 0; out_has "usage: ptm check"; out_has "--color=WHEN"; out_has "--ast"; err_empty
cp "$T/out" "$T/check-usage"
end

begin "check --help is help check"
run check --help
want_rc 0; cmp -s "$T/out" "$T/check-usage" || no "differs from help check"; err_empty
end

begin "help help"
run help help
want_rc 0; out_has "usage: ptm help"; err_empty
end

begin "help nosuch exits 2"
run help nosuch
want_rc 2; out_empty; err_has "no command 'nosuch'"
end

begin "help chek suggests check"
run help chek
want_rc 2; out_empty; err_has "no command 'chek' (did you mean 'check'?)"
end

begin "help with two arguments exits 2"
run help check extra
want_rc 2; out_empty; err_has "too many arguments"
end

# ---- usage errors -----------------------------------------------------------

begin "no arguments: usage on stderr, exit 2"
run
want_rc 2; out_empty; err_has "usage: ptm"
end

begin "unknown command chek suggests check"
run chek examples/lda/lda.ptm
want_rc 2; out_empty
err_is "ptm: unknown command 'chek' (did you mean 'check'?)
try 'ptm --help'"
end

begin "unknown command without a suggestion"
run frobnicate
want_rc 2; out_empty; err_has "unknown command 'frobnicate'"; err_lacks "did you mean"
end

begin "unknown option to ptm"
run --bogus
want_rc 2; out_empty; err_has "unknown option '--bogus'"
end

begin "unknown option to check"
run check --bogus examples/lda/lda.ptm
want_rc 2; out_empty; err_has "unknown option '--bogus' for 'check'"
end

begin "check without a file"
run check
want_rc 2; out_empty; err_has "no job spec given"
end

begin "check a missing file names it"
run check "$T/nosuch.ptm"
want_rc 2; out_empty; err_has "'$T/nosuch.ptm'"; err_has "No such file"
end

begin "check a directory"
run check "$T"
want_rc 2; out_empty; err_has "'$T'"
end

begin "--color=bogus exits 2"
run check --color=bogus examples/lda/lda.ptm
want_rc 2; out_empty; err_has "bad value for --color: 'bogus'"
end

# ---- checking specs ---------------------------------------------------------

for f in examples/*/*.ptm; do
    begin "check $f"
    run check "$f"
    want_rc 0; out_is "$f: ok"; err_empty
    end
done

begin "check every example at once"
run check examples/*/*.ptm
want_rc 0; err_empty
n=0
for f in examples/*/*.ptm; do
    grep -qxF "$f: ok" "$T/out" || no "no '$f: ok'"
    n=$((n + 1))
done
[ "$(wc -l <"$T/out")" -eq "$n" ] || no "not one line per file"
end

printf 'job bad\nconst x = $\nparamm y : vector\nstop 3\n' >"$T/bad.ptm"

begin "a broken spec: diagnostics on stderr, exit 3"
run check --color=never "$T/bad.ptm"
want_rc 3; out_empty
err_is "$T/bad.ptm:2:11: error: unexpected character '\$'
    const x = \$
              ^
$T/bad.ptm:3:1: error: unknown statement 'paramm' (did you mean 'param'?)
    paramm y : vector
    ^^^^^^
$T/bad.ptm:4:6: error: unexpected number '3', expected 'when'
    stop 3
         ^
$T/bad.ptm: 3 errors"
end

printf 'job bad\nseed $\n' >"$T/one.ptm"

begin "one error: singular summary"
run check "$T/one.ptm"
want_rc 3; out_empty; err_last "$T/one.ptm: 1 error"
end

begin "good and broken specs together exit 3"
run check examples/lda/lda.ptm "$T/bad.ptm"
want_rc 3; out_is "examples/lda/lda.ptm: ok"; err_last "$T/bad.ptm: 3 errors"
end

begin "a missing file outranks a broken spec"
run check "$T/bad.ptm" "$T/nosuch.ptm"
want_rc 2; err_has "$T/bad.ptm: 3 errors"; err_has "'$T/nosuch.ptm'"
end

# 800 lines of about 100 bytes, 80 KB in all (printf repeats its format per argument).
printf 'job big\n' >"$T/big.ptm"
i=0
while [ $i -lt 100 ]; do
    printf 'const x = 1 + 2 * 3 # %s\n' \
        "padding padding padding padding padding padding padding padding padding padding" \
        "padding padding padding padding padding padding padding padding padding padding" \
        "padding padding padding padding padding padding padding padding padding padding" \
        "padding padding padding padding padding padding padding padding padding padding" \
        "padding padding padding padding padding padding padding padding padding padding" \
        "padding padding padding padding padding padding padding padding padding padding" \
        "padding padding padding padding padding padding padding padding padding padding" \
        "padding padding padding padding padding padding padding padding padding padding" \
        >>"$T/big.ptm"
    i=$((i + 1))
done
printf 'const y = $\n' >>"$T/big.ptm"

begin "a spec over 64 KiB is read to its end"
run check "$T/big.ptm"
want_rc 3; err_has "$T/big.ptm:802:11: error: unexpected character '\$'"
err_last "$T/big.ptm: 1 error"
end

# The smallest complete job: no data, a Lua update (absolute path, so the
# job can also come from stdin).
printf 'function push() end\nfunction pull() end\n' >"$T/u.lua"
printf 'job a\nconst x = 1 + 2\nparam p : vector[x]\nblocks b = p\nschedule round_robin\nupdate lua "%s/u.lua"\nstop when rounds >= x\n' "$T" >"$T/small.ptm"

{ printf '\357\273\277job bom\r\nconst x = 1\r\n'; tail -n +3 "$T/small.ptm" | sed 's/$/\r/'; } >"$T/bom.ptm"

begin "a byte-order mark and CRLF line ends are fine"
run check --ast "$T/bom.ptm"
want_rc 0; err_empty
out_has "(job bom)"; out_has "(const x 1)"
end

printf 'job crlf\r\nconst x\r\nconst y = 1 +\r\n\r\n' >"$T/crlf.ptm"

begin "CRLF: an error at a line's end is shown at the CR"
run check --color=never "$T/crlf.ptm"
want_rc 3; out_empty
err_is "$T/crlf.ptm:2:8: error: unexpected newline, expected '='
    const x
           ^
$T/crlf.ptm:3:14: error: unexpected end of file, expected expression
    const y = 1 +
                 ^
$T/crlf.ptm: 2 errors"
end

printf 'job b\nschedule s {\n  a 1\nstop when x >\n' >"$T/brace.ptm"

begin "a missing '}': one error and a note, then the next statement"
run check --color=never "$T/brace.ptm"
want_rc 3; out_empty
err_is "$T/brace.ptm:4:1: error: unexpected 'stop' inside '{ }': is a '}' missing?
    stop when x >
    ^^^^
$T/brace.ptm:2:12: note: this '{' is not closed
    schedule s {
               ^
$T/brace.ptm:4:14: error: unexpected end of file, expected expression
    stop when x >
                 ^
$T/brace.ptm: 2 errors"
end

begin "stdin via -"
run_stdin "$T/small.ptm" check -
want_rc 0; out_is "<stdin>: ok"; err_empty
end

begin "stdin via - with errors"
run_stdin "$T/one.ptm" check --color=never -
want_rc 3; out_empty
err_is "<stdin>:2:6: error: unexpected character '\$'
    seed \$
         ^
<stdin>: 1 error"
end

begin "-- ends the options"
cp "$T/small.ptm" "$T/-dash.ptm"
(cd "$T" && "$PTM_ABS" check -- -dash.ptm >out 2>err </dev/null)
rc=$?
want_rc 0; out_is "-dash.ptm: ok"
end

# ---- colour -----------------------------------------------------------------

begin "--color=always colours stderr"
run check --color=always "$T/bad.ptm"
want_rc 3; err_color; err_has "${ESC}[1;31merror:"
end

begin "--color=never: no escapes"
run check --color=never "$T/bad.ptm"
want_rc 3; err_plain
end

begin "no colour by default when stderr is not a terminal"
run check "$T/bad.ptm"
want_rc 3; err_plain
end

begin "--color=auto when stderr is not a terminal"
run check --color=auto "$T/bad.ptm"
want_rc 3; err_plain
end

begin "--color=always beats NO_COLOR"
NO_COLOR=1 "$PTM" check --color=always "$T/bad.ptm" >"$T/out" 2>"$T/err"
rc=$?
want_rc 3; err_color
end

# ---- the tree ---------------------------------------------------------------

begin "--ast prints the tree"
run check --ast "$T/small.ptm"
want_rc 0; err_empty
out_has "(job a)"; out_has "(const x (+ 1 2))"; out_has "(schedule round_robin)"
end

begin "--ast on an example"
run check --ast examples/logreg/logreg_ssp.ptm
want_rc 0; err_empty
out_is '(job logreg_ssp)
(const rate 0.5)
(const l2 0.0001)
(data X (sparse matrix) (from "data/train.svm") (format libsvm) (shard rows))
(data y (vector) (from labels(X)))
(param w (vector [cols(X)]) (= 0) (consistency ssp 2))
(param b (vector [1]) (= 0))
(schedule data_parallel {(minibatch 1000)})
(update builtin logreg_sgd {(method sgd) (rate rate) (l2 l2) (intercept b)})
(objective builtin logloss {(l2 l2) (intercept b)} (every 1 sweeps))
(stop (or (>= sweeps 20) (< rel_change(objective) 1e-06)))
(output w "w_ssp.tsv")
(output b "b_ssp.tsv")'
end

begin "--ast on a broken spec prints no tree"
run check --ast "$T/bad.ptm"
want_rc 3; out_empty; err_last "$T/bad.ptm: 3 errors"
end

begin "a full stdout is an error"
if [ -w /dev/full ]; then
    "$PTM" check --ast examples/lda/lda.ptm >/dev/full 2>"$T/err"
    rc=$?
    want_rc 1; err_has "ptm: error: cannot write to standard output: "
fi
end

begin "--version to a full stdout is an error"
if [ -w /dev/full ]; then
    "$PTM" --version >/dev/full 2>"$T/err"
    rc=$?
    want_rc 1
    # the reason (strerror) follows the colon
    grep -q '^ptm: error: cannot write to standard output: .' "$T/err" ||
        no "stderr lacks 'ptm: error: cannot write to standard output: REASON'"
    [ "$(wc -l <"$T/err")" -eq 1 ] || no "not one line on stderr"
fi
end

begin "--help to a full stdout is an error"
if [ -w /dev/full ]; then
    "$PTM" --help >/dev/full 2>"$T/err"
    rc=$?
    want_rc 1; err_has "ptm: error: cannot write to standard output: "
fi
end

# ---- compile: plans, golden files, atomic output ----------------------

for ex in lasso lda logreg mf; do
    begin "compile $ex matches tests/golden/$ex.yaml"
    run compile "examples/$ex/$ex.ptm"
    want_rc 0; err_empty
    cmp -s "$T/out" "tests/golden/$ex.yaml" || no "the plan differs from tests/golden/$ex.yaml (make golden rewrites it)"
    end
done

begin "compile -o writes the plan, and check loads it back"
run compile examples/lasso/lasso.ptm -o "$T/plan.yaml"
want_rc 0; err_empty
cmp -s "$T/plan.yaml" tests/golden/lasso.yaml || no "-o wrote another plan"
ls "$T" | grep -q tmp && no "a temporary file was left behind"
run check "$T/plan.yaml"
want_rc 0; out_is "$T/plan.yaml: ok"
end

begin "compile of a job with errors writes nothing"
printf 'job a\nparam p : vector[3]\nschedule dynamc\n' >"$T/bad.ptm"
run compile "$T/bad.ptm" -o "$T/none.yaml"
want_rc 3; err_has "unknown scheduling policy 'dynamc' (did you mean 'dynamic'?)"
[ -e "$T/none.yaml" ] && no "a plan was written"
[ -s "$T/out" ] && no "something went to stdout"
end

begin "compile --set overrides a const"
run compile --set lambda=0.5 examples/lasso/lasso.ptm
want_rc 0; out_has "num: 0.5"
end

begin "compile --set with an unknown const"
run compile --set lamda=0.5 examples/lasso/lasso.ptm
want_rc 3; err_has "--set lamda=0.5: the job has no const 'lamda' (did you mean 'lambda'?)"
end

begin "compile --set without a value is a usage error"
run compile --set lambda examples/lasso/lasso.ptm
want_rc 2; err_has "--set takes NAME=VALUE"
end

begin "compile takes one job"
run compile examples/lasso/lasso.ptm examples/mf/mf.ptm
want_rc 2
end

begin "compile into a missing directory fails cleanly"
run compile examples/lasso/lasso.ptm -o "$T/no/such/dir/plan.yaml"
want_rc 1; err_has "cannot write '$T/no/such/dir/plan.yaml'"
end

begin "check of a truncated plan gives a located error"
head -c 300 tests/golden/lasso.yaml >"$T/trunc.yaml"
run check "$T/trunc.yaml"
want_rc 3; err_has "$T/trunc.yaml:"
end

# ---- gen: synthetic data ----------------------------------------------------

begin "gen lasso writes lasso.svm and beta_true.tsv"
run gen lasso --seed 1 --out "$T/g1" --rows 50 --cols 30 --density 0.1 --group 3 --nonzeros 4
want_rc 0; out_empty; err_empty
[ "$(wc -l <"$T/g1/lasso.svm" 2>/dev/null)" = 50 ] || no "lasso.svm does not have 50 lines"
[ "$(wc -l <"$T/g1/beta_true.tsv" 2>/dev/null)" = 30 ] || no "beta_true.tsv does not have 30 lines"
[ "$(grep -cvx 0 "$T/g1/beta_true.tsv")" = 4 ] || no "beta_true.tsv does not have 4 non-zeros"
grep -q '30:' "$T/g1/lasso.svm" || no "lasso.svm has no entry in column 30"
[ "$(ls "$T/g1")" = "$(printf 'beta_true.tsv\ngroups.tsv\nlasso.svm')" ] || no "other files in the directory: $(ls "$T/g1")"
end

begin "gen lasso: groups.tsv names columns that appear together, 3 a group"
[ "$(sort -n "$T/g1/groups.tsv" | uniq -c | awk '$1 != 3' | wc -l)" = 0 ] ||
    no "a group has not 3 columns: $(sort -n "$T/g1/groups.tsv" | uniq -c | tr '\n' ' ')"
[ "$(sort -nu "$T/g1/groups.tsv" | tr '\n' ' ')" = "1 2 3 4 5 6 7 8 9 10 " ] || no "groups are not 1 .. 10"
/usr/bin/python3 - "$T/g1/groups.tsv" "$T/g1/lasso.svm" >"$T/out" 2>&1 <<'EOF' || no "$(cat "$T/out")"
import sys
g = [int(l) for l in open(sys.argv[1])]
bad = 0
for line in open(sys.argv[2]):
    cols = [int(t.split(":")[0]) - 1 for t in line.split()[1:]]
    seen = {}
    for c in cols:
        seen[g[c]] = seen.get(g[c], 0) + 1
    bad += sum(1 for n in seen.values() if n != 3)
sys.exit("%d row groups with a column missing or extra" % bad if bad else 0)
EOF
end

begin "run: 2 workers read a libsvm file of 4 MiB a worker in pieces and build its columns together: the bits of 1 worker; a bad line near its end reported as 1 worker reports it"
mkdir -p "$T/big"
"$PTM" gen lasso --seed 3 --out "$T/big/data" --rows 20000 --cols 60000 --density 0.001 --nonzeros 50 >/dev/null 2>&1
[ "$(wc -c <"$T/big/data/lasso.svm")" -ge 16000000 ] || no "the file is under 2 pieces of 4 MiB and 4 MiB"
sed 's|^stop when .*|stop when sweeps >= 3|' examples/lasso/lasso.ptm >"$T/big/lasso.ptm"
for w in 1 2; do
    (cd "$T/big" && "$PTM_ABS" run --workers $w lasso.ptm >/dev/null 2>&1 && mv beta.tsv beta$w.tsv && mv b.tsv b$w.tsv) || no "the run on $w worker(s) failed"
done
cmp -s "$T/big/beta1.tsv" "$T/big/beta2.tsv" && cmp -s "$T/big/b1.tsv" "$T/big/b2.tsv" || no "beta or b differ between 1 and 2 workers"
awk 'NR == 19990 { print "1 3:1 0:5"; next } { print }' "$T/big/data/lasso.svm" >"$T/big/bad.svm"
sed 's|"data/lasso.svm"|"bad.svm"|' "$T/big/lasso.ptm" >"$T/big/bad.ptm"
for w in 1 2; do
    (cd "$T/big" && "$PTM_ABS" run --workers $w bad.ptm >/dev/null 2>"err$w"; echo $? >"rc$w")
done
[ "$(cat "$T/big/rc1")" -ne 0 ] && cmp -s "$T/big/rc1" "$T/big/rc2" || no "exit status $(cat "$T/big/rc1") and $(cat "$T/big/rc2"), want the same, not 0"
grep -qxF "bad.svm:19990:7: error: index '0' out of range: libsvm indices are 1-based" "$T/big/err2" || no "2 workers do not name line 19990 as 1 worker does"
cmp -s "$T/big/err1" "$T/big/err2" || no "the messages of 1 and 2 workers differ"
rm -rf "$T/big"
end

begin "plan: the Lasso example's small sequential rounds are dealt to worker 1 alone, as run runs them"
mkdir -p "$T/pl"
"$PTM" gen lasso --seed 2 --out "$T/pl/data" --rows 200 --cols 300 --density 0.1 >/dev/null 2>&1
cp examples/lasso/lasso.ptm "$T/pl/lasso.ptm"
run plan --workers 2 --rounds 5 "$T/pl/lasso.ptm"
want_rc 0; out_has "5 of the 5 rounds run on worker 1 alone"
# worker 2's line of each round: cost 0, idle all of it
[ "$(awk '$1 == 2 && $2 == 0 && $3 == "100%"' "$T/out" | wc -l)" -eq 5 ] || no "worker 2 is not idle in every round"
sed 's/within = sequential }/within = sequential, split_min = 0 }/' "$T/pl/lasso.ptm" >"$T/pl/split.ptm"
run plan --workers 2 --rounds 5 "$T/pl/split.ptm"
want_rc 0; grep -q "alone" "$T/out" && no "rounds of 6000 non-zeros on 200 rows split, yet the plan says alone"
[ "$(awk '$1 == 2 && $3 ~ /%$/ && $2 > 0' "$T/out" | wc -l)" -eq 5 ] || no "worker 2 has no share of a split round"
run plan --workers 1 --rounds 5 "$T/pl/lasso.ptm"
want_rc 0; grep -q "alone" "$T/out" && no "one worker is never 'alone'"
end

begin "gen lasso --grouped takes no value"
run gen lasso --seed 1 --out "$T/g4" --grouped=1
want_rc 2; err_has "--grouped takes no value"
end

begin "gen lasso --grouped: the same columns as the default, in groups"
run gen lasso --seed 1 --out "$T/g4" --rows 50 --cols 30 --density 0.1 --group 3 --nonzeros 4 --grouped
want_rc 0
[ "$(sort "$T/g4/beta_true.tsv" | tr '\n' ' ')" = "$(sort "$T/g1/beta_true.tsv" | tr '\n' ' ')" ] ||
    no "beta* is not the default's, reordered"
cmp -s "$T/g4/lasso.svm" "$T/g1/lasso.svm" && no "the columns are in the same order as the default's"
[ "$(tr '\n' ' ' <"$T/g4/groups.tsv")" = "1 1 1 2 2 2 3 3 3 4 4 4 5 5 5 6 6 6 7 7 7 8 8 8 9 9 9 10 10 10 " ] ||
    no "the groups are not consecutive: $(tr '\n' ' ' <"$T/g4/groups.tsv")"
end

begin "gen lasso is deterministic"
run gen lasso --seed 1 --out "$T/g2" --rows 50 --cols 30 --density 0.1 --group 3 --nonzeros 4
want_rc 0
cmp -s "$T/g1/lasso.svm" "$T/g2/lasso.svm" || no "lasso.svm differs for the same seed"
cmp -s "$T/g1/beta_true.tsv" "$T/g2/beta_true.tsv" || no "beta_true.tsv differs for the same seed"
run gen lasso --seed 2 --out "$T/g2" --rows 50 --cols 30 --density 0.1 --group 3 --nonzeros 4
want_rc 0
cmp -s "$T/g1/lasso.svm" "$T/g2/lasso.svm" && no "lasso.svm is the same for another seed"
end

begin "gen lasso into an existing directory, flags as --flag=VALUE"
run gen lasso --seed=1 --out="$T/g2" --rows=50 --cols=30 --density=0.1 --group=3 --nonzeros=4
want_rc 0
cmp -s "$T/g1/lasso.svm" "$T/g2/lasso.svm" || no "lasso.svm not replaced by the same data"
end

# The defaults of MODEL's options, from its section of 'ptm help gen', as
# "--flag value" words (--ratings has no number: it follows --density).
gen_help_defaults() {
    awk -v m="$1" '$0 ~ "^" m ": " { on = 1; next } /^[a-z]+: / || /^Exit status/ { on = 0 } on' \
        "$T/help-gen" |
        sed -n 's/^  \(--[a-z]*\) [A-Z]* .*(default \([0-9.e-]*\)[,)].*/\1 \2/p'
}

begin "gen: the defaults are the ones help gen gives"
run help gen
want_rc 0; out_has "usage: ptm gen MODEL"
cp "$T/out" "$T/help-gen"
for m in lasso:7 mf:6 lda:6 logreg:4; do
    model=${m%:*}
    # shellcheck disable=SC2046
    set -- $(gen_help_defaults "$model")
    [ $# -eq $((2 * ${m#*:})) ] || no "help gen gives $(($# / 2)) defaults for $model, want ${m#*:}"
    run gen "$model" --seed 5 --out "$T/gd1"
    want_rc 0
    run gen "$model" --seed 5 --out "$T/gd2" "$@"
    want_rc 0
    for f in "$T"/gd1/*; do
        cmp -s "$f" "$T/gd2/${f##*/}" || no "$model: ${f##*/} differs with the defaults of help gen ($*)"
    done
    rm -rf "$T/gd1" "$T/gd2"
done
end

begin "gen --help is help gen"
run help gen
cp "$T/out" "$T/gen-usage"
run gen lasso --help
want_rc 0; cmp -s "$T/out" "$T/gen-usage" || no "differs from help gen"
end

begin "gen without a model lists the models"
run gen
want_rc 2; out_empty; err_has "models:"
for m in lasso mf lda logreg; do err_has "  $m "; done
end

begin "gen with an unknown model"
run gen lasos --seed 1 --out "$T/g3"
want_rc 2; err_has "unknown model 'lasos' (did you mean 'lasso'?)"
run gen lgreg --seed 1 --out "$T/g3"
want_rc 2; err_has "unknown model 'lgreg' (did you mean 'logreg'?)"
run gen kmeans --seed 1 --out "$T/g3"
want_rc 2; err_has "unknown model 'kmeans' (models: lasso, mf, lda, logreg)"
[ -e "$T/g3" ] && no "a directory was made"
end

begin "gen: an unknown flag"
run gen lasso --seed 1 --out "$T/g3" --rowz 5
want_rc 2; err_has "unknown option '--rowz' for 'gen'"
end

begin "gen: --out and --seed are required"
run gen lasso --seed 1
want_rc 2; err_has "--out DIR is required"
run gen lasso --out "$T/g3"
want_rc 2; err_has "--seed N is required"
run gen lasso --seed 1 --out
want_rc 2; err_has "--out needs a value"
end

for bad in "--rows 0" "--rows 1.5" "--rows 12abc" "--rows 2147483648" "--rows= 5" "--cols -3" \
    "--density 0" "--density 1.5" "--density nan" "--density 0.1x" "--corr 2" "--corr -0.1" \
    "--noise -1" "--noise inf" "--noise 1e999" "--seed -1" "--seed 99999999999999999999" \
    "--group 0" "--nonzeros -1"; do
    begin "gen: bad value $bad"
    flag=${bad%% *}
    flag=${flag%=}
    # shellcheck disable=SC2086
    run gen lasso --seed 1 --out "$T/g3" $bad
    want_rc 2; out_empty; err_has "bad value for $flag: '"
    end
done

begin "gen: --nonzeros more than --cols"
run gen lasso --seed 1 --out "$T/g3" --cols 5 --nonzeros 6
want_rc 2; err_has "--nonzeros 6 is more than --cols 5"
[ -e "$T/g3" ] && no "a directory was made"
end

begin "gen: a directory that cannot be created"
: >"$T/plain"
run gen lasso --seed 1 --out "$T/plain/sub" --rows 5 --cols 5
want_rc 1; err_has "cannot create directory '$T/plain/sub': Not a directory"
run gen lasso --seed 1 --out "$T/plain" --rows 5 --cols 5
want_rc 1; err_has "cannot create directory '$T/plain': Not a directory"
end

begin "gen: nested directories are made"
run gen lasso --seed 1 --out "$T/deep/er/dir" --rows 5 --cols 5
want_rc 0; [ -s "$T/deep/er/dir/lasso.svm" ] || no "no lasso.svm"
end

# gen mf, lda, logreg: the files, determinism, the flags.
for m in "mf:H_true.tsv W_true.tsv info.tsv ratings.mtx test.mtx:--rows 40 --cols 30 --ratings 300" \
    "lda:doc_topics_true.tsv docword.txt info.tsv topics_true.tsv vocab.txt:--docs 20 --words 50 --topics 3" \
    "logreg:info.tsv train.svm w_true.tsv:--rows 60 --cols 25 --density 0.2 --nonzeros 5"; do
    model=${m%%:*}
    files=${m#*:}
    files=${files%%:*}
    opts=${m##*:}
    begin "gen $model writes $files"
    # shellcheck disable=SC2086
    run gen "$model" --seed 1 --out "$T/g-$model-1" $opts
    want_rc 0; out_empty; err_empty
    [ "$(ls "$T/g-$model-1" | tr '\n' ' ')" = "$files " ] || no "files: $(ls "$T/g-$model-1")"
    end

    begin "gen $model is deterministic"
    # shellcheck disable=SC2086
    run gen "$model" --seed 1 --out "$T/g-$model-2" $opts
    want_rc 0
    # shellcheck disable=SC2086
    run gen "$model" --seed 2 --out "$T/g-$model-3" $opts
    want_rc 0
    for f in $files; do
        cmp -s "$T/g-$model-1/$f" "$T/g-$model-2/$f" || no "$f differs for the same seed"
    done
    for f in $files; do
        case $f in info.tsv | vocab.txt) continue ;; esac
        cmp -s "$T/g-$model-1/$f" "$T/g-$model-3/$f" && no "$f is the same for another seed"
    done
    end
done

begin "gen mf: ratings and test share as asked"
run gen mf --seed 3 --out "$T/gm" --rows 50 --cols 40 --ratings 1000 --test 0.25 --rank 4
want_rc 0
[ "$(sed -n 3p "$T/gm/ratings.mtx")" = "50 40 750" ] || no "ratings.mtx size line is not '50 40 750'"
[ "$(sed -n 3p "$T/gm/test.mtx")" = "50 40 250" ] || no "test.mtx size line is not '50 40 250'"
[ "$(grep -vc '^%' "$T/gm/ratings.mtx")" = 751 ] || no "ratings.mtx does not have 750 entries"
[ "$(awk -F '\t' '{ print NF }' "$T/gm/W_true.tsv" | sort -u)" = 4 ] || no "W_true.tsv rows are not of 4"
[ "$(wc -l <"$T/gm/H_true.tsv")" -eq 40 ] || no "H_true.tsv does not have 40 lines"
grep -q '^noise	0.1$' "$T/gm/info.tsv" || no "info.tsv does not give the noise"
end

begin "gen mf --density: the share of cells"
run gen mf --seed 3 --out "$T/gm2" --rows 20 --cols 50 --density 0.3 --test 0
want_rc 0
[ "$(sed -n 3p "$T/gm2/ratings.mtx")" = "20 50 300" ] || no "ratings.mtx size line is not '20 50 300'"
[ "$(sed -n 3p "$T/gm2/test.mtx")" = "20 50 0" ] || no "test.mtx size line is not '20 50 0'"
end

begin "gen lda: docword header and vocabulary"
run gen lda --seed 3 --out "$T/gl" --docs 30 --words 120 --topics 4 --length 15 --alpha 0.5 --beta 0.1
want_rc 0
[ "$(head -n 2 "$T/gl/docword.txt" | tr '\n' ' ')" = "30 120 " ] || no "docword.txt does not start with 30, 120"
[ "$(sed -n 3p "$T/gl/docword.txt")" -eq "$(($(wc -l <"$T/gl/docword.txt") - 3))" ] ||
    no "NNZ is not the number of entries"
[ "$(sed -n '1p;17p;120p' "$T/gl/vocab.txt" | tr '\n' ' ')" = "w001 w017 w120 " ] || no "vocab.txt words"
[ "$(wc -l <"$T/gl/topics_true.tsv")" -eq 4 ] || no "topics_true.tsv does not have 4 lines"
[ "$(wc -l <"$T/gl/doc_topics_true.tsv")" -eq 30 ] || no "doc_topics_true.tsv does not have 30 lines"
end

begin "gen logreg: labels 1 and -1, w_true.tsv"
run gen logreg --seed 3 --out "$T/gr" --rows 200 --cols 30 --density 0.2 --nonzeros 7
want_rc 0
[ "$(cut -d ' ' -f 1 "$T/gr/train.svm" | sort -u | tr '\n' ' ')" = "-1 1 " ] || no "labels are not 1 and -1"
[ "$(grep -cvx 0 "$T/gr/w_true.tsv")" = 7 ] || no "w_true.tsv does not have 7 non-zeros"
end

# logreg_sgd's note when plain SGD stalls or rises, and logreg_cd on the same data
cat >"$T/gr/sgd.ptm" <<'EOF'
job sgd
data X : sparse matrix from "train.svm" format libsvm shard rows
data y : vector from labels(X)
param w : vector[cols(X)] = 0
schedule data_parallel { minibatch 50 }
update builtin logreg_sgd { method = sgd, rate = 0.5, decay = 0.3 }
objective builtin logloss every 1 sweeps
stop when sweeps >= 12
EOF
begin "run: logreg_sgd method = sgd whose objective stalls says so once, naming method = tron"
run run --quiet --workers 1 "$T/gr/sgd.ptm"
want_rc 0
err_has "ptm: note: update logreg_sgd (method = sgd): the objective fell by less than 0.1% over the last 5 evaluations"
err_has "method = tron (the default) needs no step size"
[ "$(grep -c 'ptm: note: update logreg_sgd' "$T/err")" -eq 1 ] || no "the note is not said exactly once"
end

begin "run: logreg_sgd method = sgd whose objective rises says so"
sed 's/rate = 0.5, decay = 0.3/rate = 400/' "$T/gr/sgd.ptm" >"$T/gr/sgd-rise.ptm"
run run --quiet --workers 1 "$T/gr/sgd-rise.ptm"
want_rc 0
err_has "the objective rose over the last 5 evaluations"
end

begin "run: logreg_sgd's default (tron) and a falling SGD say nothing of a stall"
sed 's/method = sgd, rate = 0.5, decay = 0.3/method = tron/' "$T/gr/sgd.ptm" >"$T/gr/tron.ptm"
run run --quiet --workers 1 "$T/gr/tron.ptm"
want_rc 0
err_lacks "ptm: note: update logreg_sgd"
sed 's/decay = 0.3/decay = 1/; s/sweeps >= 12/sweeps >= 5/' "$T/gr/sgd.ptm" >"$T/gr/sgd-ok.ptm"
run run --quiet --workers 1 "$T/gr/sgd-ok.ptm"
want_rc 0
err_lacks "ptm: note: update logreg_sgd"
end

begin "run: logreg_cd (L1, coordinate descent) under data_parallel is refused; under round_robin it runs"
sed 's/^update .*/update builtin logreg_cd { l1 = 0.01 }/; s/^objective .*/objective builtin logloss { l1 = 0.01 } every 1 sweeps/' \
    "$T/gr/sgd.ptm" >"$T/gr/cd-dp.ptm"
run check "$T/gr/cd-dp.ptm"
want_rc 3
err_has "logreg_cd runs under the dynamic, round_robin or random policies, not data_parallel"
sed 's/^schedule .*/blocks coef = w each 1\
schedule round_robin { per_round 10 }/' "$T/gr/cd-dp.ptm" >"$T/gr/cd.ptm"
run run --quiet --workers 2 "$T/gr/cd.ptm"
want_rc 0
err_empty
end

begin "plan: logreg_cd's sequential rounds of few non-zeros go to worker 1 alone; split_min is for within = sequential"
mkdir -p "$T/l1"
"$PTM" gen logreg --seed 3 --out "$T/l1/data" --rows 400 --cols 200 --density 0.05 >/dev/null 2>&1
cp examples/logreg/logreg_l1.ptm "$T/l1/l1.ptm"
run plan --workers 2 --rounds 5 "$T/l1/l1.ptm"
want_rc 0; out_has "5 of the 5 rounds run on worker 1 alone"
[ "$(awk '$1 == 2 && $2 == 0 && $3 == "100%"' "$T/out" | wc -l)" -eq 5 ] || no "worker 2 is not idle in every round"
sed 's/within = sequential }/within = sequential, split_min = 0 }/' "$T/l1/l1.ptm" >"$T/l1/split.ptm"
run plan --workers 2 --rounds 5 "$T/l1/split.ptm"
want_rc 0; grep -q "alone" "$T/out" && no "rounds of 4000 non-zeros on 400 rows split, yet the plan says alone"
sed 's/within = sequential }/within = parallel, split_min = 0 }/' "$T/l1/l1.ptm" >"$T/l1/par.ptm"
run check "$T/l1/par.ptm"
want_rc 3
err_has "par.ptm:26:1: error: logreg_cd: option 'split_min' is for within = sequential"
end

begin "gen logreg --hard: unit-norm positive rows, popular columns, partner pairs, few positives, deterministic"
run gen logreg --seed 3 --out "$T/gh" --rows 4000 --cols 400 --density 0.05 --nonzeros 40 --hard
want_rc 0
run gen logreg --seed 3 --out "$T/gh2" --rows 4000 --cols 400 --density 0.05 --nonzeros 40 --hard
cmp -s "$T/gh/train.svm" "$T/gh2/train.svm" || no "train.svm differs for the same seed"
run gen logreg --seed 3 --out "$T/gh3" --rows 4000 --cols 400 --density 0.05 --nonzeros 40
cmp -s "$T/gh/train.svm" "$T/gh3/train.svm" && no "--hard changed nothing"
# every row: positive values of norm 1 (to the rounding of 1e-6 a value),
# ascending columns; column 1 in most rows, column 300 in few; columns 1
# and 2 (a pair) together far more often than apart; about a fifth positive
awk '{
    s = 0; prev = 0; has1 = has2 = 0
    for (k = 2; k <= NF; k++) {
        split($k, p, ":"); s += p[2] * p[2]
        if (p[2] <= 0) bad = "a value <= 0: " $k
        if (p[1] + 0 <= prev) bad = "columns not ascending in row " NR
        prev = p[1] + 0
        if (p[1] == 1) has1 = 1; if (p[1] == 2) has2 = 1; if (p[1] == 300) c300++
    }
    d = s - 1; if (d < 0) d = -d
    if (d > 1e-4 && NF > 1) bad = "row " NR " has norm^2 " s
    c1 += has1; both += has1 && has2; one += has1 != has2; pos += $1 == 1; n++
} END {
    if (bad == "" && !(c1 > 0.5 * n)) bad = "column 1 in " c1 " of " n " rows"
    if (bad == "" && !(c300 < 0.05 * n)) bad = "column 300 in " c300 " of " n " rows"
    if (bad == "" && !(both > 2 * one)) bad = "columns 1 and 2 together " both ", apart " one
    if (bad == "" && !(pos > 0.05 * n && pos < 0.4 * n)) bad = pos " positives of " n
    if (bad != "") print bad
}' "$T/gh/train.svm" >"$T/gh/verdict"
[ -s "$T/gh/verdict" ] && no "$(cat "$T/gh/verdict")"
grep -q '^hard	1$' "$T/gh/info.tsv" || no "info.tsv does not say hard 1"
end

begin "gen: an option of another model"
run gen mf --seed 1 --out "$T/g3" --group 3
want_rc 2; err_has "gen mf: --group is not an option of 'mf'"; err_has "try 'ptm help gen'"
run gen lasso --seed 1 --out "$T/g3" --rank 3
want_rc 2; err_has "gen lasso: --rank is not an option of 'lasso'"
run gen logreg --seed 1 --out "$T/g3" --noise 1
want_rc 2; err_has "gen logreg: --noise is not an option of 'logreg'"
run gen lda --seed 1 --out "$T/g3" --rows 3
want_rc 2; err_has "gen lda: --rows is not an option of 'lda'"
[ -e "$T/g3" ] && no "a directory was made"
end

for bad in "mf --rank 0" "mf --rank 1001" "mf --ratings 0" "mf --test 1" "mf --test -0.1" \
    "mf --density 0" "lda --docs 0" "lda --words 2147483648" "lda --topics 0" \
    "lda --topics 100001" "lda --length 0.5" "lda --length 2e9" "lda --alpha 0" \
    "lda --alpha 1e-7" "lda --beta 1e7" "lda --beta nan" "logreg --rows 0" "logreg --density 2" \
    "logreg --nonzeros -1"; do
    begin "gen: bad value $bad"
    model=${bad%% *}
    flag=${bad#* }
    flag=${flag%% *}
    # shellcheck disable=SC2086
    run gen --seed 1 --out "$T/g3" $bad
    want_rc 2; out_empty; err_has "bad value for $flag: '"
    end
done

begin "gen: options that do not fit together"
run gen mf --seed 1 --out "$T/g3" --ratings 10 --density 0.1
want_rc 2; err_has "gen mf: give --ratings or --density, not both"
run gen mf --seed 1 --out "$T/g3" --rows 10 --cols 20 --ratings 201
want_rc 2; err_has "gen mf: --ratings 201 is more than the 200 cells of 10 x 20"
run gen mf --seed 1 --out "$T/g3" --noise 2e6
want_rc 2; err_has "gen mf: --noise 2e+06 is more than 1e6"
run gen lda --seed 1 --out "$T/g3" --topics 100000 --words 1000000
want_rc 2; err_has "gen lda: --topics 100000 x --words 1000000 is more than 2^34 topic-word pairs"
run gen logreg --seed 1 --out "$T/g3" --cols 5 --nonzeros 6
want_rc 2; err_has "gen logreg: --nonzeros 6 is more than --cols 5"
run gen logreg --seed 1 --out "$T/g3" --cols 5
want_rc 0
[ "$(grep -cvx 0 "$T/g3/w_true.tsv")" = 5 ] || no "the default --nonzeros is not cut down to --cols"
rm -rf "$T/g3"
end

begin "gen: a file that cannot be written is named, exit 1"
mkdir -p "$T/gw/test.mtx"
run gen mf --seed 1 --out "$T/gw" --rows 10 --cols 10
want_rc 1; err_has "ptm: error: cannot write '$T/gw/test.mtx': Is a directory"
ls "$T/gw" | grep -q tmp && no "a temporary file is left"
mkdir -p "$T/gw2/vocab.txt"
run gen lda --seed 1 --out "$T/gw2" --docs 3 --words 5
want_rc 1; err_has "ptm: error: cannot write '$T/gw2/vocab.txt': Is a directory"
ls "$T/gw2" | grep -q tmp && no "a temporary file is left"
end

begin "help gen documents every model and option"
run help gen
for w in "lasso:" "mf:" "lda:" "logreg:" "--rows R" "--cols C" "--density D" "--group G" \
    "--corr RHO" "--nonzeros K" "--noise SIGMA" "--rank K" "--ratings N" "--test SHARE" \
    "--docs D" "--words W" "--topics K" "--length L" "--alpha A" "--beta B" "ratings.mtx" \
    "test.mtx" "W_true.tsv" "H_true.tsv" "docword.txt" "vocab.txt" "topics_true.tsv" \
    "doc_topics_true.tsv" "train.svm" "w_true.tsv" "info.tsv"; do
    out_has "$w"
done
end

# ---- check --data: the job's data files ---------------------------------

"$PTM" gen lasso --seed 3 --out "$T/gd" --rows 50 --cols 40 >/dev/null 2>&1
sed "s|\"data/lasso.svm\"|\"$T/gd/lasso.svm\"|" examples/lasso/lasso.ptm >"$T/gd.ptm"

begin "check --data reads the job's data and gives its size"
run check --data "$T/gd.ptm"
want_rc 0; err_empty
out_has "$T/gd/lasso.svm: data X: 50 x 40, "; out_has "labels"; out_has "$T/gd.ptm: ok"
end

begin "check --data: bad data lines are located, exit 4"
printf '1 1:2 3:x\n2 0:1\n' >"$T/gd/bad.svm"
sed "s|\"data/lasso.svm\"|\"$T/gd/bad.svm\"|" examples/lasso/lasso.ptm >"$T/bad-data.ptm"
run check --data --color=never "$T/bad-data.ptm"
want_rc 4
err_has "$T/gd/bad.svm:1:9: error: bad value 'x'"
err_has "$T/gd/bad.svm:2:3: error: index '0' out of range: libsvm indices are 1-based"
end

# the example job without its data, whatever a user generated into examples/
mkdir -p "$T/nodata"
cp examples/lasso/lasso.ptm "$T/nodata/lasso.ptm"

# sizes claimed by tiny files: refused before the memory is taken (a
# plain build runs under a 4 GB address-space limit, in case it is not)
mkdir -p "$T/claim"
printf '1 2147483647:1\n' >"$T/claim/x.svm"
cat >"$T/claim/j.ptm" <<'EOF'
job claim
data X : sparse matrix from "x.svm" format libsvm shard rows
data y : vector from labels(X)
param beta : vector[cols(X)] = 0
param r : vector[rows(X)] = y shard like X
blocks coef = beta each 1
schedule round_robin
update builtin lasso_cd { lambda = 0.1 }
stop when sweeps >= 1
output beta to "beta.tsv"
EOF
limited() { (case "$PTM" in *build/*) ;; *) ulimit -v 4000000 ;; esac; "$PTM" "$@") >"$T/out" 2>"$T/err"; rc=$?; }

begin "run: the memory plan counts a rotation's scheduled parameter once (a rotation keeps no changes of it)"
mkdir -p "$T/rot"
printf '%%%%MatrixMarket matrix coordinate real general\n1 100000000 1\n1 1 3.5\n' >"$T/rot/r.mtx"
cat >"$T/rot/j.ptm" <<'EOF'
job mf
data R : sparse matrix from "r.mtx" format mm shard rows
param W : matrix[rows(R), 10] = random(0.1) shard like R
param H : matrix[cols(R), 10] = random(0.1)
blocks hb = H rows into workers
schedule rotation over hb
update builtin mf_sgd { rate = 0.2, reg = 0.05 }
stop when sweeps >= 1
EOF
limited run --workers 1 --memory-limit 1G "$T/rot/j.ptm"
want_rc 1
err_has "the job needs 8.2 GiB (the largest part, parameter 'H': 100000000 x 10 values, 7.45 GiB), more than the 1 GiB --memory-limit allows"
end

begin "run: a 15-byte libsvm file that claims 2^31 columns (or 10^8 without --memory-limit) is refused by the memory plan, with its largest part"
limited run --workers 1 --memory-limit 1G "$T/claim/j.ptm"
want_rc 1
err_has "the job needs 144 GiB (the largest part, the fixed schedule's state of 2147483647 blocks, 96 GiB), more than the 1 GiB --memory-limit allows: give --memory-limit SIZE to allow more"
[ -e beta.tsv ] && no "an output was written"
printf '1 100000000:1\n' >"$T/claim/x8.svm"
sed -e 's|"x.svm"|"x8.svm"|' "$T/claim/j.ptm" >"$T/claim/j8.ptm"
limited run --workers 1 "$T/claim/j8.ptm"
want_rc 1
err_has "the job needs 6.71 GiB (the largest part, the fixed schedule's state of 100000000 blocks, 4.47 GiB) from 14 B of data files, more than ptm takes without --memory-limit (1 GiB, or 1024 times the data): give --memory-limit SIZE to allow it"
limited check --data "$T/claim/j8.ptm"
want_rc 0
err_has "ptm: warning: ptm run refuses this job without --memory-limit: 6.71 GiB from 14 B of data files is more than 1 GiB and 1024 times the data"
run run --memory-limit 4X "$T/claim/j.ptm"
want_rc 2
err_has "bad value for --memory-limit: '4X' (want bytes, or a number with K, M, G or T: 512M, 4G)"
end

begin "run: a 130 KB file whose 12000 columns all conflict: the dependency graph keeps at most 16 pairs a non-zero (it took 1 GB)"
awk 'BEGIN { srand(1); printf "1"; for (j = 1; j <= 12000; j++) printf " %d:%.3f", j, 0.5 + rand() / 2; printf "\n" }' \
    >"$T/claim/dense.svm"
cat >"$T/claim/dense.ptm" <<'EOF'
job conflicts
data X : sparse matrix from "dense.svm" format libsvm shard rows
data y : vector from labels(X)
param beta : vector[cols(X)] = 0
param r : vector[rows(X)] = y shard like X
blocks coef = beta each 1
depend coef(i), coef(j) when abs(cos(col(X, i), col(X, j))) > 0.3
schedule dynamic { sample 100 }
update builtin lasso_cd { lambda = 0.1 }
stop when sweeps >= 12
output beta to "dense-beta.tsv"
EOF
# the peak resident memory of the run, from the kernel's accounting
kb=$(cd "$T/claim" && /usr/bin/python3 -c '
import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if rc == 0 else "failed")
' "$PTM_ABS" run --quiet --workers 1 dense.ptm)
case "$PTM" in
*build/*) [ "$kb" != failed ] || no "the run failed" ;; # the sanitizers' own memory
*) awk -v k="$kb" 'BEGIN { exit !(k != "failed" && k < 200000) }' || no "peak memory $kb KB" ;;
esac
[ "$(wc -l <"$T/claim/dense-beta.tsv")" -eq 12000 ] || no "beta.tsv does not have 12000 lines"
end

begin "run: lasso_cd with a cos() dependency and keep independent says what finding the conflicts may cost; under within = sequential, that it needs none"
awk 'BEGIN { srand(2); for (i = 1; i <= 2; i++) { printf "%d", i; for (j = 1; j <= 400; j++) printf " %d:%.3f", j, rand(); printf "\n" } }' \
    >"$T/claim/wide2.svm"
sed -e 's|"dense.svm"|"wide2.svm"|' -e '/^output /d' "$T/claim/dense.ptm" >"$T/claim/wide2.ptm"
# lasso_cd's default, keep moved: no note
run run --quiet --workers 1 "$T/claim/wide2.ptm"
want_rc 0
err_lacks "may cost up to"
sed -i 's/^schedule dynamic { sample 100 }$/schedule dynamic { sample 100, keep independent }/' "$T/claim/wide2.ptm"
run run --quiet --workers 1 "$T/claim/wide2.ptm"
want_rc 0
err_has "note: the dependencies of 'coef' may cost up to 1.6e+05 products of X'X, about 100 sweeps of lasso_cd's updates (two passes over X's 800 non-zeros a sweep); with updates this cheap, \`keep moved\` (the pairs of the blocks that changed only), or within = sequential and no depend, reaches the optimum sooner"
sed -e 's|lambda = 0.1 }|lambda = 0.1, within = sequential }|' "$T/claim/wide2.ptm" >"$T/claim/wide2-seq.ptm"
run run --quiet --workers 2 "$T/claim/wide2-seq.ptm"
want_rc 0
err_has "note: update lasso_cd with within = sequential takes a round's coefficients one after the other (a split round's shares damped), which needs no dependencies: those of 'coef' only cost time (up to 1.6e+05 products of X'X, about 100 sweeps of updates); remove the depend"
err_lacks "may cost up to"
end

begin "check --data: the memory ptm run counts, its largest part, and a warning when the machine has less"
limited check --data "$T/claim/j.ptm"
want_rc 0
out_has "memory: the parameter tables, column indexes and blocks about 144 GiB (the largest part, the fixed schedule's state of 2147483647 blocks, 96 GiB), the data as read"
err_has "ptm: warning: ptm run refuses this job without --memory-limit: 144 GiB from 15 B of data files is more than 1 GiB and 1024 times the data"
run check --data "$T/gd.ptm"
want_rc 0; err_empty
out_has "memory: the parameter tables, column indexes and blocks about "
end

begin "check --data: a size the data makes that run would refuse (0 columns) is found, at the param statement"
printf '1\n-1\n0.5\n' >"$T/claim/z.svm"
sed -e 's|"x.svm"|"z.svm"|' "$T/claim/j.ptm" >"$T/claim/z.ptm"
run check --data "$T/claim/z.ptm"
want_rc 4
err_has "$T/claim/z.ptm:4:1: error: the size of parameter 'beta' is 0 with this data: it must be a whole number from 1 to 2147483647"
run run "$T/claim/z.ptm"
want_rc 1
err_has "the size of parameter 'beta' is 0: it must be a whole number from 1 to 2147483647"
end

avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null)
if [ -n "$avail_kb" ] && [ "$avail_kb" -lt 30000000 ]; then
    begin "check --data: a MatrixMarket header claiming 2e9 x 2e9 on 3 entries is refused at once"
    printf '%%%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 3\n1 1 1\n2 2 2\n3 3 3\n' >"$T/claim/h.mtx"
    cat >"$T/claim/m.ptm" <<'EOF'
job m
data R : sparse matrix from "h.mtx" format mm shard rows
param W : matrix[rows(R), 2] = random(0.1) shard like R
param H : matrix[cols(R), 2] = random(0.1)
blocks hb = H rows into workers
schedule rotation over hb
update builtin mf_sgd { rate = 0.05 }
stop when sweeps >= 1
output H to "H.tsv"
EOF
    limited check --data "$T/claim/m.ptm"
    want_rc 4
    err_has "$T/claim/h.mtx: error: the header's size, 2000000000 x 2000000000, needs 29.8 GiB for the row and column indexes alone (3 entries were read), more than the "
    end
else
    skip "check --data: a MatrixMarket header claiming 2e9 x 2e9" "the machine has 30 GB or more available"
fi

begin "check --data: a missing data file, exit 4"
run check --data "$T/nodata/lasso.ptm"
want_rc 4; err_has "$T/nodata/data/lasso.svm"
end

# The example jobs read what gen writes (the data paths pointed at it).
for m in mf:mf lda:lda logreg:logreg; do
    model=${m%%:*}
    begin "check --data: examples/$model/$model.ptm reads what gen $model writes"
    "$PTM" gen "$model" --seed 4 --out "$T/ex-$model" >/dev/null 2>&1
    sed "s|\"data/|\"$T/ex-$model/|g" "examples/$model/$model.ptm" >"$T/ex-$model.ptm"
    run check --data "$T/ex-$model.ptm"
    want_rc 0; err_empty; out_has "$T/ex-$model.ptm: ok"
    case $model in
    mf) out_has "$T/ex-mf/ratings.mtx: data R: 2000 x 1000, 90000 non-zeros"
        out_has "$T/ex-mf/test.mtx: data T: 2000 x 1000, 10000 non-zeros" ;;
    lda) out_has "$T/ex-lda/docword.txt: data D: 2000 x 5000, "; out_has "5000 words" ;;
    logreg) out_has "$T/ex-logreg/train.svm: data X: 10000 x 1000, "; out_has "labels" ;;
    esac
    end
done

# lda_gibbs keeps the document-topic counts in a parameter named ndk
"$PTM" gen lda --seed 5 --out "$T/ndk" --docs 300 --words 200 --topics 4 --length 30 >/dev/null 2>&1
sed -e "s|\"data/|\"$T/ndk/|g" -e "s|topics = 100|topics = 4|" -e "s|^stop when .*|stop when sweeps >= 10|" \
    -e "s|\"word_topic.tsv\"|\"$T/ndk/wt.tsv\"|" -e "s|\"doc_topic.tsv\"|\"$T/ndk/dt.tsv\"|" \
    examples/lda/lda.ptm >"$T/ndk.ptm"
# ndk_ok: dt.tsv has a row per document summing to its tokens, and each
# topic's column sums to the word-topic counts' column
ndk_ok() { # [TOPICS, 4 by default]
    [ "$(wc -l <"$T/ndk/dt.tsv")" -eq 300 ] || no "dt.tsv does not have 300 rows"
    awk 'NR > 3 { n[$1] += $3 } END { for (d = 1; d <= 300; d++) print n[d] + 0 }' \
        "$T/ndk/docword.txt" >"$T/ndk/len"
    awk '{ s = 0; for (i = 1; i <= NF; i++) s += $i; print s }' "$T/ndk/dt.tsv" | cmp -s - "$T/ndk/len" ||
        no "a row of dt.tsv does not add up to its document's tokens"
    colsum="{ for (i = 1; i <= NF; i++) c[i] += \$i } END { for (i = 1; i <= ${1:-4}; i++) print c[i] }"
    [ "$(awk "$colsum" "$T/ndk/dt.tsv")" = "$(awk "$colsum" "$T/ndk/wt.tsv")" ] ||
        no "a topic's documents and words disagree"
    # and wt.tsv (filled from the kernel's counts only for the output) has
    # a row per word summing to its tokens
    awk 'NR == 2 { W = $1 } NR > 3 { n[$2] += $3 } END { for (w = 1; w <= W; w++) print n[w] + 0 }' \
        "$T/ndk/docword.txt" >"$T/ndk/wlen"
    awk '{ s = 0; for (i = 1; i <= NF; i++) s += $i; print s }' "$T/ndk/wt.tsv" | cmp -s - "$T/ndk/wlen" ||
        no "a row of wt.tsv does not add up to its word's tokens"
}
begin "run: lda_gibbs with ndk: the document-topic counts, consistent with the tokens and nwk"
run run --quiet --workers 2 "$T/ndk.ptm"
want_rc 0
ndk_ok
end

begin "run: lda_gibbs with sampler = sparse, counts = sparse: ndk from the documents' topic lists and nwk from the words' lists, consistent with the tokens"
sed -e "s|sampler = dense|sampler = sparse, counts = sparse|" "$T/ndk.ptm" >"$T/ndk-sparse.ptm"
run run --quiet --workers 2 "$T/ndk-sparse.ptm"
want_rc 0
ndk_ok
end

begin "run: lda_gibbs without a sampler: sparse with many topics against the documents' length (a note says so), dense with few (no note)"
sed -e "s|, sampler = dense||" -e "s|topics = 4|topics = 700|" -e "s|^stop when .*|stop when sweeps >= 2|" \
    "$T/ndk.ptm" >"$T/ndk-auto.ptm"
# nwk and ndk as doubles would take 2.8 MB; the counts and their lists a tenth of that
run run --workers 1 --memory-limit 1M "$T/ndk-auto.ptm"
want_rc 0
grep -q "^note: lda_gibbs samples with sampler = sparse (the default, auto: 700 topics against documents of 30 tokens on average" "$T/err" ||
    no "no note of the sparse sampler"
ndk_ok 700
sed -e "s|topics = 700|topics = 500|" "$T/ndk-auto.ptm" >"$T/ndk-auto2.ptm"
run run --workers 1 "$T/ndk-auto2.ptm"
want_rc 0
! grep -q "^note: lda_gibbs" "$T/err" || no "a note at 500 topics (512 + 2.5 x 30 = 587 take sparse)"
end

begin "check --data: lda_gibbs's nwk and ndk counted as the update keeps them (integer counts, a document's topics in use), not as tables of doubles"
run check --data "$T/ndk-auto.ptm"
want_rc 0
grep -q "^memory: .*as the update's counts" "$T/out" || no "the estimate counts doubles: $(grep memory "$T/out")"
end

begin "run: lda_gibbs with a document of more than 65535 tokens: exit 1, the limit"
mkdir -p "$T/long"
printf '2\n3\n3\n1 1 70000\n1 2 1\n2 3 5\n' >"$T/long/docword.txt"
sed -e "s|$T/ndk/|$T/long/|g" -e 's| vocab "[^"]*"||' "$T/ndk.ptm" >"$T/long.ptm"
run run --quiet --workers 1 "$T/long.ptm"
want_rc 1
err_has "update lda_gibbs: document 1 of 'D' has 70001 tokens, more than the 65535 a document may hold: split it into documents of at most 65535 tokens"
[ -e "$T/long/wt.tsv" ] && no "a refused job wrote its outputs"
end

begin "run: lda_gibbs with an ndk of the wrong shape: exit 1, the shape wanted"
sed -e 's/^param ndk : int matrix\[rows(D), topics\]/param ndk : int matrix[rows(D), 3]/' \
    -e "s|\"$T/ndk/dt.tsv\"|\"$T/ndk/dt-bad.tsv\"|" "$T/ndk.ptm" >"$T/ndk-bad.ptm"
run run --quiet --workers 2 "$T/ndk-bad.ptm"
want_rc 1
err_has "update lda_gibbs: ndk ('ndk') must be a matrix[rows(D), 4] sharded like D (the document-topic counts)"
[ -e "$T/ndk/dt-bad.tsv" ] && no "an output was written"
end

for ex in lasso mf lda logreg; do
    begin "run: $ex example without its data names the ptm gen command, which makes it"
    rm -rf "$T/nogen"; mkdir -p "$T/nogen"
    cp "examples/$ex/$ex.ptm" "$T/nogen/"
    run run --workers 1 "$T/nogen/$ex.ptm"
    want_rc 4
    f=$(sed -n 's|^data [^"]*"\([^"]*\)".*|\1|p' "examples/$ex/$ex.ptm" | head -n 1)
    err_has "$T/nogen/$f: error: cannot open: No such file or directory"
    cmd=$(sed -n "s|^$T/nogen/$f: note: \`\(ptm gen [^\`]*\)\` writes it\$|\1|p" "$T/err")
    [ -n "$cmd" ] || no "no note names a ptm gen command"
    case "$cmd" in "ptm gen $ex --seed 1 --out $T/nogen/data") ;; *) no "the command: $cmd" ;; esac
    "$PTM" ${cmd#ptm } >/dev/null 2>&1 || no "$cmd failed"
    run check --data "$T/nogen/$ex.ptm"
    want_rc 0
    end
done

begin "check without --data does not read data"
run check examples/lasso/lasso.ptm
want_rc 0
end

# ptm run: the Lasso example on a small generated problem.
mkdir -p "$T/rd"
sed -e "s|\"data/lasso.svm\"|\"$T/gd/lasso.svm\"|" -e "s|\"beta.tsv\"|\"$T/rd/beta.tsv\"|" \
    -e "s|\"b.tsv\"|\"$T/rd/b.tsv\"|" -e 's/every 10 rounds/every 1 sweeps/' \
    examples/lasso/lasso.ptm >"$T/run.ptm"

begin "run: the Lasso example runs and writes beta.tsv"
run run --workers 2 "$T/run.ptm"
want_rc 0; out_empty
err_lacks "warning"
err_has "objective"; err_has "rel_change"
[ "$(wc -l <"$T/rd/beta.tsv")" -eq 40 ] || no "beta.tsv does not have 40 lines"
ls "$T/rd" | grep -q tmp && no "a temporary file is left"
# the last line: why it stopped, the part of the rule that held, its value
stop=$(tail -n 1 "$T/err")
sw=$(awk '/^round / { s = $4 } END { print s }' "$T/err")
case "$stop" in
"stopped at sweep $sw (round "*"s): rel_change(objective) < 1e-7 (rel_change(objective) "*")")
    v=${stop##* }
    awk -v c="${v%)}" 'BEGIN { exit !(c < 1e-7) }' || no "it did not hold: $stop" ;;
"stopped at sweep $sw (round "*"s): sweeps >= 100 (sweeps $sw)") [ "$sw" -ge 100 ] || no "$stop" ;;
*) no "last line: $stop" ;;
esac
end

begin "run: a temporary output a killed run of this machine left is removed; a live process's and another machine's stay"
sh -c 'exit 0' &
dead=$!
wait "$dead"
host=$(uname -n | tr -c 'A-Za-z0-9.\n-' '_')
: >"$T/rd/beta.tsv.tmp$dead-$host"
: >"$T/rd/beta.tsv.tmp$$-$host"
: >"$T/rd/beta.tsv.tmp$dead-another.host"
run run --quiet --workers 1 "$T/run.ptm"
want_rc 0
[ -e "$T/rd/beta.tsv.tmp$dead-$host" ] && no "the dead run's temporary file is still there"
[ -e "$T/rd/beta.tsv.tmp$$-$host" ] || no "a live process's temporary file was removed"
[ -e "$T/rd/beta.tsv.tmp$dead-another.host" ] || no "another machine's temporary file was removed"
rm -f "$T/rd/beta.tsv.tmp"*
end

begin "run --quiet --trace: no progress, one JSON object per round, no blocks"
run run --quiet --workers=3 --seed 5 --trace "$T/rd/trace.json" "$T/run.ptm"
want_rc 0; err_lacks "objective"
head -n 1 "$T/rd/trace.json" | grep -q '^{"round": 1, "seconds": [0-9.]*, "updates": [0-9]*, "candidates": 40, "conflicts": [0-9]*, "evaluations": [0-9]*, "schedule_seconds": [0-9.]*, "work_seconds": [0-9.]*, "combine_seconds": [0-9.]*, "objective_seconds": [0-9.]*, "workers": \[{"worker": 1, "seconds": [0-9.]*}, ' ||
    no "first trace line is not as expected"
grep -q '"objective": ' "$T/rd/trace.json" || no "the trace has no objective"
! grep -q '"blocks"' "$T/rd/trace.json" || no "a trace without --trace-blocks lists blocks"
# each round: the coordinator's split adds up to no more than the round's
# wall seconds (1 ms for the clock reads between them)
/usr/bin/python3 - "$T/rd/trace.json" >"$T/py" 2>&1 <<'EOF' || no "$(tail -n 1 "$T/py")"
import json, sys
prev = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if "round" not in r:
        continue  # the run's end
    span, prev = r["seconds"] - prev, r["seconds"]
    if "blocks" in r or any("blocks" in w for w in r["workers"]):
        sys.exit("round %d lists blocks" % r["round"])
    used = sum(r[k] for k in ("schedule_seconds", "work_seconds", "combine_seconds",
                              "objective_seconds"))
    if used > span + 1e-3:
        sys.exit("round %d: %.6f s split of a %.6f s round" % (r["round"], used, span))
EOF
end

begin "run --trace --trace-blocks: every block of each round, and of each worker"
run run --quiet --workers=3 --seed 5 --trace "$T/rd/trace-b.json" --trace-blocks "$T/run.ptm"
want_rc 0; out_empty
head -n 1 "$T/rd/trace-b.json" | grep -q '^{"round": 1, "seconds": [0-9.]*, "blocks": \[[0-9, ]*\], "updates": [0-9]*, "candidates": 40, ' ||
    no "first trace line is not as expected"
# each round: updates is its count of blocks, its workers hold those
# blocks between them, each once; the same run without --trace-blocks had
# the same rounds with the same updates (the seed fixes the schedule)
/usr/bin/python3 - "$T/rd/trace-b.json" "$T/rd/trace.json" >"$T/py" 2>&1 <<'EOF' || no "$(tail -n 1 "$T/py")"
import json, sys
# the rounds (the last line, "stopped", says why the run ended)
rounds = [x for x in map(json.loads, open(sys.argv[1])) if "round" in x]
plain = [x for x in map(json.loads, open(sys.argv[2])) if "round" in x]
for r in rounds:
    if r["updates"] != len(r["blocks"]):
        sys.exit("round %d: updates %d, %d blocks" % (r["round"], r["updates"], len(r["blocks"])))
    held = sorted(b for w in r["workers"] for b in w["blocks"])
    if held != sorted(r["blocks"]) or len(set(held)) != len(held):
        sys.exit("round %d: the workers hold %s, the round %s" % (r["round"], held, r["blocks"]))
if [(r["round"], r["updates"]) for r in rounds] != [(r["round"], r["updates"]) for r in plain]:
    sys.exit("the rounds differ from those of the trace without blocks")
EOF
run plan "$T/rd/trace-b.json"
want_rc 0; ! grep -qF "blocks were not recorded" "$T/out" || no "the table of a trace with blocks says they were not recorded"
run plan "$T/rd/trace.json"
want_rc 0; out_has "# note: the blocks were not recorded (ptm run --trace-blocks records them)"
run plan --svg "$T/rd/trace-nb.svg" "$T/rd/trace.json"
want_rc 0
grep -q 'Note: the blocks were not recorded' "$T/rd/trace-nb.svg" || no "the picture does not say the blocks were not recorded"
end

begin "run --trace-blocks without --trace: usage error"
run run --quiet --trace-blocks "$T/run.ptm"
want_rc 2; err_has "ptm: --trace-blocks says what the trace holds: give --trace FILE too"
end

begin "plan TRACE: the coordinator's time, the workers idle against the rounds' wall seconds"
run plan "$T/rd/trace.json"
want_rc 0
out_has "# coordinator over "
grep -q '^# coordinator over [0-9]* rounds, [0-9.e-]* s: scheduling [0-9.e-]* s ([0-9]*%), the workers'"'"' phases [0-9.e-]* s ([0-9]*%), combining [0-9.e-]* s ([0-9]*%), objective [0-9.e-]* s ([0-9]*%), other [0-9.e-]* s ([0-9]*%)$' "$T/out" ||
    no "no coordinator line as expected"
run plan --svg "$T/rd/trace.svg" "$T/rd/trace.json"
want_rc 0
grep -q '<g id="coordinator">' "$T/rd/trace.svg" || no "the picture has no coordinator lane"
grep -q 'coordinator: scheduling' "$T/rd/trace.svg" || no "the legend does not name the lane's colours"
end

begin "run --trace: each round has every worker's seconds (and blocks with --trace-blocks)"
run run --quiet --workers=2 --trace "$T/rd/trace2.json" "$T/run.ptm"
want_rc 0
head -n 1 "$T/rd/trace2.json" | grep -q '"workers": \[{"worker": 1, "seconds": [0-9.]*}, {"worker": 2, "seconds": [0-9.]*}\]' ||
    no "no seconds for two workers"
run run --quiet --workers=2 --trace "$T/rd/trace2.json" --trace-blocks "$T/run.ptm"
want_rc 0
head -n 1 "$T/rd/trace2.json" | grep -q '"workers": \[{"worker": 1, "blocks": \[[0-9, ]*\], "seconds": [0-9.]*}, {"worker": 2, "blocks": \[[0-9, ]*\], "seconds": [0-9.]*}\]' ||
    no "no blocks and seconds for two workers"
end

# The same job with examples/lasso/lasso.lua (which fits no intercept) as
# its update and objective, and the built-in kernel without the intercept.
sed -e 's|^update builtin lasso_cd.*|update lua "'"$PWD"'/examples/lasso/lasso.lua"|' \
    -e 's|^objective builtin lasso_objective {[^}]*}|objective lua "'"$PWD"'/examples/lasso/lasso.lua" "objective"|' \
    -e "s|\"$T/rd/beta.tsv\"|\"$T/rd/beta-lua.tsv\"|" \
    -e '/^priority/i depend coef(i), coef(j) when abs(cos(col(X, i), col(X, j))) > 0.3' \
    "$T/run.ptm" >"$T/run-lua.ptm"
sed -e 's/, intercept = b//' -e "s|\"$T/rd/beta.tsv\"|\"$T/rd/beta-noi.tsv\"|" "$T/run.ptm" \
    >"$T/run-noi.ptm"

begin "run: the Lua update reaches the built-in kernel's solution"
run run --quiet --workers 2 "$T/run-noi.ptm"
run run --quiet --workers 2 "$T/run-lua.ptm"
want_rc 0; err_lacks "error"
paste "$T/rd/beta-noi.tsv" "$T/rd/beta-lua.tsv" |
    awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-6) bad = 1 } END { exit bad }' ||
    no "beta from lasso.lua differs from the kernel's by more than 1e-6"
end

begin "run: examples/lasso/lasso_lua.ptm reaches the built-in kernel's solution"
sed -e "s|\"data/lasso.svm\"|\"$T/gd/lasso.svm\"|" -e "s|\"beta_lua.tsv\"|\"$T/rd/beta-ex-lua.tsv\"|" \
    -e "s|\"lasso.lua\"|\"$PWD/examples/lasso/lasso.lua\"|g" examples/lasso/lasso_lua.ptm >"$T/ex-lua.ptm"
run run --workers 2 "$T/ex-lua.ptm"
want_rc 0; err_lacks "error"
paste "$T/rd/beta-noi.tsv" "$T/rd/beta-ex-lua.tsv" |
    awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-6) bad = 1 } END { exit bad || NR != 40 }' ||
    no "beta from lasso_lua.ptm differs from the kernel's by more than 1e-6"
end

# keep moved: the same jobs with the filter after the update.
sed -e '/pipeline 1/d' -e 's/^    active .*/    active\n    keep moved/' \
    -e "s|beta-lua.tsv|beta-km-lua.tsv|" "$T/run-lua.ptm" >"$T/run-km-lua.ptm"
sed -e '/pipeline 1/d' -e 's/^    active .*/    active\n    keep moved/' \
    -e 's/within = sequential/within = parallel, split_min = 0/' -e "s|beta-noi.tsv|beta-km.tsv|" \
    -e '/^priority/i depend coef(i), coef(j) when abs(cos(col(X, i), col(X, j))) > 0.3' \
    "$T/run-noi.ptm" >"$T/run-km.ptm"

begin "run: keep moved: lasso.lua and lasso_cd (within = parallel) reach the kernel's solution, the same bits on 1 and 2 workers, fewer pairs computed than keep independent"
run run --quiet --workers 2 --trace "$T/rd/km-lua.json" "$T/run-km-lua.ptm"
want_rc 0; err_lacks "error"
paste "$T/rd/beta-noi.tsv" "$T/rd/beta-km-lua.tsv" |
    awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-6) bad = 1 } END { exit bad || NR != 40 }' ||
    no "beta from lasso.lua under keep moved differs from the kernel's by more than 1e-6"
run run --quiet --workers 2 --trace "$T/rd/km.json" "$T/run-km.ptm"
want_rc 0; err_lacks "error"
cp "$T/rd/beta-km.tsv" "$T/rd/beta-km2.tsv"
paste "$T/rd/beta-noi.tsv" "$T/rd/beta-km.tsv" |
    awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-6) bad = 1 } END { exit bad || NR != 40 }' ||
    no "beta from lasso_cd under keep moved differs from the kernel's by more than 1e-6"
run run --quiet --workers 1 "$T/run-km.ptm"
want_rc 0
cmp -s "$T/rd/beta-km.tsv" "$T/rd/beta-km2.tsv" || no "1 and 2 workers give different bits"
# rounds this small run on the first worker alone by default: the same bits
sed 's/, split_min = 0//' "$T/run-km.ptm" >"$T/run-km-alone.ptm"
run run --quiet --workers 2 "$T/run-km-alone.ptm"
want_rc 0
cmp -s "$T/rd/beta-km.tsv" "$T/rd/beta-km2.tsv" || no "2 workers alone and split give different bits"
# rounds dropped changes (conflicts), and the filter computed fewer pairs
# than the one before the update on the same job (data of 600 columns)
"$PTM" gen lasso --seed 2 --out "$T/gd600" --rows 300 --cols 600 >/dev/null 2>&1
sed -e "s|$T/gd/lasso.svm|$T/gd600/lasso.svm|" "$T/run-km.ptm" >"$T/run-km600.ptm"
sed -e 's/^    keep moved$/    keep independent\n    pipeline 0/' -e "s|beta-km.tsv|beta-ki.tsv|" \
    "$T/run-km600.ptm" >"$T/run-ki.ptm"
run run --quiet --workers 2 --trace "$T/rd/km.json" "$T/run-km600.ptm"
want_rc 0
run run --quiet --workers 2 --trace "$T/rd/ki.json" "$T/run-ki.ptm"
want_rc 0
sum() { grep '^{"round": ' "$1" | sed -e "s/.*\"$2\": \([0-9]*\).*/\1/" | awk '{ s += $1 } END { print s + 0 }'; }
[ "$(sum "$T/rd/km.json" conflicts)" -gt 0 ] || no "keep moved dropped no change"
[ "$(sum "$T/rd/km.json" evaluations)" -lt "$(sum "$T/rd/ki.json" evaluations)" ] ||
    no "keep moved computed $(sum "$T/rd/km.json" evaluations) pairs, keep independent $(sum "$T/rd/ki.json" evaluations)"
run plan --rounds 3 --workers 2 "$T/run-km.ptm"
want_rc 0
out_has "conflicts avoided"
out_has "# note: keep moved: every simulated block changes, so each round's conflicts are the blocks whose changes ptm run would drop after the update"
end

begin "run: damped rounds computed together (within = parallel), blocks of 1 and 2 coefficients: the same bits on 1, 2 and 3 workers, rounds split or on the first worker alone"
for each in 1 2 "1, split_min = 0" "2, split_min = 0"; do
    split=${each#?}
    each=${each%%,*}
    printf '%s\n' "job dd" "const lambda = 0.001" \
        "data X : sparse matrix from \"$T/gd600/lasso.svm\" format libsvm shard rows" \
        "data y : vector from labels(X)" "param beta : vector[cols(X)] = 0" \
        "param r : vector[rows(X)] = y shard like X" "blocks coef = beta each $each" \
        "schedule dynamic { sample 100, active }" "update builtin lasso_cd { lambda = lambda$split }" \
        "objective builtin lasso_objective { lambda = lambda } every 1 sweeps" \
        "stop when sweeps >= 10" "output beta to \"$T/rd/beta-dd.tsv\"" >"$T/dd.ptm"
    for P in 1 2 3; do
        run run --quiet --workers $P --trace "$T/rd/dd.json" "$T/dd.ptm"
        want_rc 0
        cp "$T/rd/beta-dd.tsv" "$T/rd/beta-dd$P.tsv"
    done
    grep -q '"step": ' "$T/rd/dd.json" || no "blocks of $each$split: no round was damped"
    cmp -s "$T/rd/beta-dd1.tsv" "$T/rd/beta-dd2.tsv" || no "blocks of $each$split: 1 and 2 workers differ"
    cmp -s "$T/rd/beta-dd1.tsv" "$T/rd/beta-dd3.tsv" || no "blocks of $each$split: 1 and 3 workers differ"
done
end

begin "check: keep moved takes pipeline 0, and not lasso_cd with within = sequential"
sed -e 's/^    keep moved$/    keep moved\n    pipeline 1/' "$T/run-km.ptm" >"$T/km-bad.ptm"
run check "$T/km-bad.ptm"
want_rc 3
err_has "km-bad.ptm:$(grep -n "pipeline 1" "$T/km-bad.ptm" | cut -d: -f1):5: error: 'keep moved' schedules each round once the last one's changes are known: it takes 'pipeline 0' (remove 'pipeline 1')"
sed -e 's/within = parallel/within = sequential/' "$T/run-km.ptm" >"$T/km-seq.ptm"
run check --set schedule.keep=moved --set schedule.pipeline=1 "$T/run-ki.ptm"
want_rc 3
err_has "run-ki.ptm: error: --set schedule.pipeline=1: 'keep moved' schedules each round once the last one's changes are known: it takes 'pipeline 0'"
run check "$T/km-seq.ptm"
want_rc 3
err_has "km-seq.ptm:$(grep -n "^update" "$T/km-seq.ptm" | cut -d: -f1):16: error: lasso_cd with within = sequential applies each change as it computes it, so 'keep moved' cannot drop a conflicting one after the update: use within = parallel, or keep independent"
end

begin "run: a failing hook writes nothing, exit 1, with the traceback"
printf 'function push(w, S) error("no luck") end\nfunction pull(S, z) return {} end\n' >"$T/fail.lua"
sed -e "s|^update lua .*|update lua \"$T/fail.lua\"|" -e "s|beta-lua.tsv|beta-fail.tsv|" \
    "$T/run-lua.ptm" >"$T/run-fail.ptm"
run run --quiet --workers 2 "$T/run-fail.ptm"
want_rc 1
err_has "ptm: error: worker 1: $T/fail.lua:1: no luck"; err_has "stack traceback:"
err_has "run-fail.ptm:$(grep -n "^update" "$T/run-fail.ptm" | cut -d: -f1):1: note: the update rule is declared here"
[ -e "$T/rd/beta-fail.tsv" ] && no "an output was written"
end

begin "run: Ctrl-C stops after the current round, still writes the outputs, exit 130"
sed -e "s|^stop when .*|stop when sweeps >= 100000000|" -e "s|beta-lua.tsv|beta-int.tsv|" \
    -e "s|every 1 sweeps|every 1000 sweeps|" "$T/run-lua.ptm" >"$T/run-int.ptm"
"$PTM" run --workers 2 "$T/run-int.ptm" >"$T/out" 2>"$T/err" &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"; rc=$?
want_rc 130; err_has "ptm: interrupted; writing the outputs"
grep -q '^stopped at sweep [0-9]* (round [0-9]*, [0-9.]*s): interrupted$' "$T/err" ||
    no "no line says the run was interrupted"
[ "$(wc -l <"$T/rd/beta-int.tsv")" -eq 40 ] || no "beta-int.tsv does not have 40 lines"
end

begin "run: SIGTERM as Ctrl-C, exit 143; Ctrl-C obeyed by a job started with SIGINT ignored"
rm -f "$T/rd/beta-int.tsv"
"$PTM" run --workers 2 "$T/run-int.ptm" >"$T/out" 2>"$T/err" &
pid=$!
sleep 1
kill -TERM "$pid"
wait "$pid"; rc=$?
want_rc 143; err_has "ptm: terminated; writing the outputs"
grep -q '^stopped at sweep [0-9]* (round [0-9]*, [0-9.]*s): terminated (SIGTERM)$' "$T/err" ||
    no "no line says the run was terminated"
[ "$(wc -l <"$T/rd/beta-int.tsv")" -eq 40 ] || no "beta-int.tsv does not have 40 lines"
rm -f "$T/rd/beta-int.tsv"
(trap '' INT; exec "$PTM" run --workers 2 "$T/run-int.ptm") >"$T/out" 2>"$T/err" &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"; rc=$?
want_rc 130; err_has "ptm: interrupted; writing the outputs"
[ "$(wc -l <"$T/rd/beta-int.tsv")" -eq 40 ] || no "beta-int.tsv does not have 40 lines"
end

begin "run: a plan (YAML) gives the same beta as its job, one worker"
"$PTM" compile "$T/run.ptm" -o "$T/rd/run.yaml" 2>/dev/null
run run --quiet --workers 1 "$T/run.ptm"
cp "$T/rd/beta.tsv" "$T/rd/beta1.tsv"
run run --quiet --workers 1 "$T/rd/run.yaml"
want_rc 0
cmp -s "$T/rd/beta.tsv" "$T/rd/beta1.tsv" || no "beta differs"
end

begin "run --set: a large lambda gives beta = 0"
run run --quiet --workers 2 --set lambda=100 "$T/run.ptm"
want_rc 0
[ "$(sort -u "$T/rd/beta.tsv")" = "0" ] || no "beta is not all 0"
end

for args in "--workers 0" "--workers x" "--workers=2000" "--seed -1" "--bogus" "--trace" \
    "--ast"; do
    begin "run $args: usage error"
    # shellcheck disable=SC2086
    run run $args "$T/run.ptm"
    want_rc 2; err_has "try 'ptm help run'"
    end
done

begin "seeds: one limit, 2^53 - 1, for the job's seed, a plan's, and --seed of run, plan and predict"
sed 's/^job lasso/job lasso\nseed 9007199254740991/' "$T/run.ptm" >"$T/seedmax.ptm"
run compile "$T/seedmax.ptm" -o "$T/seedmax.yaml"
want_rc 0
grep -q '^seed: 9007199254740991$' "$T/seedmax.yaml" || no "the plan does not keep the seed exactly"
run check "$T/seedmax.yaml"
want_rc 0
sed 's/^job lasso/job lasso\nseed 9007199254740992/' "$T/run.ptm" >"$T/seedbig.ptm"
run check "$T/seedbig.ptm"
want_rc 3; err_has "the seed must be a whole number from 0 to 2^53 - 1, not 9007199254740992"
sed 's/^seed: 9007199254740991$/seed: 9007199254740992/' "$T/seedmax.yaml" >"$T/seedbig.yaml"
run check "$T/seedbig.yaml"
want_rc 3; err_has "'seed' must be from 0 to 9007199254740991, not 9007199254740992"
for cmd in run plan predict; do
    run "$cmd" --seed 9007199254740992 "$T/run.ptm"
    want_rc 2; err_has "bad value for --seed: '9007199254740992' (want a whole number from 0 to 9007199254740991)"
done
end

# --straggler W:MS[:PROB]: a worker slowed on purpose.
"$PTM" gen logreg --seed 2 --out "$T/gs" --rows 2000 --cols 40 --density 0.2 --nonzeros 8 \
    >/dev/null 2>&1
sed -e "s|\"data/train.svm\"|\"$T/gs/train.svm\"|" -e "s|\"w_ssp.tsv\"|\"$T/gs/w.tsv\"|" \
    -e "s|\"b_ssp.tsv\"|\"$T/gs/b.tsv\"|" \
    -e 's/minibatch 1000/minibatch 100/' -e 's/sweeps >= 20/sweeps >= 3/' \
    examples/logreg/logreg_ssp.ptm >"$T/slow.ptm"
while IFS='|' read -r args want; do
    begin "run $args: usage error"
    # shellcheck disable=SC2086
    run run --workers 2 "$T/slow.ptm" $args
    want_rc 2; err_has "ptm: $want"; err_has "try 'ptm help run'"
    [ -e "$T/gs/w.tsv" ] && no "an output was written"
    end
done <<'EOF'
--straggler|--straggler needs W:MS[:PROB]
--straggler 2|bad value for --straggler: '2' (want W:MS[:PROB], e.g. 2:50 or all:20:0.25)
--straggler 2:5:0.5:1|bad value for --straggler: '2:5:0.5:1' (want W:MS[:PROB], e.g. 2:50 or all:20:0.25)
--straggler=|bad value for --straggler: '' (want W:MS[:PROB], e.g. 2:50 or all:20:0.25)
--straggler 0:5|bad worker in --straggler '0:5': '0' (want a whole number from 1 to 1024, or all)
--straggler x:5|bad worker in --straggler 'x:5': 'x' (want a whole number from 1 to 1024, or all)
--straggler 1025:5|bad worker in --straggler '1025:5': '1025'
--straggler 2:0|bad milliseconds in --straggler '2:0': '0' (want a number greater than 0 and at most 60000)
--straggler 2:-3|bad milliseconds in --straggler '2:-3': '-3'
--straggler 2:nan|bad milliseconds in --straggler '2:nan': 'nan'
--straggler 2:60001|bad milliseconds in --straggler '2:60001': '60001'
--straggler 2:5ms|bad milliseconds in --straggler '2:5ms': '5ms'
--straggler 2:5:0|bad probability in --straggler '2:5:0': '0' (want a number greater than 0 and at most 1)
--straggler 2:5:1.01|bad probability in --straggler '2:5:1.01': '1.01'
--straggler 2:5:|bad probability in --straggler '2:5:': ''
--straggler 3:5|--straggler: there is no worker 3 with --workers 2
--straggler 1:5 --straggler=1:2|--straggler: worker 1 is given twice (again in '1:2')
--straggler all:5 --straggler 2:1|--straggler all slows every worker: give no other --straggler with it (got '2:1' too)
--straggler 2:1 --straggler all:5|--straggler all slows every worker: give no other --straggler with it (got 'all:5' too)
EOF

begin "run --straggler: the trace gives the slowed worker's delay, MS a clock"
run run --quiet --workers 2 --straggler 2:1.5 --trace "$T/gs/t1.json" "$T/slow.ptm"
want_rc 0; err_empty
[ "$(grep -c '^{"round": ' "$T/gs/t1.json")" -eq 3 ] || no "the trace does not have 3 rounds"
# 1000 rows a worker, minibatch 100: 10 clocks a phase, 1.5 ms each
[ "$(grep -c '{"worker": 1, "seconds": [0-9.]*}, {"worker": 2, "seconds": [0-9.]*, "delay": 0.015000}' "$T/gs/t1.json")" -eq 3 ] ||
    no "not a delay of 0.015 s for worker 2 (only) on every line"
end

begin "run --straggler all:MS:PROB: delays drawn from the seed, the same again"
run run --quiet --workers 2 --seed 7 --straggler=all:1:0.5 --trace "$T/gs/t2.json" "$T/slow.ptm"
want_rc 0
grep -o '"delay": [0-9.]*' "$T/gs/t2.json" >"$T/gs/d2"
run run --quiet --workers 2 --seed 7 --straggler all:1:0.5 --trace "$T/gs/t3.json" "$T/slow.ptm"
grep -o '"delay": [0-9.]*' "$T/gs/t3.json" >"$T/gs/d3"
[ "$(wc -l <"$T/gs/d2")" -eq 6 ] || no "not a delay for both workers on every line"
cmp -s "$T/gs/d2" "$T/gs/d3" || no "the delays differ between runs with the same seed"
grep -qv '"delay": 0.010000' "$T/gs/d2" || no "every clock was delayed at probability 0.5"
run run --quiet --workers 2 --seed 8 --straggler all:1:0.5 --trace "$T/gs/t4.json" "$T/slow.ptm"
grep -o '"delay": [0-9.]*' "$T/gs/t4.json" | cmp -s - "$T/gs/d2" && no "another seed gives the same delays"
end

begin "run --straggler: a rule without clocks is refused, exit 1"
run run --quiet --workers 2 --straggler 1:5 "$T/run.ptm"
want_rc 1
err_has "--straggler: update 'lasso_cd' runs no clocks of the parameter store, so there is nothing to slow (logreg_sgd under method = sgd or svrg, and lda_gibbs, do)"
end

begin "run: two jobs is a usage error"
run run "$T/run.ptm" "$T/run.ptm"
want_rc 2; err_has "run takes one job spec"
end

begin "run: a hook that returns nothing stops the run, exit 1, with where it is declared"
run run "$T/small.ptm"
want_rc 1; err_has "hook 'push' returned nil"; err_has "small.ptm:6:1: note: the update rule is declared here"
end

begin "run: a missing data file, exit 4"
run run --quiet "$T/nodata/lasso.ptm"
want_rc 4; err_has "$T/nodata/data/lasso.svm"
end

begin "run: a spec with errors, exit 3"
run run "$T/crlf.ptm"
want_rc 3
end

begin "help run: usage, and every flag run takes"
run help run
want_rc 0; out_has "usage: ptm run"
for flag in --workers --set --seed --trace --trace-blocks --quiet --backend --color --straggler --memory-limit; do
    grep -q -- "  $flag" "$T/out" || no "help run does not describe $flag"
done
end

begin "check --data: a device, a FIFO or a directory as data is refused at once, never read"
mkdir -p "$T/special"
mkfifo "$T/special/fifo"
for src in /dev/zero "$T/special/fifo" "$T/special"; do
    printf 'job s\ndata X : sparse matrix from "%s" format libsvm shard rows\nparam w : vector[cols(X)] = 0\nblocks b = w each 1\nschedule round_robin\nupdate lua "none.lua"\nstop when sweeps >= 1\n' "$src" >"$T/special/s.ptm"
    printf 'function push(w, S) return {} end\nfunction pull(w, S, z) end\n' >"$T/special/none.lua"
    timeout 20 "$PTM" check --data "$T/special/s.ptm" >"$T/out" 2>"$T/err" </dev/null
    rc=$?
    want_rc 4
    err_has "data is read from a regular file (or '-', standard input)"
done
end

begin "a data file given as the job: one line saying what it is not"
printf '1 1:0.5 3:2\n-1 2:1\n' >"$T/special/d.svm"
run run "$T/special/d.svm"
want_rc 2
err_is "$T/special/d.svm: error: not a job spec nor a plan: a job starts with 'job NAME', a plan with 'ptm_plan: 1' (is it a data file?)"
printf 'job: x\n' >"$T/special/p.yaml"
run check "$T/special/p.yaml"
want_rc 3
err_has "p.yaml:1:1: error: not a ptm plan: the mapping has no 'ptm_plan' key"
printf '# a comment first\nptm_plan: 1\n' >"$T/special/q.txt"
run check "$T/special/q.txt"
want_rc 3
err_has "the plan is truncated"
end

begin "outputs never replace inputs: output to the data, --trace to the job, compile -o the job, plan --svg/--dot over the job, data or trace; a missing output directory is found before the run"
mkdir -p "$T/clob/data"
printf '1 1:0.5 2:1\n-1 1:1\n0.5 2:2\n' >"$T/clob/data/x.svm"
cat >"$T/clob/job.ptm" <<'E'
job c
data X : sparse matrix from "data/x.svm" format libsvm shard rows
data y : vector from labels(X)
param beta : vector[cols(X)] = 0
blocks coef = beta each 1
schedule round_robin { per_round 2 }
update builtin lasso_cd { lambda = 0.01 }
stop when sweeps >= 2
output beta to "data/x.svm"
E
cp "$T/clob/data/x.svm" "$T/clob/x.keep"
(cd "$T/clob" && "$PTM_ABS" run job.ptm) >"$T/out" 2>"$T/err"
rc=$?
want_rc 3
err_has "job.ptm:9:16: error: output \"data/x.svm\" is the data file 'data/x.svm': it would be overwritten"
cmp -s "$T/clob/data/x.svm" "$T/clob/x.keep" || no "the data changed"
sed -i 's|^output beta to .*|output beta to "no/such/dir/beta.tsv"|' "$T/clob/job.ptm"
(cd "$T/clob" && "$PTM_ABS" check job.ptm) >"$T/out" 2>"$T/err"
rc=$?
want_rc 3
err_has "cannot write \"no/such/dir/beta.tsv\": the directory 'no/such/dir' does not exist"
sed -i 's|^output beta to .*|output beta to "beta.tsv"|' "$T/clob/job.ptm"
cp "$T/clob/job.ptm" "$T/clob/job.keep"
(cd "$T/clob" && "$PTM_ABS" run --trace job.ptm job.ptm) >"$T/out" 2>"$T/err"
rc=$?
want_rc 2
err_has "--trace job.ptm is the job (job.ptm): it would be overwritten"
cmp -s "$T/clob/job.ptm" "$T/clob/job.keep" || no "the job changed"
run compile "$T/clob/job.ptm" -o "$T/clob/job.ptm"
want_rc 2
err_has "is the job spec: it would be overwritten"
cmp -s "$T/clob/job.ptm" "$T/clob/job.keep" || no "the job changed"
(cd "$T/clob" && "$PTM_ABS" plan --svg job.ptm job.ptm) >"$T/out" 2>"$T/err"
rc=$?
want_rc 2
err_has "--svg job.ptm is the job (job.ptm): it would be overwritten"
cmp -s "$T/clob/job.ptm" "$T/clob/job.keep" || no "plan --svg changed the job"
(cd "$T/clob" && "$PTM_ABS" plan --dot data/x.svm job.ptm) >"$T/out" 2>"$T/err"
rc=$?
want_rc 2
err_has "--dot data/x.svm is a data file of the job (X): it would be overwritten"
cmp -s "$T/clob/data/x.svm" "$T/clob/x.keep" || no "plan --dot changed the data"
(cd "$T/clob" && "$PTM_ABS" run --quiet --trace tr.json job.ptm && cp tr.json tr.keep &&
    "$PTM_ABS" plan --svg tr.json tr.json) >"$T/out" 2>"$T/err"
rc=$?
want_rc 2
err_has "--svg tr.json is the trace it draws: it would be overwritten"
cmp -s "$T/clob/tr.json" "$T/clob/tr.keep" || no "plan --svg changed the trace"
end

begin "checkpoint: its directory is found from the current directory, as outputs are: a file on its path is an error of check, a directory to make or one that exists is not; compile does not look"
mkdir -p "$T/ck/data" "$T/ck/sub"
cp "$T/clob/data/x.svm" "$T/ck/data/x.svm"
sed -e 's|^output beta to .*|output beta to "beta.tsv"\ncheckpoint every 2 rounds to "data/x.svm/ckpt"|' \
    -e 's|"data/x.svm"|"../data/x.svm"|' "$T/clob/job.ptm" >"$T/ck/sub/job.ptm"
(cd "$T/ck" && "$PTM_ABS" check sub/job.ptm) >"$T/out" 2>"$T/err"
rc=$?
want_rc 3
err_has "sub/job.ptm:10:30: error: cannot write checkpoints to \"data/x.svm/ckpt\": 'data/x.svm' is not a directory"
sed -i 's|^checkpoint .*|checkpoint every 5m to "data/x.svm"|' "$T/ck/sub/job.ptm"
(cd "$T/ck" && "$PTM_ABS" check sub/job.ptm) >"$T/out" 2>"$T/err"
rc=$?
want_rc 3
err_has "sub/job.ptm:10:24: error: cannot write checkpoints to \"data/x.svm\": it is not a directory"
(cd "$T/ck" && "$PTM_ABS" compile sub/job.ptm -o plan.yaml) >"$T/out" 2>"$T/err"
rc=$?
want_rc 0
grep -qF 'dir: "data/x.svm"' "$T/ck/plan.yaml" || no "the plan has no checkpoint directory"
sed -i 's|^checkpoint .*|checkpoint every 5m to "new/sub/ckpt/"|' "$T/ck/sub/job.ptm"
(cd "$T/ck" && "$PTM_ABS" check sub/job.ptm) >"$T/out" 2>"$T/err"
rc=$?
want_rc 0
[ ! -e "$T/ck/new" ] || no "check made the checkpoint directory"
sed -i 's|^checkpoint .*|checkpoint every 5m to "data"|' "$T/ck/sub/job.ptm"
(cd "$T/ck" && "$PTM_ABS" check sub/job.ptm) >"$T/out" 2>"$T/err"
rc=$?
want_rc 0
end

begin "outputs: a FIFO is written in place, a link stays a link (its file replaced), a dangling link is written through"
rm -f "$T/clob/fifo" "$T/clob/lnk.tsv" "$T/clob/tgt.tsv" "$T/clob/dang.tsv" "$T/clob/nowhere.tsv"
mkfifo "$T/clob/fifo"
cat "$T/clob/fifo" >"$T/clob/got" &
reader=$!
echo old >"$T/clob/tgt.tsv"
ln -s tgt.tsv "$T/clob/lnk.tsv"
ln -s nowhere.tsv "$T/clob/dang.tsv"
sed -e 's|^output beta to .*|output beta to "fifo"\noutput beta to "lnk.tsv"\noutput beta to "dang.tsv"|' \
    "$T/clob/job.ptm" >"$T/clob/special.ptm"
(cd "$T/clob" && timeout 20 "$PTM_ABS" run --quiet special.ptm) >"$T/out" 2>"$T/err"
rc=$?
want_rc 0
wait "$reader"
[ -p "$T/clob/fifo" ] || no "the FIFO was replaced"
[ -L "$T/clob/lnk.tsv" ] || no "the link was replaced"
[ -L "$T/clob/dang.tsv" ] || no "the dangling link was replaced"
[ "$(wc -l <"$T/clob/got")" -eq 2 ] || no "the FIFO's reader got $(wc -l <"$T/clob/got") lines, not 2"
cmp -s "$T/clob/got" "$T/clob/tgt.tsv" || no "the link's file is not beta"
cmp -s "$T/clob/got" "$T/clob/nowhere.tsv" || no "the dangling link's file is not beta"
ls "$T/clob" | grep -q '\.tmp' && no "a temporary file is left"
end

# devices of our own (as root, mknod): a regression replaces those, not
# the machine's /dev/null and /dev/full
if mknod "$T/clob/null" c 1 3 2>/dev/null && mknod "$T/clob/full" c 1 7 2>/dev/null; then
    begin "outputs: a device (a private /dev/null) is written in place, /dev/full says 'No space left on device'"
    sed -e 's|^output beta to .*|output beta to "null"|' "$T/clob/job.ptm" >"$T/clob/null.ptm"
    (cd "$T/clob" && "$PTM_ABS" run --quiet null.ptm) >"$T/out" 2>"$T/err"
    rc=$?
    want_rc 0
    [ -c "$T/clob/null" ] || no "the device was replaced by a regular file"
    sed -e 's|^output beta to .*|output beta to "full"|' "$T/clob/job.ptm" >"$T/clob/full.ptm"
    (cd "$T/clob" && "$PTM_ABS" run --quiet full.ptm) >"$T/out" 2>"$T/err"
    rc=$?
    want_rc 1
    err_has "cannot write 'full': No space left on device"
    [ -c "$T/clob/full" ] || no "the device was replaced by a regular file"
    (cd "$T/clob" && "$PTM_ABS" plan --svg null job.ptm && "$PTM_ABS" compile job.ptm -o null) \
        >"$T/out" 2>"$T/err" || no "plan --svg or compile -o to a device failed"
    [ -c "$T/clob/null" ] || no "plan --svg or compile -o replaced the device"
    (cd "$T/clob" && "$PTM_ABS" run --quiet --trace full job.ptm) >"$T/out" 2>"$T/err"
    rc=$?
    want_rc 1
    err_has "cannot write trace 'full': No space left on device"
    [ -c "$T/clob/full" ] || no "--trace replaced the device"
    end
else
    skip "outputs: devices written in place" "mknod needs root"
fi

# a full disk of our own (as root: a 16 KB tmpfs): the earlier files stay whole
mkdir -p "$T/clob/tiny"
if mount -t tmpfs -o size=16k tmpfs "$T/clob/tiny" 2>/dev/null; then
    begin "a full disk: the trace and an output fail with 'No space left on device', the earlier files stay as they were, no temporary file left"
    printf 'an earlier trace\n' >"$T/clob/tiny/t.jsonl"
    printf 'an earlier beta\n' >"$T/clob/tiny/beta.tsv"
    head -c 16384 /dev/zero >"$T/clob/tiny/fill" 2>/dev/null # the rest of the disk
    (cd "$T/clob" && "$PTM_ABS" run --quiet --trace tiny/t.jsonl job.ptm) >"$T/out" 2>"$T/err"
    rc=$?
    want_rc 1
    err_has "cannot write trace 'tiny/t.jsonl': No space left on device"
    [ "$(cat "$T/clob/tiny/t.jsonl")" = "an earlier trace" ] || no "the earlier trace changed"
    sed -e 's|^output beta to .*|output beta to "tiny/beta.tsv"|' "$T/clob/job.ptm" >"$T/clob/tiny.ptm"
    (cd "$T/clob" && "$PTM_ABS" run --quiet tiny.ptm) >"$T/out" 2>"$T/err"
    rc=$?
    want_rc 1
    err_has "No space left on device"
    [ "$(cat "$T/clob/tiny/beta.tsv")" = "an earlier beta" ] || no "the earlier beta.tsv changed"
    ls "$T/clob/tiny" | grep -q '\.tmp' && no "a temporary file is left"
    end
    umount "$T/clob/tiny"
else
    skip "a full disk: earlier files stay" "mounting a tmpfs needs root"
fi

begin "run --trace over an earlier trace: replaced whole when the run ends, no temporary file left"
printf 'an earlier trace\n' >"$T/clob/t.jsonl"
(cd "$T/clob" && "$PTM_ABS" run --quiet --trace t.jsonl job.ptm) >"$T/out" 2>"$T/err"
rc=$?
want_rc 0
head -n 1 "$T/clob/t.jsonl" | grep -q '^{"round": 1, ' || no "the trace was not replaced"
ls "$T/clob" | grep -q 't.jsonl.tmp' && no "a temporary file is left"
end

# ---- run: Lua updates under rotation and data_parallel -----------------------

# examples/mf and examples/logreg with generated data, 5 sweeps, outputs in $T.
mkdir -p "$T/mfl" "$T/lrl"
"$PTM" gen mf --seed 2 --out "$T/mfl/data" --rows 200 --cols 90 --rank 4 --ratings 6000 >/dev/null
"$PTM" gen logreg --seed 2 --out "$T/lrl/data" --rows 3000 --cols 200 >/dev/null
cp examples/mf/mf.lua "$T/mfl/"
cp examples/logreg/logreg.lua "$T/lrl/"
for f in mf mf_lua; do
    # mf.lua makes mf_sgd's fixed steps
    sed -e 's/sweeps >= 30/sweeps >= 5/' -e "s|\"W\(_lua\)*.tsv\"|\"$T/mfl/W-$f.tsv\"|" \
        -e 's|^update builtin mf_sgd .*|update builtin mf_sgd { rate = 0.05, decay = 0.95, reg = 0.05, step = fixed }|' \
        -e "s|\"H\(_lua\)*.tsv\"|\"$T/mfl/H-$f.tsv\"|" "examples/mf/$f.ptm" >"$T/mfl/$f.ptm"
done
for f in logreg logreg_ssp logreg_lua; do
    sed -e 's/sweeps >= 20/sweeps >= 5/' -e "s|\"w\(_lua\)*\(_ssp\)*.tsv\"|\"$T/lrl/w-$f.tsv\"|" \
        -e "s|\"b\(_ssp\)*.tsv\"|\"$T/lrl/b-$f.tsv\"|" "examples/logreg/$f.ptm" >"$T/lrl/$f.ptm"
done
upd_line=$(grep -n '^update' "$T/mfl/mf_lua.ptm" | cut -d: -f1)

begin "run: progress without an objective (rounds, sweeps, ratings a second), and an eta from the stop rule's bound"
sed -e '/^objective/d' -e 's|^stop when .*|stop when sweeps >= 40|' \
    -e "s|\"W.tsv\"|\"$T/mfl/W-noobj.tsv\"|" -e "s|\"H.tsv\"|\"$T/mfl/H-noobj.tsv\"|" \
    -e "s|\"data/|\"$T/mfl/data/|g" examples/mf/mf.ptm >"$T/mfl/noobj.ptm"
run run --workers 2 "$T/mfl/noobj.ptm"
want_rc 0
head -n 1 "$T/err" | grep -q '^round [0-9]* sweep 1 ratings/s [0-9.e+]* eta [0-9.e+-]*s elapsed [0-9.]*s$' ||
    no "first line: $(head -n 1 "$T/err")"
grep -q '^round .* objective ' "$T/err" && no "a progress line names an objective"
tail -n 1 "$T/err" | grep -q '^stopped at sweep 40 ' || no "last line: $(tail -n 1 "$T/err")"
# with an objective, the last line before the stop: nothing left
sed -e 's|^stop when .*|stop when sweeps >= 6|' -e "s|\"W.tsv\"|\"$T/mfl/W-eta.tsv\"|" \
    -e "s|\"H.tsv\"|\"$T/mfl/H-eta.tsv\"|" -e "s|\"data/|\"$T/mfl/data/|g" examples/mf/mf.ptm >"$T/mfl/eta.ptm"
run run --workers 2 "$T/mfl/eta.ptm"
want_rc 0
grep '^round' "$T/err" | tail -n 1 | grep -q ' sweep 6 .* eta 0s elapsed ' || no "no eta 0s at sweep 6"
end

begin "run: an objective that gets worse 3 evaluations in a row warns once, with where it started"
sed -e 's|^update builtin .*|update builtin mf_sgd { rate = 0.2, decay = 1, reg = 0.05, step = fixed }|' \
    -e "s|\"W.tsv\"|\"$T/mfl/W-worse.tsv\"|" -e "s|\"H.tsv\"|\"$T/mfl/H-worse.tsv\"|" \
    -e "s|\"data/|\"$T/mfl/data/|g" examples/mf/mf.ptm >"$T/mfl/worse.ptm"
run run --workers 2 "$T/mfl/worse.ptm"
want_rc 0
[ "$(grep -c 'warning' "$T/err")" -eq 1 ] || no "not one warning"
w=$(sed -n 's/^ptm: warning: the objective got worse at 3 evaluations in a row, from \([^ ]*\) at sweep \([0-9]*\) to \([^ ]*\) at sweep \([0-9]*\) (steps too large? a held-out score past its best?)$/\1 \2 \3 \4/p' "$T/err")
[ -n "$w" ] || no "no warning as expected"
# the progress lines: the first 3 rises in a row start and end there
awk -v w="$w" 'BEGIN { split(w, x, " ") }
    /^round / { o[n] = $6; s[n] = $4; n++ }
    END { for (i = 3; i < n; i++) if (o[i] > o[i-1] && o[i-1] > o[i-2] && o[i-2] > o[i-3]) {
              exit !(s[i-3] == x[2] && s[i] == x[4] && o[i-3] == x[1] && o[i] == x[3]) }
          exit 1 }' "$T/err" || no "the progress lines do not rise 3 times from sweep ${w#* }"
end

begin "run: mf_lua.ptm (mf.lua) gives mf.ptm's W and H, bit for bit, on 2 workers"
run run --quiet --workers 2 "$T/mfl/mf.ptm"
run run --quiet --workers 2 "$T/mfl/mf_lua.ptm"
want_rc 0; err_empty
cmp -s "$T/mfl/W-mf.tsv" "$T/mfl/W-mf_lua.tsv" || no "W differs"
cmp -s "$T/mfl/H-mf.tsv" "$T/mfl/H-mf_lua.tsv" || no "H differs"
end

begin "run: a hook error under rotation: exit 1, the traceback, nothing written"
printf 'function push(w, b, job)\n    if w.id == 2 then error("no luck") end\nend\n' >"$T/mfl/fail.lua"
sed -e 's|"mf.lua"|"fail.lua"|' -e 's|-mf_lua.tsv|-fail.tsv|' "$T/mfl/mf_lua.ptm" >"$T/mfl/fail.ptm"
run run --quiet --workers 2 "$T/mfl/fail.ptm"
want_rc 1
err_has "ptm: error: worker 2: $T/mfl/fail.lua:2: no luck"; err_has "stack traceback:"
err_has "fail.ptm:$upd_line:1: note: the update rule is declared here"
[ -e "$T/mfl/W-fail.tsv" ] || [ -e "$T/mfl/H-fail.tsv" ] && no "an output was written"
end

begin "run: under rotation a hook cannot touch another worker's block"
printf 'function push(w, b, job)\n    w.H:row(1):scale(2)\nend\n' >"$T/mfl/race.lua"
sed -e 's|"mf.lua"|"race.lua"|' -e 's|-mf_lua.tsv|-race.tsv|' "$T/mfl/mf_lua.ptm" >"$T/mfl/race.ptm"
run run --quiet --workers 2 "$T/mfl/race.ptm"
want_rc 1
err_has "ptm: error: worker 2: $T/mfl/race.lua:2: row 1 of 'H' belongs to another worker in this round (this worker holds rows 46..90)"
end

begin "plan TRACE of a data_parallel run: phases drawn busy, updates count minibatches, the title says how rounds are numbered"
run run --quiet --workers 2 --trace "$T/lrl/dp.json" "$T/lrl/logreg_ssp.ptm"
want_rc 0
head -n 1 "$T/lrl/dp.json" | grep -q '"seconds": [0-9.]*, "updates": [1-9][0-9]*,' || no "no minibatches counted"
run plan --svg "$T/lrl/dp.svg" "$T/lrl/dp.json"
want_rc 0
grep -q '<title>round [0-9]*, worker 1: seconds [0-9.e-]*</title>' "$T/lrl/dp.svg" ||
    no "no busy bar for worker 1"
grep -q 'rounds (numbered [0-9]* to [0-9]* by the run)' "$T/lrl/dp.svg" || no "the title does not say how rounds are numbered"
end

# ---- plan: dry runs of data_parallel (the workers' clocks in time) ------------

# 3000 rows on 4 workers in minibatches of 50: phases of 15 clocks, long
# against the staleness 2, as a run's phases should be.
DP="--workers 4 --rounds 20 --set schedule.minibatch=50"
# "# NAME: the last clock ends at T ms; W ms blocked of ..." -> W
blocked_ms() { sed -n "s/^# $1: the last clock ends at [0-9.e+]* ms; \([0-9.e+]*\) ms blocked of .*/\1/p" "$2"; }

begin "plan: the SSP example dry-runs: each worker's clocks, busy and blocked time, the totals against BSP"
run plan $DP --straggler all:3:0.3 --svg "$T/lrl/ssp.svg" "$T/lrl/logreg_ssp.ptm"
want_rc 0; err_empty
out_has "# dry run of job 'logreg_ssp' ($T/lrl/logreg_ssp.ptm): schedule data_parallel, 4 workers, 20 clocks each, consistency ssp 2, seed 1"
out_has "stragglers all:3:0.3 (worker W's clock takes MS ms longer with probability PROB"
out_has "a phase is 15 clocks and ends in a barrier"
out_has "worker  clocks       busy    blocked  stale  bsp blocked"
out_has "# ssp 2 against bsp: "
# every worker: 20 clocks, busy + blocked = the end of the last clock
end_ms=$(sed -n 's/^# ssp 2: the last clock ends at \([0-9.e+]*\) ms;.*/\1/p' "$T/out")
awk -v e="$end_ms" '/^ *[0-9]+ +20 +[0-9.e+]+ +[0-9.e+]+ +[0-9]+ +[0-9.e+]+$/ { n++; if ($3 + $4 != e) bad = 1 }
    END { exit !(n == 4 && !bad) }' "$T/out" || no "a worker's busy and blocked time do not add up to $end_ms ms"
cp "$T/out" "$T/lrl/ssp.txt"
grep -q '^<svg ' "$T/lrl/ssp.svg" || no "no <svg> element"
grep -q '>staleness window: ' "$T/lrl/ssp.svg" || no "no legend entry for the staleness window"
grep -q '>stale read: values up to s clocks old</text>' "$T/lrl/ssp.svg" || no "no legend entry for stale reads"
grep -q '>blocked: s clocks ahead of the slowest' "$T/lrl/ssp.svg" || no "no legend entry for blocked time"
grep -q '<title>worker 1, clock 1: [0-9]* ms from 0 to [0-9]*[ ;].*waited 0 before it' "$T/lrl/ssp.svg" || no "no tooltip of worker 1's first clock"
ls "$T/lrl" | grep -q tmp && no "a temporary file is left"
end
if command -v xmllint >/dev/null 2>&1; then
    begin "plan --svg of a data_parallel dry run: well-formed XML"
    xmllint --noout "$T/lrl/ssp.svg" 2>"$T/err" || no "xmllint rejects it"
    end
else
    skip "plan --svg of a data_parallel dry run: well-formed XML" "no xmllint (scripts/deps.sh installs libxml2-utils)"
fi
if command -v rsvg-convert >/dev/null 2>&1; then
    begin "plan --svg of a data_parallel dry run: rsvg-convert makes a PNG of it"
    rsvg-convert -o "$T/lrl/ssp.png" "$T/lrl/ssp.svg" 2>"$T/err" || no "rsvg-convert failed"
    [ -s "$T/lrl/ssp.png" ] || no "the PNG is empty"
    end
else
    skip "plan --svg of a data_parallel dry run: rsvg-convert makes a PNG of it" "no rsvg-convert (scripts/deps.sh installs librsvg2-bin)"
fi

begin "plan: with stragglers at random BSP waits more than SSP; one slow worker bounds both alike"
ws=$(blocked_ms "ssp 2" "$T/lrl/ssp.txt"); wb=$(blocked_ms bsp "$T/lrl/ssp.txt")
awk -v s="$ws" -v b="$wb" 'BEGIN { exit !(s != "" && b != "" && s + 0 < b + 0) }' ||
    no "blocked under ssp 2: '$ws' ms, under bsp: '$wb' ms"
run plan $DP --straggler 2:3 "$T/lrl/logreg_ssp.ptm"
want_rc 0
ws=$(blocked_ms "ssp 2" "$T/out"); wb=$(blocked_ms bsp "$T/out")
# worker 2 takes 4 ms a clock, every clock: 80 ms, the others 60 ms blocked each
[ "$ws" = 180 ] && [ "$wb" = 180 ] || no "blocked under ssp 2: '$ws' ms, under bsp: '$wb' ms, want 180 both"
out_has "# ssp 2 against bsp: 0 ms less blocked (0% less)"
end

begin "plan: staleness 0 is BSP: the same clocks as bsp, and nothing to compare"
sed 's/consistency ssp 2/consistency ssp 0/' "$T/lrl/logreg_ssp.ptm" >"$T/lrl/ssp0.ptm"
sed 's/consistency ssp 2/consistency bsp/' "$T/lrl/logreg_ssp.ptm" >"$T/lrl/bsp.ptm"
run plan $DP --straggler all:3:0.3 "$T/lrl/ssp0.ptm"
want_rc 0
out_has "consistency bsp, seed 1"
grep -q 'against bsp' "$T/out" && no "a bsp job is compared with itself"
grep '^# bsp: the last clock' "$T/out" >"$T/lrl/ssp0.tot"
[ -s "$T/lrl/ssp0.tot" ] || no "no totals of bsp"
grep '^# bsp: the last clock' "$T/lrl/ssp.txt" | cmp -s - "$T/lrl/ssp0.tot" || no "ssp 0's totals differ from bsp's"
sed -n '/^ clock worker/,/^# per worker/p' "$T/out" >"$T/lrl/ssp0.clocks"
run plan $DP --straggler all:3:0.3 "$T/lrl/bsp.ptm"
want_rc 0
sed -n '/^ clock worker/,/^# per worker/p' "$T/out" | cmp -s - "$T/lrl/ssp0.clocks" || no "ssp 0's clocks differ from bsp's"
end

begin "plan: bad stragglers and flags for a data_parallel dry run"
run plan --workers 4 --straggler 5:3 "$T/lrl/logreg_ssp.ptm"
want_rc 2; out_empty; err_has "ptm: --straggler: there is no worker 5 with --workers 4"
run plan --workers 4000 --straggler 2:3 "$T/lrl/logreg_ssp.ptm"
want_rc 2; out_empty; err_has "bad value for --workers: '4000'"
run plan --workers 2 --straggler 2:0 "$T/lrl/logreg_ssp.ptm"
want_rc 2; out_empty; err_has "bad milliseconds in --straggler '2:0': '0' (want a number greater than 0 and at most 60000)"
run plan --workers 2 --straggler 2:3:1.5 "$T/lrl/logreg_ssp.ptm"
want_rc 2; out_empty; err_has "bad probability in --straggler '2:3:1.5'"
run plan --workers 2 --straggler two:3 "$T/lrl/logreg_ssp.ptm"
want_rc 2; out_empty; err_has "bad worker in --straggler 'two:3'"
run plan --workers 2 --straggler 1:3 --straggler=1:4 "$T/lrl/logreg_ssp.ptm"
want_rc 2; out_empty; err_has "--straggler: worker 1 is given twice (again in '1:4')"
run plan --workers 2 --straggler all:3 --straggler 1:4 "$T/lrl/logreg_ssp.ptm"
want_rc 2; out_empty; err_has "--straggler all slows every worker"
run plan --workers 2 --straggler
want_rc 2; out_empty; err_has "--straggler needs a value"
run plan --straggler 1:3 "$T/lrl/dp.json"
want_rc 2; out_empty; err_has "--straggler is for a dry run of a job, not for a trace"
# 3000 rows: at most 3000 workers, but 1024 is --workers' limit; a job
# whose data has fewer rows than workers lowers them, and a straggler
# beyond them is the plan's error
printf '1 1:1\n-1 1:2\n1 2:1\n' >"$T/lrl/three.svm"
sed "s|\"data/train.svm\"|\"$T/lrl/three.svm\"|" "$T/lrl/logreg_ssp.ptm" >"$T/lrl/three.ptm"
run plan --workers 8 --straggler 5:3 "$T/lrl/three.ptm"
want_rc 1; out_empty; err_has "--straggler: there is no worker 5: the run has 3 workers (fewer than --workers: the data has too few rows)"
run plan --workers 2 --straggler 1:3 --svg "$T/lrl/rr.svg" examples/lasso/lasso.ptm
want_rc 1; out_empty; err_has "--straggler: schedule dynamic runs rounds, not clocks"
[ -e "$T/lrl/rr.svg" ] && no "an SVG was written"
run plan --workers 2 --dot "$T/lrl/dp.dot" "$T/lrl/logreg_ssp.ptm"
want_rc 1; out_empty; err_has "--dot: schedule data_parallel has no blocks, so no dependency graph to draw"
[ -e "$T/lrl/dp.dot" ] && no "a DOT file was written"
run plan --workers 1024 --rounds 100000 "$T/lrl/logreg_ssp.ptm"
want_rc 1; out_empty; err_has "clocks a dry run simulates: ask for fewer rounds"
end

begin "run: logreg_lua.ptm (logreg.lua) under SSP comes within 1e-3 of logreg_ssp.ptm's objective"
run run --workers 2 "$T/lrl/logreg_ssp.ptm"
want_rc 0
fk=$(last_objective "$T/err")
run run --workers 2 "$T/lrl/logreg_lua.ptm"
want_rc 0
fl=$(last_objective "$T/err")
awk -v a="$fk" -v b="$fl" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d < 1e-3) }' ||
    no "objective $fl, the kernel's $fk"
[ -s "$T/lrl/w-logreg_lua.tsv" ] || no "no w written"
end

# ---- run: damped rounds lower the blocks dynamic offers -----------------------

# Non-negative columns and labels of a large mean: rounds of 100 coefficients
# computed together overshoot and are damped (spec/runtime.md, Damped rounds).
mkdir -p "$T/offer"
"$PTM" gen lasso --seed 3 --out "$T/offer" --rows 400 --cols 200 --density 0.05 --group 5 \
    --nonnegative --offset 10 >/dev/null 2>&1
printf '%s\n' "job o" "const lambda = 0.0001" \
    "data X : sparse matrix from \"$T/offer/lasso.svm\" format libsvm shard rows" \
    "data y : vector from labels(X)" "param beta : vector[cols(X)] = 0" \
    "param r : vector[rows(X)] = y shard like X" "blocks coef = beta each 1" \
    "priority coef(j) = abs(delta(beta[j])) + 1e-4" "schedule dynamic { sample 100 }" \
    "update builtin lasso_cd { lambda = lambda }" \
    "objective builtin lasso_objective { lambda = lambda } every 1 sweeps" \
    "stop when sweeps >= 12" "output beta to \"$T/offer/beta.tsv\"" >"$T/offer/o.ptm"
for w in 1 2; do
    begin "run: dynamic, $w worker(s): after a round of n blocks damped to step t the next rounds offer ceil(n t), one more (2%) after each round not damped"
    run run --workers $w --trace "$T/offer/t$w.json" "$T/offer/o.ptm"
    want_rc 0
    grep -q ' damped [0-9]* offer [0-9]* .*elapsed ' "$T/err" || no "no progress line says 'damped N offer K'"
    [ "$(grep -c 'note: round [0-9]* was damped' "$T/err")" = 1 ] || no "not one note on the first lowering"
    err_has "Damped rounds); lasso_cd { within = sequential } takes a round's coefficients one after the other, which one worker never damps"
    /usr/bin/python3 - "$T/offer/t$w.json" "$T/err" >"$T/out" 2>&1 <<'EOF2' || no "$(cat "$T/out")"
import json, math, re, sys
rounds = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"round"')]
note = re.search(r"note: round (\d+) was damped \(step ([0-9.e-]+)\): from now on dynamic "
                 r"offers at most (\d+) blocks a round", open(sys.argv[2]).read())
assert note, "no note with the round, the step and the blocks offered"
N, offer, lowered, grew = 100, 0, 0, 0
for i, x in enumerate(rounds):
    # the round was computed when the one before it was handed out (pipeline
    # 1), under the limit in force after the round before that
    assert x["candidates"] <= (rounds[i - 2].get("offer", N) if i >= 2 else N), \
        "round %d has %d candidates over the %s offered" % (x["round"], x["candidates"],
                                                          rounds[i - 2].get("offer"))
    t = x.get("step", 1)
    if t < 1:
        want = math.ceil(x["updates"] * t)
        lowered += want < N
        if lowered == 1 and want < N:
            assert int(note.group(1)) == x["round"] and int(note.group(3)) == want, "the note"
    elif offer:
        want = max(offer + 1, math.ceil(offer * 1.02))
        grew += 1
    else:
        want = N
    want = want if want < N else 0
    assert x.get("offer", 0) == want, "round %d (%d blocks, step %g): offer %s, want %d" % (
        x["round"], x["updates"], t, x.get("offer"), want)
    offer = want
objs = [x["objective"] for x in rounds if "objective" in x]
assert all(b <= a * (1 + 1e-14) for a, b in zip(objs, objs[1:])), "the objective rose"
assert lowered >= 3 and grew >= 10, "lowered %d times, grew %d" % (lowered, grew)
assert sum(x["candidates"] < N for x in rounds) >= 10, "few rounds below the sample"
EOF2
    end
done

begin "run: lasso_cd without an intercept on labels of mean 10: a note says so, with the mean and its ratio to the standard deviation"
run run --quiet --workers 1 "$T/offer/o.ptm"
want_rc 0
/usr/bin/python3 - "$T/offer/lasso.svm" "$T/err" >"$T/out" 2>&1 <<'EOF2' || no "$(cat "$T/out")"
import re, sys
y = [float(l.split()[0]) for l in open(sys.argv[1]) if l.strip()]
m = sum(y) / len(y)
sd = (sum((v - m) ** 2 for v in y) / len(y)) ** 0.5
note = re.findall(r"note: update lasso_cd has no intercept, and the labels' mean \(([^)]*)\) is "
                  r"([0-9.e+]+) times their standard deviation: .* `intercept = b` fit it "
                  r"directly", open(sys.argv[2]).read())
assert len(note) == 1, "%d notes" % len(note)
assert note[0] == ("%.3g" % m, "%.3g" % (abs(m) / sd)), "%s, want %.3g and %.3g" % (note[0], m, abs(m) / sd)
EOF2
end

begin "run: lasso_cd with an intercept, or on centred labels: no note on the intercept"
sed -e 's|^param r .*|param b : vector[1] = 0\n&|' -e 's|lasso_cd { lambda = lambda }|lasso_cd { lambda = lambda, intercept = b }|' \
    -e 's|lasso_objective { lambda = lambda }|lasso_objective { lambda = lambda, intercept = b }|' \
    "$T/offer/o.ptm" >"$T/offer/ob.ptm"
grep -q 'intercept = b }' "$T/offer/ob.ptm" || no "the job's intercept was not added"
run run --quiet --workers 1 "$T/offer/ob.ptm"
want_rc 0
err_lacks "no intercept"
"$PTM" gen lasso --seed 3 --out "$T/offer/c" --rows 400 --cols 200 --density 0.05 --group 5 >/dev/null 2>&1
sed "s|$T/offer/lasso.svm|$T/offer/c/lasso.svm|" "$T/offer/o.ptm" >"$T/offer/oc.ptm"
run run --quiet --workers 1 "$T/offer/oc.ptm"
want_rc 0
err_lacks "no intercept"
end

begin "run: dynamic with damped rounds, 1 and 2 workers: the same candidates, steps and offers"
/usr/bin/python3 - "$T/offer/t1.json" "$T/offer/t2.json" >"$T/out" 2>&1 <<'EOF2' || no "$(cat "$T/out")"
import json, sys
def load(f):
    return [(x["candidates"], x["updates"], x.get("step"), x.get("offer"))
            for x in (json.loads(l) for l in open(f) if l.startswith('{"round"'))]
a, b = load(sys.argv[1]), load(sys.argv[2])
assert a == b and len(a) > 20, "they differ (%d and %d rounds)" % (len(a), len(b))
EOF2
end

# ---- run: indices out of range in depend, priority and cost -------------------

# A constant index is checked against what is known before the data is read;
# the others when the scheduler evaluates them, on 200 columns here.
mkdir -p "$T/ix"
"$PTM" gen lasso --seed 1 --out "$T/ix/data" --rows 300 --cols 200 --density 0.05 >/dev/null 2>&1
sed -e "s|\"beta.tsv\"|\"$T/ix/beta.tsv\"|" -e "s|\"b.tsv\"|\"$T/ix/b.tsv\"|" \
    -e '/^priority/i depend coef(i), coef(j) when abs(cos(col(X, i), col(X, j))) > 0.3' \
    examples/lasso/lasso.ptm >"$T/ix/base.ptm"
ixline() { grep -n "^$1" "$T/ix/base.ptm" | cut -d: -f1; }

begin "run: depend reading column 201 of a 200-column X: a located error, nothing written"
sed -e 's/col(X, j))) > 0.3/col(X, j))) > 0.3 and nnz(col(X, 201)) >= 0/' "$T/ix/base.ptm" >"$T/ix/dep.ptm"
run run --quiet --workers 2 "$T/ix/dep.ptm"
want_rc 1
err_has "the depend predicate 'abs(cos(col(X, i), col(X, j))) > 0.3 and nnz(col(X, 201)) >= 0' reads column 201 of 'X', out of range (1..200)"
err_has "dep.ptm:$(ixline depend):1: note: it is declared here"
[ -e "$T/ix/beta.tsv" ] && no "beta was written"
end

begin "run: a cost reading past the last column names the block"
sed -e 's/^cost coef(j) = nnz(col(X, j))/cost coef(j) = nnz(col(X, j + 1))/' "$T/ix/base.ptm" >"$T/ix/cost.ptm"
run run --quiet --workers 2 "$T/ix/cost.ptm"
want_rc 1
err_has "the cost of coef(200) 'nnz(col(X, j + 1))' reads column 201 of 'X', out of range (1..200)"
err_has "cost.ptm:$(ixline cost):1: note: it is declared here"
end

begin "run: a priority reading past the end of beta names the block"
sed -e 's/^priority coef(j) = abs(delta(beta\[j\]))/priority coef(j) = abs(delta(beta[j + 5]))/' \
    "$T/ix/base.ptm" >"$T/ix/prio.ptm"
run run --quiet --workers 2 "$T/ix/prio.ptm"
want_rc 1
err_has "the priority of coef(196) 'abs(delta(beta[j + 5]))' reads index 201 of 'beta', out of range (1..200)"
err_has "prio.ptm:$(ixline priority):1: note: it is declared here"
end

begin "check: a constant index out of a declared size is refused before any data is read"
sed -e 's/^param beta : vector\[cols(X)\]/param beta : vector[200]/' \
    -e 's/^priority coef(j) = abs(delta(beta\[j\]))/priority coef(j) = abs(delta(beta[j])) + beta[201]/' \
    -e 's/col(X, j))) > 0.3/col(X, 0))) > 0.3/' "$T/ix/base.ptm" >"$T/ix/const.ptm"
run check "$T/ix/const.ptm"
want_rc 3
err_has "error: column 0 of 'X' is out of range: indices count from 1"
err_has "error: index 201 of 'beta' is out of range (1..200)"
end

# ---- run: init hooks, and examples/kmeans -------------------------------------

mkdir -p "$T/km"
/usr/bin/python3 examples/kmeans/blobs.py --n 30 --out "$T/km/small.svm"
cat >"$T/km/init.lua" <<'EOF'
function init(w, job)
    w.v[w.id] = w.v[w.id] + 10 * w.id -- each worker moves its own element
    w.r:fill(w.id)                     -- and its rows of r
    if w.id == job.bad then local t = nil; return t.x end
end
function push(w, S) return w:vector(#S, 0) end
function pull(S, z) return z[1] end
EOF
cat >"$T/km/init.ptm" <<EOF
job init
const bad = 0
data X : sparse matrix from "$T/km/small.svm" format libsvm shard rows
param u : vector[4] = 0
param v : vector[4] = 1
param r : vector[rows(X)] = 0 shard like X
blocks b = u each 1
schedule round_robin { per_round 4 }
update lua "init.lua"
stop when rounds >= 1
output v to "$T/km/v.tsv"
output r to "$T/km/r.tsv"
EOF

begin "run: init on every worker, the changes to a shared parameter summed, its rows of another"
run run --quiet --workers 3 "$T/km/init.ptm"
want_rc 0; err_empty
[ "$(tr '\n' ' ' <"$T/km/v.tsv")" = "11 21 31 1 " ] || no "v is $(tr '\n' ' ' <"$T/km/v.tsv")"
[ "$(sort -u "$T/km/r.tsv" | tr '\n' ' ')" = "1 2 3 " ] || no "r is not each worker's number"
end

begin "run: a failing init: exit 1, the traceback and where the update is declared"
run run --quiet --workers 3 --set bad=2 "$T/km/init.ptm"
want_rc 1
err_has "worker 2: $T/km/init.lua:4: attempt to index a nil value (local 't')"
err_has "in function 'init'"
err_has "init.ptm:9:1: note: the update rule is declared here"
end

begin "compile: an init of the wrong shape is refused"
printf 'function init(w, S, job) end\nfunction push() end\nfunction pull() end\n' >"$T/km/shape.lua"
sed -e 's|"init.lua"|"shape.lua"|' "$T/km/init.ptm" >"$T/km/shape.ptm"
run compile "$T/km/shape.ptm"
want_rc 3
err_has "error: \"shape.lua\" defines 'init' with 3 parameters; the init hook is init(w, job)"
end

# examples/kmeans: Lloyd's algorithm in Lua, on blobs.py's points (seed 3:
# the five blobs found; seed 2: a local minimum from the same kind of start).
# At the end every centroid must be the mean of the points nearest to it,
# and the within-cluster sum of squares no worse than scikit-learn's KMeans
# from the same initial centroids.
cat >"$T/km/check.py" <<'EOF'
import sys
import numpy as np
from sklearn.cluster import KMeans
points, cfile, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [[float(t.split(":")[1]) for t in line.split()[1:]] for line in open(points)]
X = np.array(rows)
C = np.loadtxt(cfile, ndmin=2)
n = len(X)
C0 = X[[(c * n) // k for c in range(k)]]  # kmeans.lua's init: row 1 + floor((c - 1) n / k)
d = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
lab = d.argmin(axis=1)
for c in range(k):
    if (lab == c).any() and not np.allclose(C[c], X[lab == c].mean(axis=0), rtol=0, atol=1e-9):
        sys.exit("centroid %d is not the mean of its points" % (c + 1))
ours = d.min(axis=1).sum()
ref = KMeans(n_clusters=k, init=C0, n_init=1, max_iter=1000, tol=0, algorithm="lloyd").fit(X)
if ours > ref.inertia_ * (1 + 1e-9):
    sys.exit("sum of squares %.12g, scikit-learn's %.12g" % (ours, ref.inertia_))
print("%.10g %.10g" % (ours, ref.inertia_))
EOF
for s in 3 2; do
    mkdir -p "$T/km/$s"
    /usr/bin/python3 examples/kmeans/blobs.py --seed $s --out "$T/km/$s/data/points.svm"
    cp examples/kmeans/kmeans.lua "$T/km/$s/"
    sed -e "s|\"C.tsv\"|\"$T/km/$s/C.tsv\"|" examples/kmeans/kmeans.ptm >"$T/km/$s/kmeans.ptm"
    begin "run: kmeans.ptm (seed $s): each centroid the mean of its points, no worse than scikit-learn"
    run run --quiet --workers 2 "$T/km/$s/kmeans.ptm"
    want_rc 0; err_empty
    /usr/bin/python3 "$T/km/check.py" "$T/km/$s/data/points.svm" "$T/km/$s/C.tsv" 5 >"$T/km/$s/py" 2>&1 ||
        no "$(tail -n 1 "$T/km/$s/py")"
    end
done

begin "run: kmeans.ptm gives the same centroids on 1, 2 and 3 workers (within 1e-9)"
cp "$T/km/3/C.tsv" "$T/km/C2.tsv"
run run --quiet --workers 1 "$T/km/3/kmeans.ptm"
cp "$T/km/3/C.tsv" "$T/km/C1.tsv"
run run --quiet --workers 3 "$T/km/3/kmeans.ptm"
want_rc 0
paste "$T/km/C1.tsv" "$T/km/3/C.tsv" "$T/km/C2.tsv" | awk '{ m = NF / 3
    for (j = 1; j <= m; j++) { a = $j; b = $(j + m); c = $(j + 2 * m)
        if ((a - b) ^ 2 > 1e-18 || (a - c) ^ 2 > 1e-18) bad = 1 } } END { exit bad }' ||
    no "the centroids differ"
end

# ptm predict of a Lua model: kmeans.lua's predict(w, job) on new points,
# each row's nearest centroid and the sum of squares, against numpy's.
cat >"$T/km/pred.py" <<'EOF'
import sys
import numpy as np
points, cfile, pfile, inertia = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
X = np.array([[float(t.split(":")[1]) for t in l.split()[1:]] for l in open(points)])
C = np.loadtxt(cfile, ndmin=2)
d = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
pred = np.loadtxt(pfile)
if len(pred) != len(X) or (pred != d.argmin(axis=1) + 1).any():
    sys.exit("predictions are not the nearest centroids")
if abs(inertia - d.min(axis=1).sum()) > 1e-9 * d.min(axis=1).sum():
    sys.exit("inertia %.12g, numpy's %.12g" % (inertia, d.min(axis=1).sum()))
EOF
begin "predict: a Lua model's predict hook (kmeans.lua): nearest centroids and inertia, as numpy"
/usr/bin/python3 examples/kmeans/blobs.py --seed 7 --n 500 --out "$T/km/new.svm"
run predict "$T/km/3/kmeans.ptm" --data "$T/km/new.svm" -o "$T/km/pred.tsv"
want_rc 0
out_has "predicted 500 rows of $T/km/new.svm to $T/km/pred.tsv"
inertia=$(awk '$1 == "inertia" { print $2 }' "$T/out")
[ -n "$inertia" ] || no "no inertia printed"
/usr/bin/python3 "$T/km/pred.py" "$T/km/new.svm" "$T/km/3/C.tsv" "$T/km/pred.tsv" "${inertia:-0}" \
    >"$T/km/py" 2>&1 || no "$(tail -n 1 "$T/km/py")"
end

begin "predict: a Lua model without predict, or one that returns the wrong count, says so"
sed -e '/^-- ptm predict:/,$d' examples/kmeans/kmeans.lua >"$T/km/3/nopred.lua"
sed -e 's|"kmeans.lua"|"nopred.lua"|g' "$T/km/3/kmeans.ptm" >"$T/km/3/nopred.ptm"
run predict "$T/km/3/nopred.ptm" --data "$T/km/new.svm"
want_rc 1
err_has "\"nopred.lua\" defines no function 'predict': a Lua model predicts through predict(w, job)"
cp examples/kmeans/kmeans.lua "$T/km/3/short.lua"
printf 'function predict(w, job) return {1, 2, 3} end\n' >>"$T/km/3/short.lua"
sed -e 's|"kmeans.lua"|"short.lua"|g' "$T/km/3/kmeans.ptm" >"$T/km/3/short.ptm"
run predict "$T/km/3/short.ptm" --data "$T/km/new.svm" -o "$T/km/short.tsv"
want_rc 1
err_has "hook 'predict' returned a list of 3 values (expected 500: one a row of the data)"
[ -e "$T/km/short.tsv" ] && no "predictions were written"
end

# method = svrg: the optimality conditions, checked here from w.tsv and the
# data file (the subgradient of the mean loss plus the penalties, by awk).
# b (-v b=) is the intercept: its condition is a zero mean of the slopes.
cat >"$T/lrl/kkt.awk" <<'EOF'
FNR == NR { w[NR] = $1; d = NR; next }
{
    y = $1 > 0 ? 1 : -1; m = b
    for (k = 2; k <= NF; k++) { split($k, p, ":"); m += p[2] * w[p[1]] }
    c = -y / (1 + exp(y * m)); n++; gb += c
    for (k = 2; k <= NF; k++) { split($k, p, ":"); g[p[1]] += c * p[2] }
}
END {
    most = gb / n; if (most < 0) most = -most
    for (j = 1; j <= d; j++) {
        G = g[j] / n + l2 * w[j]
        if (w[j] > 0) v = G + l1; else if (w[j] < 0) v = G - l1
        else { v = (G < 0 ? -G : G) - l1; if (v < 0) v = 0 }
        if (v < 0) v = -v
        if (v > most) most = v
    }
    printf "%.3g\n", most
}
EOF
sed -e 's/minibatch 1000/minibatch 100/' -e 's/^stop when .*/stop when sweeps >= 80/' \
    -e 's/{ method = sgd, rate = rate, l2 = l2, /{ rate = 5, l2 = l2, l1 = l1, method = svrg, /' \
    -e 's/^const l2 = .*/&\nconst l1 = 0/' -e 's/-logreg_ssp\.tsv/-svrg.tsv/' \
    -e "s|b-logreg_ssp\.tsv|b-svrg.tsv|" "$T/lrl/logreg_ssp.ptm" >"$T/lrl/svrg.ptm"
for cfg in "1 0" "2 0" "2 0.01" "3 0.01"; do
    set -- $cfg
    begin "run: logreg_sgd { method = svrg } on $1 worker(s), l1 = $2: optimal to 1e-9 (KKT from w.tsv)"
    run run --quiet --workers "$1" --set l1="$2" "$T/lrl/svrg.ptm"
    want_rc 0; err_empty
    kkt=$(awk -v l2=1e-4 -v l1="$2" -v b="$(cat "$T/lrl/b-svrg.tsv")" -f "$T/lrl/kkt.awk" \
        "$T/lrl/w-svrg.tsv" "$T/lrl/data/train.svm")
    awk -v v="$kkt" 'BEGIN { exit !(v != "" && v <= 1e-9) }' || no "KKT violation $kkt"
    end
done

begin "run: logreg_sgd { method = newton }: the methods it has"
sed -e 's/method = svrg/method = newton/' "$T/lrl/svrg.ptm" >"$T/lrl/newton.ptm"
run run --quiet "$T/lrl/newton.ptm"
want_rc 3; err_has "error: option 'method' takes one of tron|sgd|svrg"
end

# method = tron: no rate; optimal to 1e-9 by the same check, the objective
# never rising, and refused with l1 (not smooth). The objective it prints
# is the loss TRON summed at the point it took (no pass of its own): the
# last one is checked against the objective of w.tsv and b.tsv by awk.
cat >"$T/lrl/obj.awk" <<'EOF'
FNR == NR { w[NR] = $1; sq += $1 * $1; next }
{
    y = $1 > 0 ? 1 : -1; m = b
    for (k = 2; k <= NF; k++) { split($k, p, ":"); m += p[2] * w[p[1]] }
    z = -y * m; n++
    loss += z > 0 ? z + log(1 + exp(-z)) : log(1 + exp(z))
}
END { printf "%.17g\n", loss / n + l2 / 2 * sq }
EOF
sed -e 's/method = svrg/method = tron/' -e 's/rate = 5, //' -e 's/-svrg\.tsv/-tron.tsv/' \
    -e 's/^stop when .*/stop when sweeps >= 30/' \
    "$T/lrl/svrg.ptm" >"$T/lrl/tron.ptm"
for P in 1 2 3; do
    begin "run: logreg_sgd { method = tron } on $P worker(s): optimal to 1e-9 (KKT from w.tsv), the objective never rising"
    run run --workers "$P" "$T/lrl/tron.ptm"
    want_rc 0
    kkt=$(awk -v l2=1e-4 -v l1=0 -v b="$(cat "$T/lrl/b-tron.tsv")" -f "$T/lrl/kkt.awk" \
        "$T/lrl/w-tron.tsv" "$T/lrl/data/train.svm")
    name="$name: KKT $kkt"
    awk -v v="$kkt" 'BEGIN { exit !(v != "" && v <= 1e-9) }' || no "KKT violation $kkt"
    sed -n 's/.* objective \([^ ]*\) .*/\1/p' "$T/err" |
        awk 'NR > 1 && $1 > prev { bad = 1 } { prev = $1 } END { exit bad }' || no "the objective rose"
    last=$(sed -n 's/.* objective \([^ ]*\) rel_change.*/\1/p' "$T/err" | tail -n 1)
    want=$(awk -v l2=1e-4 -v b="$(cat "$T/lrl/b-tron.tsv")" -f "$T/lrl/obj.awk" \
        "$T/lrl/w-tron.tsv" "$T/lrl/data/train.svm")
    awk -v a="$last" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && d <= 2e-9 * b) }' ||
        no "the last objective printed, $last, is not that of the weights written, $want"
    end
done
begin "run: logreg_sgd { method = tron } with l1 > 0 is refused: the penalty is not smooth"
run run --quiet --set l1=0.01 "$T/lrl/tron.ptm"
want_rc 3
err_has "tron.ptm:19:1: error: logreg_sgd: method = tron needs l1 = 0 (an L1 penalty is not smooth); use method = sgd or svrg for l1"
end

# ---- run: the intercept against scikit-learn ---------------------------------
# The Lasso and logistic regression examples fit an intercept; on data whose
# labels are far from centred, ptm's optimum (its objective computed from
# the outputs, not as ptm reports it) must be scikit-learn's to 1e-6.
# scikit-learn's Lasso minimizes 1/(2n) |y - X w - b|^2 + alpha |w|_1, ptm's
# lasso_objective with alpha = lambda; LogisticRegression (lbfgs, which
# leaves the intercept unpenalised) minimizes C sum of losses + |w|^2 / 2,
# which is ptm's logloss times C n when C = 1 / (n l2). Python is
# /usr/bin/python3, where scripts/deps.sh installs python3-sklearn.
mkdir -p "$T/sk"
cat >"$T/sk/gap.py" <<'EOF'
import sys
import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import Lasso, LogisticRegression

kind, data, wfile, bfile, reg = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
w = np.loadtxt(wfile, ndmin=1)
b = float(np.loadtxt(bfile))
X, y = load_svmlight_file(data, n_features=w.size, zero_based=False)
n = X.shape[0]
if kind == "lasso":
    f = lambda w, b: 0.5 / n * np.sum((y - X @ w - b) ** 2) + reg * np.abs(w).sum()
    m = Lasso(alpha=reg, fit_intercept=True, tol=1e-15, max_iter=1000000).fit(X, y)
else:
    s = np.where(y > 0, 1.0, -1.0)
    f = lambda w, b: np.mean(np.logaddexp(0, -s * (X @ w + b))) + 0.5 * reg * w @ w
    m = LogisticRegression(C=1 / (n * reg), fit_intercept=True, tol=1e-14, max_iter=100000).fit(X, s)
fs = f(m.coef_.ravel(), float(np.ravel(m.intercept_)[0]))
print("%.2e %.10g %.10g" % ((f(w, b) - fs) / abs(fs), b, float(np.ravel(m.intercept_)[0])))
EOF
begin "scikit-learn is installed for /usr/bin/python3 (scripts/deps.sh)"
/usr/bin/python3 -c 'import sklearn, numpy, scipy' 2>"$T/err" || no "$(tail -n 1 "$T/err")"
end
"$PTM" gen lasso --seed 1 --offset 10 --out "$T/sk/lasso" >/dev/null
sed -e "s|\"data/lasso.svm\"|\"$T/sk/lasso/lasso.svm\"|" -e "s|\"beta.tsv\"|\"$T/sk/beta.tsv\"|" \
    -e "s|\"b.tsv\"|\"$T/sk/b.tsv\"|" -e 's/^stop when .*/stop when sweeps >= 3000 or rel_change(objective) < 1e-13/' \
    examples/lasso/lasso.ptm >"$T/sk/lasso-seq.ptm"
begin "the Lasso example updates each worker's share within = sequential (the cases below use it so)"
grep -q '^update builtin lasso_cd {.*within = sequential' "$T/sk/lasso-seq.ptm" || no "it does not"
end
sed -e '/^update/s/, within = sequential//' "$T/sk/lasso-seq.ptm" >"$T/sk/lasso.ptm"
# sk_lasso JOB WORKERS DATA LAMBDA TOL: JOB's beta and b against scikit-learn's
# optimum on DATA, to TOL (the case begun)
sk_lasso() {
    run run --quiet --workers "$2" "$1"
    want_rc 0; err_empty
    gap=$(/usr/bin/python3 "$T/sk/gap.py" lasso "$3" "$T/sk/beta.tsv" "$T/sk/b.tsv" "$4")
    name="$name: gap $gap"
    awk -v v="${gap%% *}" -v tol="$5" 'BEGIN { if (v < 0) v = -v; exit !(v != "" && v <= tol) }' ||
        no "relative gap $gap"
    end
}
for cfg in "lasso 1" "lasso 2" "lasso-seq 1" "lasso-seq 2"; do
    set -- $cfg
    begin "run: $1.ptm (intercept) on $2 worker(s): scikit-learn's Lasso objective to 1e-6 (offset 10)"
    sk_lasso "$T/sk/$1.ptm" "$2" "$T/sk/lasso/lasso.svm" 0.001 1e-6
done
# Rows like text's: tf-idf of a Zipf law of words, so that the frequent
# words' columns are nearly constant and b can fit what their coefficients
# fit. b follows each coefficient's step (sequential) or each round's
# (parallel): 10 sweeps reach scikit-learn's optimum (with a step of b
# once a sweep, they were 6e-3 and 1e-5 above it).
cat >"$T/sk/tf.py" <<'EOF'
import sys
import numpy as np
rng = np.random.default_rng(1)
n, p = 3000, 600
freq = 1.0 / np.arange(1, p + 1) ** 1.05
freq /= freq.sum()
lens = rng.poisson(30, n) + 5
doc = np.repeat(np.arange(n), lens)
key, cnt = np.unique(doc * p + rng.choice(p, size=int(lens.sum()), p=freq), return_counts=True)
r, c = key // p, key % p
v = (1 + np.log(cnt)) * (np.log((1 + n) / (1 + np.bincount(c, minlength=p))) + 1)[c]
v /= np.sqrt(np.bincount(r, weights=v * v, minlength=n))[r]
w = np.zeros(p)
w[rng.choice(np.arange(10, 300), 30, replace=False)] = rng.normal(0, 3, 30) + 1
y = np.bincount(r, weights=v * w[c], minlength=n) + 2 + 0.1 * rng.normal(size=n)
at = np.searchsorted(r, np.arange(n + 1))
with open(sys.argv[1], "w") as f:
    for i in range(n):
        f.write("%r %s\n" % (float(y[i]), " ".join("%d:%r" % (c[k] + 1, float(v[k]))
                                                   for k in range(at[i], at[i + 1]))))
EOF
/usr/bin/python3 "$T/sk/tf.py" "$T/sk/tf.svm"
for cfg in "lasso 1" "lasso 2" "lasso-seq 1" "lasso-seq 2"; do
    set -- $cfg
    begin "run: $1.ptm (intercept) on $2 worker(s), tf-idf rows: scikit-learn's Lasso objective to 1e-8 in 10 sweeps"
    sed -e "s|\"$T/sk/lasso/lasso.svm\"|\"$T/sk/tf.svm\"|" -e 's/^const lambda = .*/const lambda = 0.0005/' \
        -e 's/^stop when .*/stop when sweeps >= 10/' "$T/sk/$1.ptm" >"$T/sk/tf.ptm"
    sk_lasso "$T/sk/tf.ptm" "$2" "$T/sk/tf.svm" 0.0005 1e-8
done
"$PTM" gen logreg --seed 3 --out "$T/sk/lr" --rows 3000 --cols 200 >/dev/null
# every third row made positive: about two thirds 1s, an intercept far from 0
awk 'NR % 3 == 0 { $1 = 1 } { print }' "$T/sk/lr/train.svm" >"$T/sk/lr/skew.svm"
sed -e "s|\"data/train.svm\"|\"$T/sk/lr/skew.svm\"|" -e "s|\"w_ssp.tsv\"|\"$T/sk/w.tsv\"|" \
    -e "s|\"b_ssp.tsv\"|\"$T/sk/b.tsv\"|" -e 's/minibatch 1000/minibatch 100/' \
    -e 's/{ method = sgd, rate = rate, l2 = l2, /{ rate = 5, l2 = l2, method = svrg, /' \
    -e 's/^stop when .*/stop when sweeps >= 300 or rel_change(objective) < 1e-14/' \
    examples/logreg/logreg_ssp.ptm >"$T/sk/lr.ptm"
sed -e 's/rate = 5, l2 = l2, method = svrg, /l2 = l2, method = tron, /' "$T/sk/lr.ptm" >"$T/sk/lr-tron.ptm"
for cfg in "lr 1 svrg" "lr 3 svrg" "lr-tron 1 tron" "lr-tron 2 tron"; do
    set -- $cfg
    begin "run: logreg_sgd { method = $3 } (intercept) on $2 worker(s): scikit-learn's LogisticRegression objective to 1e-6"
    run run --quiet --workers "$2" "$T/sk/$1.ptm"
    want_rc 0; err_empty
    gap=$(/usr/bin/python3 "$T/sk/gap.py" logreg "$T/sk/lr/skew.svm" "$T/sk/w.tsv" "$T/sk/b.tsv" 1e-4)
    name="$name: gap $gap"
    awk -v v="${gap%% *}" 'BEGIN { if (v < 0) v = -v; exit !(v != "" && v <= 1e-6) }' || no "relative gap $gap"
    end
done

begin "run: a hook error under data_parallel ends every worker: exit 1, nothing written"
printf 'function push(w, first, last, job)\n    if w.id == 2 and w.round == 2 then error("no luck") end\nend\n' >"$T/lrl/fail.lua"
sed -e 's|"logreg.lua"|"fail.lua"|' -e 's|w-logreg_lua.tsv|w-fail.tsv|' "$T/lrl/logreg_lua.ptm" >"$T/lrl/fail.ptm"
run run --quiet --workers 2 "$T/lrl/fail.ptm"
want_rc 1
err_has "ptm: error: worker 2: $T/lrl/fail.lua:2: no luck"; err_has "stack traceback:"
err_has "note: the update rule is declared here"; err_lacks "another worker"
[ -e "$T/lrl/w-fail.tsv" ] && no "an output was written"
end

begin "run: a hook that writes nan to a table of the store: exit 1, the element named"
printf 'function push(w, first, last, job)\n    w.w[3] = 0 / 0\nend\n' >"$T/lrl/nan.lua"
sed -e 's|"logreg.lua"|"nan.lua"|' -e 's|w-logreg_lua.tsv|w-nan.tsv|' "$T/lrl/logreg_lua.ptm" >"$T/lrl/nan.ptm"
run run --quiet --workers 2 "$T/lrl/nan.ptm"
want_rc 1; err_has "hook 'push' set element 3 of 'w' to nan"
end

# ---- plan: dry runs, pictures, traces ----------------------------------------


mkdir -p "$T/pl"
printf '1 1:1 2:1 4:2\n2 2:1 3:1 5:1\n3 1:2 6:1 7:1\n4 3:1 4:1 7:2\n5 1:1 5:1\n6 2:2 6:1 7:1\n' \
    >"$T/pl/x.svm"
# Columns 1..7 have 3 3 2 2 2 2 3 non-zeros: the costs.
cat >"$T/pl/rr.ptm" <<'EOF'
job rr
data X : sparse matrix from "x.svm" format libsvm shard rows
data y : vector from labels(X)
param beta : vector[cols(X)] = 0
param r : vector[rows(X)] = y shard like X
blocks coef = beta each 1
cost coef(j) = nnz(col(X, j))
schedule round_robin { per_round 3 }
update builtin lasso_cd { lambda = 0.1, split_min = 0 }
stop when rounds >= 10
EOF
sed 's/round_robin { per_round 3 }/random { per_round 3 }/' "$T/pl/rr.ptm" >"$T/pl/rnd.ptm"
printf '1 2\n2 3\n4 7\n' >"$T/pl/edges.txt"
sed -e 's/round_robin { per_round 3 }/dynamic { sample 7, warmup 0, keep independent }/' \
    -e 's/^cost /depend coef from "edges.txt"\ncost /' "$T/pl/rr.ptm" >"$T/pl/dyn.ptm"
SIM="# simulation: no update runs; block b's change at its k-th update is s_b * 0.8^(k-1), with s_b log-uniform in [0.01, 1] from the seed; delta() and the parameter values follow these changes
# cost: the sum of the costs of the worker's blocks (the block set's cost); idle: the share of the round it waits for the largest cost"

begin "help plan"
run help plan
want_rc 0; out_has "usage: ptm plan"; out_has "--svg FILE"; out_has "--dot FILE"; out_has "Exit status"
err_empty
cp "$T/out" "$T/plan-usage"
end

begin "plan --help is help plan; ptm --help lists plan"
run plan --help
want_rc 0; cmp -s "$T/out" "$T/plan-usage" || no "differs from help plan"
run --help
out_has "  plan       dry-run the scheduler and draw the schedule"
end

begin "plan: round_robin, the whole table"
run plan --rounds 4 --workers 2 "$T/pl/rr.ptm"
want_rc 0; err_empty
out_is "# dry run of job 'rr' ($T/pl/rr.ptm): schedule round_robin over coef (7 blocks), 2 workers, 4 rounds, seed 1
$SIM
 round worker       cost  idle conflicts  blocks
     1      1          6    0%         0  1 2
            2          2   67%            3
     2      1          4    0%         0  4 5
            2          2   50%            6
     3      1          6    0%         0  7 1
            2          3   50%            2
     4      1          4    0%         0  3 4
            2          2   50%            5
# per worker over 4 rounds:
worker   blocks       cost  idle
     1        8         20    0%
     2        4          9   55%
# 12 block updates (1.71 sweeps of 7 blocks), 12 candidates, 0 conflicts avoided, idle share 28%"
end

begin "plan: random, the whole table, the same twice"
run plan --rounds 4 --workers=2 --seed 3 "$T/pl/rnd.ptm"
want_rc 0; err_empty
out_is "# dry run of job 'rr' ($T/pl/rnd.ptm): schedule random over coef (7 blocks), 2 workers, 4 rounds, seed 3
$SIM
 round worker       cost  idle conflicts  blocks
     1      1          5    0%         0  6 2
            2          2   60%            3
     2      1          6    0%         0  7 2
            2          2   67%            3
     3      1          5    0%         0  6 1
            2          3   40%            2
     4      1          5    0%         0  3 7
            2          2   60%            5
# per worker over 4 rounds:
worker   blocks       cost  idle
     1        8         21    0%
     2        4          9   57%
# 12 block updates (1.71 sweeps of 7 blocks), 12 candidates, 0 conflicts avoided, idle share 29%"
cp "$T/out" "$T/pl/rnd1"
run plan --rounds 4 --workers=2 --seed 3 "$T/pl/rnd.ptm"
cmp -s "$T/out" "$T/pl/rnd1" || no "a second run differs"
run plan --rounds 4 --workers=2 --seed 4 "$T/pl/rnd.ptm"
cmp -s "$T/out" "$T/pl/rnd1" && no "another seed gives the same rounds"
end

begin "plan: dynamic never puts two blocks of an edge in one round"
run plan --rounds 30 --workers 2 "$T/pl/dyn.ptm"
want_rc 0
# each round's blocks, both workers together, one line a round
awk '/^# per worker/ { exit }
     /^#/ || /^ round/ { next }
     substr($0, 1, 6) ~ /[0-9]/ { if (n) print line; n = 1; line = ""; for (i = 6; i <= NF; i++) line = line " " $i; next }
     { for (i = 4; i <= NF; i++) line = line " " $i }
     END { if (n) print line }' "$T/out" >"$T/pl/rounds"
[ "$(wc -l <"$T/pl/rounds")" -eq 30 ] || no "not 30 rounds"
while read -r a b; do
    grep -Eq "(^| )$a( .*)? $b( |$)|(^| )$b( .*)? $a( |$)" "$T/pl/rounds" && no "blocks $a and $b in one round"
done <"$T/pl/edges.txt"
grep -q "conflicts avoided" "$T/out" && ! grep -q ", 0 conflicts avoided" "$T/out" || no "no conflict avoided"
end

begin "plan: dynamic { uniform 0.5 } compiles, is written to the plan, and plans from it too"
sed -e 's/^schedule dynamic {/schedule dynamic { uniform 0.5,/' "$T/pl/dyn.ptm" >"$T/pl/dyn-u.ptm"
grep -q "uniform 0.5" "$T/pl/dyn-u.ptm" || no "the job has no uniform"
run compile "$T/pl/dyn-u.ptm" -o "$T/pl/dyn-u.yaml"
want_rc 0
grep -qx "  uniform: 0.5" "$T/pl/dyn-u.yaml" || no "the plan lacks 'uniform: 0.5'"
run plan --rounds 30 --workers 2 "$T/pl/dyn-u.yaml"
want_rc 0
out_has "schedule dynamic over coef (7 blocks), 2 workers, 30 rounds"
grep -v "^# dry run" "$T/out" >"$T/pl/dyn-u.out"
run plan --rounds 30 --workers 2 "$T/pl/dyn.ptm"
grep -v "^# dry run" "$T/out" | cmp -s - "$T/pl/dyn-u.out" && no "the same rounds as without uniform"
end

begin "plan: a job without data runs with one worker and says why"
printf 'function push() end\nfunction pull() end\n' >"$T/pl/u.lua"
printf 'job nd\nparam p : vector[5]\nblocks b = p\nschedule round_robin\nupdate lua "u.lua"\nstop when rounds >= 3\n' >"$T/pl/nd.ptm"
run plan --rounds 3 --workers 3 "$T/pl/nd.ptm"
want_rc 0
out_has "# note: 1 worker, not 3: no data is sharded by rows, so a run has one worker"
out_has "# 3 block updates (0.6 sweeps of 5 blocks)"
end

begin "plan: missing data, exit 4, as run says it"
run plan "$T/nodata/lasso.ptm"
want_rc 4; out_empty; err_has "$T/nodata/data/lasso.svm"
end

begin "plan: a spec with errors, exit 3"
printf 'job bad\nparam p : vector[x]\n' >"$T/pl/bad.ptm"
run plan "$T/pl/bad.ptm"
want_rc 3; out_empty; err_has "bad.ptm:2:"
end

begin "plan: a bad dependency file, exit 4 with where"
printf '1 2\n1 99\n' >"$T/pl/bad-edges.txt"
sed 's/"edges.txt"/"bad-edges.txt"/' "$T/pl/dyn.ptm" >"$T/pl/dyn-bad.ptm"
run plan "$T/pl/dyn-bad.ptm"
want_rc 4; out_empty; err_has "bad-edges.txt:2:"
end

begin "plan: data_parallel under method = tron: rounds whose load is each worker's rows; no straggler"
"$PTM" gen logreg --seed 1 --rows 300 --cols 20 --out "$T/pl/lr" >/dev/null 2>&1 || no "gen logreg failed"
sed 's#"data/train.svm"#"lr/train.svm"#' examples/logreg/logreg.ptm >"$T/pl/lr.ptm"
run plan --rounds 3 --workers 2 "$T/pl/lr.ptm"
want_rc 0; out_has "# rows: the rows the worker sums in each pass of the round"
# each round's rows over the workers: all 300 (a round's first line: round,
# worker, rows, idle, conflicts; the next: worker, rows, idle)
[ "$(awk '/^# per worker/ { exit } /%/ { s += NF >= 5 ? $3 : $2 } END { print s }' "$T/out")" = 900 ] ||
    no "the rows of 3 rounds do not add up to 900: $(cat "$T/out")"
run plan --straggler 1:3 "$T/pl/lr.ptm"
want_rc 1; out_empty; err_has "update logreg_sgd with method = tron runs Newton iterations, not clocks"
end

begin "plan --svg: an SVG that rsvg-convert renders, written atomically"
run plan --rounds 12 --workers 2 --svg "$T/pl/rr.svg" "$T/pl/dyn.ptm"
want_rc 0
grep -q '^<svg ' "$T/pl/rr.svg" || no "no <svg> element"
tail -n 1 "$T/pl/rr.svg" | grep -q '^</svg>$' || no "does not end with </svg>"
grep -q '>conflicts avoided</text>' "$T/pl/rr.svg" || no "no legend entry for conflicts"
ls "$T/pl" | grep -q tmp && no "a temporary file is left"
end
if command -v rsvg-convert >/dev/null 2>&1; then
    begin "plan --svg: rsvg-convert makes a PNG of it"
    rsvg-convert -o "$T/pl/rr.png" "$T/pl/rr.svg" 2>"$T/err" || no "rsvg-convert failed"
    [ -s "$T/pl/rr.png" ] || no "the PNG is empty"
    end
else
    skip "plan --svg: rsvg-convert makes a PNG of it" "no rsvg-convert (scripts/deps.sh installs librsvg2-bin)"
fi
if command -v xmllint >/dev/null 2>&1; then
    begin "plan --svg: well-formed XML"
    xmllint --noout "$T/pl/rr.svg" 2>"$T/err" || no "xmllint rejects it"
    end
else
    skip "plan --svg: well-formed XML" "no xmllint (scripts/deps.sh installs libxml2-utils)"
fi

begin "plan --dot: the dependency graph, every edge of the file"
run plan --rounds 2 --dot "$T/pl/dyn.dot" "$T/pl/dyn.ptm"
want_rc 0
for e in "1 -- 2;" "2 -- 3;" "4 -- 7;"; do
    grep -q "^  $e\$" "$T/pl/dyn.dot" || no "no edge $e"
done
[ "$(grep -c ' -- ' "$T/pl/dyn.dot")" -eq 3 ] || no "not 3 edges"
[ "$(grep -c '\[label="' "$T/pl/dyn.dot")" -eq 7 ] || no "not 7 nodes"
end
if command -v dot >/dev/null 2>&1; then
    begin "plan --dot: Graphviz reads it"
    dot -Tsvg "$T/pl/dyn.dot" >"$T/pl/dyn.dot.svg" 2>"$T/err" || no "dot -Tsvg failed"
    [ -s "$T/pl/dyn.dot.svg" ] || no "dot wrote nothing"
    end
else
    skip "plan --dot: Graphviz reads it" "no dot (scripts/deps.sh installs graphviz)"
fi

begin "plan --dot: a big graph is cut, with a warning and a comment"
"$PTM" gen lasso --seed 2 --out "$T/pl/big" --rows 60 --cols 700 --density 0.05 >/dev/null 2>&1
sed -e "s|\"data/lasso.svm\"|\"$T/pl/big/lasso.svm\"|" \
    -e '/^priority/i depend coef(i), coef(j) when abs(cos(col(X, i), col(X, j))) > 0.3' \
    examples/lasso/lasso.ptm >"$T/pl/big.ptm"
run plan --rounds 2 --workers 2 --dot "$T/pl/big.dot" "$T/pl/big.ptm"
want_rc 0
err_has "the dependency graph is cut to blocks 1 to 500 of 700"
grep -q '^// cut: only blocks 1 to 500 of 700 are drawn' "$T/pl/big.dot" || no "no cut comment"
[ "$(grep -c '\[label="' "$T/pl/big.dot")" -eq 500 ] || no "not 500 nodes"
[ "$(grep -c ' -- ' "$T/pl/big.dot")" -le 5000 ] || no "more than 5000 edges"
grep -q '^  graph \[.*layout=sfdp, ' "$T/pl/big.dot" || no "a big graph does not ask for sfdp"
grep -q 'label=".*\\nfill: priority after the dry run, white [0-9.e-]* to dark blue [0-9.e-]*' "$T/pl/big.dot" ||
    no "the picture's label has no legend of the fill"
end
if command -v dot >/dev/null 2>&1; then
    begin "plan --dot: Graphviz lays the big graph out in under a minute (dot -Tsvg, sfdp)"
    timeout 60 dot -Tsvg "$T/pl/big.dot" >"$T/pl/big.dot.svg" 2>"$T/err" || no "dot -Tsvg failed or took a minute"
    [ -s "$T/pl/big.dot.svg" ] || no "dot wrote nothing"
    end
fi

# A real run's trace, drawn as a dry run is.
"$PTM" gen lasso --seed 1 --out "$T/pl/g" --rows 200 --cols 50 --density 0.1 >/dev/null 2>&1
sed -e "s|\"data/lasso.svm\"|\"$T/pl/g/lasso.svm\"|" -e "s|\"beta.tsv\"|\"$T/pl/beta.tsv\"|" \
    -e "s|\"b.tsv\"|\"$T/pl/b.tsv\"|" -e 's/sweeps >= 100/sweeps >= 5/' \
    examples/lasso/lasso.ptm >"$T/pl/run.ptm"
"$PTM" run --quiet --workers 2 --trace "$T/pl/trace.json" --trace-blocks "$T/pl/run.ptm" 2>"$T/err"

begin "plan --trace: a run's trace as a table and an SVG"
run plan --trace "$T/pl/trace.json" --svg "$T/pl/trace.svg"
want_rc 0; err_empty
out_has "# trace of a run, $T/pl/trace.json: 2 workers, $(grep -c '^{"round": ' "$T/pl/trace.json") rounds"
[ "$(grep -c '^ *[0-9][0-9]*  *1 ' "$T/out")" -eq "$(grep -c '^{"round": ' "$T/pl/trace.json")" ] ||
    no "not one line for worker 1 in each round"
grep -q '^<svg ' "$T/pl/trace.svg" || no "no SVG"
cp "$T/out" "$T/pl/trace.out"
end
if command -v rsvg-convert >/dev/null 2>&1; then
    begin "plan --trace: rsvg-convert renders its SVG"
    rsvg-convert -o "$T/pl/trace.png" "$T/pl/trace.svg" 2>"$T/err" || no "rsvg-convert failed"
    [ -s "$T/pl/trace.png" ] || no "the PNG is empty"
    end
fi

begin "plan: a trace whose rounds (and workers) hold no block at all is drawn (pointer arithmetic on null arrays: UBSan, fuzz_trace)"
printf '{"round": 1, "seconds": 0.1, "blocks": []}\n' >"$T/empty-trace.jsonl"
run plan --svg "$T/empty-trace.svg" "$T/empty-trace.jsonl"
want_rc 0; err_empty
out_has "# 0 block updates"
run plan --svg "$T/empty-trace.svg" tests/fuzz/trace/workers-without-blocks.jsonl
want_rc 0; err_empty
out_has "# 0 block updates"
end

begin "plan: a trace given as the input is recognized"
run plan "$T/pl/trace.json"
want_rc 0
cmp -s "$T/out" "$T/pl/trace.out" || no "differs from plan --trace"
end

begin "plan: malformed traces, exit 4, FILE:LINE:COL (FILE:LINE for a value that means nothing)"
printf '{"round": 1, "blocks": [1]}\n{"round": 2, "blocks": [1,]}\n' >"$T/pl/bad1.json"
run plan --trace "$T/pl/bad1.json"
want_rc 4; out_empty; err_is "$T/pl/bad1.json:2:27: error: unexpected token near ']'"
printf '{"round": 2, "blocks": [1]}\n{"round": 1, "blocks": [2]}\n' >"$T/pl/bad2.json"
run plan "$T/pl/bad2.json"
want_rc 4; err_is "$T/pl/bad2.json:2: error: round 1 after round 2: rounds must increase"
printf '{"round": 1, "blocks": [1], "workers": [{"worker": 1, "blocks": [1]}]}\n{"round": 2, "blocks": [1]}\n' >"$T/pl/bad3.json"
run plan "$T/pl/bad3.json"
want_rc 4; err_has "bad3.json:2: error: this round has no 'workers', but line 1 has them"
printf '\n' >"$T/pl/empty.json"
run plan --trace "$T/pl/empty.json"
want_rc 4; err_is "$T/pl/empty.json: error: the trace has no rounds"
end

begin "plan: cut and damaged traces never crash"
size=$(wc -c <"$T/pl/trace.json")
for cut in 1 7 30 77 150 301 555 1000 2222 4444; do
    [ "$cut" -lt "$size" ] || continue
    head -c "$cut" "$T/pl/trace.json" >"$T/pl/cut.json"
    run plan --trace "$T/pl/cut.json" --svg "$T/pl/cut.svg"
    [ "$rc" -eq 0 ] || [ "$rc" -eq 4 ] || no "cut at $cut: exit status $rc"
done
for s in 's/"blocks"/"blocks/' 's/\[/{/' 's/, "workers"/, "workers": 3, "workers"/' \
    's/[0-9]/-/' 's/}/]/' 's/"worker": 2/"worker": 3/' 's/0\./1e400/' 's/"/\x00/'; do
    sed "5$s" "$T/pl/trace.json" >"$T/pl/bad.json"
    run plan --trace "$T/pl/bad.json"
    [ "$rc" -eq 4 ] || [ "$rc" -eq 0 ] || no "'$s': exit status $rc"
    [ "$rc" -eq 4 ] && { grep -Eq "bad.json:5:([0-9]+:)? error: " "$T/err" || no "'$s': no FILE:5"; }
done
end

for args in "--rounds 0" "--rounds 100001" "--rounds x" "--workers 0" "--workers=2000" \
    "--seed -1" "--bogus" "--svg" "--svg=" "--color=sometimes" "--set x"; do
    begin "plan $args: usage error"
    # shellcheck disable=SC2086
    run plan $args "$T/pl/rr.ptm"
    want_rc 2; out_empty; err_has "try 'ptm help plan'"
    end
done

begin "plan: no input, two inputs, a job and --trace: usage errors"
run plan
want_rc 2; err_has "plan: no job spec, plan or trace given"
run plan "$T/pl/rr.ptm" "$T/pl/rnd.ptm"
want_rc 2; err_has "plan takes one job spec, plan or trace"
run plan --trace "$T/pl/trace.json" "$T/pl/rr.ptm"
want_rc 2; err_has "give a job or --trace FILE, not both"
end

begin "plan: dry-run flags with a trace are usage errors"
for a in "--rounds 3" "--workers 2" "--seed 1" "--set a=1" "--dot $T/pl/t.dot"; do
    # shellcheck disable=SC2086
    run plan $a "$T/pl/trace.json"
    [ "$rc" -eq 2 ] || no "$a: exit status $rc"
    grep -q "is for a dry run of a job, not for a trace" "$T/err" || no "$a: no message"
done
end

begin "plan: a missing trace or job, exit 2"
run plan --trace "$T/pl/nosuch.json"
want_rc 2; err_has "cannot read '$T/pl/nosuch.json'"
run plan "$T/pl/nosuch.ptm"
want_rc 2; err_has "nosuch.ptm"
end

begin "plan --svg into a missing directory: exit 1, nothing on stdout"
run plan --svg "$T/pl/no/such/dir/a.svg" "$T/pl/rr.ptm"
want_rc 1; out_empty; err_has "cannot write '$T/pl/no/such/dir/a.svg'"
end

# ---- report: a run's page ----------------------------------------------------

# Each example on small generated data, 5 sweeps, with --trace and --report.
mkdir -p "$T/rp"
rp_ok=
for ex in lasso lda logreg mf kmeans; do
    d=$T/rp/$ex
    mkdir -p "$d/data"
    case $ex in
    lasso) "$PTM" gen lasso --seed 2 --out "$d/data" --rows 300 --cols 60 >/dev/null 2>&1 ;;
    lda) "$PTM" gen lda --seed 2 --out "$d/data" --docs 200 --words 300 --topics 5 >/dev/null 2>&1 ;;
    logreg) "$PTM" gen logreg --seed 2 --out "$d/data" --rows 500 --cols 50 >/dev/null 2>&1 ;;
    mf) "$PTM" gen mf --seed 2 --out "$d/data" --rows 100 --cols 80 --ratings 2000 >/dev/null 2>&1 ;;
    kmeans) /usr/bin/python3 examples/kmeans/blobs.py --n 200 --out "$d/data/points.svm" >/dev/null 2>&1
        cp examples/kmeans/kmeans.lua "$d/" ;;
    esac
    # a metric beside the objective where the model has one
    sed -e 's|^stop when .*|stop when sweeps >= 5|' -e 's|^const topics = 100|const topics = 5|' \
        "examples/$ex/$ex.ptm" >"$d/$ex.ptm"
    [ "$ex" = mf ] && printf 'metric test_rmse = rmse(T)\n' >>"$d/$ex.ptm"
    begin "run --report: the $ex example's page is well-formed, with its curves, stop reason and job"
    (cd "$d" && "$PTM_ABS" run --workers 2 --trace t.json --report r.html "$ex.ptm") >"$T/out" 2>"$T/err"
    rc=$?
    want_rc 0
    [ -s "$d/r.html" ] || no "no page"
    if command -v xmllint >/dev/null 2>&1; then
        # HTML 4's parser knows no SVG element: those, and only those, it may name
        xmllint --html --noout "$d/r.html" >"$T/xl" 2>&1 || no "xmllint --html failed"
        grep 'parser error' "$T/xl" | grep -v 'Tag \(svg\|g\|rect\|line\|polyline\|text\|title\|circle\) invalid' |
            head -n 3 >"$T/xl2"
        [ -s "$T/xl2" ] && no "xmllint --html: $(head -n 1 "$T/xl2")"
        xmllint --noout "$d/r.html" 2>"$T/xl" || no "not well-formed XML: $(head -n 1 "$T/xl")"
    fi
    grep -q '<title>objective against time</title>' "$d/r.html" || no "no curve of the objective against time"
    grep -q '<title>objective against updates</title>' "$d/r.html" || no "no curve of the objective against updates"
    grep -q '<g id="coordinator">' "$d/r.html" || no "no schedule picture"
    grep -q '<title>Each worker.s seconds</title>' "$d/r.html" || no "no workers' load"
    [ "$ex" = mf ] && { grep -q '<title>test_rmse against time</title>' "$d/r.html" || no "no curve of the metric"; }
    grep -qiE '<script|<link|<img|<iframe|src=|href=|url\(|@import' "$d/r.html" && no "the page refers to something outside it"
    # the trace's last line: why it stopped, as the progress line says; its
    # counts those of the rounds; the page shows the reason and the job
    /usr/bin/python3 - "$d/t.json" "$d/r.html" "$d/$ex.ptm" "$T/err" >"$T/py" 2>&1 <<'EOF' || no "$(tail -n 1 "$T/py")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rounds, end = lines[:-1], lines[-1]
if "stopped" not in end or any("stopped" in r or "round" not in r for r in rounds):
    sys.exit("the last line, and only it, is the run's end")
if end["rounds"] != rounds[-1]["round"]:
    sys.exit("rounds %d, the last round %d" % (end["rounds"], rounds[-1]["round"]))
if end["updates"] != sum(r["updates"] for r in rounds):
    sys.exit("updates %d, the rounds' sum %d" % (end["updates"], sum(r["updates"] for r in rounds)))
objs = [r["objective"] for r in rounds if "objective" in r]
if objs and end["objective"] != objs[-1]:
    sys.exit("objective %r, the last round's %r" % (end["objective"], objs[-1]))
last = [l for l in open(sys.argv[4]) if l.startswith("stopped at sweep ")][-1].rstrip("\n")
head = "stopped at sweep %d (round %d, " % (end["sweeps"], end["rounds"])
if not last.startswith(head) or last.split("): ", 1)[1] != end["stopped"]:
    sys.exit("the progress line '%s' and the trace's %r disagree" % (last, end))
esc = lambda s: s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
page = open(sys.argv[2], encoding="utf-8").read()
if "</b> (round %d, " % end["rounds"] not in page or "): " + esc(end["stopped"]) + "</div>" not in page:
    sys.exit("the page does not give the stop reason")
if esc(open(sys.argv[3]).read()) not in page:
    sys.exit("the page does not hold the job's text")
EOF
    end
    [ "$ex" = lasso ] && [ -z "$why" ] && rp_ok=1
done

d=$T/rp/lasso
begin "report TRACE -o PAGE: the same page as run --report, but naming the trace"
(cd "$d" && "$PTM_ABS" report t.json -o again.html --job lasso.ptm) >"$T/out" 2>"$T/err"
rc=$?
want_rc 0; out_empty; err_empty
grep -q 'trace t.json;' "$d/again.html" || no "the page does not name its trace"
diff "$d/r.html" "$d/again.html" | grep '^[<>]' | grep -v 'trace' >"$T/diff"
[ -s "$T/diff" ] && no "the pages differ beyond the trace's name: $(head -n 1 "$T/diff")"
end

begin "report without --job: the page names the job the trace names; to standard output"
run report "$d/t.json"
want_rc 0; err_empty
grep -q 'The trace names the job <code>lasso.ptm</code>' "$T/out" || no "the job is not named"
grep -q '^</html>$' "$T/out" || no "the page is not whole"
end

begin "report of a trace without its last line: the page says it does not know why it stopped"
grep '^{"round": ' "$d/t.json" >"$d/old.json"
run report "$d/old.json" -o "$d/old.html"
want_rc 0; err_empty
grep -q 'The trace does not say why the run stopped' "$d/old.html" || no "no note on the missing reason"
end

begin "report: a missing trace, exit 2, no page"
run report "$d/none.json" -o "$d/none.html"
want_rc 2; err_is "ptm: error: cannot read '$d/none.json': No such file or directory"
[ -e "$d/none.html" ] && no "a page was written"
end

begin "report: bad JSON, a located error, exit 4, no page"
head -n 2 "$d/t.json" >"$d/bad.json"
printf '{"round": 9, "blocks": [1, 2}\n' >>"$d/bad.json"
run report "$d/bad.json" -o "$d/bad.html"
want_rc 4; err_has "$d/bad.json:3:29: error: ']' expected near '}'"
[ -e "$d/bad.html" ] && no "a page was written"
ls "$d" | grep -q tmp && no "a temporary file is left"
printf '{"round": 1, "blocks": [1], "metrics": [2]}\n' >"$d/bad2.json"
run report "$d/bad2.json" -o "$d/bad.html"
want_rc 4; err_is "$d/bad2.json:1: error: 'metrics' is not an object"
[ -e "$d/bad.html" ] && no "a page was written"
end

begin "report -o onto its trace or the job it embeds: refused, both unchanged"
cp "$d/t.json" "$d/t.keep"
run report "$d/t.json" -o "$d/./t.json"
want_rc 2; err_is "ptm: error: -o $d/./t.json is the trace it reports on: it would be overwritten"
cmp -s "$d/t.json" "$d/t.keep" || no "the trace changed"
run report "$d/t.json" --job "$d/lasso.ptm" --output="$d/lasso.ptm"
want_rc 2; err_has "is the job it embeds: it would be overwritten"
grep -q '^job lasso' "$d/lasso.ptm" || no "the job changed"
end

begin "report: a page that cannot be written, exit 1, nothing left"
run report "$d/t.json" -o "$d/no/such/dir/r.html"
want_rc 1; err_has "ptm: error: cannot write '$d/no/such/dir/r.html': "
end

begin "report: usage errors"
run report
want_rc 2; err_has "report: no trace given"
run report "$d/t.json" "$d/t.json"
want_rc 2; err_has "report takes one trace"
run report "$d/t.json" --svg x
want_rc 2; err_has "unknown option '--svg' for 'report'"
run report -
want_rc 2; err_has "give a file, not standard input"
end

begin "help report, and help run lists --report"
run help report
want_rc 0; out_has "usage: ptm report"; out_has "--job FILE"
run help run
want_rc 0; out_has "--report FILE"
run --help
want_rc 0; out_has "report "
end

begin "run --report onto the job, its trace or an output: refused before the run"
(cd "$d" && cp lasso.ptm job.keep &&
    "$PTM_ABS" run --quiet --report lasso.ptm lasso.ptm) >"$T/out" 2>"$T/err"
rc=$?
want_rc 2; err_has "--report lasso.ptm is the job (lasso.ptm): it would be overwritten"
cmp -s "$d/lasso.ptm" "$d/job.keep" || no "the job changed"
(cd "$d" && "$PTM_ABS" run --quiet --trace new.json --report ./new.json lasso.ptm) >"$T/out" 2>"$T/err"
rc=$?
want_rc 2; err_has "--report ./new.json is the --trace file"
[ -e "$d/new.json" ] && no "the run ran"
(cd "$d" && "$PTM_ABS" run --quiet --report beta.tsv lasso.ptm) >"$T/out" 2>"$T/err"
rc=$?
want_rc 2; err_has "--report beta.tsv is an output of the job (beta.tsv)"
end

begin "run --report without --trace: the page names no trace, and no temporary trace is left"
mkdir -p "$T/rp/tmp"
(cd "$d" && TMPDIR=$T/rp/tmp "$PTM_ABS" run --quiet --report plain.html lasso.ptm) >"$T/out" 2>"$T/err"
rc=$?
want_rc 0; err_empty
grep -q 'the trace was not kept' "$d/plain.html" || no "the page does not say the trace was not kept"
grep -q 'Trace of a run: lasso.ptm' "$d/plain.html" || no "the picture does not name the job"
[ -z "$(ls "$T/rp/tmp")" ] || no "left in TMPDIR: $(ls "$T/rp/tmp")"
end

begin "run --report, Ctrl-C: the page is written and says the run was interrupted"
sed 's|^stop when .*|stop when sweeps >= 100000000|' "$d/lasso.ptm" >"$d/long.ptm"
(cd "$d" && exec "$PTM_ABS" run --workers 2 --report long.html long.ptm) >"$T/out" 2>"$T/err" &
pid=$!
n=0
while [ "$n" -lt 300 ] && ! grep -q '^round ' "$T/err"; do sleep 0.1; n=$((n + 1)); done
kill -INT "$pid"
wait "$pid"
rc=$?
want_rc 130
grep -q '): interrupted</div>' "$d/long.html" || no "the page does not say it was interrupted"
end

begin "run --report of a run that fails after some rounds: the page says why, exit 1"
mkdir -p "$T/rp/kmf/data"
cp "$T/rp/kmeans/data/points.svm" "$T/rp/kmf/data/"
cp examples/kmeans/kmeans.ptm "$T/rp/kmf/"
awk '/^function pull\(S, z\)/ { print "calls = 0"; print; print "    calls = calls + 1"
    print "    if calls > 2 then error(\"boom at pull \" .. calls) end"; next } { print }' \
    examples/kmeans/kmeans.lua >"$T/rp/kmf/kmeans.lua"
(cd "$T/rp/kmf" && "$PTM_ABS" run --quiet --workers 2 --report fail.html kmeans.ptm) >"$T/out" 2>"$T/err"
rc=$?
want_rc 1; err_has "boom at pull 3"
grep -q '<div class="fail"><b>The run failed:</b> pull: kmeans.lua:[0-9]*: boom at pull 3' "$T/rp/kmf/fail.html" ||
    no "the page does not say why the run failed"
grep -q 'The trace does not say why the run stopped' "$T/rp/kmf/fail.html" || no "a stop reason for a failed run"
[ -e "$T/rp/kmf/C.tsv" ] && no "an output was written"
end

# The page in a real browser: no console error, and a picture with something on it.
if command -v chromium >/dev/null 2>&1 && [ -n "$rp_ok" ]; then
    begin "the lasso page in headless chromium: no console message, a screenshot"
    timeout 120 chromium --headless --disable-gpu --no-sandbox --user-data-dir="$T/rp/chrome" \
        --enable-logging=stderr --v=0 --window-size=1200,2400 \
        --screenshot="$T/rp/page.png" "file://$T/rp/lasso/r.html" >"$T/out" 2>"$T/err"
    rc=$?
    want_rc 0
    grep ':CONSOLE' "$T/err" >"$T/console" && no "console: $(head -n 1 "$T/console")"
    # the screenshot decoded: what share of its top third (the stop
    # reason, the figures, the first curves) is not white
    /usr/bin/python3 - "$T/rp/page.png" >"$T/py" 2>&1 <<'EOF' || no "$(tail -n 1 "$T/py")"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit("not a PNG")
at, idat = 8, b""
while at < len(data):
    n, kind = struct.unpack(">I4s", data[at:at + 8])
    body = data[at + 8:at + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    at += 12 + n
if depth != 8 or ctype not in (2, 6):
    sys.exit("a PNG of depth %d, colour type %d" % (depth, ctype))
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, rows, i = bytearray(stride), [], 0
for y in range(h // 3):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b, c = prev[x], prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
ink = sum(1 for r in rows for x in range(0, stride, bpp) if min(r[x:x + 3]) < 200)
if w != 1200 or h != 2400 or ink < 0.01 * w * (h // 3):
    sys.exit("%d x %d, %d pixels of the top third not white" % (w, h, ink))
print("%d x %d, %.1f%% of the top third not white" % (w, h, 100.0 * ink / (w * (h // 3))))
EOF
    end
else
    skip "the page in headless chromium" "no chromium (scripts/deps.sh installs it), or the lasso page failed"
fi

# ---- predict: a trained model applied to new data ----------------------------

P="$T/pred"
mkdir -p "$P"
run gen lasso --seed 3 --out "$P/data" --rows 300 --cols 200 --density 0.05 --group 5 --nonzeros 8
cat >"$P/lasso.ptm" <<'E'
job lasso
const lambda = 0.001
data X : sparse matrix from "data/lasso.svm" format libsvm shard rows
data y : vector from labels(X)
param beta : vector[cols(X)] = 0
param r    : vector[rows(X)] = y shard like X
blocks coef = beta each 1
schedule round_robin { per_round 50 }
update builtin lasso_cd { lambda = lambda, within = sequential }
objective builtin lasso_objective { lambda = lambda } every 1 sweeps
stop when sweeps >= 200 or rel_change(objective) < 1e-12
output beta to "beta.tsv"
E
(cd "$P" && "$PTM_ABS" run --workers 1 lasso.ptm) >"$T/out" 2>"$T/err"
obj=$(last_objective "$T/err")
begin "predict lasso: X beta by hand, and rmse^2 / 2 + lambda |beta|_1 is the run's objective"
run predict "$P/lasso.ptm" --model "$P" --data "$P/data/lasso.svm" -o "$P/pred.tsv"
want_rc 0
out_has "predicted 300 rows of $P/data/lasso.svm to $P/pred.tsv"
# X beta from the libsvm file and beta.tsv, by awk
awk 'NR == FNR { b[NR] = $1; next }
     { s = 0; for (k = 2; k <= NF; k++) { split($k, kv, ":"); s += kv[2] * b[kv[1]] } printf "%.17g\n", s }' \
    "$P/beta.tsv" "$P/data/lasso.svm" >"$P/byhand.tsv"
paste "$P/pred.tsv" "$P/byhand.tsv" | awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-12) bad = 1 }
    END { exit bad }' || no "predictions differ from X beta"
rmse=$(awk '$1 == "rmse" { print $2 }' "$T/out")
l1=$(awk '{ s += ($1 < 0 ? -$1 : $1) } END { printf "%.17g", s }' "$P/beta.tsv")
awk -v r="$rmse" -v l1="$l1" -v f="$obj" 'BEGIN { g = r * r / 2 + 0.001 * l1; d = (g - f) / f;
    if (d < 0) d = -d; exit !(d < 1e-8) }' || no "rmse $rmse does not give the objective $obj"
grep -q '^r2 0\.9' "$T/out" || no "r2 is not above 0.9"
end

begin "gen lasso|logreg --test SHARE: SHARE x R held-out rows of the same model; the training file unchanged"
run gen lasso --seed 6 --out "$P/gt0" --rows 1000 --cols 100 --density 0.05 --nonzeros 5
run gen lasso --seed 6 --out "$P/gt1" --rows 1000 --cols 100 --density 0.05 --nonzeros 5 --test 0.9
want_rc 0
cmp -s "$P/gt0/lasso.svm" "$P/gt1/lasso.svm" || no "lasso.svm changed"
[ ! -e "$P/gt0/test.svm" ] || no "test.svm without --test"
[ "$(wc -l <"$P/gt1/test.svm")" -eq 900 ] || no "not 900 held-out rows"
# the true coefficients on the held-out rows: the RMSE is the noise, 0.1
sed 's|"data/lasso.svm"|"gt1/lasso.svm"|' "$P/lasso.ptm" >"$P/gt.ptm"
run predict "$P/gt.ptm" --param beta="$P/gt1/beta_true.tsv" --data "$P/gt1/test.svm"
want_rc 0
rmse=$(awk '$1 == "rmse" { print $2 }' "$T/out")
awk -v r="$rmse" 'BEGIN { exit !(r > 0.09 && r < 0.11) }' || no "rmse of beta* $rmse, not the noise 0.1"
run gen logreg --seed 6 --out "$P/gl0" --rows 300 --cols 50
run gen logreg --seed 6 --out "$P/gl1" --rows 300 --cols 50 --test 0.25
want_rc 0
cmp -s "$P/gl0/train.svm" "$P/gl1/train.svm" || no "train.svm changed"
cmp -s "$P/gl0/info.tsv" "$P/gl1/info.tsv" || no "info.tsv changed"
[ "$(wc -l <"$P/gl1/test.svm")" -eq 75 ] || no "not 75 held-out rows"
end

begin "metric: a held-out RMSE beside the objective, in progress and trace; since_best() stops early"
sed -e 's|^data y : vector from labels(X)|&\ndata T : sparse matrix from "gt1/test.svm" format libsvm|' \
    -e 's|^objective .*|&\nmetric test_rmse = rmse(T)|' \
    -e 's|^stop when .*|stop when sweeps >= 500 or since_best(test_rmse) >= 3|' \
    -e 's|"data/lasso.svm"|"gt1/lasso.svm"|' -e 's|"beta.tsv"|"beta_es.tsv"|' \
    -e 's|lambda = 0.001|lambda = 0.0001|' "$P/lasso.ptm" >"$P/es.ptm"
(cd "$P" && "$PTM_ABS" run --workers 2 --trace es.jsonl es.ptm) >"$T/out" 2>"$T/err" || no "the run failed"
grep -q ' test_rmse 0\.' "$T/err" || no "progress shows no test_rmse"
# the trace: the best value came 3 evaluations before the last, and no
# earlier stretch went 3 evaluations without a new best
awk -F'"test_rmse": ' 'NF > 1 { split($2, a, /[},]/); n++; v[n] = a[1] + 0 }
    END { best = v[1]; since = 0; for (i = 2; i <= n; i++) {
            if (v[i] < best) { best = v[i]; since = 0 } else since++;
            if (since >= 3 && i < n) exit 1 }
          exit !(since == 3 && n > 4) }' "$P/es.jsonl" || no "the run did not stop at since_best 3"
last=$(awk -F'"test_rmse": ' 'NF > 1 { split($2, a, /[},]/); v = a[1] } END { print v }' "$P/es.jsonl")
run predict "$P/es.ptm" --model "$P" --data "$P/gt1/test.svm"
got=$(awk '$1 == "rmse" { print $2 }' "$T/out")
awk -v a="$got" -v b="$last" 'BEGIN { d = (a - b) / b; if (d < 0) d = -d; exit !(d < 1e-9) }' ||
    no "ptm predict on the written beta gives rmse $got, the run's last metric $last"
end

begin "metric: refused for a Lua update (no model of its own predicts)"
cat >"$P/bad_metric.ptm" <<'E'
job t
data X : sparse matrix from "gt1/lasso.svm" format libsvm shard rows
param w : vector[cols(X)] = 0
blocks b = w each 1
schedule round_robin { per_round 10 }
update lua "nothing.lua"
metric m = rmse(X)
stop when sweeps >= 1
E
printf 'function push(w, blocks) return {} end\n' >"$P/nothing.lua"
run check "$P/bad_metric.ptm"
want_rc 3
err_has "bad_metric.ptm:7:1: error: metrics come from a builtin update's model; a Lua update has none"
end

begin "predict lasso with an intercept: x . beta + b, so rmse^2 / 2 + lambda |beta|_1 is the objective"
mkdir -p "$P/ic"
run gen lasso --seed 8 --out "$P/ic/data" --rows 300 --cols 200 --density 0.05 --group 5 --nonzeros 8 --offset 10
sed -e 's|^stop when .*|stop when sweeps >= 300 or rel_change(objective) < 1e-13|' \
    -e 's|^schedule dynamic {|schedule round_robin { per_round 50 }\nschedule_unused {|' examples/lasso/lasso.ptm |
    awk '/^schedule_unused \{/ { skip = 1; next } skip && /^\}/ { skip = 0; next } !skip' |
    grep -v '^depend\|^priority\|^cost' >"$P/ic/lasso.ptm"
(cd "$P/ic" && "$PTM_ABS" run --workers 1 lasso.ptm) >"$T/out" 2>"$T/err" || no "the run failed"
obj=$(last_objective "$T/err")
b=$(cat "$P/ic/b.tsv")
awk -v b="$b" 'BEGIN { exit !(b > 9 && b < 11) }' || no "the intercept $b is not near the offset 10"
run predict "$P/ic/lasso.ptm" --model "$P/ic" --data "$P/ic/data/lasso.svm"
want_rc 0
rmse=$(awk '$1 == "rmse" { print $2 }' "$T/out")
l1=$(awk '{ s += ($1 < 0 ? -$1 : $1) } END { printf "%.17g", s }' "$P/ic/beta.tsv")
awk -v r="$rmse" -v l1="$l1" -v f="$obj" 'BEGIN { g = r * r / 2 + 0.001 * l1; d = (g - f) / f;
    if (d < 0) d = -d; exit !(d < 1e-8) }' || no "rmse $rmse with b does not give the objective $obj"
end

begin "README, from training to predictions: its commands and snippets, in a copy of the example"
R="$T/readme"
mkdir -p "$R/bin"
cp -R examples "$R/examples"
ln -s "$PTM_ABS" "$R/bin/ptm"
# the commands of the section's sh block, as written
awk '/^## From training to predictions/ { on = 1 } on && /^```sh/ { sh = 1; next }
     sh && /^```/ { exit } sh' README.md >"$R/cycle.sh"
[ "$(grep -c '^ptm ' "$R/cycle.sh")" -ge 3 ] || no "the README's commands were not found"
(cd "$R" && PATH="$R/bin:$PATH" sh -e cycle.sh) >"$T/out" 2>"$T/err" || no "the commands failed"
out_has "predicted 200 rows of data/test.svm"
grep -q '^r2 0\.9' "$T/out" || no "the held-out r2 is not above 0.9"
[ "$(wc -l <"$R/examples/lasso/pred.tsv")" -eq 200 ] || no "pred.tsv has not 200 lines"
# the snippets: a held-out metric with early stopping, then a warm start
J="$R/examples/lasso"
# the section's fences: 1 and 2 hold the commands, 3 and 4 the metric, 5 and 6 the warm start
awk '/^## From training to predictions/ { on = 1; next } on && /^## / { exit } on && /^```/ { n++; next } on && n == 3' README.md >"$R/metric.txt"
awk '/^## From training to predictions/ { on = 1; next } on && /^## / { exit } on && /^```/ { n++; next } on && n == 5' README.md >"$R/warm.txt"
grep -q '^metric test_rmse' "$R/metric.txt" || no "the metric snippet was not found"
grep -q 'from "beta.tsv"' "$R/warm.txt" || no "the warm-start snippet was not found"
awk -v f="$R/metric.txt" 'BEGIN { while ((getline l < f) > 0) add[++n] = l }
     /^data y / { print; print add[1]; next } /^stop when/ { print add[2]; print add[3]; next } { print }' \
    "$J/lasso.ptm" >"$J/heldout.ptm"
(cd "$J" && "$PTM_ABS" run heldout.ptm) >"$T/out" 2>"$T/err" || no "the job with the metric failed"
err_has " test_rmse 0."
awk -v f="$R/warm.txt" 'BEGIN { while ((getline l < f) > 0) if (l != "") add[++n] = l }
     /^param beta / { print add[1]; next } /^param b / { print add[2]; next } { print }' \
    "$J/lasso.ptm" >"$J/again.ptm"
last=$(last_objective "$T/err")
(cd "$J" && "$PTM_ABS" run again.ptm) >"$T/out" 2>"$T/err" || no "the warm start failed"
first=$(objectives "$T/err" | head -n 1)
awk -v a="$first" -v b="$last" 'BEGIN { d = (a - b) / b; if (d < 0) d = -d; exit !(d < 1e-9) }' ||
    no "the warm start begins at $first, the run before ended at $last"
end

begin "predict: the predictions never replace an input (-o the data)"
cp "$P/data/lasso.svm" "$P/copy.svm"
run predict "$P/lasso.ptm" --model "$P" --data "$P/copy.svm" -o "$P/copy.svm"
want_rc 2
err_has "-o $P/copy.svm is the input '$P/copy.svm': it would be overwritten"
cmp -s "$P/copy.svm" "$P/data/lasso.svm" || no "the data changed"
end

begin "predict: -o the job's own output is refused"
run predict "$P/lasso.ptm" --model "$P" --data "$P/data/lasso.svm" -o "$P/beta.tsv"
want_rc 2
err_has "where the job writes beta: it would be overwritten"
end

begin "predict: a parameter file that is not a table is located"
printf '0.5\n0.25x\n\n1\n' >"$P/bad.tsv"
run predict "$P/lasso.ptm" --param beta="$P/bad.tsv" --data "$P/data/lasso.svm"
want_rc 4
err_has "$P/bad.tsv:2:1: error: bad value '0.25x'"
err_has "$P/bad.tsv:3: error: blank line: every line is a row of values"
end

begin "predict: a missing model file says where it looked"
run predict "$P/lasso.ptm" --data "$P/data/lasso.svm"
want_rc 4
err_has "beta.tsv: error: cannot open: No such file or directory"
end

begin "predict: --data is required, and a job that writes no weights names --param"
run predict "$P/lasso.ptm"
want_rc 2
err_has "--data FILE is required"
grep -v '^output' "$P/lasso.ptm" >"$P/noout.ptm"
run predict "$P/noout.ptm" --data "$P/data/lasso.svm"
want_rc 1
err_has "the job writes beta nowhere (no 'output beta to ...'): give --param beta=FILE"
end

begin "run: a dense CSV matrix with a header gives the libsvm file's coefficients, bit for bit"
mkdir -p "$P/dense"
# 40 rows, 6 columns with some zeros; the label first
awk 'BEGIN { srand(5); print "y,a,b,c,d,e,f";
     for (i = 1; i <= 40; i++) { line = ""; y = 0;
       for (j = 1; j <= 6; j++) { v = (rand() < 0.3) ? 0 : int(rand() * 2000 - 1000) / 1000;
         y += v * (j % 3 - 1); line = line "," v }
       printf "%.6f%s\n", y + (rand() - 0.5) / 10, line } }' >"$P/dense/x.csv"
awk -F, 'NR > 1 { line = $1; for (j = 2; j <= NF; j++) if ($j != 0) line = line " " (j - 1) ":" $j;
     print line }' "$P/dense/x.csv" >"$P/dense/x.svm"
for f in csv svm; do
    if [ $f = csv ]; then decl='matrix from "x.csv" format csv'; else decl='sparse matrix from "x.svm" format libsvm'; fi
    cat >"$P/dense/$f.ptm" <<E
job d
data X : $decl shard rows
data y : vector from labels(X)
param beta : vector[6] = 0
blocks coef = beta each 1
schedule round_robin { per_round 6 }
update builtin lasso_cd { lambda = 0.01, within = sequential }
stop when sweeps >= 30
output beta to "beta_$f.tsv"
E
    (cd "$P/dense" && "$PTM_ABS" run --quiet --workers 1 $f.ptm) >"$T/out" 2>"$T/err" || no "the $f job failed"
done
cmp -s "$P/dense/beta_csv.tsv" "$P/dense/beta_svm.tsv" || no "the coefficients differ"
[ "$(grep -c . "$P/dense/beta_csv.tsv")" -eq 6 ] || no "not 6 coefficients"
end

begin "run: a csv label column named in the header (labels(X, \"c\")), anywhere in the row"
# c = (a + 0.5 e - y) / 2 exactly in the numbers below: the fit recovers
# -0.5, 0.5, 0, 0, 0.25 on the other columns (y, a, b, d, e)
awk 'BEGIN { srand(9); print "y,a,b,c,d,e";
     for (i = 1; i <= 200; i++) { a = int(rand() * 2000 - 1000) / 1000; b = int(rand() * 2000 - 1000) / 1000;
       c = int(rand() * 2000 - 1000) / 1000; d = int(rand() * 2000 - 1000) / 1000; e = int(rand() * 2000 - 1000) / 1000;
       printf "%.6f,%s,%s,%s,%s,%s\n", a - 2 * c + 0.5 * e, a, b, c, d, e } }' >"$P/dense/named.csv"
cat >"$P/dense/named.ptm" <<'E'
job named
data X : matrix from "named.csv" format csv shard rows
data c : vector from labels(X, "c")
param beta : vector[cols(X)] = 0
blocks coef = beta each 1
schedule round_robin { per_round 5 }
update builtin lasso_cd { lambda = 1e-6, y = c, within = sequential }
stop when sweeps >= 200
output beta to "beta_named.tsv"
E
(cd "$P/dense" && "$PTM_ABS" run --quiet named.ptm) >"$T/out" 2>"$T/err" || no "the run failed"
printf -- '-0.5\n0.5\n0\n0\n0.25\n' | paste - "$P/dense/beta_named.tsv" |
    awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-3) bad = 1; n++ } END { exit bad || n != 5 }' ||
    no "the coefficients are not those of c = (a + 0.5 e - y) / 2"
sed 's|labels(X, "c")|labels(X, "cc")|' "$P/dense/named.ptm" >"$P/dense/named2.ptm"
run check --data "$P/dense/named2.ptm"
want_rc 4
err_has "named.csv:1: error: no column 'cc' in the header (it has 'y', 'a', 'b', 'c', 'd', 'e')"
end

begin "predict logreg: probabilities, log loss, accuracy and AUC by hand (ties half)"
cat >"$P/lr.ptm" <<'E'
job lr
data X : sparse matrix from "lr.svm" format libsvm shard rows
data y : vector from labels(X)
param w : vector[cols(X)] = 0
schedule data_parallel { minibatch 2 }
update builtin logreg_sgd { method = sgd, rate = 0.1 }
stop when sweeps >= 10
output w to "w.tsv"
E
printf '1 1:1\n0 1:1\n1 2:1\n0 3:1\n1 1:2\n' >"$P/lr.svm"
printf '1\n0\n-1\n' >"$P/w.tsv"
run predict "$P/lr.ptm" --model "$P" --data "$P/lr.svm" -o -
want_rc 0
# margins 1, 1, 0, -1, 2: probabilities, and pairs (pos, neg) ranked
# right: (1,0 tie) (1,-1) (0,0 no: 0 < 1) ... AUC = (0.5 + 1 + 0 + 1 + 1 + 1) / 6
awk 'BEGIN { m[1] = 1; m[2] = 1; m[3] = 0; m[4] = -1; m[5] = 2;
     for (i = 1; i <= 5; i++) printf "%.17g\n", 1 / (1 + exp(-m[i])) }' >"$P/lr.want"
awk '{ printf "%.17g\n", $1 }' "$T/out" | paste - "$P/lr.want" |
    awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-15) bad = 1 } END { exit bad }' ||
    no "probabilities differ"
want_ll=$(awk 'BEGIN { printf "%.10g", (log(1 + exp(-1)) + log(1 + exp(1)) + log(2) + log(1 + exp(-1)) + log(1 + exp(-2))) / 5 }')
err_has "logloss $want_ll"
err_has "accuracy 0.6"
err_has "auc 0.75"
end

begin "predict mf: the test RMSE of the run's own objective"
run gen mf --seed 2 --out "$P/mf" --rows 60 --cols 50 --rank 3
cat >"$P/mf.ptm" <<'E'
job mf
data R : sparse matrix from "mf/ratings.mtx" format mm shard rows
data T : sparse matrix from "mf/test.mtx" format mm
param W : matrix[rows(R), 3] = random(0.1) shard like R
param H : matrix[cols(R), 3] = random(0.1)
blocks hb = H rows into workers
schedule rotation over hb
update builtin mf_sgd { rate = 0.05, reg = 0.05 }
objective builtin rmse { test = T } every 1 sweeps
stop when sweeps >= 20
output W to "W.tsv"
output H to "H.tsv"
E
(cd "$P" && "$PTM_ABS" run --workers 2 mf.ptm) >"$T/out" 2>"$T/err"
want=$(last_objective "$T/err")
run predict "$P/mf.ptm" --model "$P" --data "$P/mf/test.mtx" -o "$P/mf.pred"
want_rc 0
got=$(awk '$1 == "rmse" { print $2 }' "$T/out")
awk -v a="$got" -v b="$want" 'BEGIN { d = (a - b) / b; if (d < 0) d = -d; exit !(d < 1e-9) }' ||
    no "rmse $got, the run's $want"
[ "$(wc -l <"$P/mf.pred")" -eq "$(awk '!/^%/ { n++ } END { print n - 1 }' "$P/mf/test.mtx")" ] ||
    no "not a line an entry"
printf '1\t2\n' >"$P/H2.tsv"
run predict "$P/mf.ptm" --model "$P" --param H="$P/H2.tsv" --data "$P/mf/test.mtx"
want_rc 1
err_has "has rank 3 and '$P/H2.tsv' rank 2"
end

begin "run: a rotation hook that writes nan into W: exit 1, the parameter named, nothing written"
mkdir -p "$P/nan"
cat >"$P/nan/nan.lua" <<'E'
#!/usr/bin/env lua
function push(w, b, job)
    w.W:row(1)[1] = 0 / 0
end
E
printf '\357\273\277' | cat - "$P/nan/nan.lua" >"$P/nan/bom.lua"  # a byte order mark first
sed -e 's|"mf/|"../mf/|g' -e 's|^update builtin .*|update lua "bom.lua"|' -e '/^objective/d' \
    -e 's|^stop when .*|stop when sweeps >= 2|' "$P/mf.ptm" >"$P/nan/nan.ptm"
(cd "$P/nan" && "$PTM_ABS" run --workers 2 nan.ptm) >"$T/out" 2>"$T/err"
rc=$?
want_rc 1
err_has "W holds 2 values that are not finite (the first, nan, at row 1, column 1): no outputs are written"
[ ! -e "$P/nan/W.tsv" ] && [ ! -e "$P/nan/H.tsv" ] || no "an output was written"
end

begin "metric: MF's held-out RMSE on 2 workers is the rmse objective on the same ratings"
sed -e 's|^objective .*|&\nmetric held = rmse(T)\nmetric held_mae = mae(T)|' "$P/mf.ptm" >"$P/mfm.ptm"
(cd "$P" && "$PTM_ABS" run --workers 2 mfm.ptm) >"$T/out" 2>"$T/err" || no "the run failed"
awk '/^round / { for (i = 1; i < NF; i++) { if ($i == "objective") o = $(i + 1); if ($i == "held") h = $(i + 1) }
     d = o - h; if (d < 0) d = -d; if (d > 1e-5 * o || h == "") bad = 1; n++ }
     END { exit bad || n == 0 }' "$T/err" || no "held differs from the objective"
end

begin "predict lda: fold-in with the true topics recovers the true mixtures"
run gen lda --seed 4 --out "$P/lda" --docs 300 --words 400 --topics 5 --length 80
# the true topics (a topic a line) as word-topic counts (a word a line)
awk '{ for (v = 1; v <= NF; v++) c[v, NR] = int($v * 1e6 + 0.5); K = NR; V = NF }
     END { for (v = 1; v <= V; v++) for (k = 1; k <= K; k++) printf "%d%s", c[v, k], k < K ? "\t" : "\n" }' \
    "$P/lda/topics_true.tsv" >"$P/nwk_true.tsv"
cat >"$P/lda.ptm" <<'E'
job lda
data D : sparse int matrix from "lda/docword.txt" format uci vocab "lda/vocab.txt" shard rows
param nwk : int matrix[cols(D), 5] = 0
param nk  : int vector[5] = 0 consistency ssp 1
blocks words = nwk rows into workers
schedule rotation over words
update builtin lda_gibbs { alpha = 0.1, beta = 0.01 }
stop when sweeps >= 10
output nwk to "word_topic.tsv"
E
run predict "$P/lda.ptm" --param nwk="$P/nwk_true.tsv" --data "$P/lda/docword.txt" -o "$P/theta.tsv"
want_rc 0
out_has "predicted 300 documents"
# mean L1 distance to the true mixtures: small, against 1.6 for uniform mixtures
d=$(paste "$P/theta.tsv" "$P/lda/doc_topics_true.tsv" |
    awk '{ s = 0; for (k = 1; k <= 5; k++) { x = $k - $(k + 5); s += x < 0 ? -x : x } t += s }
         END { printf "%.3f", t / NR }')
awk -v d="$d" 'BEGIN { exit !(d < 0.25) }' || no "mean L1 distance $d to the true mixtures"
ll=$(awk '$1 == "loglik_per_word" { print $2 }' "$T/out")
awk -v l="$ll" 'BEGIN { exit !(l > -log(400) + 0.5) }' || no "loglik_per_word $ll not above uniform words"
end

# ---- parameters from a file (param ... = from "file") -------------------

# rel_ok A B TOL: |A - B| <= TOL |B|
# objectives FILE: the objective of every progress line of stderr in FILE, one a line

mkdir -p "$T/w"
"$PTM" gen lasso --seed 1 --out "$T/w/data" >/dev/null 2>&1
awk 'BEGIN { for (i = 0; i < 10000; i++) print 0 }' >"$T/w/zero.tsv"
# warm_job NAME START SWEEPS OUT: a Lasso job on the example data from START
warm_job() {
    printf '%s\n' "job $1" "const lambda = 0.002" \
        'data X : sparse matrix from "data/lasso.svm" format libsvm shard rows' \
        'data y : vector from labels(X)' \
        "param beta : vector[cols(X)] = from \"$2\"" \
        'param r : vector[rows(X)] = y shard like X' 'blocks coef = beta each 1' \
        'schedule round_robin over coef' 'update builtin lasso_cd { lambda = lambda }' \
        'objective builtin lasso_objective { lambda = lambda } every 1 sweeps' \
        "stop when sweeps >= $3" "output beta to \"$T/w/$4\"" >"$T/w/$1.ptm"
}
warm_job first zero.tsv 4 beta.tsv
warm_job second beta.tsv 60 beta2.tsv
warm_job long zero.tsv 64 beta-long.tsv

begin "lasso from beta.tsv: starts at the objective the run that wrote it ended on (1e-9), reaches the same optimum as one long run (1e-8)"
run run --workers 1 "$T/w/first.ptm"
want_rc 0
f_first=$(objectives "$T/err" | tail -n 1)
run run --workers 1 "$T/w/second.ptm"
want_rc 0
f_start=$(objectives "$T/err" | head -n 1)
f_second=$(objectives "$T/err" | tail -n 1)
run run --workers 1 "$T/w/long.ptm"
want_rc 0
f_long=$(objectives "$T/err" | tail -n 1)
rel_ok "$f_start" "$f_first" 1e-9 || no "starts at $f_start, the first run ended at $f_first"
rel_ok "$f_second" "$f_long" 1e-8 || no "ends at $f_second, one long run at $f_long"
rel_ok "$f_second" "$f_start" 1e-3 && no "the second run did not move ($f_start to $f_second)"
end

begin "lasso from beta.tsv on 2 workers: the same first objective (1e-9)"
run run --workers 2 --set lambda=0.002 "$T/w/second.ptm"
want_rc 0
rel_ok "$(objectives "$T/err" | head -n 1)" "$f_first" 1e-9 || no "starts at $(objectives "$T/err" | head -n 1), want $f_first"
end

begin "a plan from a job with a file: the path stays relative to the job's directory"
run compile "$T/w/second.ptm" -o "$T/w/second.yaml"
want_rc 0
grep -q 'init: file' "$T/w/second.yaml" || no "no 'init: file' in the plan"
grep -q 'init_path: "beta.tsv"' "$T/w/second.yaml" || no "no init_path in the plan"
run run --quiet --workers 1 "$T/w/second.ptm"
cp "$T/w/beta2.tsv" "$T/w/beta2-job.tsv"
(cd / && "$PTM_ABS" run --quiet --workers 1 "$T/w/second.yaml" >"$T/out" 2>"$T/err")
rc=$?
want_rc 0
cmp -s "$T/w/beta2.tsv" "$T/w/beta2-job.tsv" || no "beta differs from the job's"
end

begin "check --data reads the file a parameter starts from"
run check --data "$T/w/second.ptm"
want_rc 0
out_has "beta.tsv: param beta: 10000 x 1"
end

head -n 9999 "$T/w/beta.tsv" >"$T/w/short.tsv"
sed 's/"beta.tsv"/"short.tsv"/' "$T/w/second.ptm" >"$T/w/short.ptm"
begin "a file of too few rows: named, with what it holds and what the parameter needs, at the param statement; exit 4"
run run --workers 1 "$T/w/short.ptm"
want_rc 4
err_is "$T/w/short.ptm:5:1: error: 'short.tsv' holds 9999 rows, beta needs 10000 (cols(X))"
run check --data "$T/w/short.ptm"
want_rc 4
err_is "$T/w/short.ptm:5:1: error: 'short.tsv' holds 9999 rows, beta needs 10000 (cols(X))"
end

paste "$T/w/beta.tsv" "$T/w/beta.tsv" >"$T/w/short.tsv"
begin "a file of two columns for a vector: exit 4"
run run --workers 1 "$T/w/short.ptm"
want_rc 4
err_is "$T/w/short.ptm:5:1: error: 'short.tsv' holds 2 columns, beta needs 1 (a vector: a value a line)"
end

{ echo 0; echo 0.5x; echo nan; echo 1 2; head -n 9996 "$T/w/beta.tsv"; } >"$T/w/short.tsv"
begin "bad values and lines in the file: FILE:LINE:COL, exit 4"
run run --workers 1 "$T/w/short.ptm"
want_rc 4
err_is "$T/w/short.tsv:2:1: error: bad value '0.5x'
$T/w/short.tsv:3:1: error: value 'nan' is not a finite number
$T/w/short.tsv:4: error: 2 values on this line, 1 on line 1"
end

rm -f "$T/w/short.tsv"
begin "a missing file: cannot open, with the path and the reason; exit 4"
run run --workers 1 "$T/w/short.ptm"
want_rc 4
err_is "$T/w/short.tsv: error: cannot open: No such file or directory"
run check --data "$T/w/short.ptm"
want_rc 4
err_is "$T/w/short.tsv: error: cannot open: No such file or directory"
end

begin "an int parameter from a file needs whole values"
printf 'function push() end\n' >"$T/w/int.lua"
printf '3\n2.5\n1\n' >"$T/w/int.tsv"
printf '%s\n' "job ints" 'param p : int vector[3] = from "int.tsv"' 'blocks b = p into workers' \
    'schedule rotation' 'update lua "int.lua"' 'stop when rounds >= 1' >"$T/w/int.ptm"
run check --data "$T/w/int.ptm"
want_rc 4
err_is "$T/w/int.tsv:2:1: error: value '2.5' is not a whole number (the parameter is declared int)"
end

begin "lda_gibbs counts cannot start from a file, exit 3"
sed 's|^param nwk .*|param nwk : int matrix[cols(D), topics] = from "word_topic.tsv"|' \
    examples/lda/lda.ptm >"$T/w/lda.ptm"
run check "$T/w/lda.ptm"
want_rc 3
err_has "$T/w/lda.ptm:10:7: error: 'nwk' cannot start from a file: lda_gibbs derives it (the counts of its topic assignments, which no output holds)"
end

begin "a plan whose lda_gibbs counts start from a file is refused, exit 3"
"$PTM" compile examples/lda/lda.ptm -o "$T/w/lda.yaml"
awk '/name: "nwk"/ { f = 1 } f && /init: const/ { print "  init: file"; print "  init_path: \"w.tsv\""; getline; f = 0; next } { print }' \
    "$T/w/lda.yaml" >"$T/w/lda-file.yaml"
run check "$T/w/lda-file.yaml"
want_rc 3
err_has "error: parameter 0 ('nwk') cannot start from a file: lda_gibbs derives it"
end

# MF: W and H from the files a run wrote; the next run's first RMSE is the
# last one of the run that wrote them.
mkdir -p "$T/w/mf"
"$PTM" gen mf --seed 1 --out "$T/w/mf/data" --rows 300 --cols 200 --ratings 6000 --rank 4 >/dev/null 2>&1
sed -e 's|^stop when .*|stop when sweeps >= 5|' -e "s|\"W.tsv\"|\"$T/w/mf/W.tsv\"|" \
    -e "s|\"H.tsv\"|\"$T/w/mf/H.tsv\"|" examples/mf/mf.ptm >"$T/w/mf/first.ptm"
sed -e 's|= random(0.1) shard like R|= from "W.tsv" shard like R|' \
    -e 's|^param H \(.*\) = random(0.1)|param H \1 = from "H.tsv"|' \
    -e "s|\"$T/w/mf/W.tsv\"|\"$T/w/mf/W2.tsv\"|" -e "s|\"$T/w/mf/H.tsv\"|\"$T/w/mf/H2.tsv\"|" \
    "$T/w/mf/first.ptm" >"$T/w/mf/second.ptm"
begin "mf from W.tsv and H.tsv: the first RMSE is the last one of the run that wrote them (1e-9)"
run run --workers 2 "$T/w/mf/first.ptm"
want_rc 0
e_first=$(objectives "$T/err" | tail -n 1)
grep -q 'from "W.tsv" shard like R' "$T/w/mf/second.ptm" || no "the job does not start W from a file"
grep -q 'from "H.tsv"' "$T/w/mf/second.ptm" || no "the job does not start H from a file"
run run --workers 2 "$T/w/mf/second.ptm"
want_rc 0
rel_ok "$(objectives "$T/err" | head -n 1)" "$e_first" 1e-9 || no "starts at $(objectives "$T/err" | head -n 1), want $e_first"
rel_ok "$(objectives "$T/err" | tail -n 1)" "$e_first" 1e-6 && no "the second run did not move"
end

# An order in a dry run: ptm plan's first round is the blocks of largest
# order, as ptm run's (the columns most like y, computed here).
mkdir -p "$T/w/ord"
"$PTM" gen lasso --seed 3 --out "$T/w/ord" --rows 200 --cols 50 --density 0.2 --group 3 >/dev/null 2>&1
printf '%s\n' "job o" "data X : sparse matrix from \"$T/w/ord/lasso.svm\" format libsvm shard rows" \
    "data y : vector from labels(X)" "param beta : vector[cols(X)] = 0" \
    "param r : vector[rows(X)] = y shard like X" "blocks coef = beta each 1" \
    "priority coef(j) = abs(delta(beta[j]))" "order coef(j) = abs(corr(col(X, j), y))" \
    "schedule dynamic { sample 8, active }" "update builtin lasso_cd { lambda = 0.01, within = sequential }" \
    "stop when sweeps >= 2" >"$T/w/ord/o.ptm"
begin "ptm plan and ptm run: an order's first pass is the 8 columns most like y (|corr|), then those that moved"
awk '{ for (i = 2; i <= NF; i++) { split($i, a, ":"); j = a[1]; d[j] += a[2] * $1; s[j] += a[2]; q[j] += a[2] * a[2] }
       n++; sy += $1; yy += $1 * $1 }
     END { for (j in d) { c = (d[j] - s[j] * sy / n) / sqrt((q[j] - s[j] * s[j] / n) * (yy - sy * sy / n))
                          if (c < 0) c = -c; printf "%.17g %d\n", c, j } }' "$T/w/ord/lasso.svm" |
    sort -k1,1gr -k2,2n | head -n 8 | awk '{ print $2 }' | sort -n | tr '\n' ' ' >"$T/w/ord/top"
run plan --workers 1 "$T/w/ord/o.ptm"
want_rc 0
grep -q "^# note: order: the first pass takes the 8 blocks of largest 'abs(corr(col(X, j), y))'" "$T/out" ||
    no "ptm plan does not say what the order does"
got=$(awk '$1 == 1 && $2 == 1 { for (i = 6; i <= NF; i++) print $i }' "$T/out" | sort -n | tr '\n' ' ')
[ "$got" = "$(cat "$T/w/ord/top")" ] || no "ptm plan's first round is $got, not $(cat "$T/w/ord/top")"
run run --quiet --workers 1 --trace "$T/w/ord/t.jsonl" --trace-blocks "$T/w/ord/o.ptm"
want_rc 0
got=$(head -n 1 "$T/w/ord/t.jsonl" | sed 's/.*"blocks": \[//; s/\].*//' | tr -d ',' | tr ' ' '\n' | sort -n | tr '\n' ' ')
[ "$got" = "$(cat "$T/w/ord/top")" ] || no "ptm run's first round is $got, not $(cat "$T/w/ord/top")"
# the first pass is those 8: the next round goes over those of them that moved
got=$(sed -n 2p "$T/w/ord/t.jsonl" | sed 's/.*"blocks": \[//; s/\].*//' | tr -d ',' | tr ' ' '\n' | sort -n | tr '\n' ' ')
[ -n "$got" ] || no "ptm run has no second round"
for b in $got; do
    case " $(cat "$T/w/ord/top")" in *" $b "*) ;; *) no "ptm run's second round has block $b, not among $(cat "$T/w/ord/top")" ;; esac
done
end

begin "ptm plan: an order that reads a column out of range names the block, the column and the range, either form"
for form in "abs(corr(col(X, j), y))" "abs(corr(col(X, j), y)) + 0"; do
    sed -e 's/^param beta : vector\[cols(X)\] = 0/param beta : vector[60] = 0/' \
        -e "s/^order .*/order coef(j) = $form/" "$T/w/ord/o.ptm" >"$T/w/ord/wide.ptm"
    run plan --workers 1 "$T/w/ord/wide.ptm"
    want_rc 1
    err_has "the order of coef(51) '$form' reads column 51 of 'X', out of range (1..50)"
done
end

# ---- ptm run under Open MPI: 1, 2 and 4 ranks on this machine ----------

# Ranks run the plain build only: the sanitizers' runtimes and Open MPI's
# do not mix (its own allocations look like leaks).
case "$PTM" in
*build/*) mpi_tests=false ;;
*) mpi_tests=true ;;
esac
command -v mpirun >/dev/null 2>&1 || mpi_tests=false
if $mpi_tests && "$PTM" run --backend threads "$T/no-such.ptm" 2>&1 | grep -q . &&
    "$PTM" run --backend mpi "$T/no-such.ptm" 2>&1 | grep -q "built without MPI"; then
    mpi_tests=false
fi
if $mpi_tests; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader
    # mpirun_ptm NP ARGS...: ptm under mpirun, like run()
    mpirun_ptm() {
        np=$1
        shift
        set +e
        timeout 120 mpirun --bind-to none -np "$np" "$PTM" "$@" >"$T/out" 2>"$T/err"
        rc=$?
        set -e
    }
    mkdir -p "$T/mpi"
    "$PTM" gen lasso --seed 7 --out "$T/mpi" --rows 300 --cols 60 --density 0.1 --group 3 >/dev/null 2>&1
    for rule in builtin lua; do
        if [ "$rule" = builtin ]; then
            upd='update builtin lasso_cd { lambda = 0.002 }'
            obj='objective builtin lasso_objective { lambda = 0.002 } every 1 sweeps'
        else
            upd="update lua \"$PWD/examples/lasso/lasso.lua\""
            obj="objective lua \"$PWD/examples/lasso/lasso.lua\" \"objective\" every 1 sweeps"
        fi
        printf '%s\n' "job m" "const lambda = 0.002" \
            "data X : sparse matrix from \"$T/mpi/lasso.svm\" format libsvm shard rows" \
            "data y : vector from labels(X)" "param beta : vector[cols(X)] = 0" \
            "param r : vector[rows(X)] = y shard like X" "blocks coef = beta each 1" \
            "schedule random { per_round 3 }" "$upd" "$obj" "stop when sweeps >= 40" \
            "output beta to \"$T/mpi/beta.tsv\"" "output r to \"$T/mpi/r.tsv\"" >"$T/mpi/$rule.ptm"
        run run --quiet --workers 2 "$T/mpi/$rule.ptm"
        cp "$T/mpi/beta.tsv" "$T/mpi/beta-threads.tsv"
        cp "$T/mpi/r.tsv" "$T/mpi/r-threads.tsv"
        for np in 1 2 4; do
            begin "mpirun -np $np, $rule: the same beta and r as threads (1e-12)"
            mpirun_ptm "$np" run --quiet --workers 1 "$T/mpi/$rule.ptm"
            want_rc 0
            paste "$T/mpi/beta.tsv" "$T/mpi/beta-threads.tsv" |
                awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-12) bad = 1 } END { exit bad }' ||
                no "beta differs from the threads' by more than 1e-12"
            [ "$(wc -l <"$T/mpi/r.tsv")" -eq 300 ] || no "r.tsv does not have 300 lines"
            paste "$T/mpi/r.tsv" "$T/mpi/r-threads.tsv" |
                awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-12) bad = 1 } END { exit bad }' ||
                no "r differs from the threads' by more than 1e-12"
            end
        done
    done

    # a metric on held-out rows: rank 0 scores the parameters gathered from
    # every rank, as the threads score theirs
    "$PTM" gen lasso --seed 7 --out "$T/mpi/held" --rows 300 --cols 60 --density 0.1 --group 3 --test 0.5 >/dev/null 2>&1
    sed -e "s|^data y : vector from labels(X)|&\ndata T : sparse matrix from \"$T/mpi/held/test.svm\" format libsvm|" \
        -e 's|^objective .*|&\nmetric held = r2(T)|' "$T/mpi/builtin.ptm" >"$T/mpi/metric.ptm"
    run run --workers 2 "$T/mpi/metric.ptm"
    awk '/ held / { for (i = 1; i < NF; i++) if ($i == "held") print $(i + 1) }' "$T/err" >"$T/mpi/held-threads.txt"
    begin "mpirun -np 2, a metric on held-out rows: the threads' values"
    mpirun_ptm 2 run --workers 1 "$T/mpi/metric.ptm"
    want_rc 0
    awk '/ held / { for (i = 1; i < NF; i++) if ($i == "held") print $(i + 1) }' "$T/err" >"$T/mpi/held-mpi.txt"
    [ -s "$T/mpi/held-mpi.txt" ] || no "progress shows no metric"
    cmp -s "$T/mpi/held-mpi.txt" "$T/mpi/held-threads.txt" || no "the metric differs from the threads'"
    end
    sed -e 's|^metric held = r2(T)|metric held = r2(X)|' "$T/mpi/metric.ptm" >"$T/mpi/metric_x.ptm"
    begin "mpirun -np 2, a metric on the rows sharded across ranks is refused"
    mpirun_ptm 2 run --workers 1 "$T/mpi/metric_x.ptm"
    want_rc 1
    err_has "metric held: data 'X' is sharded by rows, so under MPI no rank holds all of it"
    end
    "$PTM" gen logreg --seed 3 --out "$T/mpi/lr" --rows 200 --cols 30 --density 0.2 --nonzeros 7 >/dev/null 2>&1
    printf '%s\n' 'job cd' "data X : sparse matrix from \"$T/mpi/lr/train.svm\" format libsvm shard rows" \
        'data y : vector from labels(X)' 'param w : vector[cols(X)] = 0' 'blocks coef = w each 1' \
        'schedule round_robin { per_round 10 }' 'update builtin logreg_cd { l1 = 0.01 }' \
        'stop when sweeps >= 2' >"$T/mpi/cd.ptm"
    begin "mpirun -np 2, logreg_cd is refused: its steps read every row of a column"
    mpirun_ptm 2 run --workers 1 "$T/mpi/cd.ptm"
    want_rc 1
    err_has "update logreg_cd: runs in one process"
    end

    # dynamic with a dependency graph over all ranks' rows: the same rounds
    # and coefficients as 2 threads, which compute the pairs round by round
    sed -e 's/^schedule random.*/depend coef(i), coef(j) when abs(corr(col(X, i), col(X, j))) > 0.1\
priority coef(j) = abs(delta(beta[j])) + 1e-4\
schedule dynamic { sample 16 }/' "$T/mpi/builtin.ptm" >"$T/mpi/dyn.ptm"
    run run --quiet --workers 2 --trace "$T/mpi/dyn-threads.jsonl" --trace-blocks "$T/mpi/dyn.ptm"
    cp "$T/mpi/beta.tsv" "$T/mpi/beta-threads.tsv"
    # round_sets TRACE: each round's blocks as a set, its candidates and
    # conflicts, a line a round
    round_sets() {
        awk '/^{"round": / {
            b = $0; sub(/^[^[]*\[/, "", b); sub(/\].*/, "", b)
            n = split(b, v, ", ")
            for (i = 2; i <= n; i++) { x = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
            s = ""; for (i = 1; i <= n; i++) s = s " " v[i]
            c = $0; sub(/.*"candidates"/, "", c); sub(/, "evaluations.*/, "", c)
            print s, c
        }' "$1"
    }
    for np in 2 3; do
        begin "mpirun -np $np, dynamic with a dependency graph: the same rounds and beta (1e-12) as $np threads answering pairs round by round"
        if [ "$np" = 3 ]; then
            run run --quiet --workers 3 --trace "$T/mpi/dyn-threads.jsonl" --trace-blocks "$T/mpi/dyn.ptm"
            cp "$T/mpi/beta.tsv" "$T/mpi/beta-threads.tsv"
        fi
        mpirun_ptm "$np" run --quiet --workers 1 --trace "$T/mpi/dyn-mpi.jsonl" --trace-blocks "$T/mpi/dyn.ptm"
        want_rc 0
        grep -q '"graph": {"edges": [1-9]' "$T/mpi/dyn-mpi.jsonl" || no "the trace reports no graph"
        for f in threads mpi; do
            round_sets "$T/mpi/dyn-$f.jsonl" >"$T/mpi/dyn-$f.rounds"
        done
        cmp -s "$T/mpi/dyn-threads.rounds" "$T/mpi/dyn-mpi.rounds" ||
            no "the rounds differ from the threads'"
        paste "$T/mpi/beta.tsv" "$T/mpi/beta-threads.tsv" |
            awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-12) bad = 1 } END { exit bad }' ||
            no "beta differs from the threads' by more than 1e-12"
        end
    done

    # keep moved: rank 0 filters after the pull what 2 threads filter in
    # their push; the same rounds, dropped changes and beta
    sed -e 's/^schedule dynamic { sample 16 }/schedule dynamic { sample 16, active, keep moved }/' \
        "$T/mpi/dyn.ptm" >"$T/mpi/dynm.ptm"
    begin "mpirun -np 2, dynamic { keep moved }: the same rounds, dropped changes and beta (1e-12) as 2 threads"
    run run --quiet --workers 2 --trace "$T/mpi/dynm-threads.jsonl" --trace-blocks "$T/mpi/dynm.ptm"
    want_rc 0
    cp "$T/mpi/beta.tsv" "$T/mpi/beta-threads.tsv"
    mpirun_ptm 2 run --quiet --workers 1 --trace "$T/mpi/dynm-mpi.jsonl" --trace-blocks "$T/mpi/dynm.ptm"
    want_rc 0
    for f in threads mpi; do
        round_sets "$T/mpi/dynm-$f.jsonl" >"$T/mpi/dynm-$f.rounds"
    done
    cmp -s "$T/mpi/dynm-threads.rounds" "$T/mpi/dynm-mpi.rounds" || no "the rounds differ from the threads'"
    grep -q '"conflicts": [1-9]' "$T/mpi/dynm-mpi.jsonl" || no "no round dropped a change"
    paste "$T/mpi/beta.tsv" "$T/mpi/beta-threads.tsv" |
        awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-12) bad = 1 } END { exit bad }' ||
        no "beta differs from the threads' by more than 1e-12"
    end

    # an order: its common shape summed across ranks, any other form
    # evaluated on rank 0 over every rank's rows; either way the first
    # round is the 16 columns most like y (|cos|, computed here from the
    # file), and the rounds and beta are the threads'
    awk '{ for (i = 2; i <= NF; i++) { split($i, a, ":"); d[a[1]] += a[2] * $1; q[a[1]] += a[2] * a[2] }
           yy += $1 * $1 }
         END { for (j in d) { c = d[j] / sqrt(q[j] * yy); if (c < 0) c = -c; printf "%.17g %d\n", c, j } }' \
        "$T/mpi/lasso.svm" | sort -k1,1gr -k2,2n | head -n 16 | awk '{ print $2 }' | sort -n |
        tr '\n' ' ' >"$T/mpi/top16"
    k=0
    for form in "abs(cos(col(X, j), y))" "abs(cos(col(X, j), y)) + 0"; do
        k=$((k + 1))
        sed -e "s/^schedule random.*/priority coef(j) = abs(delta(beta[j]))\\
order coef(j) = $form\\
schedule dynamic { sample 16, active }/" "$T/mpi/builtin.ptm" >"$T/mpi/ord$k.ptm"
        begin "mpirun -np 2, dynamic { active } with order $form: the first round the 16 columns most like y, the rounds and beta (1e-12) of 2 threads"
        run run --quiet --workers 2 --trace "$T/mpi/ord$k-threads.jsonl" --trace-blocks "$T/mpi/ord$k.ptm"
        want_rc 0
        cp "$T/mpi/beta.tsv" "$T/mpi/beta-threads.tsv"
        mpirun_ptm 2 run --quiet --workers 1 --trace "$T/mpi/ord$k-mpi.jsonl" --trace-blocks "$T/mpi/ord$k.ptm"
        want_rc 0
        for f in threads mpi; do
            round_sets "$T/mpi/ord$k-$f.jsonl" >"$T/mpi/ord$k-$f.rounds"
        done
        cmp -s "$T/mpi/ord$k-threads.rounds" "$T/mpi/ord$k-mpi.rounds" || no "the rounds differ from the threads'"
        first=$(head -n 1 "$T/mpi/ord$k-mpi.rounds" | awk '{ for (i = 1; i <= 16; i++) printf "%d ", $i }')
        top=$(cat "$T/mpi/top16")
        [ "$first" = "$top" ] || no "the first round is $first, not the 16 columns most like y: $top"
        paste "$T/mpi/beta.tsv" "$T/mpi/beta-threads.tsv" |
            awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-12) bad = 1 } END { exit bad }' ||
            no "beta differs from the threads' by more than 1e-12"
        end
    done
    begin "dynamic { active }: an order of the common shape and the same order evaluated term by term give the same rounds"
    cmp -s "$T/mpi/ord1-threads.rounds" "$T/mpi/ord2-threads.rounds" || no "the two forms' rounds differ"
    end

    # the Lasso example's intercept with the rows sharded over the ranks
    run run --quiet --workers 1 "$T/sk/lasso.ptm"
    cp "$T/sk/b.tsv" "$T/sk/b-threads.tsv"
    for cfg in "2 1" "3 1" "2 2"; do
        set -- $cfg
        begin "mpirun -np $1, $2 thread(s) a rank, lasso.ptm (intercept): scikit-learn's objective to 1e-6, the threads' b to 1e-9"
        mpirun_ptm "$1" run --quiet --workers "$2" "$T/sk/lasso.ptm"
        want_rc 0
        gap=$(/usr/bin/python3 "$T/sk/gap.py" lasso "$T/sk/lasso/lasso.svm" "$T/sk/beta.tsv" "$T/sk/b.tsv" 0.001)
        name="$name: gap $gap"
        awk -v v="${gap%% *}" 'BEGIN { if (v < 0) v = -v; exit !(v != "" && v <= 1e-6) }' || no "relative gap $gap"
        paste "$T/sk/b.tsv" "$T/sk/b-threads.tsv" |
            awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-9) bad = 1 } END { exit bad }' ||
            no "b $(cat "$T/sk/b.tsv"), the threads' $(cat "$T/sk/b-threads.tsv")"
        end
    done

    begin "mpirun -np 2 with 2 threads a rank: the same beta as threads"
    run run --quiet --workers 2 "$T/mpi/builtin.ptm"
    cp "$T/mpi/beta.tsv" "$T/mpi/beta-threads.tsv"
    mpirun_ptm 2 run --quiet --workers 2 "$T/mpi/builtin.ptm"
    want_rc 0
    paste "$T/mpi/beta.tsv" "$T/mpi/beta-threads.tsv" |
        awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-12) bad = 1 } END { exit bad }' ||
        no "beta differs from the threads' by more than 1e-12"
    end

    begin "mpirun: a hook error on one rank ends the job, naming the rank"
    printf 'function push(w, S)\n  if w.id == 2 then error("bad shard") end\n  local z = {}\n  for _, j in ipairs(S) do z[j] = 0 end\n  return z\nend\nfunction pull(S, z) local v = {} for _, j in ipairs(S) do v[j] = 0 end return v end\n' >"$T/mpi/fail.lua"
    sed -e "s|^update lua .*|update lua \"$T/mpi/fail.lua\"|" -e "s|^objective lua .*||" \
        -e "s|beta.tsv|beta-fail.tsv|" "$T/mpi/lua.ptm" >"$T/mpi/fail.ptm"
    mpirun_ptm 2 run --quiet --workers 1 "$T/mpi/fail.ptm"
    [ "$rc" -ne 0 ] || no "exit status 0"
    err_has "ptm: error: rank 1: worker 1: $T/mpi/fail.lua:2: bad shard"
    [ -e "$T/mpi/beta-fail.tsv" ] && no "an output was written"
    end

    begin "mpirun: a bad line in one rank's part of the data: exit 4, the line named"
    awk 'NR == 280 { print "1 1:x"; next } { print }' "$T/mpi/lasso.svm" >"$T/mpi/bad.svm"
    sed -e "s|$T/mpi/lasso.svm|$T/mpi/bad.svm|" "$T/mpi/builtin.ptm" >"$T/mpi/bad.ptm"
    mpirun_ptm 2 run --quiet --workers 1 "$T/mpi/bad.ptm"
    want_rc 4
    err_has "$T/mpi/bad.svm:280:5: error: bad value 'x'"
    err_has "ptm: error: rank 1: bad data"
    end

    begin "mpirun: a rank that dies ends the job within seconds"
    sed -e "s|^stop when .*|stop when sweeps >= 100000000|" -e "s|beta.tsv|beta-kill.tsv|" \
        "$T/mpi/builtin.ptm" >"$T/mpi/long.ptm"
    set +e
    timeout 60 mpirun --bind-to none -np 2 "$PTM" run --quiet --workers 1 "$T/mpi/long.ptm" \
        >"$T/out" 2>"$T/err" &
    mpid=$!
    sleep 2
    victim=$(pgrep -f "${PTM##*/} run --quiet --workers 1 $T/mpi/long.ptm" | tail -n 1)
    [ -n "$victim" ] && kill -9 "$victim"
    t0=$(date +%s)
    wait "$mpid"
    rc=$?
    set -e
    t1=$(date +%s)
    [ -n "$victim" ] || no "no rank to kill"
    [ "$rc" -ne 0 ] || no "exit status 0"
    [ "$rc" -ne 124 ] || no "the job hung until the timeout"
    [ $((t1 - t0)) -le 15 ] || no "the job took $((t1 - t0)) s to end"
    end

    begin "mpirun -np 2, the Lasso example (within = sequential): a note, the rounds computed together, scikit-learn's objective to 1e-6"
    mpirun_ptm 2 run --quiet --workers 2 "$T/sk/lasso-seq.ptm"
    want_rc 0
    err_has "note: update lasso_cd: within = sequential needs every row on one rank; the 2 ranks compute each round's updates together (within = parallel), damped"
    [ "$(grep -c 'within = sequential needs every row' "$T/err")" -eq 1 ] || no "not one note"
    gap=$(/usr/bin/python3 "$T/sk/gap.py" lasso "$T/sk/lasso/lasso.svm" "$T/sk/beta.tsv" "$T/sk/b.tsv" 0.001)
    name="$name: gap $gap"
    awk -v v="${gap%% *}" 'BEGIN { if (v < 0) v = -v; exit !(v != "" && v <= 1e-6) }' || no "relative gap $gap"
    end

    begin "mpirun -np 2 with --backend threads: refused, the job would run twice"
    mpirun_ptm 2 run --quiet --backend threads "$T/mpi/builtin.ptm"
    want_rc 2
    err_has "--backend threads under mpirun with 2 processes would run the job 2 times"
    end

    # MF on a rotation across ranks: entries in random order, so that each
    # rank's part of the file holds entries of every row
    "$PTM" gen mf --seed 1 --out "$T/mpi/mf" --rows 300 --cols 120 --rank 3 --ratings 6000 \
        >/dev/null 2>&1
    m="$T/mpi/mf/ratings.mtx"
    { head -n 3 "$m"; tail -n +4 "$m" | awk 'BEGIN { srand(5) } { print rand() "\t" $0 }' |
        sort -k1,1 | cut -f2-; } >"$T/mpi/mf/shuffled.mtx"
    for upd in "mf_sgd { rate = 0.05, decay = 0.95, reg = 0.05 }" "mf_ccd { reg = 0.05 }"; do
        rule=${upd%% *}
        sed -e "s|\"data/ratings.mtx\"|\"$T/mpi/mf/shuffled.mtx\"|" -e "s|\"data/|\"$T/mpi/mf/|g" \
            -e "s|^update .*|update builtin $upd|" -e "s|^stop when .*|stop when sweeps >= 6|" \
            -e "s|\"W.tsv\"|\"$T/mpi/W.tsv\"|" -e "s|\"H.tsv\"|\"$T/mpi/H.tsv\"|" \
            examples/mf/mf.ptm >"$T/mpi/$rule.ptm"
        for cfg in "1 1" "2 1" "4 1" "2 2"; do
            set -- $cfg
            run run --quiet --workers $(($1 * $2)) --trace "$T/mpi/t-threads" "$T/mpi/$rule.ptm"
            mv "$T/mpi/W.tsv" "$T/mpi/W-threads.tsv"
            mv "$T/mpi/H.tsv" "$T/mpi/H-threads.tsv"
            begin "mpirun -np $1, $2 thread(s) a rank, $rule on a rotation: the same W, H and RMSE as $(($1 * $2)) threads"
            mpirun_ptm "$1" run --quiet --workers "$2" --trace "$T/mpi/t-mpi" "$T/mpi/$rule.ptm"
            want_rc 0
            # the RMSE sums the ranks' parts in another order: 1e-12 relative
            grep '^{"round": ' "$T/mpi/t-mpi" | grep -o '"objective": [^}]*' >"$T/mpi/f-mpi"
            grep '^{"round": ' "$T/mpi/t-threads" | grep -o '"objective": [^}]*' >"$T/mpi/f-threads"
            paste "$T/mpi/f-mpi" "$T/mpi/f-threads" |
                awk '{ n++; d = ($2 - $4) / $4; if (d < 0) d = -d; if (d > 1e-12) bad = 1 }
                     END { exit bad || n < 6 }' || no "the RMSE differs from the threads'"
            cmp -s "$T/mpi/W.tsv" "$T/mpi/W-threads.tsv" || no "W differs from the threads'"
            cmp -s "$T/mpi/H.tsv" "$T/mpi/H-threads.tsv" || no "H differs from the threads'"
            [ "$(wc -l <"$T/mpi/W.tsv")" -eq 300 ] || no "W.tsv does not have 300 lines"
            end
        done
    done

    begin "mpirun: an entry given twice in two ranks' parts of a MatrixMarket file: exit 4"
    { head -n 2 "$m"; sed -n 3p "$m" | awk '{ print $1, $2, $3 + 1 }'; tail -n +4 "$m"; sed -n 4p "$m"; } \
        >"$T/mpi/mf/dup.mtx"
    sed -e "s|$T/mpi/mf/shuffled.mtx|$T/mpi/mf/dup.mtx|" "$T/mpi/mf_sgd.ptm" >"$T/mpi/dup.ptm"
    e=$(sed -n 4p "$m" | awk '{ print "(" $1 ", " $2 ")" }')
    mpirun_ptm 2 run --quiet --workers 1 "$T/mpi/dup.ptm"
    want_rc 4
    err_has "$T/mpi/mf/dup.mtx: error: data 'R': entry $e is given twice"
    end

    begin "mpirun: fewer entries in all the ranks' parts than the header declares: exit 4"
    { head -n 3 "$m"; tail -n +5 "$m"; } >"$T/mpi/mf/few.mtx"
    sed -e "s|$T/mpi/mf/shuffled.mtx|$T/mpi/mf/few.mtx|" "$T/mpi/mf_sgd.ptm" >"$T/mpi/few.ptm"
    mpirun_ptm 2 run --quiet --workers 1 "$T/mpi/few.ptm"
    want_rc 4
    err_has "$T/mpi/mf/few.mtx: error: data 'R' has 5399 entries, fewer than its header declares (5400)"
    end

    # logistic regression, data-parallel over the ranks' stores: BSP, SSP 2, async
    "$PTM" gen logreg --seed 1 --out "$T/mpi/lr" --rows 3000 --cols 300 >/dev/null 2>&1
    for cons in "ssp 0" "ssp 2" "async"; do
        sed -e "s|\"data/|\"$T/mpi/lr/|g" -e "s|\"w_ssp.tsv\"|\"$T/mpi/w.tsv\"|" -e "s|\"b_ssp.tsv\"|\"$T/mpi/b.tsv\"|" \
            -e "s|consistency ssp 2|consistency $cons|" -e "s|^stop when .*|stop when sweeps >= 60|" \
            examples/logreg/logreg_ssp.ptm >"$T/mpi/lr.ptm"
        run run --workers 2 "$T/mpi/lr.ptm"
        want=$(last_objective "$T/err")
        for cfg in "2 1" "4 1" "2 2"; do
            set -- $cfg
            begin "mpirun -np $1, $2 thread(s) a rank, logreg_sgd under $cons: the threads' loss to 1e-3"
            mpirun_ptm "$1" run --workers "$2" "$T/mpi/lr.ptm"
            want_rc 0
            got=$(last_objective "$T/err")
            awk -v a="$got" -v b="$want" 'BEGIN { d = (a - b) / b; if (d < 0) d = -d; exit !(a > 0 && d < 1e-3) }' ||
                no "loss $got, the threads' $want"
            [ "$(wc -l <"$T/mpi/w.tsv")" -eq 300 ] || no "w.tsv does not have 300 lines"
            end
        done
    done
    begin "mpirun -np 2, logreg_sgd under BSP: the same w twice"
    sed -e "s|consistency async|consistency ssp 0|" "$T/mpi/lr.ptm" >"$T/mpi/bsp.ptm"
    mpirun_ptm 2 run --quiet --workers 1 "$T/mpi/bsp.ptm"
    mv "$T/mpi/w.tsv" "$T/mpi/w1.tsv"
    mpirun_ptm 2 run --quiet --workers 1 "$T/mpi/bsp.ptm"
    cmp -s "$T/mpi/w.tsv" "$T/mpi/w1.tsv" || no "w differs between two runs"
    end
    sed -e 's/minibatch 1000/minibatch 100/' \
        -e 's/{ method = sgd, rate = rate, l2 = l2, /{ rate = 5, l2 = l2, method = svrg, /' \
        -e 's/^stop when .*/stop when sweeps >= 80/' "$T/mpi/bsp.ptm" >"$T/mpi/svrg.ptm"
    for cfg in "2 1" "2 2"; do
        set -- $cfg
        begin "mpirun -np $1, $2 thread(s) a rank, logreg_sgd { method = svrg }: optimal to 1e-9"
        mpirun_ptm "$1" run --quiet --workers "$2" "$T/mpi/svrg.ptm"
        want_rc 0
        kkt=$(awk -v l2=1e-4 -v l1=0 -v b="$(cat "$T/mpi/b.tsv")" -f "$T/lrl/kkt.awk" \
            "$T/mpi/w.tsv" "$T/mpi/lr/train.svm")
        awk -v v="$kkt" 'BEGIN { exit !(v != "" && v <= 1e-9) }' || no "KKT violation $kkt"
        end
    done

    # method = tron: every rank takes the same steps from sums over all rows,
    # the same sums as as many threads on one process up to their order
    # (over 3 ranks Open MPI may add in another order), which near the
    # rounding floor moves w by about its error bound, |grad| / l2
    sed -e 's/method = svrg/method = tron/' -e 's/rate = 5, //' \
        -e 's/^stop when .*/stop when sweeps >= 30/' \
        "$T/mpi/svrg.ptm" >"$T/mpi/tron.ptm"
    for cfg in "2 1" "2 2" "3 1"; do
        set -- $cfg
        begin "mpirun -np $1, $2 thread(s) a rank, logreg_sgd { method = tron }: the w of $(($1 * $2)) threads (1e-10), optimal to 1e-9"
        run run --quiet --workers $(($1 * $2)) "$T/mpi/tron.ptm"
        mv "$T/mpi/w.tsv" "$T/mpi/w-threads.tsv"
        mpirun_ptm "$1" run --quiet --workers "$2" "$T/mpi/tron.ptm"
        want_rc 0
        d=$(paste "$T/mpi/w.tsv" "$T/mpi/w-threads.tsv" |
            awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > m) m = d } END { printf "%.3g", m + 0 }')
        awk -v v="$d" 'BEGIN { exit !(v != "" && v <= 1e-10) }' || no "|w - threads' w| $d"
        kkt=$(awk -v l2=1e-4 -v l1=0 -v b="$(cat "$T/mpi/b.tsv")" -f "$T/lrl/kkt.awk" \
            "$T/mpi/w.tsv" "$T/mpi/lr/train.svm")
        awk -v v="$kkt" 'BEGIN { exit !(v != "" && v <= 1e-9) }' || no "KKT violation $kkt"
        end
    done

    # LDA on a rotation: the word-topic blocks travel between ranks
    "$PTM" gen lda --seed 2 --out "$T/mpi/lda" --docs 400 --words 300 --topics 5 >/dev/null 2>&1
    sed -e "s|\"data/|\"$T/mpi/lda/|g" -e "s|\"word_topic.tsv\"|\"$T/mpi/wt.tsv\"|" \
        -e "s|\"doc_topic.tsv\"|\"$T/mpi/dt.tsv\"|" -e "s|topics = 100|topics = 5|" -e "s|^stop when .*|stop when sweeps >= 30|" \
        examples/lda/lda.ptm >"$T/mpi/lda.ptm"
    tokens=$(awk 'NR > 3 { n += $3 } END { print n }' "$T/mpi/lda/docword.txt")
    for cfg in "2 1" "4 1" "2 2"; do
        set -- $cfg
        run run --workers $(($1 * $2)) "$T/mpi/lda.ptm"
        want=$(last_objective "$T/err")
        begin "mpirun -np $1, $2 thread(s) a rank, lda_gibbs: every token counted once, the threads' log-likelihood to 2e-3"
        mpirun_ptm "$1" run --workers "$2" "$T/mpi/lda.ptm"
        want_rc 0
        got=$(last_objective "$T/err")
        awk -v a="$got" -v b="$want" 'BEGIN { d = (a - b) / b; if (d < 0) d = -d; exit !(a < 0 && d < 2e-3) }' ||
            no "log-likelihood $got, the threads' $want"
        sum=$(awk '{ for (i = 1; i <= NF; i++) n += $i } END { print n }' "$T/mpi/wt.tsv")
        [ "$sum" = "$tokens" ] || no "the word-topic counts add up to $sum, not $tokens tokens"
        [ "$(wc -l <"$T/mpi/wt.tsv.top")" -eq 5 ] || no "wt.tsv.top does not have 5 topics"
        end
    done

    begin "mpirun -np 2, lda_gibbs with ndk: each rank's documents in the document-topic counts"
    mpirun_ptm 2 run --quiet --workers 1 "$T/ndk.ptm"
    want_rc 0
    ndk_ok
    end

    # the word-topic counts kept sparse travel with their blocks in their
    # words' room and are summed a chunk at a time: the same draws as dense
    for form in dense sparse; do
        sed -e "s|sampler = dense|sampler = sparse, counts = $form|" -e "s|ssp 1|bsp|" \
            -e "s|topics = 5|topics = 60|" -e "s|^stop when .*|stop when sweeps >= 8|" \
            -e "s|\"$T/mpi/wt.tsv\"|\"$T/mpi/wt-$form.tsv\"|" -e "s|\"$T/mpi/dt.tsv\"|\"$T/mpi/dt-$form.tsv\"|" \
            "$T/mpi/lda.ptm" >"$T/mpi/lda-$form.ptm"
    done
    begin "mpirun -np 2, lda_gibbs with counts = sparse (bsp): the word-topic counts, top words and document-topic counts of counts = dense"
    mpirun_ptm 2 run --quiet --workers 1 "$T/mpi/lda-dense.ptm"
    want_rc 0
    mpirun_ptm 2 run --quiet --workers 1 "$T/mpi/lda-sparse.ptm"
    want_rc 0
    cmp -s "$T/mpi/wt-dense.tsv" "$T/mpi/wt-sparse.tsv" || no "the word-topic counts differ"
    cmp -s "$T/mpi/wt-dense.tsv.top" "$T/mpi/wt-sparse.tsv.top" || no "the top words differ"
    cmp -s "$T/mpi/dt-dense.tsv" "$T/mpi/dt-sparse.tsv" || no "the document-topic counts differ"
    sum=$(awk '{ for (i = 1; i <= NF; i++) n += $i } END { print n }' "$T/mpi/wt-sparse.tsv")
    [ "$sum" = "$tokens" ] || no "the word-topic counts add up to $sum, not $tokens tokens"
    end

    # the Lua rules of the examples under rotation and data_parallel
    sed -e "s|\"data/ratings.mtx\"|\"$T/mpi/mf/shuffled.mtx\"|" -e "s|\"data/|\"$T/mpi/mf/|g" \
        -e "s|\"mf.lua\"|\"$PWD/examples/mf/mf.lua\"|" -e "s|^stop when .*|stop when sweeps >= 6|" \
        -e "s|\"W_lua.tsv\"|\"$T/mpi/W.tsv\"|" -e "s|\"H_lua.tsv\"|\"$T/mpi/H.tsv\"|" \
        examples/mf/mf_lua.ptm >"$T/mpi/mf_lua.ptm"
    for cfg in "2 1" "2 2"; do
        set -- $cfg
        run run --quiet --workers $(($1 * $2)) "$T/mpi/mf_lua.ptm"
        mv "$T/mpi/W.tsv" "$T/mpi/W-threads.tsv"
        mv "$T/mpi/H.tsv" "$T/mpi/H-threads.tsv"
        begin "mpirun -np $1, $2 thread(s) a rank, mf.lua on a rotation: the same W and H as $(($1 * $2)) threads"
        mpirun_ptm "$1" run --quiet --workers "$2" "$T/mpi/mf_lua.ptm"
        want_rc 0
        cmp -s "$T/mpi/W.tsv" "$T/mpi/W-threads.tsv" || no "W differs from the threads'"
        cmp -s "$T/mpi/H.tsv" "$T/mpi/H-threads.tsv" || no "H differs from the threads'"
        end
    done
    sed -e "s|\"data/|\"$T/mpi/lr/|g" -e "s|\"w_lua.tsv\"|\"$T/mpi/w.tsv\"|" \
        -e "s|\"logreg.lua\"|\"$PWD/examples/logreg/logreg.lua\"|" \
        -e "s|^stop when .*|stop when sweeps >= 60|" examples/logreg/logreg_lua.ptm >"$T/mpi/lr_lua.ptm"
    run run --workers 2 "$T/mpi/lr_lua.ptm"
    want=$(last_objective "$T/err")
    begin "mpirun -np 2, logreg.lua under data_parallel: the threads' loss to 1e-3"
    mpirun_ptm 2 run --workers 1 "$T/mpi/lr_lua.ptm"
    want_rc 0
    got=$(last_objective "$T/err")
    awk -v a="$got" -v b="$want" 'BEGIN { d = (a - b) / b; if (d < 0) d = -d; exit !(a > 0 && d < 1e-3) }' ||
        no "loss $got, the threads' $want"
    end

    # parameters from a file: each rank its rows of a sharded one
    begin "mpirun -np 2, lasso from beta.tsv: the threads' first and last objectives (1e-9)"
    mpirun_ptm 2 run --workers 1 "$T/w/second.ptm"
    want_rc 0
    rel_ok "$(objectives "$T/err" | head -n 1)" "$f_first" 1e-9 || no "starts at $(objectives "$T/err" | head -n 1), want $f_first"
    rel_ok "$(objectives "$T/err" | tail -n 1)" "$f_second" 1e-9 || no "ends at $(objectives "$T/err" | tail -n 1), want $f_second"
    end
    run run --quiet --workers 2 "$T/w/mf/second.ptm"
    mv "$T/w/mf/W2.tsv" "$T/w/mf/W2-threads.tsv"
    mv "$T/w/mf/H2.tsv" "$T/w/mf/H2-threads.tsv"
    begin "mpirun -np 2, mf with W (sharded) and H from files: the same W and H as 2 threads"
    mpirun_ptm 2 run --quiet --workers 1 "$T/w/mf/second.ptm"
    want_rc 0
    cmp -s "$T/w/mf/W2.tsv" "$T/w/mf/W2-threads.tsv" || no "W differs from the threads'"
    cmp -s "$T/w/mf/H2.tsv" "$T/w/mf/H2-threads.tsv" || no "H differs from the threads'"
    end
    begin "mpirun -np 2, a file of too few rows: every rank refuses it, exit 4"
    head -n 299 "$T/w/mf/W.tsv" >"$T/w/mf/W-short.tsv"
    sed 's|"W.tsv"|"W-short.tsv"|' "$T/w/mf/second.ptm" >"$T/w/mf/short.ptm"
    mpirun_ptm 2 run --quiet --workers 1 "$T/w/mf/short.ptm"
    want_rc 4
    err_has "$T/w/mf/short.ptm:11:1: error: 'W-short.tsv' holds 299 rows, W needs 300 (rows(R))"
    end
    begin "mpirun -np 2, dynamic with damped rounds: the candidates, offers and steps of the threads"
    mpirun_ptm 2 run --quiet --workers 1 --trace "$T/offer/tm.json" "$T/offer/o.ptm"
    want_rc 0
    /usr/bin/python3 - "$T/offer/t1.json" "$T/offer/tm.json" >"$T/out" 2>&1 <<'EOF2' || no "$(cat "$T/out")"
import json, sys
def load(f):
    return [x for x in (json.loads(l) for l in open(f)) if "round" in x]
a, b = load(sys.argv[1]), load(sys.argv[2])
assert len(a) == len(b) and len(a) > 20, "%d and %d rounds" % (len(a), len(b))
assert any("offer" in x for x in a), "no round offered fewer blocks"
for x, y in zip(a, b):
    assert (x["candidates"], x["updates"], x.get("offer")) == \
        (y["candidates"], y["updates"], y.get("offer")), "round %d differs" % x["round"]
    s, t = x.get("step", 1), y.get("step", 1)
    assert abs(s - t) <= 1e-9 * s, "round %d: step %r, threads %r" % (x["round"], t, s)
EOF2
    end
else
    echo "skip ptm run under MPI (mpirun missing, a sanitizer build, or built without MPI)"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
