/** The console's building blocks: loading and error states, empty states, paging, copy, charts, QR codes. */
import type { ComponentChildren } from "preact";
import qrcode from "qrcode-generator";
import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiError } from "./api.ts";

export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload(): void;
}

/** Runs `load` when `deps` change (and on reload()), keeping the last answer while the next loads. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: Error) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { data: state.data, error: state.error, loading: state.loading, reload: useCallback(() => setTick((t) => t + 1), []) };
}

export function Page(props: { title: string; intro?: ComponentChildren; actions?: ComponentChildren; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${props.title} · svc console`;
  }, [props.title]);
  return (
    <section aria-labelledby="page-title">
      <header class="page-head">
        <h1 id="page-title" tabIndex={-1}>
          {props.title}
        </h1>
        {props.actions && <div class="actions">{props.actions}</div>}
      </header>
      {props.intro && <p class="intro">{props.intro}</p>}
      {props.children}
    </section>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error as Error;
  const detail = e instanceof ApiError ? `${e.message}${e.param ? ` (${e.param})` : ""}` : e.message || String(e);
  return (
    <p class="error" role="alert">
      {detail}
      {e instanceof ApiError && e.type !== "network" && <span class="muted"> · {e.type}</span>}
    </p>
  );
}

export function Loading() {
  return (
    <p class="muted" role="status">
      Loading…
    </p>
  );
}

/** What to show for an answer: loading, its error, or `children(data)`. */
export function Show<T>({ loaded, children }: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (loaded.error) return <ErrorNote error={loaded.error} />;
  if (loaded.data === undefined) return <Loading />;
  return <>{children(loaded.data)}</>;
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p>
        <strong>{title}</strong>
      </p>
      {children && <p>{children}</p>}
    </div>
  );
}

export interface PageOf<T> {
  rows: T[];
  next: string | null;
}

/**
 * A list paged by opaque cursors: Next follows next_cursor, Previous pops back. `fetchPage`
 * changes identity when filters change, which starts again at the first page.
 */
export function Paged<T>(props: { fetchPage: (cursor: string | null) => Promise<PageOf<T>>; deps: unknown[]; empty: ComponentChildren; children: (rows: T[]) => ComponentChildren; label: string }) {
  const [stack, setStack] = useState<(string | null)[]>([null]);
  useEffect(() => setStack([null]), props.deps);
  const cursor = stack[stack.length - 1] ?? null;
  const loaded = useLoad(() => props.fetchPage(cursor), [cursor, ...props.deps]);
  return (
    <Show loaded={loaded}>
      {(page) => (
        <>
          {page.rows.length === 0 && stack.length === 1 ? props.empty : props.children(page.rows)}
          {(stack.length > 1 || page.next) && (
            <nav class="pager" aria-label={`${props.label} pages`}>
              <button type="button" disabled={stack.length === 1} onClick={() => setStack(stack.slice(0, -1))}>
                ← Previous
              </button>
              <span class="muted">Page {stack.length}</span>
              <button type="button" disabled={!page.next} onClick={() => page.next && setStack([...stack, page.next])}>
                Next →
              </button>
            </nav>
          )}
        </>
      )}
    </Show>
  );
}

/** Pages a list the API returns whole (bare arrays): `size` rows at a time, in the browser. */
export function LocalPages<T>({ rows, size = 25, children, label }: { rows: T[]; size?: number; children: (rows: T[]) => ComponentChildren; label: string }) {
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(rows.length / size));
  const at = Math.min(page, pages - 1);
  return (
    <>
      {children(rows.slice(at * size, at * size + size))}
      {pages > 1 && (
        <nav class="pager" aria-label={`${label} pages`}>
          <button type="button" disabled={at === 0} onClick={() => setPage(at - 1)}>
            ← Previous
          </button>
          <span class="muted">
            Page {at + 1} of {pages}
          </span>
          <button type="button" disabled={at >= pages - 1} onClick={() => setPage(at + 1)}>
            Next →
          </button>
        </nav>
      )}
    </>
  );
}

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="small"
      onClick={async () => {
        await navigator.clipboard.writeText(text).catch(() => undefined);
        setDone(true);
        setTimeout(() => setDone(false), 1500);
      }}
    >
      {done ? "Copied" : label}
    </button>
  );
}

/** Vertical bars as SVG (no charting library: a 30-bar chart is a loop), with a table-like title per bar. */
export function BarChart({ data, format, label }: { data: { label: string; value: number }[]; format: (v: number) => string; label: string }) {
  const max = Math.max(1, ...data.map((d) => d.value));
  const w = 600;
  const h = 140;
  const bw = w / Math.max(1, data.length);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${w} ${h + 18}`} role="img" aria-label={label} preserveAspectRatio="none">
        {data.map((d, i) => {
          const bh = d.value === 0 ? 1 : Math.max(2, (d.value / max) * h);
          return (
            <rect key={d.label} x={i * bw + 1} y={h - bh} width={Math.max(1, bw - 2)} height={bh} class={d.value === 0 ? "bar zero" : "bar"}>
              <title>{`${d.label}: ${format(d.value)}`}</title>
            </rect>
          );
        })}
        {data.length > 0 && (
          <>
            <text x="0" y={h + 14} class="axis">
              {data[0]!.label}
            </text>
            <text x={w} y={h + 14} class="axis" text-anchor="end">
              {data[data.length - 1]!.label}
            </text>
          </>
        )}
      </svg>
      <figcaption class="muted">
        {label}; highest {format(Math.max(0, ...data.map((d) => d.value)))}
      </figcaption>
    </figure>
  );
}

/** A QR code drawn as SVG rectangles (qrcode-generator computes the modules). */
export function Qr({ text, label }: { text: string; label: string }) {
  const qr = qrcode(0, "M");
  qr.addData(text);
  qr.make();
  const n = qr.getModuleCount();
  const cells: preact.JSX.Element[] = [];
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (qr.isDark(r, c)) cells.push(<rect key={`${r}-${c}`} x={c + 4} y={r + 4} width="1" height="1" />);
  return (
    <svg class="qr" viewBox={`0 0 ${n + 8} ${n + 8}`} role="img" aria-label={label} shape-rendering="crispEdges">
      <rect width={n + 8} height={n + 8} class="qr-bg" />
      <g class="qr-fg">{cells}</g>
    </svg>
  );
}

export function Field({ label, hint, children, id }: { label: string; hint?: string; children: ComponentChildren; id: string }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {hint && (
        <small class="muted" id={`${id}-hint`}>
          {hint}
        </small>
      )}
    </div>
  );
}

/**
 * A form whose submit runs `onSubmit` with its data: the browser's own submission prevented,
 * one submit at a time, the form cleared after success, the error shown below it otherwise.
 */
export function Form(props: { label: string; class?: string; onSubmit(data: FormData): Promise<unknown>; children: ComponentChildren }) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      class={props.class}
      aria-label={props.label}
      aria-busy={busy}
      onSubmit={async (e) => {
        e.preventDefault();
        if (busy) return;
        const form = e.currentTarget as HTMLFormElement;
        setBusy(true);
        setError(null);
        try {
          await props.onSubmit(new FormData(form));
          form.reset();
        } catch (err) {
          setError(err);
        } finally {
          setBusy(false);
        }
      }}
    >
      {props.children}
      <ErrorNote error={error} />
    </form>
  );
}

/** A button that runs an async action, disabled while it runs, showing its error below. */
export function Action({ run, children, kind, confirm: ask }: { run: () => Promise<unknown>; children: ComponentChildren; kind?: "danger" | "primary"; confirm?: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <span class="action">
      <button
        type="button"
        class={kind}
        disabled={busy}
        onClick={async () => {
          if (ask && !window.confirm(ask)) return;
          setBusy(true);
          setError(null);
          try {
            await run();
          } catch (e) {
            setError(e);
          } finally {
            setBusy(false);
          }
        }}
      >
        {children}
      </button>
      <ErrorNote error={error} />
    </span>
  );
}

export const Status = ({ value }: { value: string }) => <span class={`badge s-${value.replace(/[^a-z_]/g, "")}`}>{value.replace(/_/g, " ")}</span>;

export interface Column<T> {
  label: string;
  cell(row: T): ComponentChildren;
}

/** A plain table with a caption for screen readers. */
export function Table<T>({ rows, columns, caption, rowKey }: { rows: T[]; columns: Column<T>[]; caption: string; rowKey(row: T): string }) {
  return (
    <table>
      <caption class="sr-only">{caption}</caption>
      <thead>
        <tr>
          {columns.map((c) => (
            <th scope="col" key={c.label}>
              {c.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={rowKey(r)}>
            {columns.map((c) => (
              <td key={c.label}>{c.cell(r)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
