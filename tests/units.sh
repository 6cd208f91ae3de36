#!/bin/sh
# units.sh - run the unit test programs JOBS at a time, each into its own
# log, then print each program's summary in the order given; a program
# that failed gets its whole log printed and the run exits 1.
#
#   sh tests/units.sh JOBS TEST...      (make test does this)
#
# Each program works in a directory of its own (mkdtemp), so they can run
# side by side.

jobs=${1:-1}
shift
T=$(mktemp -d "${TMPDIR:-/tmp}/ptm-units.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

# They start in the order given (make test lists the slowest first, so the
# last ones to start are short).
printf '%s\n' "$@" | xargs -P "$jobs" -I{} sh -c \
    'log="$1/$(basename "$2").log"; "$2" >"$log" 2>&1; echo $? >"$log.rc"' \
    sh "$T" {}

failed=0
for t in "$@"; do
    n=$(basename "$t")
    echo "== $t"
    rc=$(cat "$T/$n.log.rc" 2>/dev/null || echo missing)
    if [ "$rc" = 0 ]; then
        grep -E '^[0-9]+%: Checks' "$T/$n.log" || tail -n 1 "$T/$n.log"
    else
        cat "$T/$n.log" 2>/dev/null
        echo "FAIL  $t (exit status $rc)"
        failed=1
    fi
done
exit "$failed"
