import { IsEmail } from 'class-validator';
import { validateFields } from './form-fields';
import { createValidationPipe } from './validation.pipe';
import { malformedInputProblem, MAX_JSON_DEPTH, TOO_DEEP_MESSAGE } from './well-formed-input';

const nested = (levels: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

class EmailBody {
  @IsEmail()
  email!: string;
}

describe('malformedInputProblem', () => {
  it('takes ordinary input, paired surrogates (emoji) and nesting up to the limit', () => {
    expect(malformedInputProblem({ email: 'a@example.com', note: 'ok 🙂', list: [1, 'x', null, { b: true }] })).toBeNull();
    expect(malformedInputProblem(nested(MAX_JSON_DEPTH))).toBeNull();
  });

  it('refuses nesting past the limit, at any depth, without recursion', () => {
    expect(malformedInputProblem(nested(MAX_JSON_DEPTH + 1))).toBe(TOO_DEEP_MESSAGE);
    expect(malformedInputProblem(nested(1_000_000))).toBe(TOO_DEEP_MESSAGE);
  });

  it('names the field holding a lone surrogate, high or low, wherever it is', () => {
    expect(malformedInputProblem({ email: '\ud800' })).toBe('email is not valid Unicode text (a lone UTF-16 surrogate)');
    expect(malformedInputProblem({ a: [{ b: 'x\udfffy' }] })).toBe('a[0].b is not valid Unicode text (a lone UTF-16 surrogate)');
    expect(malformedInputProblem({ a: { ['k\ud83d']: 1 } })).toBe('A field name in a is not valid Unicode text (a lone UTF-16 surrogate)');
    expect(malformedInputProblem('\udc00', 'q')).toBe('q is not valid Unicode text (a lone UTF-16 surrogate)');
  });
});

describe('the validation pipe and validateFields (multipart DTOs) hold their input to it', () => {
  it('answers 400 naming the field before a validator can throw', async () => {
    const pipe = createValidationPipe();
    await expect(pipe.transform({ email: '\ud800' }, { type: 'body', metatype: EmailBody })).rejects.toMatchObject({
      status: 400,
      message: 'email is not valid Unicode text (a lone UTF-16 surrogate)',
    });
    await expect(pipe.transform(nested(50_000), { type: 'body', metatype: EmailBody })).rejects.toMatchObject({
      status: 400,
      message: TOO_DEEP_MESSAGE,
    });
  });

  it('refuses a multipart field with a lone surrogate, naming it', () => {
    expect(() => validateFields(EmailBody, { email: 'a\udc00@example.com' })).toThrow('email is not valid Unicode text (a lone UTF-16 surrogate)');
  });
});
