/**
 * The compiled binary: svc setup makes the C2PA chain; image and video models through
 * `svc providers add` / `svc models add`; `svc media cert show|import` with an operator's chain.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runSvc } from "../../support/binary.ts";
import { tempDir } from "../../support/harness.ts";
import { operatorChain } from "./media-support.ts";

describe("svc (compiled binary)", () => {
  test("setup creates the C2PA chain once; media models through the CLI; cert show and import", async () => {
    const dir = join(tempDir(), "data");
    const setup = await runSvc(["setup", "--yes", "--data-dir", dir]);
    expect(setup.code).toBe(0);
    expect(setup.stdout).toContain("created  C2PA signing chain");
    expect(existsSync(join(dir, "provenance", "chain.pem"))).toBe(true);
    expect((await runSvc(["setup", "--yes", "--data-dir", dir])).stdout).toContain("kept     C2PA signing chain");
    const svc = (...args: string[]) => runSvc([...args, "--data-dir", dir]);

    expect((await svc("providers", "add", "images", "--kind", "openai-images", "--base-url", "http://127.0.0.1:9/v1")).code).toBe(0);
    expect((await svc("providers", "add", "videos", "--kind", "openai-videos", "--base-url", "http://127.0.0.1:9/v1")).code).toBe(0);
    const image = await svc("models", "add", "image-1", "--type", "image", "--provider", "images", "--upstream", "gpt-image-1", "--price-micro-usd-per-image", "40000", "--size", "1024x1024", "--max-images", "4");
    expect(image.code).toBe(0);
    expect(image.stdout).toContain("image-1 (image on images as gpt-image-1; 40000 ($0.04) per image; sizes 1024x1024; up to 4 images)");
    const video = await svc("models", "add", "video-1", "--type", "video", "--provider", "videos", "--upstream", "sora-2", "--price-micro-usd-per-second", "100000", "--duration", "4", "--duration", "8");
    expect(video.code).toBe(0);
    expect(video.stdout).toContain("per second; durations 4,8 s");
    // Refusals: a video model without durations (usage), an image model on a chat provider (the catalogue's rule).
    expect((await svc("models", "add", "v2", "--type", "video", "--provider", "videos", "--upstream", "u", "--price-micro-usd-per-second", "1")).code).toBe(2);
    const wrongKind = await svc("models", "add", "i2", "--type", "image", "--provider", "videos", "--upstream", "u", "--price-micro-usd-per-image", "1");
    expect(wrongKind.code).toBe(1);
    expect(wrongKind.stderr).toContain("which serves no image models (kinds that do: openai-images)");

    const shown = await svc("media", "cert", "show");
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("signer      CN=svc provenance signer, O=svc");
    expect(shown.stdout).toContain("algorithm   ES256");

    const own = await operatorChain();
    const files = tempDir();
    writeFileSync(join(files, "chain.pem"), own.chain);
    writeFileSync(join(files, "key.pem"), own.key);
    writeFileSync(join(files, "other.pem"), own.otherKey);
    const mismatch = await svc("media", "cert", "import", "--chain", join(files, "chain.pem"), "--key", join(files, "other.pem"));
    expect(mismatch.code).toBe(1);
    expect(mismatch.stderr).toContain("the private key does not belong to the signer certificate");
    expect((await svc("media", "cert", "show")).stdout).toContain("svc provenance signer");
    expect((await svc("media", "cert", "import", "--chain", join(files, "chain.pem"))).code).toBe(2);

    const imported = await svc("media", "cert", "import", "--chain", join(files, "chain.pem"), "--key", join(files, "key.pem"));
    expect(imported.code).toBe(0);
    expect(imported.stdout).toContain("Acme media signer");
    const pem = await svc("media", "cert", "show", "--pem");
    expect(pem.stdout).toContain("-----BEGIN CERTIFICATE-----");
    expect((await svc("media", "cert", "show")).stdout).toContain("CN=Acme media signer, O=Acme");
  }, 120_000);
});
