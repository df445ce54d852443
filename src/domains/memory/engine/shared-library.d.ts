// A native library imported with `with { type: "file" }` is its path (vector-extension.ts).
declare module "*.so" {
  const path: string;
  export default path;
}
