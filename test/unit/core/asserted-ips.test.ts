import { describe, expect, it } from 'vitest';
import { unconfirmedServerIps, untrustedServerIpsError } from '../../../shared/core/asserted-ips';

describe('unconfirmedServerIps', () => {
  it('the asserted addresses discovery did not return, in the order given, once each', () => {
    expect(unconfirmedServerIps(['6.6.6.6', '51.15.100.11', '6.6.6.6', '2001:DB8::1'], ['51.15.100.11', '2001:db8::1'])).toEqual([
      '6.6.6.6',
    ]);
    expect(unconfirmedServerIps(undefined, ['51.15.100.11'])).toEqual([]);
    expect(unconfirmedServerIps([], [])).toEqual([]);
  });
  it('is told as untrusted_server_ips (transient: a new server may not be listed yet), naming what discovery found', () => {
    const error = untrustedServerIpsError(['6.6.6.6'], 'prod', []);
    expect(error).toMatchObject({ code: 'untrusted_server_ips', errorClass: 'transient' });
    expect(error.message).toBe(
      'event serverIps 6.6.6.6 not returned by the discovery of target prod (it found none); they are not written, the pool stays the discovered one',
    );
  });
});
