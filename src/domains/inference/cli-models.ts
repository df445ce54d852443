/**
 * svc models add|list|remove: the model catalogue GET /v1/models serves, kept in svc.toml
 * (models[]). Prices are integers in micro-USD per million tokens (150000 = $0.15 per Mtok).
 * A running server picks changes up within a second (src/domains/inference/catalog.ts).
 */
import type { ModelConfig } from "./config.ts";
import { formatUsd, parseMicroUsd } from "../../core/money.ts";
import { HOT_RELOAD_NOTICE, saveCatalog } from "./catalog.ts";
import { type Command, CommandFailed, type Group, locationOptions, type Parsed, str, UsageError } from "../../cli/command.ts";

const ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;
const MODALITIES = ["text", "image"] as const;

const strings = (v: Parsed["values"][string]): string[] => (Array.isArray(v) ? v : typeof v === "string" ? [v] : []);

/** A price flag: integer micro-USD per million tokens, bounded like every amount (core/money.ts). */
function price(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  try {
    return parseMicroUsd(text);
  } catch (err) {
    throw new UsageError(`--${flag}: ${(err as Error).message} (prices are integer micro-USD per million tokens)`);
  }
}

function integer(flag: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < min) {
    throw new UsageError(`--${flag} must be a whole number${min > 0 ? ` of at least ${min}` : ""} (prices are integer micro-USD per million tokens), got "${text}"`);
  }
  return Number(text);
}

const perMtok = (micro: number | undefined) => (micro === undefined ? "unpriced" : `${micro} (${formatUsd(micro)}/Mtok)`);

function describeMediaModel(m: ModelConfig): string {
  const parts = [
    `${m.type} on ${m.provider} as ${m.upstream}`,
    m.type === "image" ? `${perUnit(m.price_micro_usd_per_image)} per image` : `${perUnit(m.price_micro_usd_per_second)} per second`,
    ...(m.durations?.length ? [`durations ${m.durations.join(",")} s`] : []),
    ...(m.sizes?.length ? [`sizes ${m.sizes.join(",")}`] : []),
    ...(m.aspect_ratios?.length ? [`aspect ratios ${m.aspect_ratios.join(",")}`] : []),
    ...(m.max_images !== undefined ? [`up to ${m.max_images} images`] : []),
    ...(m.fallback_providers.length ? [`fallback ${m.fallback_providers.join(", ")}`] : []),
  ];
  return `${m.id} (${parts.join("; ")})`;
}

const perUnit = (micro: number | undefined) => (micro === undefined ? "unpriced" : `${micro} (${formatUsd(micro)})`);

export function describeModel(m: ModelConfig): string {
  if (m.type === "image" || m.type === "video") return describeMediaModel(m);
  const parts = [
    `${m.type} on ${m.provider} as ${m.upstream}`,
    `input ${perMtok(m.input_micro_usd_per_mtok)}`,
    ...(m.type === "chat" || m.output_micro_usd_per_mtok !== undefined ? [`output ${perMtok(m.output_micro_usd_per_mtok)}`] : []),
    ...(m.cached_input_micro_usd_per_mtok !== undefined ? [`cached input ${perMtok(m.cached_input_micro_usd_per_mtok)}`] : []),
    ...(m.context_length !== undefined ? [`context ${m.context_length}`] : []),
    ...(m.max_output !== undefined ? [`max output ${m.max_output}`] : []),
    `modalities ${m.modalities.join(",")}`,
    ...(m.fallback_providers.length ? [`fallback ${m.fallback_providers.join(", ")}`] : []),
  ];
  return `${m.id} (${parts.join("; ")})`;
}

const add: Command = {
  name: "models add",
  summary: "Add a model to the catalogue (or change one with --replace)",
  args: "ID",
  positionals: { min: 1, max: 1 },
  options: {
    ...locationOptions,
    provider: { type: "string", value: "NAME", description: "the provider serving it (required; svc providers list)" },
    upstream: { type: "string", value: "NAME", description: "the model's name at the provider (required)" },
    "input-micro-usd-per-mtok": { type: "string", value: "N", description: "input price, integer micro-USD per million tokens (required)" },
    "output-micro-usd-per-mtok": { type: "string", value: "N", description: "output price, same unit (required for chat models)" },
    "cached-input-micro-usd-per-mtok": { type: "string", value: "N", description: "cache-read price (default: the input price)" },
    "max-output": { type: "string", value: "N", description: "most output tokens per call; the default when a request sets no max_tokens" },
    "context-length": { type: "string", value: "N", description: "context window in tokens" },
    type: { type: "string", value: "TYPE", description: "chat (default), embedding, image or video" },
    "price-micro-usd-per-image": { type: "string", value: "N", description: "image models: the price of one image, integer micro-USD (required for --type image)" },
    "price-micro-usd-per-second": { type: "string", value: "N", description: "video models: the price of one second, integer micro-USD (required for --type video)" },
    duration: { type: "string", multiple: true, value: "S", description: "video models: a duration in seconds a request may ask for (repeatable; the first is the default; required)" },
    size: { type: "string", multiple: true, value: "WxH", description: "image and video models: a size a request may ask for (repeatable; the first is the default)" },
    "aspect-ratio": { type: "string", multiple: true, value: "W:H", description: "image and video models: an aspect ratio offered (repeatable)" },
    "max-images": { type: "string", value: "N", description: "image models: the most images one request may ask for (1-10; default 10)" },
    modality: { type: "string", multiple: true, value: "M", description: `input modality: ${MODALITIES.join(", ")} (repeatable; default text)` },
    "fallback-provider": { type: "string", multiple: true, value: "P", description: "another provider serving the same upstream name, tried in order on failure (repeatable)" },
    replace: { type: "boolean", description: "change a model that already exists" },
  },
  details: `ID is what clients send as "model". Example ($0.15 in, $0.60 out per million tokens):
  svc models add gpt-4o-mini --provider openai --upstream gpt-4o-mini --input-micro-usd-per-mtok 150000 --output-micro-usd-per-mtok 600000 --max-output 16384 --context-length 128000 --modality text --modality image
Image and video models (providers of kind openai-images / openai-videos; docs/media.md):
  svc models add image-1 --type image --provider images --upstream gpt-image-1 --price-micro-usd-per-image 40000 --size 1024x1024 --size 1536x1024
  svc models add video-1 --type video --provider videos --upstream sora-2 --price-micro-usd-per-second 100000 --duration 4 --duration 8 --duration 12 --size 1280x720`,
  run({ values, positionals }, host) {
    const id = positionals[0]!;
    if (!ID.test(id)) throw new UsageError(`ID must be 1-128 letters, digits, or . _ : / - (starting with a letter or digit), got "${id}"`);
    const provider = str(values.provider);
    if (!provider) throw new UsageError("--provider NAME is required");
    const upstream = str(values.upstream);
    if (!upstream) throw new UsageError("--upstream NAME is required");
    const type = str(values.type) ?? "chat";
    if (type !== "chat" && type !== "embedding" && type !== "image" && type !== "video") throw new UsageError(`--type must be chat, embedding, image or video, got "${type}"`);
    const media = type === "image" || type === "video";
    const input = price("input-micro-usd-per-mtok", str(values["input-micro-usd-per-mtok"]));
    if (input === undefined && !media) throw new UsageError("--input-micro-usd-per-mtok N is required");
    const perImage = price("price-micro-usd-per-image", str(values["price-micro-usd-per-image"]));
    if (type === "image" && perImage === undefined) throw new UsageError("--price-micro-usd-per-image N is required for image models");
    const perSecond = price("price-micro-usd-per-second", str(values["price-micro-usd-per-second"]));
    if (type === "video" && perSecond === undefined) throw new UsageError("--price-micro-usd-per-second N is required for video models");
    const durations = strings(values.duration).map((d) => integer("duration", d, 1)!);
    if (type === "video" && !durations.length) throw new UsageError("--duration S is required for video models (repeat it for each length offered)");
    const output = price("output-micro-usd-per-mtok", str(values["output-micro-usd-per-mtok"]));
    if (output === undefined && type === "chat") throw new UsageError("--output-micro-usd-per-mtok N is required for chat models");
    const modalities = strings(values.modality);
    for (const m of modalities) if (!(MODALITIES as readonly string[]).includes(m)) throw new UsageError(`--modality must be one of ${MODALITIES.join(", ")}, got "${m}"`);

    const config = host.configFrom(values);
    if (!config.providers.some((p) => p.name === provider)) {
      const known = config.providers.map((p) => p.name);
      throw new CommandFailed(`no provider ${provider} (configured: ${known.length ? known.join(", ") : "none"}); add it first with svc providers add`);
    }
    const existing = config.models.find((m) => m.id === id);
    if (existing && !values.replace) throw new CommandFailed(`model ${id} already exists; pass --replace to change it, or remove it first`);
    const model: ModelConfig = {
      id,
      provider,
      upstream,
      type,
      input_micro_usd_per_mtok: input,
      output_micro_usd_per_mtok: output,
      cached_input_micro_usd_per_mtok: price("cached-input-micro-usd-per-mtok", str(values["cached-input-micro-usd-per-mtok"])),
      context_length: integer("context-length", str(values["context-length"]), 1),
      max_output: integer("max-output", str(values["max-output"]), 1),
      modalities: (modalities.length ? [...new Set(modalities)] : ["text"]) as ModelConfig["modalities"],
      price_micro_usd_per_image: perImage,
      price_micro_usd_per_second: perSecond,
      durations: durations.length ? durations : undefined,
      sizes: strings(values.size).length ? strings(values.size) : undefined,
      aspect_ratios: strings(values["aspect-ratio"]).length ? strings(values["aspect-ratio"]) : undefined,
      max_images: integer("max-images", str(values["max-images"]), 1),
      fallback_providers: strings(values["fallback-provider"]),
      // Kept across --replace: clients see a model's `created` as its age.
      created: existing?.created ?? Math.floor(Date.now() / 1000),
    };
    for (const key of Object.keys(model) as (keyof ModelConfig)[]) if (model[key] === undefined) delete model[key];

    if (existing && JSON.stringify(Object.entries(existing).sort()) === JSON.stringify(Object.entries(model).sort())) {
      return void console.log(`model ${id} is already configured with these settings; no change`);
    }
    const models = existing ? config.models.map((m) => (m.id === id ? model : m)) : [...config.models, model];
    saveCatalog(config.config_path, { providers: config.providers, models });
    console.log(`${existing ? "changed" : "added"} model ${describeModel(model)}`);
    if (type === "chat" && model.max_output === undefined) {
      console.log(`note: with no --max-output, ${model.context_length === undefined ? "requests must set max_tokens" : "a request without max_tokens reserves up to the whole context window"}`);
    }
    console.log(HOT_RELOAD_NOTICE);
  },
};

const list: Command = {
  name: "models list",
  summary: "The model catalogue, with prices in micro-USD per million tokens",
  options: { ...locationOptions, json: { type: "boolean", description: "print JSON (the svc.toml entries)" } },
  run({ values }, host) {
    const config = host.configFrom(values);
    if (values.json) return void console.log(JSON.stringify(config.models, null, 2));
    if (!config.models.length) return void console.log("no models (svc models add ID --provider NAME --upstream NAME --input-micro-usd-per-mtok N --output-micro-usd-per-mtok N)");
    for (const m of config.models) console.log(describeModel(m));
  },
};

const remove: Command = {
  name: "models remove",
  summary: "Remove a model from the catalogue",
  args: "ID",
  positionals: { min: 1, max: 1 },
  options: locationOptions,
  run({ values, positionals }, host) {
    const id = positionals[0]!;
    const config = host.configFrom(values);
    if (!config.models.some((m) => m.id === id)) {
      const known = config.models.map((m) => m.id);
      throw new CommandFailed(`no model ${id} (configured: ${known.length ? known.join(", ") : "none"})`);
    }
    saveCatalog(config.config_path, { providers: config.providers, models: config.models.filter((m) => m.id !== id) });
    console.log(`removed model ${id}`);
    console.log(HOT_RELOAD_NOTICE);
  },
};

export const modelsGroup: Group = { name: "models", summary: "The model catalogue: add, list, remove", commands: [add, list, remove] };
