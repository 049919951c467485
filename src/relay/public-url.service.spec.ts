import { RelayConfig } from '../config/relay-config';
import { TunnelUrl } from '../config/tunnel-url';
import { PublicUrlService } from './public-url.service';

function service(values: Partial<RelayConfig>): PublicUrlService {
  const config = Object.assign(new RelayConfig(), { relayUrl: null, tunnelUrl: null, tlsCert: null, tlsKey: null }, values);
  return new PublicUrlService(config, new TunnelUrl(config));
}

/** The https rule needs a relay serving TLS; checked here rather than by booting one with a certificate. */
describe('PublicUrlService links', () => {
  it('skips an http:// tunnel when the relay serves HTTPS, and uses it when it does not', () => {
    const tls = { tlsCert: '/cert.pem', tlsKey: '/key.pem' };
    expect(service({ ...tls, tunnelUrl: 'http://abc.example.net', relayUrl: 'https://relay.example.com' }).link('/invite', 't')).toBe(
      'https://relay.example.com/invite?token=t',
    );
    expect(service({ ...tls, tunnelUrl: 'http://abc.example.net' }).link('/invite', 't')).toBeNull();
    expect(service({ ...tls, tunnelUrl: 'https://abc.example.net' }).link('/invite', 't')).toBe('https://abc.example.net/invite?token=t');
    expect(service({ tunnelUrl: 'http://abc.example.net', relayUrl: 'https://relay.example.com' }).link('/invite', 't')).toBe(
      'http://abc.example.net/invite?token=t',
    );
  });
});
