/**
 * One metered inference call, whichever of the four routes it came in on:
 *
 *   body → svc_ fields (svc-options.ts) → model → eligible providers (eligibility.ts) →
 *   scrub (scrub.ts) → worst-case estimate → meter.reserve → upstream call, falling back to the
 *   model's next provider on a retryable failure → the reply or the stream in the client's
 *   shape (the route's dialect) → meter.settle on the upstream's usage (receipt headers, or the
 *   stream's closing svc.receipt comment) — or meter.release when the upstream failed.
 *
 * The rules, in one place:
 * - Nothing is sent upstream before the reservation holds: credit, the key's caps up its
 *   delegation chain, its breaker and allowed models are the meter's checks (core/meter.ts).
 * - Fallback only before any byte reached the client: a provider that refuses, times out,
 *   rate-limits or answers with a broken body is skipped for the next in fallback_providers
 *   when its error is retryable (providers/errors.ts); a request the upstream rejected as
 *   malformed is not retried elsewhere. The receipt names the provider used and those skipped.
 * - A failed call bills nothing (release); a completed one bills the upstream's reported usage
 *   (pricing.ts costOf); a stream the client abandoned bills what was produced (billedUsage).
 * - Receipts and logs hold metadata only: token counts, provider names, fingerprints.
 */
import type { ModelType, PrivacyTier } from "./config.ts";
import { keyPrivacyTier } from "../keys/index.ts";
import { ApiError, invalidField } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import { DEFAULT_HOLD_TTL_MS, type Reservation, type Settlement } from "../../core/meter.ts";
import { unixSecs } from "../../core/clock.ts";
import type { Context } from "../../context.ts";
import { receiptHeaders } from "../receipts/index.ts";
import type { CatalogModel, CatalogProvider, CatalogSnapshot } from "./catalog.ts";
import { type CallContext, type Dialect, type Reply, replyObject, type UpstreamPlan } from "./dialect.ts";
import { eligibleProviders } from "./eligibility.ts";
import { costOf, type TokenUsage } from "./pricing.ts";
import { malformedResponse, UpstreamError } from "./providers/errors.ts";
import { mapPrompt, scrubPrompt } from "./scrub.ts";
import { type Guard, guardFor } from "../guardrails/index.ts";
import { type EngineStamp, engineRequest } from "../engine/index.ts";
import { sourceSetAttestation } from "../sources/index.ts";
import { routedModel } from "./model-rerouting.ts";
import { GuardedStream, guardReplyJson } from "./guarded-output.ts";
import type { Endpoint } from "./providers/types.ts";
import { receiptEvent, serveStream, type StreamTranslator } from "./streaming.ts";
import { contextReceiptGroup, parseSvcOptions, type SvcOptions } from "./svc-options.ts";
import { countTokens, promptTextCounts } from "./tokens.ts";
import { stripSvcFields } from "./translate/svc-fields.ts";
import type { Json } from "./translate/types.ts";
import type { NormalUsage } from "./translate/usage.ts";

/**
 * Who pays for a call: an API key's account and key, or an account acting without a key (work a
 * signed-in owner starts from a session, such as an eval run: the account's credit, no key caps).
 */
export interface Caller {
  accountId: string;
  keyId: string | null;
}

export interface InferenceRequest {
  principal: Caller;
  body: unknown;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  headers: Record<string, string | undefined>;
  /** The batch this call is a line of: named on its receipt. */
  batchId?: string;
  /** Serve the model named, ignoring the account's model routes (an eval run or a juror must be the model it names). */
  exactModel?: boolean;
  /** performance.now() when the request arrived (core/arrivals.ts): the response's Server-Timing counts svc's own time from it. */
  arrivedAt?: number;
}

/** One call, decided: what is sent where, reserved how much. */
export interface PreparedCall {
  dialect: Dialect;
  call: CallContext;
  providers: CatalogProvider[];
  options: SvcOptions;
  tier: PrivacyTier;
  /** Redactions made (svc_scrub), or null when scrubbing was not asked for. */
  scrubbed: number | null;
  /** The account's guardrails that apply to this call (input already applied), or null. */
  guard: Guard | null;
  /** The model the client asked for, when an account model route sent the call to another. */
  routedFrom: string | null;
  /** The engine build the call runs (model `engine/<slug>`); absent or null otherwise. */
  engine?: EngineStamp | null;
  amount: number;
  /** The upstream call for providers[0], built while preparing (so a request it cannot express is refused before the reservation). */
  firstPlan?: UpstreamPlan;
  batchId?: string;
  /** The receipt's source_set attestation (svc_source_set), resolved for the caller's account. */
  sourceSet?: Record<string, string | number>;
}

/** The provider that answered, its answer, and the providers skipped before it. */
interface Answered {
  provider: CatalogProvider;
  /** The upstream API the provider was called with (where output guardrails find the text). */
  endpoint: Endpoint;
  response: Response;
  fallbackFrom: string[];
  /** A non-streamed reply, read and parsed inside the fallback loop (a broken body falls back too). */
  reply?: { json: Json; text: string };
  /** Milliseconds spent waiting on upstreams: from the first request's start to this one's body (non-streamed) or headers (streamed). */
  upstreamMs: number;
}

/** The first provider's call, started with the reservation (reserveAndStart), and when it started. */
interface Started {
  response: Promise<Response>;
  at: number;
}

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** The id a translated reply carries, in each API's own style. */
function replyId(dialect: Dialect): string {
  if (dialect.api === "chat") return `chatcmpl-${newId("c").slice(2)}`;
  if (dialect.api === "messages") return newId("msg");
  if (dialect.api === "responses") return newId("resp");
  return "";
}

const MODEL_KIND: Record<ModelType, string> = { chat: "a chat model", embedding: "an embedding model", image: "an image model", video: "a video model" };
const ROUTE_FOR: Record<ModelType, string> = {
  chat: "POST /v1/chat/completions, /v1/messages or /v1/responses",
  embedding: "POST /v1/embeddings",
  image: "POST /v1/images/generations",
  video: "POST /v1/videos/generations",
};

/** The catalogue entry the body names, of the type the route serves (from the catalogue as it is now: hot-reloaded). */
export function findModel(ctx: Context, dialect: Dialect, body: Json): { model: CatalogModel; snapshot: CatalogSnapshot } {
  if (typeof body.model !== "string" || body.model === "") throw invalidField("model", "is required: a model id from GET /v1/models");
  const snapshot = ctx.catalog.current();
  const model = snapshot.model(body.model);
  if (!model) throw new ApiError(404, "model_not_found", `model ${body.model} is not in this deployment's catalogue (GET /v1/models lists it)`, { param: "model" });
  if (model.type !== dialect.modelType) {
    throw invalidField("model", `${model.id} is ${MODEL_KIND[model.type]}; use ${ROUTE_FOR[model.type]}`);
  }
  return { model, snapshot };
}

/** The key's own tier (POST /v1/keys privacy_tier), or standard (and standard for keyless work). */
function keyTier(ctx: Context, keyId: string | null): PrivacyTier {
  return (keyId && keyPrivacyTier(ctx, keyId)) || "standard";
}

/** Everything decided before the reservation; every refusal here costs the caller nothing. */
export function prepare(ctx: Context, dialect: Dialect, req: InferenceRequest): PreparedCall {
  if (!isObject(req.body)) throw invalidField("body", "must be a JSON object");
  const { clean, svc, unknownSvc } = stripSvcFields(req.body);
  const options = parseSvcOptions(svc, unknownSvc);
  const sourceSet = options.sourceSet === undefined ? undefined : sourceSetAttestation(ctx, req.principal.accountId, options.sourceSet);
  dialect.check(clean);
  // engine/<slug>: the account's published build, applied (its pinned model, system prompt, parameters) before anything is priced.
  const engine = engineRequest(ctx, req.principal.accountId, dialect.api, clean);
  const asked: Json = engine ? engine.body : clean;
  const found = findModel(ctx, dialect, asked);
  const { snapshot } = found;
  let model = found.model;
  // The account's standing route for this model (autopilot's switch_model), when its target is still served; an engine's model is pinned.
  let routedFrom: string | null = null;
  const target = req.exactModel || engine ? null : routedModel(ctx, req.principal.accountId, model.id);
  const routed = target === null ? undefined : snapshot.model(target);
  if (routed && routed.type === model.type) (routedFrom = model.id), (model = routed);
  const tier = options.privacyTier ?? keyTier(ctx, req.principal.keyId);
  const providers = eligibleProviders(ctx, snapshot, model, dialect, { tier, region: options.region }, { accountId: req.principal.accountId, keyId: req.principal.keyId });

  let body: Json = asked;
  let scrubbed: number | null = null;
  if (options.scrub) {
    const result = scrubPrompt(dialect.api, asked);
    body = result.body;
    scrubbed = result.count;
  }
  // Guardrails see the prompt as it would leave (after svc_scrub); a block rule throws here, before anything is reserved.
  const guard = guardFor(ctx, { accountId: req.principal.accountId, keyId: req.principal.keyId, models: routedFrom ? [routedFrom, model.id] : [model.id], api: dialect.api });
  if (guard?.guardsInput) body = mapPrompt(dialect.api, body, (text) => guard.input(text));
  const estimate = dialect.estimate(model, body, promptTextCounts.counter(req.principal.accountId));
  const stream = body.stream === true;
  const anthropicBeta = req.headers["anthropic-beta"];
  const call: CallContext = {
    model,
    body,
    stream,
    id: replyId(dialect),
    created: unixSecs(ctx.clock.now()),
    promptTokens: estimate.promptTokens,
    outputTokens: estimate.outputTokens,
    forwardHeaders: anthropicBeta ? { "anthropic-beta": anthropicBeta } : {},
  };
  // Translating for the first provider here refuses a request it cannot express (a 400) before anything is reserved.
  const firstPlan = dialect.upstream(providers[0]!, call);
  return { dialect, call, providers, options, tier, scrubbed, guard, routedFrom, engine: engine?.stamp ?? null, amount: estimate.amount, firstPlan, batchId: req.batchId, sourceSet };
}

/**
 * Tries the providers in order. A retryable UpstreamError moves on to the next provider (when
 * there is one); anything else — the upstream rejected the request, the client went away — is
 * thrown. A provider the request cannot be translated for is passed over as well.
 */
export async function callWithFallback(ctx: Context, p: PreparedCall, signal: AbortSignal, started?: Started): Promise<Answered> {
  const skipped: string[] = [];
  let lastError: unknown = null;
  let firstStart = started?.at;
  for (const [i, provider] of p.providers.entries()) {
    let plan: UpstreamPlan;
    try {
      plan = i === 0 && p.firstPlan ? p.firstPlan : p.dialect.upstream(provider, p.call);
    } catch (err) {
      lastError ??= err;
      continue;
    }
    try {
      // The first provider's call may already be on its way (started with the reservation: reserveAndStart).
      const inFlight = i === 0 && started ? started.response : undefined;
      firstStart ??= performance.now();
      const response = await (inFlight ?? provider.adapter.request(plan.endpoint, plan.body, { signal, stream: p.call.stream, headers: plan.headers }));
      if (p.call.stream) return { provider, endpoint: plan.endpoint, response, fallbackFrom: skipped, upstreamMs: performance.now() - firstStart };
      const text = await response.text();
      const upstreamMs = performance.now() - firstStart;
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw malformedResponse(provider.name, "a body that is not valid JSON");
      }
      return { provider, endpoint: plan.endpoint, response, fallbackFrom: skipped, reply: { json: replyObject(provider.name, parsed), text }, upstreamMs };
    } catch (err) {
      if (signal.aborted || !(err instanceof UpstreamError) || !err.retryable) throw err;
      ctx.log.warn("upstream call failed", { provider: provider.name, model: p.call.model.id, error_type: err.type, upstream_status: err.upstreamStatus });
      skipped.push(provider.name);
      lastError = err;
    }
  }
  throw lastError;
}

/**
 * What to bill: the upstream's reported usage. Where it reported none — a server that ignores
 * include_usage, or a stream the client left before the usage arrived — the prompt as counted
 * for the reservation and the produced text as the tokenizer counts it: never 0 for output
 * that was produced.
 */
export function billedUsage(reported: NormalUsage | null, produced: () => string, promptTokens: number, complete: boolean): TokenUsage {
  const input = reported && reported.input_tokens > 0 ? reported.input_tokens : promptTokens;
  let output = reported?.output_tokens ?? 0;
  if (!complete || output === 0) output = Math.max(output, countTokens(produced()));
  return { input_tokens: input, output_tokens: output, cached_input_tokens: Math.min(reported?.cached_input_tokens ?? 0, input) };
}

/** Units and attestations of the receipt: counts, routing, fingerprints — no content. */
function receiptUnits(p: PreparedCall, answered: Answered, usage: TokenUsage): Record<string, unknown> {
  const routing: Record<string, unknown> = { provider: answered.provider.name, privacy_tier: p.tier };
  if (p.options.region) routing.region = p.options.region;
  if (answered.fallbackFrom.length) routing.fallback_from = answered.fallbackFrom;
  if (p.routedFrom) routing.routed_from = p.routedFrom;
  return {
    input_tokens: usage.input_tokens,
    output_tokens: usage.output_tokens,
    cached_input_tokens: usage.cached_input_tokens ?? 0,
    api: p.dialect.api,
    stream: p.call.stream,
    ...(p.batchId ? { batch_id: p.batchId } : {}),
    ...(p.scrubbed !== null ? { scrubbed: p.scrubbed } : {}),
    attestations: {
      routing,
      ...(p.engine ? { engine: { ...p.engine } } : {}),
      ...(p.options.context ? { context: contextReceiptGroup(p.options.context) } : {}),
      ...(p.sourceSet ? { source_set: p.sourceSet } : {}),
      ...(p.guard ? { guardrails: p.guard.stamp() } : {}),
    },
  };
}

/** What settle charges and records for a call: the cost of its usage, and the receipt's units. */
function charge(p: PreparedCall, answered: Answered, usage: TokenUsage, status: string): [number, { units: Record<string, unknown>; status: string }] {
  return [costOf(p.call.model, usage), { units: receiptUnits(p, answered, usage), status }];
}

/** A stream's settle, group-committed with the other calls in flight; its closing receipt comment waits for it. */
function settle(ctx: Context, p: PreparedCall, r: Reservation, answered: Answered, usage: TokenUsage, status: string): Promise<Settlement> {
  const [cost, details] = charge(p, answered, usage, status);
  // The content went out just before: the loop must stay free to write it (a receipt signed
  // inline here would hold the first byte back until the settle committed).
  return ctx.meter.settleGrouped(r, cost, { ...details, responding: true });
}

function streamed(ctx: Context, p: PreparedCall, r: Reservation, answered: Answered, signal: AbortSignal, headers: Record<string, string>): Response {
  const inner: StreamTranslator = p.dialect.stream(answered.provider, p.call);
  const translator = p.guard?.guardsOutput ? new GuardedStream(inner, p.guard, answered.endpoint) : inner;
  const bill = (complete: boolean) => billedUsage(translator.usage(), () => translator.producedText(), p.call.promptTokens, complete);
  return serveStream(
    answered.response,
    translator,
    {
      completed: async () => receiptEvent(await settle(ctx, p, r, answered, bill(true), "succeeded"), r.runId),
      disconnected: () =>
        void settle(ctx, p, r, answered, bill(false), "client_disconnected").catch((err: unknown) =>
          ctx.log.error("settling a disconnected stream failed", { error: err instanceof Error ? err.message : String(err) }),
        ),
      failed: (f) => {
        ctx.meter.release(r);
        ctx.log.warn("upstream stream failed", { provider: answered.provider.name, model: p.call.model.id, error_type: f.type });
      },
    },
    ctx.log,
    signal,
    r.runId ? { ...headers, "x-svc-run-id": encodeURIComponent(r.runId) } : headers,
  );
}

/**
 * The W3C Server-Timing of a call until now: `upstream`, the time spent waiting on providers, and
 * `svc`, everything else since the request arrived (authentication, checks, metering, settling,
 * signing) — what the gateway added. For a stream, until its headers. `settle`, the part of `svc`
 * a non-streamed call spent settling (its charge committed, its receipt signed). None when the
 * arrival was not marked (a call made by another area's service).
 */
function serverTiming(req: InferenceRequest, answered: Answered, settleMs?: number): Record<string, string> {
  if (req.arrivedAt === undefined) return {};
  const svc = Math.max(0, performance.now() - req.arrivedAt - answered.upstreamMs);
  const settle = settleMs === undefined ? "" : `, settle;dur=${settleMs.toFixed(3)}`;
  return { "server-timing": `upstream;dur=${answered.upstreamMs.toFixed(3)}, svc;dur=${svc.toFixed(3)}${settle}` };
}

/** The reply in the client's shape (its text through the output guardrails first); a body the translator cannot read is the upstream's fault (502), not ours. */
function readReply(p: PreparedCall, answered: Answered): Reply {
  const guard = p.guard;
  if (guard?.guardsOutput) {
    // A block rule throws here: the caller releases the hold, so nothing is billed.
    guardReplyJson(answered.endpoint, answered.reply!.json, (text) => guard.output(text));
    answered.reply!.text = JSON.stringify(answered.reply!.json);
  }
  try {
    return p.dialect.reply(answered.provider, answered.reply!.json, answered.reply!.text, p.call);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw malformedResponse(answered.provider.name, "a reply that does not have the shape its API documents");
  }
}

/**
 * The reservation for a prepared call, and its call to the first provider, started inside the
 * reservation's transaction once the checks passed (Meter.reserveGrouped's `start`): the
 * reservation's COMMIT runs while the request travels instead of before it. A reservation
 * refused starts nothing, so a refused account's prompt never reaches an upstream; one whose
 * commit fails aborts the call it started.
 */
async function reserveAndStart(ctx: Context, p: PreparedCall, req: InferenceRequest): Promise<{ reservation: Reservation; started: Started | undefined }> {
  const timeouts = p.providers.reduce((sum, provider) => sum + provider.config.timeout_secs * 1000, 0);
  const abort = new AbortController();
  let started: Started | undefined;
  const start = () => {
    const plan = p.firstPlan;
    if (!plan) return;
    const at = performance.now();
    const response = p.providers[0]!.adapter.request(plan.endpoint, plan.body, { signal: AbortSignal.any([req.signal, abort.signal]), stream: p.call.stream, headers: plan.headers });
    // callWithFallback awaits it; a failure before then must not surface as an unhandled rejection.
    response.catch(() => {});
    started = { response, at };
  };
  // Grouped: under load, the reservations and settlements of the calls in flight share one commit (core/transaction.ts).
  const reserving = ctx.meter.reserveGrouped(
    {
      accountId: req.principal.accountId,
      keyId: req.principal.keyId,
      amount: p.amount,
      kind: "inference",
      resource: p.call.model.id,
      resourceType: "model",
      runId: p.options.runId,
      // The sweeper must not release a hold whose call may still be running: every provider's whole timeout, and a minute.
      holdTtlMs: Math.max(DEFAULT_HOLD_TTL_MS, timeouts + 60_000),
    },
    start,
  );
  try {
    return { reservation: await reserving, started };
  } catch (err) {
    abort.abort(err);
    throw err;
  }
}

/** A failed call bills nothing: its hold goes back (the caller still gets the call's own error). */
async function releaseFailed(ctx: Context, reservation: Reservation): Promise<void> {
  await ctx.meter.releaseGrouped(reservation).catch((releaseError: unknown) =>
    // The sweeper releases the hold when its TTL passes.
    ctx.log.error("releasing a failed call's reservation failed", { error: releaseError instanceof Error ? releaseError.message : String(releaseError) }),
  );
}

/** Settles a completed, non-streamed call on the usage its reply reported (`within`: the caller's record, in the settle's transaction). */
function settleReply(ctx: Context, p: PreparedCall, reservation: Reservation, answered: Answered, reply: Reply, within?: (s: Settlement, usage: TokenUsage) => void): Promise<Settlement> {
  const usage = billedUsage(reply.usage, reply.produced, p.call.promptTokens, true);
  return ctx.meter.settleGrouped(reservation, ...charge(p, answered, usage, "succeeded"), within && ((s) => within(s, usage)));
}

/** The whole call for one route: the Response to send (an error is thrown as an ApiError). */
export async function serveInference(ctx: Context, dialect: Dialect, req: InferenceRequest): Promise<Response> {
  const p = prepare(ctx, dialect, req);
  const { reservation, started } = await reserveAndStart(ctx, p, req);
  let answered: Answered;
  let reply: Reply | null = null;
  try {
    answered = await callWithFallback(ctx, p, req.signal, started);
    if (p.call.stream) return streamed(ctx, p, reservation, answered, req.signal, serverTiming(req, answered));
    reply = readReply(p, answered);
  } catch (err) {
    await releaseFailed(ctx, reservation);
    throw err;
  }
  const settling = performance.now();
  const settlement = await settleReply(ctx, p, reservation, answered, reply);
  const settleMs = performance.now() - settling;
  return new Response(reply.body, { status: 200, headers: { "content-type": "application/json", ...receiptHeaders(settlement, reservation), ...serverTiming(req, answered, settleMs) } });
}

/**
 * The same call for another area's service (memory's embeddings): prepared, reserved, sent with
 * fallback and settled exactly as its route would, but handing back the parsed reply instead of
 * a Response. `accept` reads the reply before anything is charged: when it throws (a reply the
 * caller cannot use), the hold is released and nothing is billed. Never streams.
 */
export async function completeCall<T>(
  ctx: Context,
  dialect: Dialect,
  req: InferenceRequest,
  accept: (json: Json, provider: string, reply: Reply) => T,
  within?: (settlement: Settlement, value: T, usage: TokenUsage) => void,
): Promise<{ value: T; settlement: Settlement; reservation: Reservation; usage: TokenUsage }> {
  const p = prepare(ctx, dialect, req);
  if (p.call.stream) throw invalidField("stream", "is not supported here");
  const { reservation, started } = await reserveAndStart(ctx, p, req);
  let answered: Answered;
  let reply: Reply;
  let value: T;
  try {
    answered = await callWithFallback(ctx, p, req.signal, started);
    reply = readReply(p, answered);
    value = accept(answered.reply!.json, answered.provider.name, reply);
  } catch (err) {
    await releaseFailed(ctx, reservation);
    throw err;
  }
  const settlement = await settleReply(ctx, p, reservation, answered, reply, within && ((s, usage) => within(s, value, usage)));
  return { value, settlement, reservation, usage: billedUsage(reply.usage, reply.produced, p.call.promptTokens, true) };
}
