/**
 * Paths under /console, kept in the address bar (history API), so every page has a URL a
 * person can bookmark, reload and go back to. The server answers every /console path with the
 * same page.
 */
import { useEffect, useState } from "preact/hooks";

export const BASE = "/console";
const listeners = new Set<() => void>();

/** The path after /console, "/" for the overview. */
export const currentPath = (): string => location.pathname.slice(BASE.length) || "/";

export function navigate(path: string): void {
  history.pushState(null, "", BASE + path);
  for (const l of listeners) l();
  window.scrollTo(0, 0);
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const update = () => setPath(currentPath());
    listeners.add(update);
    addEventListener("popstate", update);
    return () => {
      listeners.delete(update);
      removeEventListener("popstate", update);
    };
  }, []);
  return path;
}

/** In-app links: a real <a href> (middle-click, copy link work), handled without a reload. */
export function onLinkClick(e: MouseEvent): void {
  const a = (e.target as HTMLElement).closest("a");
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || a.target) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith(BASE)) return;
  e.preventDefault();
  navigate(url.pathname.slice(BASE.length) + url.search);
}

export const searchParam = (name: string): string | null => new URLSearchParams(location.search).get(name);
