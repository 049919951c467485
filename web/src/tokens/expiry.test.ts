import { describe, expect, it } from 'vitest';
import { ciSnippet, expiryError } from './expiry';

describe('token expiry rule of the dashboard', () => {
  it('accepts whole days from 1 to 365', () => {
    expect(expiryError('1')).toBeNull();
    expect(expiryError('365')).toBeNull();
    expect(expiryError(' 30 ')).toBeNull();
  });
  it('refuses 0, 366, fractions, negatives and text', () => {
    for (const bad of ['0', '366', '1.5', '-3', '', 'ten']) expect(expiryError(bad)).not.toBeNull();
  });
});

describe('CI snippet', () => {
  it('carries the relay URL, the token, and an upload by CLI and by curl', () => {
    const text = ciSnippet('https://relay.example.com', 'svc_pat_abc', ['view', 'builds:write']);
    expect(text).toContain('export SVC_URL=https://relay.example.com');
    expect(text).toContain('export SVC_TOKEN=svc_pat_abc');
    expect(text).toContain('svc upload app-release.apk');
    expect(text).toContain('"$SVC_URL/api/v1/builds"');
    expect(text).not.toContain('svc agent');
  });
  it('shows no upload for a token that may not upload', () => {
    expect(ciSnippet('https://r', 't', ['view'])).not.toContain('upload');
  });
});
