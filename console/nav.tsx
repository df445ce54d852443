/** The side navigation: account pages and operator pages. */
const ACCOUNT: [string, string][] = [
  ["/", "Overview"],
  ["/keys", "Keys"],
  ["/usage", "Usage"],
  ["/receipts", "Receipts"],
  ["/deposits", "Deposits"],
  ["/webhooks", "Webhooks"],
  ["/agents", "Agents and runs"],
  ["/mcp", "MCP servers"],
  ["/sandboxes", "Sandboxes"],
  ["/orgs", "Orgs"],
  ["/security", "Sign-in and sessions"],
];

const OPERATOR: [string, string][] = [
  ["/operator", "Metrics"],
  ["/operator/accounts", "Accounts"],
  ["/operator/providers", "Providers and models"],
  ["/operator/nodes", "Nodes"],
  ["/operator/denylist", "Denylist"],
  ["/operator/backup", "Replication and backup"],
];

function Nav({ items, path, label }: { items: [string, string][]; path: string; label: string }) {
  const active = (href: string) => (href === "/" || href === "/operator" ? path === href : path === href || path.startsWith(`${href}/`));
  return (
    <nav class="side" aria-label={label}>
      <ul>
        {items.map(([href, text]) => (
          <li key={href}>
            <a href={`/console${href}`} aria-current={active(href) ? "page" : undefined}>
              {text}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export const AccountNav = ({ path }: { path: string }) => <Nav items={ACCOUNT} path={path} label="Account" />;
export const OperatorNav = ({ path }: { path: string }) => <Nav items={OPERATOR} path={path} label="Operator" />;
