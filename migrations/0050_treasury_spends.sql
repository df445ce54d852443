-- owner billing: treasury_spends
-- 0050: treasury transfers spent on something other than credit (a paid public launch check,
-- whose payer has no account). A treasury transfer is money svc received once: it may become a
-- deposit OR pay for one such thing, never both — deposits refuse a transfer listed here, and
-- spendTreasuryTransfer refuses one already recorded as a deposit.
CREATE TABLE treasury_spends (
  chain_id INTEGER NOT NULL,
  tx_hash TEXT NOT NULL,
  log_position INTEGER NOT NULL,
  purpose TEXT NOT NULL,
  ref TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (chain_id, tx_hash, log_position)
);
