/**
 * Shared TypeBox pieces for route schemas. Elysia's own t.Integer also accepts numeric
 * strings (it coerces query parameters); bodies and responses use these strict forms, so
 * "100" is not silently taken for an amount of money.
 */
import { Type, type TSchema } from "@sinclair/typebox";

export const Int = (options: Parameters<typeof Type.Integer>[0] = {}) => Type.Integer(options);

export const MicroUsd = (options: Parameters<typeof Type.Integer>[0] = {}) =>
  Type.Integer({ description: "integer micro-USD (millionths of a dollar)", ...options });

export const Sha256Hex = (error = "must be a sha256 digest: 64 hex characters") => Type.String({ pattern: "^[0-9a-fA-F]{64}$", error });

export const Nullable = <S extends TSchema>(schema: S) => Type.Union([schema, Type.Null()]);
