/**
 * A chat completion for another area (the MCP server's chat tool): the same pipeline, dialect,
 * metering and receipt as POST /v1/chat/completions, answered as the route would answer.
 */
import type { Context } from "../../context.ts";
import { ApiError } from "../../core/errors.ts";
import { ENGINE_PREFIX, engineFor } from "../engine/index.ts";
import type { ApiKeyPrincipal } from "../keys/index.ts";
import { chatDialect } from "./chat.ts";
import { checkModel } from "./model-check.ts";
import { serveInference } from "./pipeline.ts";

export function serveChatCompletion(ctx: Context, principal: ApiKeyPrincipal, body: Record<string, unknown>, signal: AbortSignal): Promise<Response> {
  return serveInference(ctx, chatDialect, { principal, body: { ...body, stream: false }, signal, headers: {} });
}

/**
 * Refuses a model id that POST /v1/chat/completions would refuse (404 model_not_found, 400 for an
 * embedding model), naming `param`. With the account that will make the calls, an
 * `engine/<slug>` name is checked as the route checks it for that account (its published build).
 */
export function checkChatModel(ctx: Context, model: string, param = "model", accountId?: string): void {
  if (accountId !== undefined && model.startsWith(ENGINE_PREFIX)) {
    if (!engineFor(ctx, accountId, model)) throw new ApiError(404, "model_not_found", `${param}: ${model} is not a published engine build of this account (GET /v1/engine/builds)`, { param });
    return;
  }
  checkModel(ctx, chatDialect, model, param);
}
