/**
 * Which methods a path is served with: for 405 Method Not Allowed (with Allow) when a known
 * path is asked with a method it does not take, and for OPTIONS. Built once from the mounted
 * routes; templates (:id) match one segment, a trailing * the rest.
 */
export interface RouteLike {
  method: string;
  path: string;
}

export type MethodsOf = (pathname: string) => string[];

const toPattern = (path: string): RegExp =>
  new RegExp(`^${path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z0-9_]+/g, "[^/]+").replace(/\/\*$/, "(?:/.*)?")}/?$`);

export function methodsOf(routes: readonly RouteLike[]): MethodsOf {
  const table = routes.filter((r) => r.method !== "ALL").map((r) => ({ method: r.method.toUpperCase(), pattern: toPattern(r.path) }));
  return (pathname) => {
    const methods = new Set(table.filter((r) => r.pattern.test(pathname)).map((r) => r.method));
    // Bun answers HEAD wherever GET is served.
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods].sort();
  };
}
