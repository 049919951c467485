import { describe, expect, it } from 'vitest';
import { asSentence } from './sentence';
import { toApiError } from './client';

describe('asSentence', () => {
  it('capitalises and ends with a full stop', () => {
    expect(asSentence('token is required')).toBe('Token is required.');
    expect(asSentence('Invalid email or password')).toBe('Invalid email or password.');
    expect(asSentence('  team_name must not be empty ')).toBe('Team_name must not be empty.');
  });

  it('leaves a sentence alone', () => {
    expect(asSentence('The relay could not be reached.')).toBe('The relay could not be reached.');
    expect(asSentence('Really?')).toBe('Really?');
    expect(asSentence('')).toBe('');
  });

  it('is how every relay error reaches the pages', () => {
    expect(toApiError(400, { error: 'email must be an email' }).message).toBe('Email must be an email.');
    expect(toApiError(502, null).message).toBe('The relay answered 502.');
  });
});
