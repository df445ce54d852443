/** Which page a /console path shows: account pages, and operator pages under /operator. */
import type { AppState } from "../main.tsx";
import { Empty, Page } from "../ui.tsx";
import { Agents } from "./agents.tsx";
import { Deposits } from "./deposits.tsx";
import { Keys } from "./keys.tsx";
import { McpServers } from "./mcp.tsx";
import { OperatorAccount, OperatorAccounts } from "./operator/accounts.tsx";
import { OperatorBackup, OperatorDenylist, OperatorNodes, OperatorProviders } from "./operator/fleet.tsx";
import { OperatorMetrics } from "./operator/metrics.tsx";
import { Orgs } from "./orgs.tsx";
import { Overview } from "./overview.tsx";
import { ReceiptDetail, Receipts } from "./receipts.tsx";
import { Sandboxes } from "./sandboxes.tsx";
import { Security } from "./security.tsx";
import { Usage } from "./usage.tsx";
import { Webhooks } from "./webhooks.tsx";

const NotFound = () => (
  <Page title="Not found">
    <Empty title="There is no console page here">
      Go back to the <a href="/console/">overview</a>.
    </Empty>
  </Page>
);

export function accountPage(path: string, state: AppState) {
  const p = path.replace(/\/+$/, "") || "/";
  const receipt = /^\/receipts\/([^/]+)$/.exec(p);
  if (receipt) return <ReceiptDetail id={decodeURIComponent(receipt[1]!)} />;
  switch (p) {
    case "/":
      return <Overview />;
    case "/keys":
      return <Keys />;
    case "/usage":
      return <Usage />;
    case "/receipts":
      return <Receipts />;
    case "/deposits":
      return <Deposits />;
    case "/webhooks":
      return <Webhooks />;
    case "/agents":
      return <Agents />;
    case "/mcp":
      return <McpServers />;
    case "/sandboxes":
      return <Sandboxes />;
    case "/orgs":
      return <Orgs />;
    case "/security":
      return <Security state={state} />;
    default:
      return <NotFound />;
  }
}

export function operatorPage(path: string, _state: AppState) {
  const p = path.replace(/\/+$/, "");
  const account = /^\/operator\/accounts\/([^/]+)$/.exec(p);
  if (account) return <OperatorAccount id={decodeURIComponent(account[1]!)} />;
  switch (p) {
    case "/operator":
      return <OperatorMetrics />;
    case "/operator/accounts":
      return <OperatorAccounts />;
    case "/operator/providers":
      return <OperatorProviders />;
    case "/operator/nodes":
      return <OperatorNodes />;
    case "/operator/denylist":
      return <OperatorDenylist />;
    case "/operator/backup":
      return <OperatorBackup />;
    default:
      return <NotFound />;
  }
}
