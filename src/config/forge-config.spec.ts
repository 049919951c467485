import { readForges } from './forge-config';

describe('readForges (svc.config.json forges)', () => {
  const env = { GH: 'ghp_x', KEY: '-----BEGIN RSA PRIVATE KEY-----' };

  it('reads tokens from the environment, trims the URL, defaults the context', () => {
    expect(readForges([{ type: 'github', url: 'https://api.github.com/', tokenEnv: 'GH', repositories: ['acme/app'] }], env)).toEqual([
      { type: 'github', url: 'https://api.github.com', tokenEnv: 'GH', token: 'ghp_x', repositories: ['acme/app'], context: 'svc/review', app: null },
    ]);
    const [app] = readForges([{ type: 'github', url: 'https://ghe.example/api/v3', app: { appId: 1, privateKeyEnv: 'KEY', installationId: '9' }, repositories: ['a/b'] }], env);
    expect(app).toEqual(expect.objectContaining({ context: 'svc / review', app: { appId: '1', privateKeyEnv: 'KEY', privateKey: env.KEY, installationId: '9' } }));
    expect(readForges([{ type: 'gitlab', url: 'http://gitlab.lan/api/v4', tokenEnv: 'NOPE', repositories: ['g/s/p'], context: 'qa' }], env)[0]).toEqual(
      expect.objectContaining({ token: null, context: 'qa' }),
    );
    expect(readForges(undefined, env)).toEqual([]);
  });

  it.each([
    [{}, 'forges', 'an array'],
    [[{ type: 'bitbucket', url: 'https://x', tokenEnv: 'GH', repositories: ['a/b'] }], 'forges[0].type', 'github, gitlab, gitea'],
    [[{ type: 'gitea', url: 'ftp://x', tokenEnv: 'GH', repositories: ['a/b'] }], 'forges[0].url', 'http'],
    [[{ type: 'gitea', url: 'https://x', tokenEnv: 'GH', repositories: [] }], 'forges[0].repositories', 'owner/name'],
    [[{ type: 'gitea', url: 'https://x', tokenEnv: 'GH', repositories: ['nameonly'] }], 'forges[0].repositories', 'owner/name'],
    [[{ type: 'gitea', url: 'https://x', repositories: ['a/b'] }], 'forges[0]', 'tokenEnv'],
    [[{ type: 'gitlab', url: 'https://x', app: { appId: 1, privateKeyEnv: 'KEY', installationId: 2 }, repositories: ['a/b'] }], 'forges[0].app', 'only with type "github"'],
    [[{ type: 'github', url: 'https://x', app: { appId: 'x', privateKeyEnv: 'KEY', installationId: 2 }, repositories: ['a/b'] }], 'forges[0].app.appId', 'a positive integer'],
    [[{ type: 'github', url: 'https://x', tokenEnv: 'GH', repositories: ['a/b'], context: ' ' }], 'forges[0].context', '1 to 100'],
  ])('refuses %j naming %s', (value, key, allowed) => {
    expect(() => readForges(value, env)).toThrow(new RegExp(`Invalid configuration ${key.replace(/[[\].]/g, '\\$&')}: expected .*${allowed}`));
  });
});
