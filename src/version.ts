import pkg from "../package.json" with { type: "json" };

export const NAME = "svc";
export const VERSION: string = pkg.version;
