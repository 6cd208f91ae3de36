-- The Lasso by parallel coordinate descent (spec/runtime.md): minimize
--     (1/2n) ||y - X beta||^2 + lambda ||beta||_1
-- Each worker holds a row shard of X and its rows of the residual r = y - X beta.
-- A round updates the scheduled columns S together. Every method below is
-- one C loop over S (and over those columns' non-zeros) that returns a new
-- vector in S order or changes one in place, so no Lua runs per column.
-- Job: const lambda = 0.001 ... update lua "lasso.lua" (the job's consts
-- arrive as the last argument of every function).

local n, sq -- rows of X; this worker's part of ||x_j||^2 / n for every column j

-- On every worker, for each column j in S: this shard's part of
-- x_j.r / n + sq_j beta_j, and sq_j.
function push(w, S)
    local X = w.X
    if not sq then -- the first call
        local d
        n, d = X:size()
        sq = w:vector(d)
        for j = 1, d do sq[j] = X:col(j):norm2() / n end
    end
    local q = sq:gather(S)
    local a = X:cols(S):dot(w.r):scale(1 / n):add(w.beta:gather(S):mul(q))
    return { a, q }
end

-- Once, on the sums over workers (z[1], z[2]: the two sums for each j in
-- S, the host's copies): the exact minimizer over each beta_j,
-- soft(z1_j, lambda) / z2_j, or 0 for an empty column (z2_j = 0).
function pull(S, z, job)
    return z[1]:soft(job.lambda):div(z[2], 0)
end

-- On every worker: keep r = y - X beta on its rows, r -= d_j x_j (d: the
-- host's copy of the changes of beta).
function apply(w, S, d)
    w.X:cols(S):axpy(d:scale(-1), w.r)
end

-- This worker's part of the objective; the penalty is counted once.
function objective(w, job)
    local f = w.r:norm2() / (2 * w.X:size())
    if w.id == 1 then f = f + job.lambda * w.beta:norm1() end
    return f
end
