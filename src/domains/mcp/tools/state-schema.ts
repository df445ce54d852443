/** The key and namespace of the state tools (the state area's PUT /v1/state/:key rules, as far as this branch knows them). */
import { Type as T } from "@sinclair/typebox";

export const Key = T.String({ minLength: 1, maxLength: 256, description: "the state key" });
export const Namespace = T.String({ minLength: 1, maxLength: 64, description: "the namespace (default \"default\")" });
