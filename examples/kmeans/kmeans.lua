-- k-means by Lloyd's algorithm (kmeans.ptm). Centroid c is row c of C. A
-- round: each worker assigns each of its rows x to the nearest centroid c,
-- |x - c|^2 = |x|^2 - 2 x.c + |c|^2, and sums them per centroid (push);
-- each centroid becomes the mean of its points, or stays where it is when
-- it has none (pull). Points of more than 15 dimensions exceed the 16 sums
-- a block may send (its d coordinates and its count).

local C -- the centroids, as push saw them: pull runs in worker 1's state

local function nearest(x, k) -- the centroid nearest to x, and |x - c|^2 - |x|^2
    local best, dist = 1, math.huge
    for c = 1, k do
        local row = C:row(c)
        local d = row:norm2() - 2 * x:dot(row)
        if d < dist then best, dist = c, d end
    end
    return best, dist
end

-- Once, before the first round: centroid c starts at global row
-- 1 + floor((c - 1) n / k), set by the worker that holds it.
function init(w, job)
    for c = 1, job.k do
        local i = 1 + (c - 1) * w.X:size() // job.k - w.rows[1] + 1
        if i >= 1 and i <= w.rows[2] - w.rows[1] + 1 then w.X:row(i):axpy(1, w.C:row(c)) end
    end
end

function push(w, S, job)
    local X, d = w.X, select(2, w.X:size())
    C = w.C
    local sum, count = {}, {}
    for c = 1, job.k do sum[c], count[c] = w:vector(d), 0 end
    for i = 1, w.rows[2] - w.rows[1] + 1 do
        local x = X:row(i)
        local c = nearest(x, job.k)
        x:axpy(1, sum[c])
        count[c] = count[c] + 1
    end
    local out = {}
    for _, b in ipairs(S) do
        out[b] = {}
        for j = 1, d do out[b][j] = sum[b][j] end
        out[b][d + 1] = count[b]
    end
    return out
end

function pull(S, z)
    local d, out = #z - 1, {}
    for t, b in ipairs(S) do
        local n, old = z[d + 1][t], C:row(b)
        out[b] = {}
        for j = 1, d do out[b][j] = n > 0 and z[j][t] / n or old[j] end
    end
    return out
end

function objective(w, job) -- this worker's part of sum over rows of |x - c(x)|^2
    local f = 0
    C = w.C
    for i = 1, w.rows[2] - w.rows[1] + 1 do
        local x = w.X:row(i)
        f = f + x:norm2() + select(2, nearest(x, job.k))
    end
    return f
end

-- ptm predict: each row's nearest centroid (1 .. k), and the within-cluster
-- sum of squares over the rows as a metric.
function predict(w, job)
    C = w.C
    local X, out, f = w.X, w:vector(w.X:size()), 0
    for i = 1, #out do
        local x = X:row(i)
        local c, d = nearest(x, job.k)
        out[i], f = c, f + x:norm2() + d
    end
    return out, { inertia = f }
end
