-- 0016: PLACEHOLDER on the wip/mcp branch only. The nodes area owns migration 0016 (built on
-- wip/nodes); migration versions must run 1..n without gaps, so this empty step lets 0018_mcp
-- and 0019_oauth apply on this branch by themselves.
-- At merge: take the nodes branch's 0016 and delete this file and its line in index.ts.
SELECT 1;
