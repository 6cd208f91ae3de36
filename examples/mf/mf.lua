-- Matrix factorization R ~ W H' by SGD under rotation: the steps of the
-- built-in mf_sgd with step = fixed, in its order (runtime/models/mf/kernel_mf.h), so W and H come out
-- the same, bit for bit. In round t this worker holds block b of H's rows;
-- for each of its ratings r_ij in that block, row by row, with
-- e = r_ij - w_i . h_j (n_i, m_j: the ratings of row i and column j in R):
--     w_i = (1 - eta reg / n_i) w_i + eta e h_j
--     h_j = (1 - eta reg / m_j) h_j + eta e w_i      (both from the old values)
-- The step size of sweep s is eta = rate decay^s. Job: mf_lua.ptm.

local rw, rh -- reg / n_i for this worker's rows, reg / m_j for every column

function push(w, b, job)
    local R, W, H = w.R, w.W, w.H
    local rows = W:size()
    if not rw then -- the first call
        rw, rh = {}, {}
        for i = 1, rows do
            local n = R:row(i):nnz()
            rw[i] = n > 0 and job.reg / n or 0
        end
        local m = R:colnnz()
        for j = 1, #m do rh[j] = m[j] > 0 and job.reg / m[j] or 0 end
    end
    local eta = job.rate * job.decay ^ w.sweep
    for i = 1, rows do
        local wi, sw = W:row(i), 1 - eta * rw[i]
        for j, r, hj in R:row(i, b):each(H) do -- r_ij and h_j for j in block b
            local g = eta * (r - wi:dot(hj))
            wi:mix(hj, sw, g, g, 1 - eta * rh[j]) -- wi, hj = sw wi + g hj, g wi + sh hj
        end
    end
end
