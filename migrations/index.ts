/**
 * The migrations, embedded into the binary at build time (text imports), so `dist/svc` needs
 * no migrations directory. Append new files here in order; test/core/db.test.ts fails when
 * this list and the directory disagree. Each file's header names the area owning each table it
 * creates (`-- owner <area>: table, …`; docs/architecture.md).
 */
import m0001 from "./0001_core.sql" with { type: "text" };
import m0002 from "./0002_auth.sql" with { type: "text" };
import m0003 from "./0003_passkeys.sql" with { type: "text" };
import m0004 from "./0004_orgs.sql" with { type: "text" };
import m0005 from "./0005_keys.sql" with { type: "text" };
import m0006 from "./0006_mandates_ghosts.sql" with { type: "text" };
import m0007 from "./0007_deposits.sql" with { type: "text" };
import m0008 from "./0008_request_stats.sql" with { type: "text" };
import m0009 from "./0009_plans_alerts.sql" with { type: "text" };
import m0010 from "./0010_receipts.sql" with { type: "text" };
import m0011 from "./0011_signers.sql" with { type: "text" };
import m0012 from "./0012_runs_anchors.sql" with { type: "text" };
import m0013 from "./0013_webhooks.sql" with { type: "text" };
import m0014 from "./0014_inference.sql" with { type: "text" };
import m0015 from "./0015_sandboxes.sql" with { type: "text" };
import m0016 from "./0016_nodes.sql" with { type: "text" };
import m0017 from "./0017_state_memory.sql" with { type: "text" };
import m0018 from "./0018_mcp.sql" with { type: "text" };
import m0019 from "./0019_oauth.sql" with { type: "text" };
import m0020 from "./0020_agents.sql" with { type: "text" };
import m0021 from "./0021_files.sql" with { type: "text" };
import m0022 from "./0022_batches.sql" with { type: "text" };
import m0023 from "./0023_guardrails.sql" with { type: "text" };
import m0024 from "./0024_evals.sql" with { type: "text" };
import m0025 from "./0025_judge.sql" with { type: "text" };
import m0026 from "./0026_autopilot.sql" with { type: "text" };
import m0027 from "./0027_media.sql" with { type: "text" };
import m0028 from "./0028_post.sql" with { type: "text" };
import m0029 from "./0029_calls.sql" with { type: "text" };
import m0030 from "./0030_notary.sql" with { type: "text" };
import m0031 from "./0031_relays.sql" with { type: "text" };
import m0032 from "./0032_pay.sql" with { type: "text" };
import m0033 from "./0033_escrow.sql" with { type: "text" };
import m0034 from "./0034_passport.sql" with { type: "text" };
import m0035 from "./0035_kya.sql" with { type: "text" };
import m0036 from "./0036_sources.sql" with { type: "text" };
import m0037 from "./0037_replay.sql" with { type: "text" };
import m0038 from "./0038_engine.sql" with { type: "text" };
import m0039 from "./0039_arena.sql" with { type: "text" };
import m0040 from "./0040_evidence.sql" with { type: "text" };
import m0041 from "./0041_attestations.sql" with { type: "text" };
import m0042 from "./0042_nav.sql" with { type: "text" };
import m0043 from "./0043_benchmarks.sql" with { type: "text" };
import m0044 from "./0044_pob.sql" with { type: "text" };
import m0045 from "./0045_services.sql" with { type: "text" };
import m0046 from "./0046_support.sql" with { type: "text" };
import m0047 from "./0047_legacy.sql" with { type: "text" };
import m0048 from "./0048_vault.sql" with { type: "text" };
import m0049 from "./0049_launches.sql" with { type: "text" };
import m0050 from "./0050_treasury_spends.sql" with { type: "text" };
import m0051 from "./0051_money_path_indexes.sql" with { type: "text" };
import m0052 from "./0052_breaker_window_in_memory.sql" with { type: "text" };
import m0053 from "./0053_read_epoch.sql" with { type: "text" };
import m0054 from "./0054_webhooks_read_epoch.sql" with { type: "text" };
import m0055 from "./0055_denylist_read_epoch.sql" with { type: "text" };
import m0056 from "./0056_guardrails_read_epoch.sql" with { type: "text" };
import m0057 from "./0057_key_lifetime_spend.sql" with { type: "text" };
import m0058 from "./0058_outbox_type_index_dropped.sql" with { type: "text" };

import type { MigrationFile } from "../src/core/migrate.ts";

export type Migration = MigrationFile;

/** What builds before the owner headers recorded (whole-text sha256) and the statements' checksum then. */
const before = (checksum: string, statements: string) => [{ checksum, statements }];

export const migrations: Migration[] = [
  { version: 1, name: "0001_core", sql: m0001, earlier: before("2ee6ce7277f25d1cb72bff0a5db2e2181ef9acd8fbae0e020dc6e0dcf3786716", "536cb3a7067358c96a2f04971dfd1261680379359fff9c8b96b30ab0f4853de0") },
  { version: 2, name: "0002_auth", sql: m0002, earlier: before("0039187cd4ac696be60448efc7af1e6933c461f00c522b5b6657a7149a8860c6", "4f1f45fbd9515a44fba3e598064b636894e5d4a75f74fb50e6315d55e268fa4b") },
  { version: 3, name: "0003_passkeys", sql: m0003, earlier: before("f3818efe013e91bbbeaf7c05cd867f41d8f633e999badfd93d3b5e062dee3221", "9fca841a7c4f1caf1cb52e2823fd2dc153bf98204b4385ab3a49cf163dfc5f6d") },
  { version: 4, name: "0004_orgs", sql: m0004, earlier: before("646747bc960a99222ef5e3806d6a6472f8103ecab612af524c2bb1c3bbd83213", "c8880772c0603c60dbe4f4db437879d815a503e6af34be06240707ebcd72fc19") },
  { version: 5, name: "0005_keys", sql: m0005, earlier: before("45517b071497e020cdbc5677abb6a3b9c247ba227efe0c13c0d88de45c43ca34", "467db5d484e272d9b2f9f0e47572fb2a059c89af5c9af17c26d3b02790a5b8e5") },
  { version: 6, name: "0006_mandates_ghosts", sql: m0006, earlier: before("649941c049ab222121b5f92419612f59e164b51fcab0e38bc06ab2c77300f023", "8043461beab15ecb4a7d3d17c294ca23a070df1978bd41c02cd0ac64adb8bd1d") },
  { version: 7, name: "0007_deposits", sql: m0007, earlier: before("45a560ca6411a4873f71dfa7e3296ed4cfbb9728e1eae8cd3bad6f593638cb9e", "d4afa6df0f3d535af2836bf6b654d88d9ee0589888c2e91db28fdd6e5c723dc6") },
  { version: 8, name: "0008_request_stats", sql: m0008, earlier: before("d8b128a4af1b17ddf0e14e368221644249320c004c32dff46e5262d5aefb7ed9", "3c5a4b6edec5378a1cfecfbc19083bae2015f3fd514df75741995072f9306c50") },
  { version: 9, name: "0009_plans_alerts", sql: m0009, earlier: before("e55e72e7b2caecfd9ec576c7327c592b486439588f7aa7bed7975cbfb5d79874", "29d66280da8b019f553fc032adc4d5a7308bd9307ffaad1acac9ddfb88178594") },
  { version: 10, name: "0010_receipts", sql: m0010, earlier: before("b0a2549c89d3b593048a88852ee07b22d022c369a6492ecbb0d23563e605b16f", "52e0a21d02ed55e7288c235b77bedfc4a968eb268fc96b392b0ef91402c2d1ee") },
  { version: 11, name: "0011_signers", sql: m0011, earlier: before("018ec6de21c8ec533deb46ef18e04580fdb2ec96d0fb54308d4e6b98eb485b7e", "c68bc665069a4e7bc7e013da9cb53f63b6441df8f799189e85080e7c1b7eafe4") },
  { version: 12, name: "0012_runs_anchors", sql: m0012, earlier: before("af950f0fea3c295bdb2f9bd4a0fba839ad06a8ae0c106fd5ba7687497539c7d4", "296843d9d5613ee7697ccd7a7247d4077a11d8cd12f8eab65e09ff83d0ae7cfc") },
  { version: 13, name: "0013_webhooks", sql: m0013, earlier: before("a9508dd2838986b84055b03f856557d1d88deef541a2f50a2df0af27625161ad", "7cbbf96b13782e7ef9aa264eea029da7af676bb4e6b234ad4c84bf6a4e2675ed") },
  { version: 14, name: "0014_inference", sql: m0014, earlier: before("7bd3af5ce85187940d2cf1c2504603271f6d8d8d46e78b5982d6b8ee79efaf74", "c7cc31cd5b310359b3e12ee1c37efbec5d9f1f39fdc40d669dde47846f49dae9") },
  { version: 15, name: "0015_sandboxes", sql: m0015 },
  { version: 16, name: "0016_nodes", sql: m0016 },
  { version: 17, name: "0017_state_memory", sql: m0017 },
  { version: 18, name: "0018_mcp", sql: m0018 },
  { version: 19, name: "0019_oauth", sql: m0019 },
  { version: 20, name: "0020_agents", sql: m0020 },
  { version: 21, name: "0021_files", sql: m0021 },
  { version: 22, name: "0022_batches", sql: m0022 },
  { version: 23, name: "0023_guardrails", sql: m0023 },
  { version: 24, name: "0024_evals", sql: m0024 },
  { version: 25, name: "0025_judge", sql: m0025 },
  { version: 26, name: "0026_autopilot", sql: m0026 },
  { version: 27, name: "0027_media", sql: m0027 },
  { version: 28, name: "0028_post", sql: m0028 },
  { version: 29, name: "0029_calls", sql: m0029 },
  { version: 30, name: "0030_notary", sql: m0030 },
  { version: 31, name: "0031_relays", sql: m0031 },
  { version: 32, name: "0032_pay", sql: m0032 },
  { version: 33, name: "0033_escrow", sql: m0033 },
  { version: 34, name: "0034_passport", sql: m0034 },
  { version: 35, name: "0035_kya", sql: m0035 },
  { version: 36, name: "0036_sources", sql: m0036 },
  { version: 37, name: "0037_replay", sql: m0037 },
  { version: 38, name: "0038_engine", sql: m0038 },
  { version: 39, name: "0039_arena", sql: m0039 },
  { version: 40, name: "0040_evidence", sql: m0040 },
  { version: 41, name: "0041_attestations", sql: m0041 },
  { version: 42, name: "0042_nav", sql: m0042 },
  { version: 43, name: "0043_benchmarks", sql: m0043 },
  { version: 44, name: "0044_pob", sql: m0044 },
  { version: 45, name: "0045_services", sql: m0045 },
  { version: 46, name: "0046_support", sql: m0046 },
  { version: 47, name: "0047_legacy", sql: m0047 },
  { version: 48, name: "0048_vault", sql: m0048 },
  { version: 49, name: "0049_launches", sql: m0049 },
  { version: 50, name: "0050_treasury_spends", sql: m0050 },
  { version: 51, name: "0051_money_path_indexes", sql: m0051 },
  { version: 52, name: "0052_breaker_window_in_memory", sql: m0052 },
  { version: 53, name: "0053_read_epoch", sql: m0053 },
  { version: 54, name: "0054_webhooks_read_epoch", sql: m0054 },
  { version: 55, name: "0055_denylist_read_epoch", sql: m0055 },
  { version: 56, name: "0056_guardrails_read_epoch", sql: m0056 },
  { version: 57, name: "0057_key_lifetime_spend", sql: m0057 },
  { version: 58, name: "0058_outbox_type_index_dropped", sql: m0058 },
];
