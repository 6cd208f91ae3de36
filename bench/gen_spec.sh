#!/bin/sh
# Write a valid job spec of about N lines (default 100000) to stdout: a mix
# of consts, data, parameters of every kind, outputs and comments, then one
# block set with its structure, a schedule, an update and a stop rule.
n=${1:-100000}
awk -v n="$n" 'BEGIN {
    print "job big"
    line = 1
    for (i = 0; line < n - 12; i++) {
        print "# group " i
        print "const c" i " = " i " * 2.5 + abs(-" i ") / 3 - 1e-4"
        print "const d" i " = c" i " * 2 + min(c" i ", 3)"
        print "data X" i " : sparse matrix from \"data/x" i ".svm\" format libsvm shard rows"
        print "data y" i " : vector from labels(X" i ")"
        print "param p" i " : vector[cols(X" i ")] = c" i
        print "param q" i " : vector[rows(X" i ")] = y" i " shard like X" i
        print "param w" i " : matrix[rows(X" i "), 4] = random(0.1) consistency ssp 2"
        print "output p" i " to \"out/p" i ".tsv\""
        print "output w" i " to \"out/w" i ".tsv\" format tsv"
        line += 10
    }
    print "blocks coef = p0 each 1"
    print "depend coef(i), coef(j) when abs(corr(col(X0, i), col(X0, j))) > 0.1"
    print "priority coef(j) = abs(delta(p0[j])) + 1e-4"
    print "cost coef(j) = nnz(col(X0, j))"
    print "schedule dynamic {"
    print "    sample 256"
    print "    warmup 3 sweeps"
    print "}"
    print "update builtin lasso_cd { lambda = c1, X = X0, y = y0, beta = p0, r = q0 }"
    print "stop when sweeps >= 100 or seconds > 10m"
}'
