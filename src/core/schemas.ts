/**
 * Shared TypeBox pieces for route schemas. Elysia's own t.Integer also accepts numeric
 * strings (it coerces query parameters); bodies and responses use these strict forms, so
 * "100" is not silently taken for an amount of money.
 */
import { Type, type TSchema } from "@sinclair/typebox";
import { MAX_MICRO_USD } from "./money.ts";

export const Int = (options: Parameters<typeof Type.Integer>[0] = {}) => Type.Integer(options);

type IntegerOptions = NonNullable<Parameters<typeof Type.Integer>[0]>;

/**
 * Every *_micro_usd value of every route, config key and response: an integer from 0 (or a
 * higher `minimum`) to MAX_MICRO_USD (or a lower `maximum`). The one definition of money's
 * type; test/app/money.test.ts fails on a *_micro_usd field of the OpenAPI document or of the
 * config that does not use it.
 */
export const MicroUsd = (options: IntegerOptions = {}) =>
  Type.Integer({
    description: "integer micro-USD (millionths of a dollar)",
    ...options,
    minimum: Math.max(0, Number(options.minimum ?? 0)),
    maximum: Math.min(MAX_MICRO_USD, Number(options.maximum ?? MAX_MICRO_USD)),
  });

/** A signed amount (a ledger adjustment that takes credit away is negative): ±MAX_MICRO_USD. */
export const SignedMicroUsd = (options: IntegerOptions = {}) =>
  Type.Integer({ description: "integer micro-USD (millionths of a dollar); negative takes credit away", ...options, minimum: -MAX_MICRO_USD, maximum: MAX_MICRO_USD });

export const Sha256Hex = (error = "must be a sha256 digest: 64 hex characters") => Type.String({ pattern: "^[0-9a-fA-F]{64}$", error });

export const Nullable = <S extends TSchema>(schema: S) => Type.Union([schema, Type.Null()]);

/**
 * The one error body (core/errors.ts): what every 4xx and 5xx answers. Types may add fields.
 * The OAuth token, registration and revocation endpoints alone answer as RFC 6749 §5.2 requires
 * ({error: "<code>", error_description}), since OAuth clients parse that shape.
 */
export const ErrorBody = Type.Object(
  {
    error: Type.Union([
      Type.Object(
        {
          type: Type.String({ description: "stable snake_case type to branch on" }),
          message: Type.String({ description: "for people" }),
          param: Type.Optional(Type.String({ description: "the field at fault (dotted; query.x for query parameters)" })),
          errors: Type.Optional(Type.Array(Type.Object({ param: Type.String(), reason: Type.String() }), { description: "up to 10 fields at fault, with their reasons" })),
        },
        { additionalProperties: true },
      ),
      Type.String({ description: "OAuth endpoints only (RFC 6749 §5.2, RFC 7591 §3.2.2): the error code, with error_description beside it" }),
    ]),
    error_description: Type.Optional(Type.String({ description: "OAuth endpoints only: for people" })),
  },
  { additionalProperties: true, description: "{error:{type, message, …}}; a 402 insufficient_credit adds x402 terms beside it; OAuth endpoints answer {error, error_description}" },
);

/**
 * A route's own error statuses for its `response` map, beside its success schema:
 * `response: { 200: Key, ...errors(402, 409) }`. The OpenAPI builder adds the statuses every
 * route of its kind can answer (400, 401, 403, 404, 413, 429: core/openapi.ts).
 */
export const errors = (...statuses: number[]): Record<number, typeof ErrorBody> => Object.fromEntries(statuses.map((s) => [s, ErrorBody]));
