import { describe, expect, it } from 'vitest';
import type { Action } from '../../../shared/core/model';
import { addressesSent, refusedIpv6Members } from '../../../shared/core/pool-refusal';

const V6 = '2001:bc8:710:7074:dc00:ff:fed1:458b';
const V6_B = '2001:bc8:711:4014:dc00:1ff:fe27:16ab';

describe('refusedIpv6Members: a 400 on a pool write is an IPv6 refusal only when it names IPv6 entries', () => {
  it.each([
    ['an IPv6 entry named by its index', ['51.15.1.2', V6], ['server_ip.1'], [V6]],
    ['each IPv6 entry named', ['51.15.1.2', V6, V6_B], ['server_ip.1', 'server_ip.2'], [V6, V6_B]],
    ['the list named without an index, IPv6 sent', ['51.15.1.2', V6], ['server_ip'], [V6]],
    ['an IPv4 entry named (another reason)', ['51.15.1.2', V6], ['server_ip.0'], []],
    ['another field named', ['51.15.1.2', V6], ['forward_port'], []],
    ['no IPv6 sent', ['51.15.1.2', '51.15.1.3'], ['server_ip', 'server_ip.1'], []],
    ['an index past what was sent', [V6], ['server_ip.4'], []],
    ['nothing named (no details)', [V6], [], []],
    ['a look-alike argument', [V6], ['server_ips.0', 'backend.server_ip.0'], []],
  ])('%s', (_case, sent, names, refused) => {
    expect(refusedIpv6Members(sent, names)).toEqual(refused);
  });
});

describe('addressesSent: what each write sends in server_ip, in order', () => {
  const set = (changesOnly?: 'leaving_servers'): Action => ({
    kind: 'SetBackendServers',
    backend: 'b',
    backendId: 'id',
    pool: ['51.15.1.2', V6],
    added: [V6],
    removed: ['51.15.1.9'],
    ...(changesOnly && { changesOnly }),
  });
  it('a whole pool write sends the pool; a changes-only one first sends what it adds', () => {
    expect(addressesSent(set())).toEqual(['51.15.1.2', V6]);
    expect(addressesSent(set('leaving_servers'))).toEqual([V6]);
    expect(addressesSent({ kind: 'DeleteDuplicateBackend', backend: 'b', backendId: 'x', keptId: 'y' })).toEqual([]);
  });
});
