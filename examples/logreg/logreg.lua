-- Logistic regression by minibatch SGD under data_parallel: every clock,
-- this worker's next rows first..last of X take one step on
--     F(w) = 1/n sum over rows i of log(1 + exp(-y_i x_i . w)) + (l2 / 2) |w|^2
-- (labels > 0 are +1, the others -1) at w as the parameter store lets this
-- worker see it, at most `ssp s` clocks old; what the hook writes to w
-- reaches the store as increments. The step size of sweep s is
-- rate decay^s. Job: logreg_lua.ptm.

local g -- the minibatch's gradient, kept from call to call

function push(w, first, last, job)
    local X, y, wt = w.X, w.y, w.w
    g = g or w:vector(#wt)
    g:fill(0)
    for i = first, last do
        local x, yi = X:row(i), y[i] > 0 and 1 or -1
        x:axpy(-yi / (1 + math.exp(yi * x:dot(wt))), g) -- g += the gradient of row i's loss
    end
    local eta = job.rate * job.decay ^ w.sweep
    wt:scale(1 - eta * job.l2):axpy(-eta / (last - first + 1), g)
end
