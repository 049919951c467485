/** Where the relay is and who is calling: SVC_URL/SVC_TOKEN or --url/--token. */
export interface Connection {
  /** The relay's base URL (`https://relay.example.com`), without /api/v1. */
  baseUrl: string;
  token: string;
  /**
   * Skip TLS certificate checks. Only for the relay calling its own listener on the loopback (the MCP
   * endpoint), where the certificate names the public host, not 127.0.0.1.
   */
  loopbackTls?: boolean;
  /** Sent as User-Agent (default `svc-cli`); the MCP tools send MCP_USER_AGENT so the audit log can say `mcp`. */
  userAgent?: string;
  /** Where the URL and token came from (`SVC_URL`, `--token`), for messages that say what to change; the CLI's only. */
  source?: { url: string; token: string };
}
