import { createHmac } from 'node:crypto';
import { BuildStatusChangedEvent } from '../../builds/events/build-status-changed.event';
import type { BuildStatus } from '../../builds/build-status';
import { shouldNotify, signatureFor, statusChangedBody } from './status-changed-payload';

const build = { id: 42, platform: 'ios' as const, versionName: '1.4.0', buildNumber: '77', bundleId: 'com.example.app', appId: 3 };
const event = (previous: BuildStatus | null, next: BuildStatus | null) =>
  new BuildStatusChangedEvent(build, previous, next, new Date('2026-11-21T10:15:30.123Z'));

describe('firing rules (spec §3)', () => {
  it.each<[BuildStatus | null, BuildStatus | null, boolean]>([
    [null, 'Done', true],
    ['Rejected', 'Done', true],
    ['Backlog', 'Rejected', true],
    ['In Progress', 'Done', true],
    ['Done', 'Done', false],
    ['Rejected', 'Rejected', false],
    ['Done', 'Backlog', false],
    ['Done', 'In Progress', false],
    ['Done', null, false],
    [null, null, false],
  ])('%s → %s notifies: %s', (previous, next, expected) => {
    expect(shouldNotify(event(previous, next))).toBe(expected);
  });
});

describe('body and signature (spec §6)', () => {
  it('is exactly the spec body, build id as a string', () => {
    expect(statusChangedBody(event('Backlog', 'Done')).toString('utf8')).toBe(
      '{"event":"build.status_changed","build":{"id":"42","platform":"ios","appVersion":"1.4.0","status":"Done"},"changedAt":"2026-11-21T10:15:30.123Z"}',
    );
  });

  it('has appVersion null when the version is unknown', () => {
    const body = statusChangedBody(new BuildStatusChangedEvent({ ...build, versionName: null }, null, 'Rejected', new Date()));
    expect(JSON.parse(body.toString('utf8')).build.appVersion).toBeNull();
  });

  it('signs the raw bytes as sha256=<lowercase hex>', () => {
    const body = Buffer.from('{"a":"é"}', 'utf8');
    const expected = createHmac('sha256', 'sëcret').update(body).digest('hex');
    expect(signatureFor('sëcret', body)).toBe(`sha256=${expected}`);
    expect(signatureFor('sëcret', body)).toMatch(/^sha256=[0-9a-f]{64}$/);
  });
});
