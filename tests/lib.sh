# lib.sh - what the shell tests share (cli.sh, ckpt.sh): a temporary
# directory, cases with begin/end, ptm run into $T/out and $T/err, checks.
# Sourced; PTM names the ptm to test (default bin/ptm).

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
# skip NAME WHY: a case that cannot run here (not counted).
skip() { echo "skip $1: $2"; }
# the objectives of a run's progress lines (not its closing 'stopped at' line)
objectives() { awk '/^round / { for (i = 1; i < NF; i++) if ($i == "objective") print $(i + 1) }' "$1"; }
last_objective() { objectives "$1" | tail -n 1; }
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

# rel_ok A B TOL: |A - B| <= TOL |B|
rel_ok() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; if (b < 0) b = -b; exit !(a != "" && d <= t * b) }'; }
