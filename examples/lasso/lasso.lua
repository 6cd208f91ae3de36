-- The Lasso by parallel coordinate descent (spec/runtime.md): minimize
--     (1/2n) ||y - X beta||^2 + lambda ||beta||_1
-- Each worker holds a row shard of X and its rows of the residual r = y - X beta.
-- Job: const lambda = 0.001 ... update lua "lasso.lua" (the job's consts
-- arrive as the last argument of every function).

local sq = {}  -- this worker's part of ||x_j||^2 / n, kept from first use

-- On every worker, for each scheduled column j, this shard's part of
-- x_j.r / n + ||x_j||^2 beta_j / n, and of ||x_j||^2 / n.
function push(w, blocks)
    local X, r, beta = w.X, w.r, w.beta
    local n = X:size()
    local z = {}
    for _, j in ipairs(blocks) do
        local x = X:col(j)
        sq[j] = sq[j] or x:norm2() / n
        z[j] = { x:dot(r) / n + sq[j] * beta[j], sq[j] }
    end
    return z
end

-- Once, on the sums over workers: the exact minimizer over beta_j.
function pull(blocks, z, job)
    local new = {}
    for _, j in ipairs(blocks) do
        local a, q = z[j][1], z[j][2]
        local s = math.max(math.abs(a) - job.lambda, 0)
        new[j] = q > 0 and (a < 0 and -s or s) / q or 0
    end
    return new
end

-- On every worker: keep r = y - X beta on its rows.
function apply(w, changes)
    local X, r = w.X, w.r
    for j, d in pairs(changes) do
        if d ~= 0 then X:col(j):axpy(-d, r) end
    end
end

-- This worker's part of the objective; the penalty is counted once.
function objective(w, job)
    local f = w.r:norm2() / (2 * w.X:size())
    if w.id == 1 then f = f + job.lambda * w.beta:norm1() end
    return f
end
