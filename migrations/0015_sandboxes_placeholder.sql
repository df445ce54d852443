-- 0015: PLACEHOLDER on the wip/nodes branch only. The sandboxes area owns migration 0015 (its
-- sessions, snapshots and usage tables, built on wip/sandboxes); migration versions must run
-- 1..n without gaps, so this empty step lets 0016_nodes apply on this branch by itself.
-- At merge: take the sandboxes branch's 0015 and delete this file and its line in index.ts.
SELECT 1;
