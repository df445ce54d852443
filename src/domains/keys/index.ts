/** API keys with spend controls: scopes, caps, circuit breaker, delegation, rotation (/v1/keys; `svc keys …`). */
import { defineModule } from "../../module.ts";
import { keysGroup } from "./cli.ts";
import { keysConfig } from "./config.ts";
import { keyRoutes } from "./routes.ts";

export const keysModule = defineModule({
  name: "keys",
  config: keysConfig,
  wire(ctx) {
    ctx.meter.useDefaultBreaker(() => ctx.config.keys.breaker_micro_usd_per_minute);
  },
  routes: (ctx) => [keyRoutes(ctx)],
  cli: [keysGroup],
});

export { API_KEY_PREFIX, type ApiKeyPrincipal, resolveApiKey } from "./principal.ts";
export { hasScope, missingScope, parseScopes, type Scope, SCOPES, scopesWithin } from "./scopes.ts";
export { auditKey, delegateKey, keyNotFound, type MintedKey, mintKey, revokeKey } from "./service.ts";
export { getKeyRow, keyInForce, type KeyRow, subtreeIds } from "./store.ts";
