import { describe, expect, it } from 'vitest';
import { splitError } from './form-errors';

describe('splitError', () => {
  const fields = { password: /^password\b/i, email: /^email\b/i };

  it('puts a message naming a field under that field', () => {
    expect(splitError({ message: 'password must be longer than or equal to 8 characters' }, fields)).toEqual({
      field: 'password',
      message: 'password must be longer than or equal to 8 characters',
    });
  });

  it('keeps any other message for the form', () => {
    expect(splitError({ message: 'Invalid email or password' }, fields)).toEqual({
      field: null,
      message: 'Invalid email or password',
    });
  });

  it('has nothing to say without an error', () => {
    expect(splitError(null, fields)).toEqual({ field: null, message: null });
  });
});
