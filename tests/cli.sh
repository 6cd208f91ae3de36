#!/bin/sh
# cli.sh - the ptm command from the outside: flags, help, exit codes,
# diagnostics on stderr, stdin, colour.
#
#   PTM=bin/ptm sh tests/cli.sh      (from the repository root; make test does this)
#
# Prints one line per case and ends with "N passed, M failed"; exits 1 when
# a case failed. A failed case shows what the command wrote to stderr.

PTM=${PTM:-bin/ptm}
T=$(mktemp -d "${TMPDIR:-/tmp}/ptm-cli.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

ESC=$(printf '\033')
passed=0
failed=0
name=
why=

# begin NAME: start a case.
begin() {
    name=$1
    why=
}

# run ARGS...: run ptm; stdout in $T/out, stderr in $T/err, status in $rc.
run() {
    "$PTM" "$@" >"$T/out" 2>"$T/err" </dev/null
    rc=$?
}

# run_stdin FILE ARGS...: the same with FILE on standard input.
run_stdin() {
    f=$1
    shift
    "$PTM" "$@" >"$T/out" 2>"$T/err" <"$f"
    rc=$?
}

no() { why="$why${why:+; }$*"; }

want_rc() { [ "$rc" -eq "$1" ] || no "exit status $rc, want $1"; }
# out_is TEXT / err_is TEXT: the whole stream, exactly (TEXT without its final newline).
out_is() { printf '%s\n' "$1" | cmp -s - "$T/out" || no "stdout is not as expected"; }
err_is() { printf '%s\n' "$1" | cmp -s - "$T/err" || no "stderr is not as expected"; }
out_has() { grep -qF -- "$1" "$T/out" || no "stdout lacks '$1'"; }
err_has() { grep -qF -- "$1" "$T/err" || no "stderr lacks '$1'"; }
err_lacks() { ! grep -qF -- "$1" "$T/err" || no "stderr has '$1'"; }
out_empty() { [ ! -s "$T/out" ] || no "stdout is not empty"; }
err_empty() { [ ! -s "$T/err" ] || no "stderr is not empty"; }
err_last() { [ "$(tail -n 1 "$T/err")" = "$1" ] || no "last line of stderr is not '$1'"; }
err_color() { grep -q "$ESC" "$T/err" || no "no colour escapes on stderr"; }
err_plain() { ! grep -q "$ESC" "$T/err" || no "colour escapes on stderr"; }

# end: report the case.
end() {
    if [ -z "$why" ]; then
        passed=$((passed + 1))
        echo "ok   $name"
    else
        failed=$((failed + 1))
        echo "FAIL $name: $why"
        sed -n '1,15s/^/     | /p' "$T/err"
    fi
}

if [ ! -x "$PTM" ]; then
    echo "cli.sh: no executable '$PTM' (set PTM)" >&2
    exit 1
fi
case $PTM in
/*) PTM_ABS=$PTM ;;
*) PTM_ABS=$(pwd)/$PTM ;;
esac

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
run check --ast examples/logreg/logreg.ptm
want_rc 0; err_empty
out_is '(job logreg)
(const rate 0.5)
(data X (sparse matrix) (from "data/train.svm") (format libsvm) (shard rows))
(data y (vector) (from labels(X)))
(param w (vector [cols(X)]) (= 0) (consistency ssp 2))
(schedule data_parallel {(minibatch 1000)})
(update builtin logreg_sgd {(rate rate) (l2 0.0001)})
(objective builtin logloss (every 1 sweeps))
(stop (or (>= sweeps 20) (< rel_change(objective) 1e-06)))
(output w "w.tsv")'
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
[ "$(ls "$T/g1")" = "$(printf 'beta_true.tsv\nlasso.svm')" ] || no "other files in the directory: $(ls "$T/g1")"
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

begin "gen lasso defaults are the ones help gen gives"
run help gen
want_rc 0; out_has "usage: ptm gen MODEL"
set --
for f in rows cols density group corr nonzeros noise; do
    v=$(sed -n "s/^  --$f [A-Z]* .*(default \([^,)]*\)[,)].*/\1/p" "$T/out")
    [ -n "$v" ] || no "help gen gives no default for --$f"
    set -- "$@" "--$f" "$v"
done
run gen lasso --seed 5 --out "$T/gd1"
want_rc 0
run gen lasso --seed 5 --out "$T/gd2" "$@"
want_rc 0
cmp -s "$T/gd1/lasso.svm" "$T/gd2/lasso.svm" || no "the defaults differ from help gen ($*)"
rm -rf "$T/gd1" "$T/gd2"
end

begin "gen --help is help gen"
run help gen
cp "$T/out" "$T/gen-usage"
run gen lasso --help
want_rc 0; cmp -s "$T/out" "$T/gen-usage" || no "differs from help gen"
end

begin "gen without a model lists the models"
run gen
want_rc 2; out_empty; err_has "models:"; err_has "lasso"
end

begin "gen with an unknown model"
run gen lasos --seed 1 --out "$T/g3"
want_rc 2; err_has "unknown model 'lasos' (did you mean 'lasso'?)"
run gen mf --seed 1 --out "$T/g3"
want_rc 2; err_has "unknown model 'mf'"
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

begin "check --data: a missing data file, exit 4"
run check --data examples/lasso/lasso.ptm
want_rc 4; err_has "examples/lasso/data/lasso.svm"
end

begin "check without --data does not read data"
run check examples/lasso/lasso.ptm
want_rc 0
end

# ptm run: the Lasso example on a small generated problem.
mkdir -p "$T/rd"
sed -e "s|\"data/lasso.svm\"|\"$T/gd/lasso.svm\"|" -e "s|\"beta.tsv\"|\"$T/rd/beta.tsv\"|" \
    -e 's/every 10 rounds/every 1 sweeps/' examples/lasso/lasso.ptm >"$T/run.ptm"

begin "run: the Lasso example runs and writes beta.tsv"
run run --workers 2 "$T/run.ptm"
want_rc 0; out_empty
err_has "warning: schedule dynamic is run as round_robin"
err_has "objective"; err_has "rel_change"
[ "$(wc -l <"$T/rd/beta.tsv")" -eq 40 ] || no "beta.tsv does not have 40 lines"
ls "$T/rd" | grep -q tmp && no "a temporary file is left"
end

begin "run --quiet --trace: no progress, one JSON object per round"
run run --quiet --workers=3 --seed 5 --trace "$T/rd/trace.json" "$T/run.ptm"
want_rc 0; err_lacks "objective"
head -n 1 "$T/rd/trace.json" | grep -q '^{"round": 1, "seconds": [0-9.]*, "blocks": \[1\]' ||
    no "first trace line is not as expected"
grep -q '"objective": ' "$T/rd/trace.json" || no "the trace has no objective"
end

begin "run --trace: each round has every worker's seconds"
run run --quiet --workers=2 --trace "$T/rd/trace2.json" "$T/run.ptm"
want_rc 0
head -n 1 "$T/rd/trace2.json" | grep -q '"workers": \[{"worker": 1, "blocks": \[[0-9, ]*\], "seconds": [0-9.]*}, {"worker": 2, "blocks": \[[0-9, ]*\], "seconds": [0-9.]*}\]' ||
    no "no blocks and seconds for two workers"
end

# The same job with examples/lasso/lasso.lua as its update and objective.
sed -e 's|^update builtin lasso_cd.*|update lua "'"$PWD"'/examples/lasso/lasso.lua"|' \
    -e 's|^objective builtin lasso_objective { lambda = lambda }|objective lua "'"$PWD"'/examples/lasso/lasso.lua" "objective"|' \
    -e "s|\"$T/rd/beta.tsv\"|\"$T/rd/beta-lua.tsv\"|" "$T/run.ptm" >"$T/run-lua.ptm"

begin "run: the Lua update reaches the built-in kernel's solution"
run run --quiet --workers 2 "$T/run.ptm"
run run --quiet --workers 2 "$T/run-lua.ptm"
want_rc 0; err_lacks "error"
paste "$T/rd/beta.tsv" "$T/rd/beta-lua.tsv" |
    awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-6) bad = 1 } END { exit bad }' ||
    no "beta from lasso.lua differs from the kernel's by more than 1e-6"
end

begin "run: a failing hook writes nothing, exit 1, with the traceback"
printf 'function push(w, S) error("no luck") end\nfunction pull(S, z) return {} end\n' >"$T/fail.lua"
sed -e "s|^update lua .*|update lua \"$T/fail.lua\"|" -e "s|beta-lua.tsv|beta-fail.tsv|" \
    "$T/run-lua.ptm" >"$T/run-fail.ptm"
run run --quiet --workers 2 "$T/run-fail.ptm"
want_rc 1
err_has "ptm: error: worker 1: $T/fail.lua:1: no luck"; err_has "stack traceback:"
err_has "run-fail.ptm:27:1: note: the update rule is declared here"
[ -e "$T/rd/beta-fail.tsv" ] && no "an output was written"
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

begin "run: two jobs is a usage error"
run run "$T/run.ptm" "$T/run.ptm"
want_rc 2; err_has "run takes one job spec"
end

begin "run: a hook that returns nothing stops the run, exit 1, with where it is declared"
run run "$T/small.ptm"
want_rc 1; err_has "hook 'push' returned nil"; err_has "small.ptm:6:1: note: the update rule is declared here"
end

begin "run: a missing data file, exit 4"
run run --quiet examples/lasso/lasso.ptm
want_rc 4; err_has "examples/lasso/data/lasso.svm"
end

begin "run: a spec with errors, exit 3"
run run "$T/crlf.ptm"
want_rc 3
end

begin "help run"
run help run
want_rc 0; out_has "usage: ptm run"
end

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
