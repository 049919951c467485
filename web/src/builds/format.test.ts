import { describe, expect, it } from 'vitest';
import { sourceText, versionText } from './format';

describe('build names', () => {
  it('shows version and build number', () => {
    expect(versionText('1.4.0', '42')).toBe('1.4.0 (42)');
    expect(versionText('1.4.0', null)).toBe('1.4.0');
    expect(versionText(null, '42')).toBe('build 42');
    expect(versionText(null, null)).toBe('unknown version');
  });

  it('names where a build came from: branch, pull request, else the short commit', () => {
    const none = { branch: null, pull_request: null, commit: null };
    expect(sourceText({ ...none, branch: 'feature/login', pull_request: 17 })).toBe('feature/login · PR #17');
    expect(sourceText({ ...none, pull_request: 17, commit: 'a'.repeat(40) })).toBe('PR #17');
    expect(sourceText({ ...none, branch: 'main' })).toBe('main');
    expect(sourceText({ ...none, commit: '4f2a9c0d1e' })).toBe('4f2a9c0');
    expect(sourceText(none)).toBeNull();
    expect(sourceText(null)).toBeNull();
  });
});
