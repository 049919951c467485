import { readChat, reaches, SLACK_API_URL } from './chat-config';

const env = { SLACK_BOT: 'xoxb-1', SLACK_SECRET: 'shh', TEAMS_URL: 'https://example.webhook.office.com/x?sig=1' };

describe('svc.config.json chat', () => {
  it('reads Slack and Teams with their credentials from the environment', () => {
    const chat = readChat(
      {
        slack: { botTokenEnv: 'SLACK_BOT', signingSecretEnv: 'SLACK_SECRET', channels: [{ channel: 'C0123ABCD', apps: ['com.acme.app'], branches: ['main'] }, { channel: 'C9', apps: ['*'] }] },
        teams: [{ name: 'qa', urlEnv: 'TEAMS_URL' }, { name: 'unset', urlEnv: 'NOPE' }],
      },
      env,
    );
    expect(chat.slack).toMatchObject({ botToken: 'xoxb-1', signingSecret: 'shh', apiUrl: SLACK_API_URL });
    expect(chat.slack!.channels).toEqual([
      { channel: 'C0123ABCD', apps: ['com.acme.app'], branches: ['main'] },
      { channel: 'C9', apps: null, branches: null },
    ]);
    expect(chat.teams.map((t) => [t.name, t.url])).toEqual([['qa', env.TEAMS_URL], ['unset', null]]);
    expect(readChat(undefined, env)).toEqual({ slack: null, teams: [] });
  });

  it('names the field of a bad value', () => {
    const slack = (over: object) => () => readChat({ slack: { botTokenEnv: 'SLACK_BOT', signingSecretEnv: 'SLACK_SECRET', channels: [], ...over } }, env);
    expect(slack({ botTokenEnv: 'xoxb-literal-token!' })).toThrow('Invalid configuration chat.slack.botTokenEnv');
    expect(slack({ signingSecretEnv: undefined })).toThrow('chat.slack.signingSecretEnv');
    expect(slack({ channels: [{ channel: '#general' }] })).toThrow('Invalid configuration chat.slack.channels[0].channel');
    expect(slack({ channels: [{ channel: 'C1', branches: [] }] })).toThrow('chat.slack.channels[0].branches');
    expect(slack({ apiUrl: 'slack.com' })).toThrow('chat.slack.apiUrl');
    expect(() => readChat({ teams: [{ name: 'qa', urlEnv: 'TEAMS_URL' }, { name: 'qa', urlEnv: 'TEAMS_URL' }] }, env)).toThrow('chat.teams[1].name');
    expect(() => readChat({ teams: [{ name: 'qa', url: 'https://x' }] }, env)).toThrow('chat.teams[0].urlEnv');
    expect(() => readChat({ teams: [{ name: 'qa', urlEnv: 'BAD' }] }, { BAD: 'ftp://x' })).toThrow('Invalid configuration BAD');
  });

  it('matches builds by bundle id and branch', () => {
    expect(reaches({ apps: null, branches: null }, 'a', null)).toBe(true);
    expect(reaches({ apps: ['a'], branches: null }, 'b', 'main')).toBe(false);
    expect(reaches({ apps: null, branches: ['main'] }, 'a', 'main')).toBe(true);
    expect(reaches({ apps: null, branches: ['main'] }, 'a', null)).toBe(false);
  });
});
