/** The API's answers, as far as the console reads them (docs/routes.md and the OpenAPI document are the reference). */
export interface Balance {
  balance_micro_usd: number;
  held_micro_usd: number;
  spendable_micro_usd: number;
}

export interface UsageEvent {
  id: string;
  created_at: string;
  kind: string;
  resource: string | null;
  key_id: string | null;
  run_id: string | null;
  cost_micro_usd: number;
  status: string;
  units: Record<string, unknown>;
}

export interface UsageSummary {
  recent: UsageEvent[];
  daily: { date: string; cost_micro_usd: number; events: number; by_kind: Record<string, { cost_micro_usd: number; events: number }> }[];
  totals: { cost_micro_usd: number; events: number; by_kind: Record<string, { cost_micro_usd: number; events: number }> };
}

export interface Key {
  id: string;
  prefix: string;
  name: string | null;
  kind: string;
  status: string;
  parent_id: string | null;
  depth: number;
  scopes: string[];
  monthly_cap_micro_usd: number | null;
  breaker_micro_usd_per_minute: number | null;
  spent_this_month_micro_usd: number;
  held_micro_usd: number;
  total_spent_micro_usd: number;
  frozen_at: string | null;
  frozen_reason: string | null;
  revoked_at: string | null;
  expires_at: string | null;
  created_at: string;
}

export interface Receipt {
  id: string;
  kind: string;
  status: string;
  cost_micro_usd: number;
  run_id: string | null;
  key_id: string | null;
  created_at: string;
  receipt: string;
  signature: string;
  signer: string;
  shared: boolean;
  share_url: string | null;
  payload: Record<string, unknown>;
}
