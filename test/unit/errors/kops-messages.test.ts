import { describe, expect, it } from 'vitest';
import { kopsMessage } from '../../../shared/errors/kops-messages';

describe("kOps' messages (docs/kops-parity.md: kept verbatim, users grep for them)", () => {
  it('renders every kOps message exactly', () => {
    expect(kopsMessage.listBackends('L')).toBe('listing back-ends for load-balancer L');
    expect(kopsMessage.updateBackend('L')).toBe('updating back-end for load-balancer L');
    expect(kopsMessage.setServers('L')).toBe('updating back-end server IPs for load-balancer L');
    expect(kopsMessage.createBackend('L')).toBe('creating back-end for load-balancer L');
    expect(kopsMessage.waitLb('L')).toBe('waiting for load-balancer L');
    expect(kopsMessage.listServers()).toBe("getting cluster servers for load-balancer's back-end");
    expect(kopsMessage.serverIp('s')).toBe("getting IP of server s for load-balancer's back-end");
  });
  it('our own steps speak in the same voice', () => {
    expect(kopsMessage.findLb('api.prod.k8s.local')).toBe('finding load-balancer api.prod.k8s.local');
    expect(kopsMessage.updateHealthCheck('L')).toBe('updating back-end health check for load-balancer L');
    expect(kopsMessage.deleteBackend('L')).toBe('deleting duplicate back-end for load-balancer L');
    expect(kopsMessage.backendHealth('L')).toBe('reading back-end server health for load-balancer L');
  });
});
