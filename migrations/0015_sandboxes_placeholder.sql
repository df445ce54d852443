-- 0015: PLACEHOLDER on the wip/mcp branch only. The sandboxes area owns migration 0015 (built on
-- wip/sandboxes); migration versions must run 1..n without gaps, so this empty step lets 0018_mcp
-- and 0019_oauth apply on this branch by themselves.
-- At merge: take the sandboxes branch's 0015 and delete this file and its line in index.ts.
SELECT 1;
