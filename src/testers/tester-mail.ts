import { escapeHtml } from '../common/html/escape-html';

/** The notice a tester gets for a new build: the install link of their own, and a one-click unsubscribe. */
export function testerNotice(input: {
  teamName: string;
  appName: string;
  version: string;
  branch: string | null;
  installLink: string;
  unsubscribeLink: string;
}): { subject: string; text: string; html: string; headers: Record<string, string> } {
  const what = `${input.appName} ${input.version}`.trim();
  const from = input.branch ? ` (branch ${input.branch})` : '';
  return {
    subject: `New build to test: ${what}`,
    text: [
      `${input.teamName} has a new build of ${what}${from} for you to test.`,
      '',
      `Install it: ${input.installLink}`,
      '',
      `Stop these e-mails: ${input.unsubscribeLink}`,
    ].join('\n'),
    html:
      `<!doctype html><html><body><p>${escapeHtml(input.teamName)} has a new build of <strong>${escapeHtml(what)}</strong>${escapeHtml(from)} for you to test.</p>` +
      `<p><a href="${escapeHtml(input.installLink)}">Install ${escapeHtml(what)}</a></p><p>${escapeHtml(input.installLink)}</p>` +
      `<p><a href="${escapeHtml(input.unsubscribeLink)}">Stop these e-mails</a></p></body></html>`,
    // RFC 8058 one-click unsubscribe: mail clients POST to the link.
    headers: { 'List-Unsubscribe': `<${input.unsubscribeLink}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
}
