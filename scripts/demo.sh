#!/bin/sh
# make demo: check every example job, compile one into its schedule plan,
# run the Lasso example on a generated problem and k-means written in Lua,
# then show what a mistake looks like.
set -eu
ptm=${1:-bin/ptm}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== checking the example jobs"
"$ptm" check examples/*/*.ptm
echo
echo "== compiling examples/lasso/lasso.ptm into a schedule plan (first lines)"
"$ptm" compile examples/lasso/lasso.ptm -o "$tmp/lasso.yaml"
sed -n '/^blocksets:/,/^schedule:/p' "$tmp/lasso.yaml" | head -40
echo "   ... ($(wc -l < "$tmp/lasso.yaml") lines in all; the runtime reads only this plan)"
echo
echo "== running the Lasso example on a generated problem (2000 x 1000, 10 true non-zeros)"
"$ptm" gen lasso --seed 1 --out "$tmp/data" --rows 2000 --cols 1000 --density 0.02
sed -e 's/every 10 rounds/every 1 sweeps/' -e "s|\"beta.tsv\"|\"$tmp/beta.tsv\"|" \
    -e "s|\"b.tsv\"|\"$tmp/b.tsv\"|" examples/lasso/lasso.ptm > "$tmp/lasso-run.ptm"
echo "   ptm run lasso.ptm --workers 2   (objective once a sweep; it must go down)"
"$ptm" run "$tmp/lasso-run.ptm" --workers 2 2>&1 | sed 's/^/   /'
echo "   recovered coefficients (estimate, true) where beta* is non-zero:"
paste "$tmp/beta.tsv" "$tmp/data/beta_true.tsv" | awk '$2 != 0 { printf "     %9.4f %9.4f\n", $1, $2 }'
echo "   intercept b (the labels have mean 0 here): $(cat "$tmp/b.tsv")"
echo
if command -v python3 >/dev/null; then
    echo "== k-means written in Lua (examples/kmeans): 3000 points in 5 blobs"
    python3 examples/kmeans/blobs.py --out "$tmp/km/data/points.svm"
    cp examples/kmeans/kmeans.lua "$tmp/km/"
    sed -e "s|\"C.tsv\"|\"$tmp/km/C.tsv\"|" examples/kmeans/kmeans.ptm > "$tmp/km/kmeans.ptm"
    "$ptm" run "$tmp/km/kmeans.ptm" --workers 2 2>&1 | tail -n 2 | sed 's/^/   /'
    echo "   the centroids:"
    awk '{ printf "     %8.3f %8.3f %8.3f %8.3f\n", $1, $2, $3, $4 }' "$tmp/km/C.tsv"
    echo
fi
echo "== a job with mistakes (a misspelt statement, a misspelt type, an unclosed call)"
sed -e 's/^param beta/parm beta/' -e 's/sparse matrix/sparse matirx/' \
    -e 's/^priority coef(j) = abs(delta(beta\[j\]))/priority coef(j) = abs(delta(beta[j])/' \
    examples/lasso/lasso.ptm > "$tmp/lasso.ptm"
status=0
"$ptm" check "$tmp/lasso.ptm" 2>&1 || status=$?
[ "$status" -eq 3 ] || { echo "demo: expected exit status 3, got $status" >&2; exit 1; }
echo "(exit status $status: the spec has errors)"
