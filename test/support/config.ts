/** svc.toml refusals in tests: write a file, load it, and return the ConfigError's message ("" = accepted). */
import { expect } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../src/config.ts";
import { loadConfig } from "../../src/open.ts";

export function configRefusal(dir: string): (toml: string) => string {
  const file = join(dir, "svc.toml");
  return (toml) => {
    writeFileSync(file, toml);
    try {
      loadConfig({ dataDir: dir }, {});
      return "";
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
  };
}
