-- 0017: PLACEHOLDER on the wip/mcp branch only. The state and memory areas own migration 0017
-- (built on wip/state-memory); migration versions must run 1..n without gaps, so this empty step
-- lets 0018_mcp and 0019_oauth apply on this branch by themselves.
-- At merge: take the state/memory branch's 0017 and delete this file and its line in index.ts.
SELECT 1;
