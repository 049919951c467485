import { weakETag } from './etag';

describe('weakETag', () => {
  // Each as Express 5.2.1's default `etag` setting (the etag package, weak) tags it.
  it.each([
    ['an empty body', '', 'W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"'],
    ['a short string', 'hello world', 'W/"b-Kq5sNclPz7QV2+lfQIuc6R7oRu0"'],
    ['a JSON answer', '{"items":[],"total":0}', 'W/"16-IfdoExwkJFY0ev5dtvGKgtFEuV8"'],
    ['multi-byte text (its length in bytes)', 'é'.repeat(1000), 'W/"7d0-KGvouYH+hWhLmwcdWkfIIn62L5I"'],
  ])('tags %s as Express does', (_label, body, expected) => {
    expect(weakETag(body)).toBe(expected);
    expect(weakETag(Buffer.from(body))).toBe(expected);
  });
});
