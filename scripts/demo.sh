#!/bin/sh
# make demo: check every example job, then show what a mistake looks like.
set -eu
ptm=${1:-bin/ptm}
echo "== checking the example jobs"
"$ptm" check examples/*/*.ptm
echo
echo "== a job with mistakes (a misspelt statement, a misspelt type, an unclosed call)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed -e 's/^param beta/parm beta/' -e 's/sparse matrix/sparse matirx/' \
    -e 's/^priority coef(j) = abs(delta(beta\[j\]))/priority coef(j) = abs(delta(beta[j])/' \
    examples/lasso/lasso.ptm > "$tmp/lasso.ptm"
if "$ptm" check "$tmp/lasso.ptm"; then
    echo "demo: the broken job was accepted" >&2
    exit 1
else
    status=$?
    [ "$status" -eq 3 ] || { echo "demo: expected exit status 3, got $status" >&2; exit 1; }
    echo "(exit status $status: the spec has errors)"
fi
