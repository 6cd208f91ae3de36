#!/bin/sh
# readme.sh - walk README.md as a new user would, in a fresh clone of HEAD,
# then run `make check` in that same clone: the commands the README gives
# must work as written, and leave a tree whose tests still pass and whose
# `git status` shows nothing the user made (.gitignore covers it).
#
# Which lines run (the rule):
# - every line of every fenced block opened with ```sh, in the README's order,
#   in one shell started at the clone's root, so a `cd` or an `export` holds
#   for the lines after it, as in a user's terminal; a line ending in `\`
#   goes on to the next. Other blocks (```, ```lua) are job text, output or
#   synopsis, not commands. Nothing is added: `ptm` is on the path only
#   because a README line puts it there;
# - the shell is `sh -e` (dash here): a line that fails, a command inside a
#   one-line loop included, stops the walk with that README line;
# - skipped, and listed as skipped: lines that need machines this one is not,
#   that is, a `--hostfile` (several hosts: a file naming them);
# - `make check` lines are run last, once, from the clone's root, after every
#   other line, so the tests run on the tree as the user left it; the walk
#   runs `make check` at the end whether or not the README says so.
# After the walk and again after `make check`, `git status --porcelain` in
# the clone must print nothing.
#
# Usage: sh tests/readme.sh [--keep]   (from anywhere in the repository)
# It tests the commit HEAD names, not uncommitted changes. The clone goes to
# a temporary directory ($TMPDIR), removed when the walk passes, kept when it
# fails (or with --keep) and named. Exit 0 if all passed, 1 otherwise.
set -u

keep=0
for a in "$@"; do
    case $a in
    --keep) keep=1 ;;
    *) echo "usage: sh tests/readme.sh [--keep]" >&2; exit 2 ;;
    esac
done

src=$(git -C "$(dirname "$0")" rev-parse --show-toplevel) || exit 1
head=$(git -C "$src" rev-parse HEAD) || exit 1
[ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ] ||
    echo "readme.sh: note: uncommitted changes in $src are not tested, only HEAD ($head)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptm-readme.XXXXXX") || exit 1
clone=$tmp/ptm
start=$(date +%s)

# done_ STATUS: say how it went and where the clone is, clean up, exit.
done_() {
    t=$(($(date +%s) - start))
    if [ "$1" -eq 0 ] && [ "$keep" -eq 0 ]; then
        rm -rf "$tmp"
    else
        echo "readme.sh: the clone is kept in $clone"
    fi
    if [ "$1" -eq 0 ]; then
        echo "readme.sh: passed: README.md walked and make check passed in a fresh clone ($t s)"
    else
        echo "readme.sh: FAILED after $t s"
    fi
    exit "$1"
}
trap 'done_ 1' INT TERM

# A fresh clone of exactly HEAD (a detached HEAD or an unpushed commit too).
echo "== a fresh clone of $head in $clone"
git init -q "$clone" && git -C "$clone" fetch -q "$src" "$head" &&
    git -C "$clone" checkout -q --detach FETCH_HEAD || done_ 1
readme=$clone/README.md

# The walk as a script: for each command line, its README line number, then
# the line itself; a trap names the line that failed. awk writes to $later
# the lines skipped and the `make check` lines kept for the end.
walk=$tmp/walk.sh
later=$tmp/later
{
    cat <<'EOF'
rw_line=0
rw_show() { printf '\n== README.md:%s: %s\n' "$1" "$(sed -n "$1p" "$RW_README")"; }
trap 'rw_rc=$?; [ "$rw_rc" -eq 0 ] || printf "\nreadme.sh: README.md:%s failed (exit status %s): %s\n" "$rw_line" "$rw_rc" "$(sed -n "${rw_line}p" "$RW_README")"' EXIT
EOF
    awk -v later="$later" '
    /^```/ {
        if (fence) { fence = 0; sh = 0 } else { fence = 1; sh = ($0 ~ /^```sh[ \t]*$/) }
        next
    }
    !sh { next }
    {
        if (cont != "") { cmd = cont "\n" $0 } else { cmd = $0; first = NR }
        if (cmd ~ /\\$/) { cont = cmd; next }
        cont = ""
        if (cmd ~ /^[ \t]*(#.*)?$/) next
        if (cmd ~ /--hostfile/) {
            printf "skip\t%d\tneeds several hosts: a hostfile\t%s\n", first, cmd > later
            next
        }
        if (cmd ~ /^[ \t]*make[ \t]+check([ \t]|$)/) {
            printf "check\t%d\t\t%s\n", first, cmd > later
            next
        }
        printf "rw_line=%d; rw_show %d\n%s\n", first, first, cmd
    }
    ' "$readme"
} >"$walk" || done_ 1
: >>"$later"

grep -q '^rw_line=' "$walk" || { echo "readme.sh: no \`\`\`sh lines found in README.md"; done_ 1; }
echo "== README.md: $(grep -c '^rw_line=' "$walk") command lines to run, in order, from ${readme}"
awk -F '\t' '$1 == "skip" { printf "   skipped README.md:%s (%s): %s\n", $2, $3, $4 }' "$later"

# The walk, from the clone's root.
(cd "$clone" && RW_README=$readme sh -e "$walk" </dev/null) || done_ 1

porcelain() { # WHEN: nothing untracked, nothing changed
    st=$(git -C "$clone" status --porcelain) || done_ 1
    [ -z "$st" ] && return 0
    echo "readme.sh: after $1, git status in the clone is not clean (.gitignore must cover what a user's walk writes; nothing tracked may change):"
    echo "$st" | sed 's/^/   /'
    done_ 1
}
porcelain "the README's commands"
echo "== git status in the clone: clean after the README's commands"

# make check, last: the README's line for it, or our own if it has none.
line=$(awk -F '\t' '$1 == "check" { print $2; exit }' "$later")
if [ -n "$line" ]; then
    printf '\n== README.md:%s (run last): %s\n' "$line" "$(sed -n "${line}p" "$readme")"
else
    printf '\n== make check (the README has no such line)\n'
fi
(cd "$clone" && make check </dev/null) || {
    echo "readme.sh: make check failed after the README's commands${line:+ (README.md:$line)}"
    done_ 1
}
porcelain "make check"
echo "== git status in the clone: clean after make check"
done_ 0
