import type { DeviceTestState } from '../device-tests/results/hub-device-test-results';
import type { GateState } from '../release-gate/release-gate.entities';

/** What a chat notice says of a build, read when it is queued (the newest state each time). */
export interface BuildNotice {
  buildId: number;
  appName: string;
  bundleId: string;
  platform: string;
  /** `1.2.0 (34)`. */
  version: string;
  branch: string | null;
  /** `Done by Ann`, `No status` (statusWords). */
  status: string;
  gate: { state: GateState | 'none'; description: string } | null;
  deviceTests: DeviceTestState;
  /** The build page on the relay's public URL; null when the relay has none. */
  url: string | null;
  /** Why this notice: `uploaded`, `status`, `gate`, `device-tests`. */
  cause: NoticeCause;
}

export type NoticeCause = 'uploaded' | 'status' | 'gate' | 'device-tests';

/** The three buttons' action ids; a press carries the build id as its value. */
export const SLACK_ACTIONS = { approve: 'svc_approve', requestChanges: 'svc_request_changes', reject: 'svc_reject' } as const;

const GATE_WORDS: Record<GateState | 'none', string> = { none: 'No gate', pending: '⏳ Pending', passed: '✅ Passed', failed: '❌ Failed' };
const DEVICE_TEST_WORDS: Record<DeviceTestState, string> = { none: 'None yet', running: '⏳ Running', passed: '✅ Passed', failed: '❌ Failed' };

/** One line: the text Slack shows in notifications and Teams above the card. */
export function noticeHeadline(n: BuildNotice): string {
  return `${n.appName} ${n.version} (${n.platform})${n.branch ? ` on ${n.branch}` : ''}: ${n.status}`;
}

/** Slack mrkdwn's three control characters (https://api.slack.com/reference/surfaces/formatting#escaping). */
function mrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Slack's Block Kit: the build, its verdict, gate and device tests, and the three review buttons. */
export function slackBlocks(n: BuildNotice): unknown[] {
  const title = `${mrkdwn(n.appName)} ${mrkdwn(n.version)}`;
  const fields = [
    `*Status*\n${mrkdwn(n.status)}`,
    `*Release gate*\n${n.gate ? `${GATE_WORDS[n.gate.state]}${n.gate.state === 'none' ? '' : ` · ${mrkdwn(n.gate.description)}`}` : GATE_WORDS.none}`,
    `*Device tests*\n${DEVICE_TEST_WORDS[n.deviceTests]}`,
    `*Platform*\n${mrkdwn(n.platform)}${n.branch ? ` · \`${mrkdwn(n.branch)}\`` : ''}`,
  ];
  const button = (actionId: string, text: string, style?: 'primary' | 'danger') => ({
    type: 'button',
    action_id: actionId,
    text: { type: 'plain_text', text },
    value: String(n.buildId),
    ...(style ? { style } : {}),
  });
  return [
    { type: 'section', text: { type: 'mrkdwn', text: n.url ? `*<${n.url}|${title}>*` : `*${title}*` } },
    { type: 'section', fields: fields.map((text) => ({ type: 'mrkdwn', text: text.slice(0, 2000) })) },
    { type: 'context', elements: [{ type: 'mrkdwn', text: `Build #${n.buildId} · ${mrkdwn(n.bundleId)}` }] },
    {
      type: 'actions',
      block_id: 'svc_review',
      elements: [
        button(SLACK_ACTIONS.approve, 'Approve', 'primary'),
        button(SLACK_ACTIONS.requestChanges, 'Request changes'),
        button(SLACK_ACTIONS.reject, 'Reject', 'danger'),
      ],
    },
  ];
}

/**
 * The same notice as a Teams message with one Adaptive Card (schema 1.4, what Workflows' "Post to
 * a channel when a webhook request is received" and incoming webhooks render).
 */
export function teamsMessage(n: BuildNotice): unknown {
  const facts = [
    { title: 'Status', value: n.status },
    { title: 'Release gate', value: n.gate && n.gate.state !== 'none' ? `${GATE_WORDS[n.gate.state]} · ${n.gate.description}` : GATE_WORDS.none },
    { title: 'Device tests', value: DEVICE_TEST_WORDS[n.deviceTests] },
    { title: 'Platform', value: n.platform },
    ...(n.branch ? [{ title: 'Branch', value: n.branch }] : []),
    { title: 'Build', value: `#${n.buildId} · ${n.bundleId}` },
  ];
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            { type: 'TextBlock', text: `${n.appName} ${n.version}`, weight: 'Bolder', size: 'Medium', wrap: true },
            { type: 'TextBlock', text: noticeHeadline(n), isSubtle: true, wrap: true },
            { type: 'FactSet', facts },
          ],
          ...(n.url ? { actions: [{ type: 'Action.OpenUrl', title: 'Open the build', url: n.url }] } : {}),
        },
      },
    ],
  };
}
