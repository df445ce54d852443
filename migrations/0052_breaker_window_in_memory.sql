-- 0052: the circuit breaker's window lives in the memory of the process that spends (issue 23).
-- Every metered call wrote key_spend_window twice (its reservation, then the correction at its
-- settle) for a figure only that process reads; it now keeps the window in memory and rebuilds
-- it from the last minute's usage events and open holds when it starts spending
-- (src/core/meter.ts seedWindow). A restart therefore forgets nothing the breaker needs.
DROP TABLE key_spend_window;
