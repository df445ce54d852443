/**
 * The svc web console (docs/console.md): account pages signed in with a wallet or a passkey,
 * operator pages signed in with the admin token. Everything shown comes from svc's HTTP API.
 */
import "./styles.css";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { type ConsoleSession, get, post, setCsrf } from "./api.ts";
import { AccountNav, OperatorNav } from "./nav.tsx";
import { accountPage, operatorPage } from "./pages/index.tsx";
import { OperatorSignIn } from "./pages/operator-signin.tsx";
import { SignIn } from "./pages/signin.tsx";
import { navigate, onLinkClick, usePath } from "./router.ts";
import { ErrorNote, Loading } from "./ui.tsx";

export interface AppState {
  session: ConsoleSession;
  /** Reads /console/api/session again (after a sign-in or sign-out). */
  refresh(): Promise<void>;
}

function App() {
  const path = usePath();
  const [session, setSession] = useState<ConsoleSession | null>(null);
  const [error, setError] = useState<unknown>(null);
  const refresh = async () => {
    try {
      const s = await get<ConsoleSession>("/console/api/session");
      setCsrf(s.csrf_token, s.operator?.csrf_token ?? null);
      setSession(s);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => void refresh(), []);
  // Focus the page heading after navigation, so keyboard and screen-reader users land on the new page.
  useEffect(() => document.getElementById("page-title")?.focus(), [path]);

  if (error) return <ErrorNote error={error} />;
  if (!session) return <Loading />;
  const state: AppState = { session, refresh };
  const operator = path.startsWith("/operator");
  const signedIn = operator ? session.operator !== null : session.account_id !== null;

  return (
    <div class={signedIn ? "layout" : "layout bare"} onClick={(e) => onLinkClick(e as unknown as MouseEvent)}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/console/">
          svc
        </a>
        <span class="muted">{operator ? "operator" : "console"}</span>
        <span class="spacer" />
        {operator ? (
          <>
            <a href="/console/">Account console</a>
            {session.operator && (
              <button
                type="button"
                class="small"
                onClick={async () => {
                  await fetch("/console/api/operator", { method: "DELETE", credentials: "same-origin" });
                  await refresh();
                }}
              >
                Sign out operator
              </button>
            )}
          </>
        ) : (
          <>
            {session.admin_configured && <a href="/console/operator">Operator</a>}
            {session.account_id && (
              <>
                <span class="mono muted" id="account-id">
                  {session.account_id}
                </span>
                <button
                  type="button"
                  class="small"
                  id="sign-out"
                  onClick={async () => {
                    await post("/v1/auth/logout").catch(() => undefined);
                    await refresh();
                    navigate("/");
                  }}
                >
                  Sign out
                </button>
              </>
            )}
          </>
        )}
      </header>
      {signedIn && (operator ? <OperatorNav path={path} /> : <AccountNav path={path} />)}
      <main id="main">{signedIn ? (operator ? operatorPage(path, state) : accountPage(path, state)) : operator ? <OperatorSignIn state={state} /> : <SignIn state={state} />}</main>
    </div>
  );
}

render(<App />, document.getElementById("app")!);
