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

/** `it` when `skipReason` is null; otherwise skipped the same loud way: reason in the title and on the console. */
export function itUnless(skipReason: string | null, title: string, body: jest.ProvidesCallback, timeout?: number): void {
  if (!skipReason) {
    it(title, body, timeout);
    return;
  }
  console.warn(`SKIPPED "${title}": ${skipReason}`);
  it.skip(`${title} — SKIPPED: ${skipReason}`, body, timeout);
}
