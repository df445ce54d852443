// Preloaded into Portkey's gateway by bench/peers.ts (`node --import`): its start-server.js takes
// --port but no host and listens on every interface; the bench keeps every peer on 127.0.0.1.
// A listen(port, undefined | callback) becomes listen(port, "127.0.0.1", callback).
import { Server } from "node:net";

const listen = Server.prototype.listen;
Server.prototype.listen = function (...args) {
  if (typeof args[0] === "number" && (args[1] === undefined || typeof args[1] === "function")) {
    const rest = args[1] === undefined ? args.slice(2) : args.slice(1);
    return listen.call(this, args[0], "127.0.0.1", ...rest);
  }
  return listen.apply(this, args);
};
