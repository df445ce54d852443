/**
 * One call's guard: the account's guardrails that apply to its key and model, compiled, and
 * what they found. The inference pipeline asks for it (guardFor) before anything is reserved and
 * runs the prompt's text through `input`, the reply's through `output` (or, streamed, through an
 * OutputWindow per text channel), and puts `stamp()` on the receipt.
 *
 * Per detector rule, in this order on each piece of text:
 *   block   a match anywhere refuses the call: recorded (guardrail_blocks, content-free) and
 *           thrown as 400 guardrail_blocked naming the guardrail, the detector and the direction;
 *           the pipeline bills nothing (before the reservation for input; released for output)
 *   allow   matches are counted, the text passes as it is (a tripwire, or a dry run of a policy)
 *   redact  matches become [REDACTED:<kind>] and are counted
 * Findings are counts per (guardrail, detector, direction, action): never the matched text.
 *
 * Guardrail rows never change (there is no update route), so a compiled guardrail is cached by
 * id; per call the hot path reads only the account's guardrail ids (one indexed query).
 */
import { ApiError } from "../../core/errors.ts";
import { newId } from "../../core/ids.ts";
import type { Span } from "../../core/redact.ts";
import type { Context } from "../../context.ts";
import { type Detector, DETECTORS, type DetectorName } from "./detectors/index.ts";
import { type Action, guardrailById, guardrailIdsOf, insertBlock } from "./store.ts";

type Side = "input" | "output";

interface Rule {
  guardrailId: string;
  name: string;
  type: string;
  sides: Side[];
  action: Action;
  detector: Detector;
}

interface Compiled {
  keys: Set<string> | null;
  models: Set<string> | null;
  rules: Rule[];
}

export interface GuardFinding {
  guardrail_id: string;
  detector: string;
  direction: Side;
  action: Action;
  count: number;
}

const ORDER: Record<Action, number> = { block: 0, allow: 1, redact: 2 };
const cache = new Map<string, Compiled>();
const CACHE_MAX = 10_000;

function compiled(ctx: Context, id: string): Compiled | null {
  const hit = cache.get(id);
  if (hit) return hit;
  const row = guardrailById(ctx, id);
  if (!row) return null;
  const rules = row.detectors.map((d, i): Rule => ({
    guardrailId: row.id,
    name: row.name,
    type: d.type,
    sides: d.direction === "both" ? ["input", "output"] : [d.direction],
    action: d.action,
    detector: DETECTORS[d.type as DetectorName].compile(d.options, `detectors[${i}].options`),
  }));
  if (cache.size >= CACHE_MAX) cache.clear();
  const out = { keys: row.scope_keys && new Set(row.scope_keys), models: row.scope_models && new Set(row.scope_models), rules };
  cache.set(id, out);
  return out;
}

const guardrailBlocked = (rule: Rule, side: Side): ApiError =>
  new ApiError(400, "guardrail_blocked", `guardrail ${rule.guardrailId} ("${rule.name}") blocked this call: its ${rule.type} detector matched the ${side === "input" ? "prompt" : "reply"}; nothing was billed`, {
    guardrail_id: rule.guardrailId,
    detector: rule.type,
    direction: side,
  });

export interface GuardedCall {
  accountId: string;
  keyId: string | null;
  /** The model asked for, and the one serving it (they differ under an account model route). */
  models: string[];
  api: string;
}

export class Guard {
  readonly ids: string[];
  private readonly rules: Record<Side, Rule[]>;
  private readonly found = new Map<string, GuardFinding>();

  constructor(
    private readonly ctx: Context,
    private readonly call: GuardedCall,
    rules: Rule[],
  ) {
    this.ids = [...new Set(rules.map((r) => r.guardrailId))];
    const sorted = [...rules].sort((a, b) => ORDER[a.action] - ORDER[b.action]);
    this.rules = { input: sorted.filter((r) => r.sides.includes("input")), output: sorted.filter((r) => r.sides.includes("output")) };
  }

  get guardsInput(): boolean {
    return this.rules.input.length > 0;
  }

  get guardsOutput(): boolean {
    return this.rules.output.length > 0;
  }

  input(text: string): string {
    return this.apply("input", text);
  }

  output(text: string): string {
    return this.apply("output", text);
  }

  /** Where the output detectors match in `text`: a stream window must not cut inside one. */
  outputSpans(text: string): Span[] {
    return this.rules.output.flatMap((r) => r.detector.spans(text));
  }

  /** A stream's text channel, redacted and checked as it passes (see OutputWindow). */
  outputWindow(): OutputWindow {
    return new OutputWindow(this);
  }

  findings(): GuardFinding[] {
    return [...this.found.values()];
  }

  /** The receipt's `guardrails` attestation: which guardrails were enforced and what they found (counts only). */
  stamp(): Record<string, string[]> {
    return { ids: this.ids, findings: this.findings().map((f) => `${f.guardrail_id}:${f.detector}:${f.direction}:${f.action}:${f.count}`) };
  }

  private note(rule: Rule, side: Side, count: number): void {
    const key = `${rule.guardrailId}|${rule.type}|${side}|${rule.action}`;
    const f = this.found.get(key);
    if (f) f.count += count;
    else this.found.set(key, { guardrail_id: rule.guardrailId, detector: rule.type, direction: side, action: rule.action, count });
  }

  private apply(side: Side, text: string): string {
    if (text === "") return text;
    let out = text;
    for (const rule of this.rules[side]) {
      if (rule.action === "redact") {
        const r = rule.detector.redact(out);
        if (r.count) (this.note(rule, side, r.count), (out = r.text));
        continue;
      }
      const n = rule.detector.spans(text).length;
      if (!n) continue;
      this.note(rule, side, n);
      if (rule.action === "block") {
        insertBlock(this.ctx, {
          id: newId("grb"),
          account_id: this.call.accountId,
          guardrail_id: rule.guardrailId,
          detector: rule.type,
          direction: side,
          key_id: this.call.keyId,
          model: this.call.models.at(-1)!,
          api: this.call.api,
          created_at: this.ctx.clock.now(),
        });
        throw guardrailBlocked(rule, side);
      }
    }
    return out;
  }
}

/**
 * Streamed output, guarded without letting a match through in pieces: text is held back until
 * it is at least HOLD characters behind the newest, and never released up to a point inside a
 * match (a secret whose start has arrived but not its end stays held). What is released is
 * checked and redacted as a whole; `flush` releases the rest when the channel ends. The cost is
 * latency of HOLD (+ STEP) characters on a guarded stream, never a leak across chunk boundaries.
 */
export class OutputWindow {
  static readonly HOLD = 128;
  /** Text is released in pieces of at least this much, so the detectors scan once per piece, not once per token. */
  static readonly STEP = 32;
  private pending = "";

  constructor(private readonly guard: Guard) {}

  push(delta: string): string {
    this.pending += delta;
    let cut = this.pending.length - OutputWindow.HOLD;
    if (cut < OutputWindow.STEP) return "";
    const spans = this.guard.outputSpans(this.pending);
    for (let moved = true; moved; ) {
      moved = false;
      for (const s of spans) {
        if (s.start < cut && cut < s.end) {
          cut = s.start;
          moved = true;
        }
      }
    }
    if (cut <= 0) return "";
    const head = this.pending.slice(0, cut);
    this.pending = this.pending.slice(cut);
    return this.guard.output(head);
  }

  flush(): string {
    const rest = this.pending;
    this.pending = "";
    return this.guard.output(rest);
  }
}

/** The guard for one call, or null when none of the account's guardrails applies to its key and model. */
export function guardFor(ctx: Context, call: GuardedCall): Guard | null {
  const ids = guardrailIdsOf(ctx, call.accountId);
  if (ids.length === 0) return null;
  const rules: Rule[] = [];
  for (const { id } of ids) {
    const g = compiled(ctx, id);
    if (!g) continue;
    if (g.keys && (call.keyId === null || !g.keys.has(call.keyId))) continue;
    if (g.models && !call.models.some((m) => g.models!.has(m))) continue;
    rules.push(...g.rules);
  }
  return rules.length ? new Guard(ctx, call, rules) : null;
}
