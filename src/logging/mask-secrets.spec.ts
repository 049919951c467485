import { maskSecrets } from './mask-secrets';

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
  ])('masks %s', (_label, input, expected) => {
    expect(maskSecrets(input)).toBe(expected);
  });

  it('leaves ordinary text alone', () => {
    expect(maskSecrets('POST /api/v1/tokens 201 3.1ms 127.0.0.1')).toBe('POST /api/v1/tokens 201 3.1ms 127.0.0.1');
  });

  it('escapes newlines so one record stays one line', () => {
    expect(maskSecrets('a\nb\r\nc')).toBe('a\\nb\\r\\nc');
  });
});
