/** Bun bundles the stylesheet the app imports (console/main.tsx) into the console's CSS file. */
declare module "*.css";
