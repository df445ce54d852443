/**
 * TypeBox models of /v1/notary: a closed request body (an unknown field is refused and named)
 * and the exact shapes served (service.ts builds them). Sizes come from limits.ts;
 * docs/notary.md explains them.
 */
import { t } from "elysia";
import { MicroUsd, Nullable } from "../../core/schemas.ts";
import { Address, Hex64, Signature, Statement } from "../receipts/index.ts";
import * as L from "./limits.ts";

const closed = { additionalProperties: false } as const;
const Time = t.String({ format: "date-time" });
const Fingerprint = (description: string) => t.String({ pattern: "^[0-9a-fA-F]{64}$", error: "must be a sha256 digest: 64 hex characters", description });

export const CreateBody = t.Object(
  {
    input_sha256: Fingerprint("sha256 hex of the work's input, computed by the caller"),
    output_sha256: Fingerprint("sha256 hex of the work's output, computed by the caller"),
    label: t.Optional(t.String({ minLength: 1, maxLength: L.MAX_LABEL_CHARS, description: `1-${L.MAX_LABEL_CHARS} characters for the owner's list; the receipt states only its sha256` })),
    occurred_at: t.Optional(t.String({ format: "date-time", description: "RFC 3339: when the work happened, as the caller states it; not in the future" })),
  },
  closed,
);

export const Params = t.Object({ id: t.String({ minLength: 1, maxLength: 100 }) });

export const ListQuery = t.Object({
  limit: t.Optional(
    t.String({ description: `how many, newest first: a whole number from ${L.RECEIPTS_LIMIT.min}, default ${L.RECEIPTS_LIMIT.default}; above ${L.RECEIPTS_LIMIT.max} is clamped to ${L.RECEIPTS_LIMIT.max}` }),
  ),
});

export const SignedReceipt = t.Object(
  { receipt_id: t.String(), receipt: Statement, signature: Signature, signer: Address },
  { ...closed, description: "the signed receipt (kind notary): its attestations.notary state the fingerprints, the label's sha256 and occurred_at" },
);

export const NotaryReceipt = t.Object(
  {
    id: t.String({ description: "ntr_…" }),
    key_id: t.String({ description: "the API key that registered it" }),
    input_sha256: Hex64,
    output_sha256: Hex64,
    label: Nullable(t.String()),
    label_sha256: Nullable(Hex64),
    occurred_at: Nullable(Time),
    receipt: SignedReceipt,
    cost_micro_usd: MicroUsd({ description: "what this registration was billed, integer micro-USD" }),
    registered_at: Time,
    verify: t.String(),
  },
  closed,
);

export const NotaryReceiptList = t.Object({ receipts: t.Array(NotaryReceipt, { maxItems: L.RECEIPTS_LIMIT.max, description: "newest first" }) }, closed);
