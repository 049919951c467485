import { createHmac } from 'node:crypto';
import { verifySlackSignature } from './slack-signature';

// Slack's worked example (https://api.slack.com/authentication/verifying-requests-from-slack).
const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const BODY = Buffer.from(
  'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
);
const TS = '1531420618';
const SIGNATURE = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';
const at = (seconds: number) => seconds * 1000;

describe('Slack request signatures', () => {
  it("accepts Slack's documented example within five minutes", () => {
    expect(verifySlackSignature(SECRET, { 'x-slack-request-timestamp': TS, 'x-slack-signature': SIGNATURE }, BODY, at(Number(TS) + 299))).toBe(true);
  });

  it('refuses it later than five minutes, or with another body, secret or signature', () => {
    const headers = { 'x-slack-request-timestamp': TS, 'x-slack-signature': SIGNATURE };
    expect(verifySlackSignature(SECRET, headers, BODY, at(Number(TS) + 301))).toBe(false);
    expect(verifySlackSignature(SECRET, headers, Buffer.concat([BODY, Buffer.from('x')]), at(Number(TS)))).toBe(false);
    expect(verifySlackSignature('another-secret', headers, BODY, at(Number(TS)))).toBe(false);
    expect(verifySlackSignature(SECRET, { ...headers, 'x-slack-signature': SIGNATURE.slice(0, -1) }, BODY, at(Number(TS)))).toBe(false);
    expect(verifySlackSignature(SECRET, { 'x-slack-signature': SIGNATURE }, BODY, at(Number(TS)))).toBe(false);
  });

  it('signs over the timestamp it is sent with', () => {
    const ts = '1700000000';
    const signature = `v0=${createHmac('sha256', SECRET).update(`v0:${ts}:`).update(BODY).digest('hex')}`;
    expect(verifySlackSignature(SECRET, { 'x-slack-request-timestamp': ts, 'x-slack-signature': signature }, BODY, at(1700000000))).toBe(true);
    expect(verifySlackSignature(SECRET, { 'x-slack-request-timestamp': TS, 'x-slack-signature': signature }, BODY, at(Number(TS)))).toBe(false);
  });
});
