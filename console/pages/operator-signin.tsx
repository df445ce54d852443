/** Operator sign-in: the admin token, typed once per browser session, exchanged for an HttpOnly cookie (never stored by this page). */
import type { AppState } from "../main.tsx";
import { call } from "../api.ts";
import { Field, Form } from "../ui.tsx";

export function OperatorSignIn({ state }: { state: AppState }) {
  if (!state.session.admin_configured) {
    return (
      <section aria-labelledby="page-title">
        <h1 id="page-title" tabIndex={-1}>
          Operator pages are off
        </h1>
        <p>
          No admin token is configured. Run <code>svc setup --admin-token</code> (or set <code>admin.token_sha256</code> in svc.toml) and restart svc.
        </p>
      </section>
    );
  }
  return (
    <section class="signin" aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>
        Operator sign-in
      </h1>
      <Form
        label="Operator sign-in"
        onSubmit={async (d) => {
          await call("POST", "/console/api/operator", { admin_token: String(d.get("admin_token")) });
          await state.refresh();
        }}
      >
        <Field id="admin-token" label="Admin token" hint="Kept for this browser session as an HttpOnly cookie; the page does not store it.">
          <input id="admin-token" name="admin_token" type="password" autocomplete="off" required aria-describedby="admin-token-hint" />
        </Field>
        <button type="submit" class="primary">
          Sign in
        </button>
      </Form>
    </section>
  );
}
