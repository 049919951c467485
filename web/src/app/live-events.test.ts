import { QueryClient, QueryObserver } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { applyLiveEvent, keysFor } from './live-events';

describe('live events → stale queries', () => {
  it('a new or changed build refreshes the lists, that build, its history, the apps and the release gates', () => {
    const keys = [['builds', 'list'], ['builds', 'detail', 7], ['builds', 'history', 7], ['apps'], ['release-gate']];
    for (const type of ['build.created', 'build.updated']) expect(keysFor(type, { build_id: 7 })).toEqual(keys);
    // and, for a status change, every build's contents (which name the last Done build before each)
    expect(keysFor('build.status_changed', { build_id: 7 })).toEqual([...keys, ['builds', 'contents']]);
  });

  it('deleted builds refresh every build query and the apps', () => {
    expect(keysFor('builds.deleted', { build_ids: [1, 2] })).toEqual([['builds'], ['apps']]);
  });

  it('a comment refreshes only that build\'s comments', () => {
    expect(keysFor('comment.created', { comment_id: 3, build_id: 7 })).toEqual([['comments', 7]]);
    expect(keysFor('comment.deleted', { comment_id: 3, build_id: 7 })).toEqual([['comments', 7]]);
  });

  it('a role change refreshes who I am (and so which controls show)', () => {
    expect(keysFor('role.changed', { role: 'Viewer' })).toEqual([['auth', 'me']]);
  });

  it('ignores what it does not know', () => {
    expect(keysFor('ready', { user_id: 1, role: 'Admin' })).toEqual([]);
    expect(keysFor('something.new', {})).toEqual([]);
  });

  it('an event during a page\'s first fetch makes it read again (that fetch may have read before the change)', async () => {
    const client = new QueryClient();
    const answers = [['before the comment'], ['before the comment', 'the new comment']];
    let release!: () => void;
    const firstRequestOut = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const observer = new QueryObserver(client, {
      queryKey: ['comments', 7],
      queryFn: async () => {
        const answer = answers[calls++];
        if (calls === 1) await firstRequestOut; // the first answer arrives after the event
        return answer;
      },
    });
    const unsubscribe = observer.subscribe(() => undefined); // an open page showing the comments
    await Promise.resolve();
    applyLiveEvent(client, 'comment.created', { build_id: 7 });
    release();
    await expect.poll(() => client.getQueryData(['comments', 7])).toEqual(['before the comment', 'the new comment']);
    expect(calls).toBe(2);
    unsubscribe();
  });
});

