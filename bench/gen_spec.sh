#!/bin/sh
# Write a syntactically valid job spec of N lines (default 100000) to stdout:
# a mix of every statement kind, comments and multi-line option blocks.
n=${1:-100000}
awk -v n="$n" 'BEGIN {
    print "job big"
    line = 1
    for (i = 0; line < n; i++) {
        k = i % 10
        if (k == 0)      { print "# group " i; line++ }
        else if (k == 1) { print "const c" i " = " i " * 2.5 + abs(-" i ") / 3 - 1e-4"; line++ }
        else if (k == 2) { print "data X" i " : sparse matrix from \"data/x" i ".svm\" format libsvm shard rows"; line++ }
        else if (k == 3) { print "param p" i " : vector[cols(X" i-1 ")] = 0 shard like X" i-1 " consistency ssp 2"; line++ }
        else if (k == 4) { print "blocks b" i " = p" i-1 " each 1"; line++ }
        else if (k == 5) { print "depend b" i-1 "(i), b" i-1 "(j) when abs(corr(col(X" i-3 ", i), col(X" i-3 ", j))) > 0.1"; line++ }
        else if (k == 6) { print "priority b" i-2 "(j) = abs(delta(p" i-3 "[j])) + 1e-4 * c" i-5; line++ }
        else if (k == 7) { print "cost b" i-3 "(j) = nnz(col(X" i-5 ", j))"; line++ }
        else if (k == 8) { print "schedule dynamic over b" i-4 " {"; print "    sample 256"; print "    warmup 3 sweeps"; print "}"; line += 4 }
        else             { print "stop when sweeps >= " i " or rel_change(objective) < 1e-7 or seconds > 10m"; line++ }
    }
}'
