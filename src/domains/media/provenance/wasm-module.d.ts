/** A `type: "file"` import of a WebAssembly module: its path (in the compiled binary, Bun's embedded file). */
declare module "*.wasm" {
  const path: string;
  export default path;
}
