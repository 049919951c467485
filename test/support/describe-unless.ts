/**
 * `describe` when `skipReason` is null; otherwise the suite is reported as skipped with the reason
 * in its title and on the console — never run, never counted as passed.
 */
export function describeUnless(skipReason: string | null, title: string, body: () => void): void {
  if (!skipReason) {
    describe(title, body);
    return;
  }
  console.warn(`SKIPPED "${title}": ${skipReason}`);
  describe.skip(`${title} — SKIPPED: ${skipReason}`, body);
}
