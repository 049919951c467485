/**
 * A build's page in the dashboard (its `/builds/:id` route), on the address the CLI reached the
 * relay at: the one address known to work from where the command ran. The relay's own public URL
 * (`GET /relay/host`) takes a signed-in session, which a PAT is not.
 */
export function buildPageUrl(baseUrl: string, buildId: number): string {
  return `${baseUrl}/builds/${buildId}`;
}
