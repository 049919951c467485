import { redactSecrets } from '../../logging/mask-secrets';
import { endpointCredentials } from './endpoint-credentials';

describe('endpointCredentials', () => {
  it('names the secret, and the URL password as written, decoded and as the Basic credential', () => {
    const basic = Buffer.from('bot:p@ss word!').toString('base64');
    expect(endpointCredentials({ url: 'https://bot:p%40ss%20word!@hooks.example/x', secret: 'signing-secret' })).toEqual([
      'signing-secret',
      'p%40ss%20word!',
      'p@ss word!',
      basic,
    ]);
    const echoed = `HTTP 500: Basic ${basic} / p@ss word! / signing-secret`;
    expect(redactSecrets(echoed, endpointCredentials({ url: 'https://bot:p%40ss%20word!@hooks.example/x', secret: 'signing-secret' }))).toBe(
      'HTTP 500: Basic *** / *** / ***',
    );
  });

  it('is the secret alone for a URL without a password', () => {
    expect(endpointCredentials({ url: 'https://hooks.example/x?token=abc', secret: null })).toEqual([null]);
  });
});
