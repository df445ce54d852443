/**
 * A chat completion for another area (the MCP server's chat tool): the same pipeline, dialect,
 * metering and receipt as POST /v1/chat/completions, answered as the route would answer.
 */
import type { Context } from "../../context.ts";
import type { ApiKeyPrincipal } from "../keys/index.ts";
import { chatDialect } from "./chat.ts";
import { checkModel } from "./model-check.ts";
import { serveInference } from "./pipeline.ts";

export function serveChatCompletion(ctx: Context, principal: ApiKeyPrincipal, body: Record<string, unknown>, signal: AbortSignal): Promise<Response> {
  return serveInference(ctx, chatDialect, { principal, body: { ...body, stream: false }, signal, headers: {} });
}

/** Refuses a model id that POST /v1/chat/completions would refuse (404 model_not_found, 400 for an embedding model), naming `param`. */
export const checkChatModel = (ctx: Context, model: string, param = "model"): void => checkModel(ctx, chatDialect, model, param);
