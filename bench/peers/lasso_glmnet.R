# lasso_glmnet.R - R's glmnet on the Lasso of bench/peers.sh, at one lambda.
#
# Usage: Rscript lasso_glmnet.R PREFIX LAMBDA RUNS COEF_OUT THRESH...
#
# Reads the CSC arrays bench/peers/prep.py --rbin wrote (PREFIX.colptr,
# .rowind, .val, .y) into a dgCMatrix, then fits
#   glmnet(X, y, family = "gaussian", alpha = 1, lambda = LAMBDA,
#          intercept = FALSE, standardize = FALSE, thresh = THRESH)
# RUNS times for each THRESH, from coefficients 0 (a single lambda: no path,
# no warm start). With these options glmnet minimizes
#   (1/2n) ||y - X b||^2 + LAMBDA ||b||_1
# (its vignette, "Linear Regression"; y is scaled to unit variance only to
# make its own lambda sequence, and a lambda given by the caller is on the
# scale of y), the objective of ptm's lasso_cd and scikit-learn's Lasso.
# thresh is glmnet's convergence threshold: coordinate descent goes on
# until the largest change in the objective after any coefficient update
# (in a cycle) is less than thresh times the null deviance (?glmnet). The seconds are the elapsed time of the glmnet()
# call, X already in memory. Prints
#   glmnet VERSION
#   fit THRESH MEDIAN_SECONDS OBJECTIVE NONZEROS PASSES RUN1_S ...
# (OBJECTIVE computed here from the returned b; PASSES is glmnet's npasses)
# and writes the last fit's b to COEF_OUT, one value a line.
suppressPackageStartupMessages({
    library(Matrix)
    library(glmnet)
})

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 5) {
    cat("usage: Rscript lasso_glmnet.R PREFIX LAMBDA RUNS COEF_OUT THRESH...\n", file = stderr())
    quit(status = 2)
}
prefix <- args[1]
lambda <- as.numeric(args[2])
runs <- as.integer(args[3])
coef_out <- args[4]
threshs <- args[5:length(args)]

readarr <- function(suffix, what, size) {
    path <- paste0(prefix, suffix)
    n <- file.size(path) / size
    readBin(path, what = what, n = n, size = size, endian = "little")
}
p <- readarr(".colptr", "integer", 4)
i <- readarr(".rowind", "integer", 4)
x <- readarr(".val", "double", 8)
y <- readarr(".y", "double", 8)
n <- length(y)
d <- length(p) - 1
X <- new("dgCMatrix", i = i, p = p, x = x, Dim = c(as.integer(n), as.integer(d)))

cat("glmnet", as.character(packageVersion("glmnet")), "\n")
for (th in threshs) {
    secs <- numeric(runs)
    for (k in seq_len(runs)) {
        t0 <- proc.time()[["elapsed"]]
        fit <- glmnet(X, y, family = "gaussian", alpha = 1, lambda = lambda,
                      intercept = FALSE, standardize = FALSE, thresh = as.numeric(th))
        secs[k] <- proc.time()[["elapsed"]] - t0
    }
    b <- as.numeric(fit$beta[, 1])
    r <- y - as.numeric(X %*% b)
    obj <- sum(r * r) / (2 * n) + lambda * sum(abs(b))
    cat("fit", th, sprintf("%.6f", median(secs)), sprintf("%.17g", obj), sum(b != 0),
        fit$npasses, sprintf("%.6f", secs), "\n")
}
writeLines(sprintf("%.17g", b), coef_out)
