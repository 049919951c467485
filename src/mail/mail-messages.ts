import { escapeHtml } from '../common/html/escape-html';

/** The messages the relay sends: plain text and HTML, each carrying the link (or, without one, the path). */
export interface MailMessage {
  kind: 'invitation' | 'password-reset';
  subject: string;
  text: string;
  html: string;
}

export function invitationMessage(input: { teamName: string; role: string; link: string | null; path: string }): MailMessage {
  const where = input.link ?? `your relay's address followed by ${input.path}`;
  return {
    kind: 'invitation',
    subject: `You are invited to ${input.teamName} on svc relay`,
    text: [
      `You have been invited to join ${input.teamName} on svc relay as ${input.role}.`,
      '',
      `Open this link to choose your password: ${where}`,
      '',
      'The invitation is valid for 7 days and can be used once.',
    ].join('\n'),
    html: page(
      `<p>You have been invited to join <strong>${escapeHtml(input.teamName)}</strong> on svc relay as ${escapeHtml(input.role)}.</p>` +
        linkParagraph('Accept the invitation', input.link, input.path) +
        '<p>The invitation is valid for 7 days and can be used once.</p>',
    ),
  };
}

export function passwordResetMessage(input: { teamName: string; link: string | null; path: string }): MailMessage {
  const where = input.link ?? `your relay's address followed by ${input.path}`;
  return {
    kind: 'password-reset',
    subject: `Reset your svc relay password (${input.teamName})`,
    text: [
      `An Admin of ${input.teamName} sent you a link to choose a new svc relay password.`,
      '',
      `Open this link: ${where}`,
      '',
      'The link works once, for 2 hours. Choosing a new password signs you out everywhere and revokes your access tokens.',
    ].join('\n'),
    html: page(
      `<p>An Admin of <strong>${escapeHtml(input.teamName)}</strong> sent you a link to choose a new svc relay password.</p>` +
        linkParagraph('Choose a new password', input.link, input.path) +
        '<p>The link works once, for 2 hours. Choosing a new password signs you out everywhere and revokes your access tokens.</p>',
    ),
  };
}

function linkParagraph(label: string, link: string | null, path: string): string {
  return link
    ? `<p><a href="${escapeHtml(link)}">${escapeHtml(label)}</a></p><p>${escapeHtml(link)}</p>`
    : `<p>Open your relay's address followed by <code>${escapeHtml(path)}</code>.</p>`;
}

function page(body: string): string {
  return `<!doctype html><html><body>${body}</body></html>`;
}
