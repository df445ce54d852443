/**
 * Memory's svc.toml section ([memory]): the default embedding model for new collections, whether
 * new collections seal their chunk text, and the connection's mmap size for vector scans.
 */
import { type Static, Type as T } from "@sinclair/typebox";
import { type Config, ConfigError, type ConfigPart } from "../../config.ts";

export const MemorySection = T.Object(
  {
    /** The embedding model (a catalogue id of type "embedding") a collection gets when its creator names none; "" for none. */
    embedding_model: T.String({ maxLength: 200 }),
    /**
     * New collections seal their chunk text at rest (AES-256-GCM). Such a collection has no keyword
     * index: keyword and hybrid searches answer 400 keyword_search_unavailable, vector search works.
     */
    seal_text: T.Boolean(),
    /**
     * PRAGMA mmap_size on the gateway's connection, in bytes; 0 leaves SQLite's default (off).
     * A vector search scans every code of its collection: through mmap that read is ~25% cheaper
     * (docs/memory.md). Set it to about the size of svc.db, e.g. 1073741824 (1 GiB).
     */
    mmap_bytes: T.Integer({ minimum: 0, maximum: 2 ** 40 }),
  },
  { additionalProperties: false },
);

declare module "../../config.ts" {
  interface DomainConfig {
    memory: Static<typeof MemorySection>;
  }
}

export const memoryConfig: ConfigPart = {
  sections: { memory: { schema: MemorySection, default: { embedding_model: "", seal_text: false, mmap_bytes: 0 } } },
  env: [
    { name: "SVC_MEMORY_EMBEDDING_MODEL", path: "memory.embedding_model", type: "string" },
    { name: "SVC_MEMORY_SEAL_TEXT", path: "memory.seal_text", type: "boolean" },
  ],
  check(config: Config) {
    const id = config.memory.embedding_model;
    if (!id) return;
    const model = config.models.find((m) => m.id === id);
    if (!model) throw new ConfigError(`memory.embedding_model: "${id}" is not a model in [[models]]`);
    if (model.type !== "embedding") throw new ConfigError(`memory.embedding_model: "${id}" is a ${model.type} model; it must be of type "embedding"`);
  },
};
