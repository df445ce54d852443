/** Sizes of what agents take (docs/agents.md). */

/** A manual trigger's input, a mailbox message's body (characters). */
export const MAX_INPUT = 100_000;
export const MAX_MESSAGE_BODY = 100_000;
export const MAX_SUBJECT = 200;
export const MAX_INSTRUCTIONS = 100_000;
/** GET /v1/agents/:id/messages lists at most this many. */
export const MESSAGES_LISTED = 100;
/** A tool result fed back to the model is cut to this many characters (the model's context is finite). */
export const MAX_TOOL_RESULT = 32_000;
