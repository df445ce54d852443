import { describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { paths, publicUrlFor, writeConfigFile } from "../../src/config.ts";
import { loadConfig } from "../../src/open.ts";
import { sha256Hex } from "../../src/core/secrets.ts";
import { configRefusal } from "../support/config.ts";
import { tempDir } from "../support/harness.ts";

describe("config: defaults ← svc.toml ← SVC_* ← flags", () => {
  test("embedded defaults with no file at all", () => {
    const dir = tempDir();
    const c = loadConfig({ dataDir: dir }, {});
    expect(c.data_dir).toBe(dir);
    expect(c.config_path).toBe(join(dir, "svc.toml"));
    expect(c.listen).toBe("127.0.0.1:8080");
    expect(c.public_url).toBe("http://127.0.0.1:8080");
    expect(c.admin.token_sha256).toBeNull();
    expect(c.metrics.token_sha256).toBeNull();
    expect(paths(c).db).toBe(join(dir, "svc.db"));
  });

  test("the default data dir is ./data under the working directory", () => {
    const cwd = tempDir();
    expect(loadConfig({}, {}, cwd).data_dir).toBe(join(cwd, "data"));
  });

  test("file, then environment, then flags win", () => {
    const dir = tempDir();
    writeConfigFile(join(dir, "svc.toml"), { listen: "0.0.0.0:9000", rate_limit: { public_per_minute: 10 } });
    const fromFile = loadConfig({ dataDir: dir }, {});
    expect(fromFile.listen).toBe("0.0.0.0:9000");
    expect(fromFile.public_url).toBe("http://127.0.0.1:9000");
    expect(fromFile.rate_limit).toEqual({ public_per_minute: 10, public_burst: 60 });
    const env = { SVC_LISTEN: "127.0.0.1:9100", SVC_ADMIN_TOKEN: "tok", SVC_RATE_LIMIT_PER_MINUTE: "0", SVC_BILLING_ENFORCED: "false" };
    const fromEnv = loadConfig({ dataDir: dir }, env);
    expect(fromEnv.listen).toBe("127.0.0.1:9100");
    expect(fromEnv.admin.token_sha256).toBe(sha256Hex("tok"));
    expect(fromEnv.rate_limit.public_per_minute).toBe(0);
    expect(fromEnv.billing.enforced).toBe(false);
    const fromFlags = loadConfig({ dataDir: dir, listen: "127.0.0.1:9200", metricsToken: "m" }, env);
    expect(fromFlags.listen).toBe("127.0.0.1:9200");
    expect(fromFlags.metrics.token_sha256).toBe(sha256Hex("m"));
  });

  test("SVC_DATA_DIR and SVC_CONFIG locate the data and the file", () => {
    const etc = tempDir();
    const data = tempDir();
    writeConfigFile(join(etc, "svc.toml"), { data_dir: data });
    const c = loadConfig({}, { SVC_CONFIG: join(etc, "svc.toml") });
    expect(c.data_dir).toBe(data);
    expect(loadConfig({}, { SVC_CONFIG: join(etc, "svc.toml"), SVC_DATA_DIR: etc }).data_dir).toBe(etc);
    // A relative data_dir in the file is relative to the file.
    mkdirSync(join(etc, "rel"));
    writeConfigFile(join(etc, "svc.toml"), { data_dir: "rel" });
    expect(loadConfig({ config: join(etc, "svc.toml") }, {}).data_dir).toBe(join(etc, "rel"));
  });

  test("unknown keys, wrong types and bad values are refused with the key's path", () => {
    const dir = tempDir();
    const refused = configRefusal(dir);
    expect(refused('lisen = "x:1"')).toContain("lisen");
    expect(refused("[rate_limit]\npublic_per_minute = \"many\"")).toContain("rate_limit.public_per_minute");
    expect(refused('listen = "no-port"')).toContain("listen");
    expect(refused('public_url = "ftp://x"')).toContain("public_url");
    expect(refused("this is = not toml ]")).toContain("not valid TOML");
    expect(refused("")).toBe("");
    expect(() => loadConfig({ dataDir: dir }, { SVC_TRUST_PROXY: "maybe" })).toThrow(/SVC_TRUST_PROXY/);
    expect(() => loadConfig({ dataDir: dir }, { SVC_MAX_BODY_BYTES: "lots" })).toThrow(/SVC_MAX_BODY_BYTES/);
  });

  test("receipt signing: the secp256k1 implementation is auto, js or an absolute path", () => {
    const dir = tempDir();
    expect(loadConfig({ dataDir: dir }, {}).receipts.secp256k1).toBe("auto");
    expect(loadConfig({ dataDir: dir }, { SVC_SECP256K1: "js" }).receipts.secp256k1).toBe("js");
    expect(loadConfig({ dataDir: dir }, { SVC_SECP256K1: "/opt/lib/libsecp256k1.so" }).receipts.secp256k1).toBe("/opt/lib/libsecp256k1.so");
    const refused = configRefusal(dir);
    expect(refused('[receipts]\nsecp256k1 = "fast"')).toContain("receipts.secp256k1");
    expect(refused('[receipts]\nsecp256k1 = "lib/libsecp256k1.so"')).toContain("receipts.secp256k1");
  });

  test("wildcard listen addresses imply a loopback public URL", () => {
    expect(publicUrlFor("0.0.0.0:8080")).toBe("http://127.0.0.1:8080");
    expect(publicUrlFor("[::]:8080")).toBe("http://[::1]:8080");
    expect(publicUrlFor("svc.internal:80")).toBe("http://svc.internal:80");
  });
});
