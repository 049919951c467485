import { maskSecrets, maskUrlPassword, redactSecrets } from './mask-secrets';

describe('maskSecrets', () => {
  it.each([
    ['a PAT anywhere', 'GET /x/svc_pat_AbC-_123 200', 'GET /x/svc_pat_*** 200'],
    ['a cookie value', 'Cookie: a=1; svc_token=abcDEF_-123; b=2', 'Cookie: a=1; svc_token=***; b=2'],
    ['a bearer credential', 'Authorization: Bearer abc.def', 'Authorization: Bearer ***'],
    ['a JSON password with spaces', '{"password":"two words","email":"a@b"}', '{"password":"***","email":"a@b"}'],
    ['an escaped quote inside', '{"newPassword":"a\\"b c"}', '{"newPassword":"***"}'],
    ['a share-link token in a path', `GET /install/${'ab'.repeat(32)} 200`, 'GET /install/*** 200'],
    ['a share-link download', `GET /api/v1/share/${'0F'.repeat(32)}/download 206`, 'GET /api/v1/share/***/download 206'],
    ['key=value forms', 'password=hunter2&secret=s3 token: abc', 'password=***&secret=*** token: ***'],
    ['GitHub tokens', 'ghp_a1B2 gho_x ghu_y ghs_z9 ghr_q github_pat_11AB_cd', 'ghp_*** gho_*** ghu_*** ghs_*** ghr_*** github_pat_***'],
    ['GitLab tokens', 'PRIVATE-TOKEN glpat-AbCdEf123 and gloas-xyz', 'PRIVATE-TOKEN glpat-*** and gloas-***'],
    ['a token credential', 'Authorization: token 0123456789abcdef0123', 'Authorization: token ***'],
    ['a JWT alone', 'sent eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiIxIn0.c2ln back', 'sent *** back'],
    ['a private key, even cut off', '{"key":"-----BEGIN RSA PRIVATE KEY-----\\nMIIE', '{"key":"-----BEGIN RSA PRIVATE KEY-----***-----END RSA PRIVATE KEY-----'],
    ['the OIDC callback\'s code and state', 'GET /api/v1/auth/oidc/callback?code=abc123&state=xY_z-9&iss=https%3A%2F%2Fidp 401', 'GET /api/v1/auth/oidc/callback?code=***&state=***&iss=https%3A%2F%2Fidp 401'],
    ['both states of a mismatch', 'OIDC sign-in refused: state mismatch, expected aB3_x, got: Zq9-y', 'OIDC sign-in refused: state mismatch, expected ***, got: ***'],
  ])('masks %s', (_label, input, expected) => {
    expect(maskSecrets(input)).toBe(expected);
  });

  it('leaves ordinary text alone', () => {
    expect(maskSecrets('POST /api/v1/tokens 201 3.1ms 127.0.0.1')).toBe('POST /api/v1/tokens 201 3.1ms 127.0.0.1');
    expect(maskSecrets('the token expired; a token authentication error')).toBe('the token expired; a token authentication error');
    expect(maskSecrets('GET /api/v1/builds?code=1&state=open 400')).toBe('GET /api/v1/builds?code=1&state=open 400');
  });

  it('escapes newlines so one record stays one line', () => {
    expect(maskSecrets('a\nb\r\nc')).toBe('a\\nb\\r\\nc');
  });

  describe('redactSecrets', () => {
    it('removes configured credentials of no known shape, as written, JSON-escaped and URL-encoded, and keeps newlines', () => {
      const key = '-----BEGIN KEY-----\nabc\n-----END KEY-----';
      const text = `echo: Opaque7f3a/9 and Opaque7f3a%2F9\nkey ${JSON.stringify(key)}`;
      expect(redactSecrets(text, ['Opaque7f3a/9', key, null])).toBe('echo: *** and ***\nkey "***"');
    });

    it('searches no credential shorter than six characters by value (its shape is still found)', () => {
      expect(redactSecrets('a short abc word', ['abc', ''])).toBe('a short abc word');
    });
  });

  describe('maskUrlPassword', () => {
    it.each([
      ['postgres://svc:s3cr%40t@db:5432/svc', 'postgres://svc:***@db:5432/svc'],
      ['redis://:pw@cache:6379/0', 'redis://:***@cache:6379/0'],
      ['rediss://cache:6380', 'rediss://cache:6380'],
      ['postgres://svc@db/svc', 'postgres://svc@db/svc'],
      ['not a url:with-secret', 'not a url://***'],
    ])('%s → %s', (url, masked) => {
      expect(maskUrlPassword(url)).toBe(masked);
    });
  });
});
