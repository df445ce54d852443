/**
 * Loads sqlite-vec (npm `sqlite-vec`, its linux-x64 build) into a bun:sqlite connection. Load it
 * right after opening the database and before migrations run: the memory tables include vec0
 * virtual tables, and every statement that touches one needs the module on that connection.
 *
 * In the compiled binary the .so is embedded (a `type: "file"` import) and Bun serves it from
 * its in-memory filesystem (/$bunfs/…), which the dynamic loader cannot open. So the binary
 * writes the library once to <lib dir>/vec0-<sha256 prefix>.so (temp file + rename, so a crash
 * never leaves a partial library under the final name) and loads it from there; a new build with
 * a different library gets a new name. Run from source, the import is the file in node_modules
 * and loads in place. The lib dir must be on a filesystem that allows executable mappings (not
 * mounted noexec); under systemd it is inside the data dir, which ReadWritePaths= covers.
 *
 * The entry point is named explicitly: SQLite derives it from the file name otherwise
 * (sqlite3_<letters of the name>_init), and the hashed name would not give sqlite3_vec_init.
 */
import type { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import embeddedLibrary from "sqlite-vec-linux-x64/vec0.so" with { type: "file" };
import { isEmbeddedPath } from "../../../core/compiled.ts";

export const VECTOR_ENTRY_POINT = "sqlite3_vec_init";
const ENTRY_POINT = VECTOR_ENTRY_POINT;

export class VectorExtensionError extends Error {}

export interface VectorExtensionOptions {
  /** Where a compiled binary writes the library before loading it, e.g. <data dir>/lib. Not used when run from source. */
  libDir?: string;
}

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/** Writes the embedded library to libDir under a content-addressed name unless an identical copy is there; returns its path. */
export function extractLibrary(libDir: string, source: string = embeddedLibrary): string {
  const bytes = readFileSync(source);
  const digest = sha256(bytes);
  const target = join(libDir, `vec0-${digest.slice(0, 16)}.so`);
  // An existing file is reused only when its content matches: a damaged copy is replaced.
  if (existsSync(target) && sha256(readFileSync(target)) === digest) return target;
  mkdirSync(libDir, { recursive: true, mode: 0o700 });
  const temp = `${target}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(temp, bytes, { mode: 0o644 });
  chmodSync(temp, 0o644);
  renameSync(temp, target);
  return target;
}

/** Whether this build carries sqlite-vec for the platform it runs on (linux-x64 only). */
export const vectorExtensionSupported = (): boolean => process.platform === "linux" && process.arch === "x64";

/** The path the library loads from: in place when run from source, extracted to libDir in a compiled binary. */
export function vectorExtensionPath(options: VectorExtensionOptions = {}): string {
  if (!vectorExtensionSupported()) {
    throw new VectorExtensionError(`sqlite-vec is bundled for linux-x64 only; this is ${process.platform}-${process.arch}`);
  }
  if (!isEmbeddedPath(embeddedLibrary)) return embeddedLibrary;
  if (!options.libDir) throw new VectorExtensionError("a compiled binary needs a lib dir to write sqlite-vec to before loading it");
  return extractLibrary(options.libDir);
}

/** Loads sqlite-vec into this connection (once per connection; loading it again is harmless). */
export function loadVectorExtension(db: Database, options: VectorExtensionOptions = {}): void {
  const path = vectorExtensionPath(options);
  try {
    db.loadExtension(path, ENTRY_POINT);
  } catch (err) {
    throw new VectorExtensionError(`could not load sqlite-vec from ${path}: ${(err as Error).message}`);
  }
}

export interface MemoryConnectionOptions extends VectorExtensionOptions {
  /**
   * PRAGMA mmap_size for this connection. The vector scan reads every code of a collection per
   * query; through mmap SQLite reads them in place instead of copying each page through the
   * page cache, which took ~25% off a 100k-chunk scan here. Undefined leaves the setting alone.
   */
  mmapBytes?: number;
}

/** Readies a connection for the memory engine: sqlite-vec loaded (before migrations) and, if asked, mmap on. */
export function openMemoryIndex(db: Database, options: MemoryConnectionOptions = {}): void {
  loadVectorExtension(db, options);
  if (options.mmapBytes !== undefined) db.run(`PRAGMA mmap_size = ${Math.max(0, Math.floor(options.mmapBytes))}`);
}

/** The loaded sqlite-vec version, e.g. "v0.1.9"; throws when the extension is not loaded on this connection. */
export function vectorExtensionVersion(db: Database): string {
  return db.query<{ v: string }, []>("SELECT vec_version() AS v").get()!.v;
}
