/**
 * Whether this process is the `bun build --compile` executable, and where its worker threads'
 * code is. Decided from the running entry's path (Bun.main, or an argv[1] handed in): inside the
 * binary it lives in the embedded filesystem, /$bunfs/… (B:/~BUN/… on Windows).
 *
 * Never from import.meta: in the bytecode build's CommonJS bundle (package.json "build"),
 * import.meta.url and import.meta.path still name the source file on the machine that built the
 * binary. Code that asked them took the binary for a checkout and loaded its worker threads from
 * that source tree — which an installed machine does not have (the signing and checkpoint
 * threads then failed to start; test/e2e/self-contained-binary.test.ts).
 */

/** A path inside a compiled binary's embedded filesystem. */
export const isEmbeddedPath = (path: string): boolean => path.startsWith("/$bunfs/") || /^[A-Z]:[\\/]~BUN[\\/]/.test(path);

/** True inside the compiled binary. */
export const isCompiledBinary = (): boolean => isEmbeddedPath(Bun.main);

/**
 * A worker thread's module: in the binary, the build's own entrypoint for it (package.json
 * "build" lists `fromRoot`), which Bun resolves from the project root; from source, the file
 * itself (`source`, resolved against the caller's import.meta.url — right when running from source).
 */
export const workerEntry = (fromRoot: string, source: URL): string => (isCompiledBinary() ? `./${fromRoot}` : source.href);
