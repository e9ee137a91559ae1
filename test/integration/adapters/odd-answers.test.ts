// Answers no client should take as they are (test/support/odd-servers.ts). One whose headers come and whose body
// never does: every outbound call of the CLI and the functions fails at its one deadline, which covers the whole
// exchange, body included, with an error naming where it was sent (driven by a small configured timeout; the time is
// checked only as an upper bound, with generous slack: a call that hung would not end at all). And answers of another
// type or shape than asked for (an HTML page answered 200, a listing of the wrong namespace, a save Grafana does not
// confirm): unexpected_answer naming the URL, the status and what was expected, never read as "nothing there".
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { httpCall } from '../../../cli/adapters/http-call';
import { createEventQueue } from '../../../shared/adapters/queue';
import { createScalewayGateway } from '../../../shared/adapters/scaleway';
import { callGateway } from '../../../shared/adapters/api-failure';
import { createGrafanaDashboards } from '../../../cli/adapters/grafana-dashboards';
import { createLokiQuery } from '../../../cli/adapters/loki-query';
import { createLokiRuler } from '../../../cli/adapters/loki-ruler';
import { createScrubber } from '../../../shared/outbound/scrub';
import { type OddServer, startAnsweringServer, startHtmlServer, startStallingServer } from '../../support/odd-servers';
import { FAKE_ACCESS_KEY, FAKE_SECRET_KEY } from '../../support/world';

const TIMEOUT_MS = 300;
/** Far above the deadline, far below a hang: the bound a call must end within. */
const WITHIN_MS = 8_000;

let stalling: OddServer;
beforeAll(async () => {
  stalling = await startStallingServer();
});
afterAll(async () => {
  await stalling?.stop();
});

/** Runs the call; answers what it threw and how long it took. */
async function failureOf(call: () => Promise<unknown>): Promise<{ error: Error; ms: number }> {
  const started = performance.now();
  try {
    await call();
  } catch (error) {
    return { error: error as Error, ms: performance.now() - started };
  }
  throw new Error('the call did not fail');
}

describe('a stalled answer body', () => {
  it('the Scaleway SDK gateway (the reconcile, the watcher, the CLI): network_error at the deadline, naming the URL', async () => {
    const gateway = createScalewayGateway({
      accessKey: FAKE_ACCESS_KEY,
      secretKey: FAKE_SECRET_KEY,
      apiUrl: stalling.url,
      requestTimeoutMs: TIMEOUT_MS,
    });
    const { error, ms } = await failureOf(() =>
      callGateway({ message: 'listing load-balancers', notFound: 'lb_not_found', run: () => gateway.findLbsByName('fr-par-1', 'api.x') }),
    );
    expect(error).toMatchObject({
      code: 'network_error',
      message: expect.stringContaining(`request timed out after ${TIMEOUT_MS} ms on GET ${stalling.url}/lb/v1/zones/fr-par-1/lbs`),
    });
    expect(ms).toBeLessThan(WITHIN_MS);
  });

  it('the queue client (every hand-off): queue_unavailable at the deadline, naming the operation, the queue and the endpoint', async () => {
    const queue = createEventQueue({
      endpoint: stalling.url,
      region: 'fr-par',
      accessKeyId: 'SCWQUEUEKEY000000000',
      secretAccessKey: 'queue-secret-0000-4000-8000-000000000000',
      requestTimeoutMs: TIMEOUT_MS,
    });
    const { error, ms } = await failureOf(() => queue.send(`${stalling.url}/project/reconcile`, '{}'));
    expect(error).toMatchObject({
      code: 'queue_unavailable',
      message: `queue SendMessage on reconcile failed: request timed out after ${TIMEOUT_MS} ms on ${stalling.url}/`,
    });
    expect(ms).toBeLessThan(WITHIN_MS);
    expect(stalling.requests.some((r) => r.method === 'POST')).toBe(true);
  });

  it("a plain HTTP call (Cockpit's ruler and Grafana, the inject function): network_error at the deadline, naming the URL", async () => {
    const { error, ms } = await failureOf(() =>
      httpCall('GET', `${stalling.url}/loki/api/v1/rules/scw-lb-sync`, { headers: {}, timeoutMs: TIMEOUT_MS, scrubber: createScrubber() }),
    );
    expect(error).toMatchObject({
      code: 'network_error',
      message: `request timed out after ${TIMEOUT_MS} ms on GET ${stalling.url}/loki/api/v1/rules/scw-lb-sync`,
    });
    expect(ms).toBeLessThan(WITHIN_MS);
  });
});

describe('an answer of another type or shape', () => {
  let server: OddServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });
  /** A server answering each request by its method and path: [status, content type, body]. */
  const answering = async (answers: Record<string, [number, string, string]>) => {
    server = await startAnsweringServer((response, { method, path }) => {
      const [status, type, body] = answers[`${method} ${path.split('?')[0]}`] ?? [404, 'text/plain', 'no route'];
      response.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
      response.end(body);
    });
    return server.url;
  };
  const RULES = '/loki/api/v1/rules/scw-lb-sync';
  const ACCEPTED: [number, string, string] = [202, 'application/json', '{"status":"success","data":null,"errorType":"","error":""}'];
  const ruler = (url: string) => createLokiRuler({ url, token: 'cockpit-token-0000', timeoutMs: 2_000 });
  const grafana = (url: string) => createGrafanaDashboards({ url, auth: { token: 'grafana-token-0000' }, timeoutMs: 2_000 });

  it("the ruler's listing: a YAML mapping of the namespace to its groups, or Loki's 404; nothing else reads as no groups", async () => {
    expect(await ruler(await answering({ [`GET ${RULES}`]: [404, 'text/plain', 'no rule groups found'] })).groups('scw-lb-sync')).toEqual(
      [],
    );
    await server?.stop();
    const yaml = 'scw-lb-sync:\n  - name: a\n    rules: []\n';
    expect(await ruler(await answering({ [`GET ${RULES}`]: [200, 'application/yaml', yaml] })).groups('scw-lb-sync')).toEqual([
      { name: 'a', rules: [] },
    ]);
    for (const [type, body] of [
      ['text/html', '<html><body>Sign in</body></html>'],
      ['application/yaml', 'other-namespace:\n  - name: a\n'],
      ['application/yaml', 'just a string'],
      ['application/json', '{"scw-lb-sync": "not a list"}'],
    ]) {
      await server?.stop();
      const url = await answering({ [`GET ${RULES}`]: [200, type as string, body as string] });
      await expect(ruler(url).groups('scw-lb-sync'), `${type} ${body}`).rejects.toMatchObject({
        code: 'unexpected_answer',
        status: 200,
        message: expect.stringContaining(`GET ${url}${RULES} answered 200 with ${type}`),
      });
    }
  });

  it("the ruler's writes: accepted only with JSON {status: success}", async () => {
    const url = await answering({ [`POST ${RULES}`]: ACCEPTED, [`DELETE ${RULES}/old`]: [200, 'text/html', '<html>ok</html>'] });
    await expect(ruler(url).setGroup('scw-lb-sync', 'name: a\nrules: []\n')).resolves.toBeUndefined();
    await expect(ruler(url).deleteGroup('scw-lb-sync', 'old')).rejects.toMatchObject({
      code: 'unexpected_answer',
      message: expect.stringContaining(
        `DELETE ${url}${RULES}/old answered 200 with text/html (<html>ok</html>); expected JSON {"status": "success"}`,
      ),
    });
    await server?.stop();
    const refused = await answering({ [`POST ${RULES}`]: [202, 'application/json', '{"status":"error","error":"bad group"}'] });
    await expect(ruler(refused).setGroup('scw-lb-sync', 'name: a\n')).rejects.toMatchObject({ code: 'unexpected_answer' });
  });

  it('Grafana: the dashboard of the uid asked for, a save it confirms; an HTML page is no dashboard', async () => {
    const dashboard = { uid: 'scw-lb-sync', title: 'scw-lb-sync' };
    const url = await answering({
      'GET /api/dashboards/uid/scw-lb-sync': [200, 'application/json', JSON.stringify({ dashboard: { ...dashboard, uid: 'another' } })],
      'POST /api/dashboards/db': [200, 'application/json', '{"id":1,"url":"/d/x"}'],
    });
    await expect(grafana(url).get('scw-lb-sync')).rejects.toMatchObject({
      code: 'unexpected_answer',
      message: expect.stringContaining('expected JSON {"dashboard": {...}} of uid scw-lb-sync'),
    });
    await expect(grafana(url).save(dashboard, 'm')).rejects.toMatchObject({
      code: 'unexpected_answer',
      message: expect.stringContaining(`POST ${url}/api/dashboards/db answered 200 with application/json`),
    });
    await server?.stop();
    server = await startHtmlServer();
    await expect(grafana(server.url).get('scw-lb-sync')).rejects.toMatchObject({ code: 'unexpected_answer', status: 200 });
  });

  it('the logs query (lbsync status): an HTML page is no vector', async () => {
    server = await startHtmlServer();
    const query = createLokiQuery({ url: server.url, token: 'cockpit-token-0000', timeoutMs: 2_000 });
    await expect(query.instant('sum(count_over_time({a="b"}[1m]))', Date.now())).rejects.toMatchObject({
      code: 'unexpected_answer',
      message: expect.stringContaining(`GET ${server.url}/loki/api/v1/query answered 200 with text/html`),
    });
  });

  it('the Scaleway SDK gateway: a 200 HTML page is no empty listing', async () => {
    server = await startHtmlServer();
    const gateway = createScalewayGateway({
      accessKey: FAKE_ACCESS_KEY,
      secretKey: FAKE_SECRET_KEY,
      apiUrl: server.url,
      requestTimeoutMs: 2_000,
    });
    await expect(
      callGateway({ message: 'listing load-balancers', notFound: 'lb_not_found', run: () => gateway.findLbsByName('fr-par-1', 'api.x') }),
    ).rejects.toMatchObject({
      code: 'unexpected_answer',
      status: 200,
      message: expect.stringContaining(`listing load-balancers: GET ${server.url}/lb/v1/zones/fr-par-1/lbs answered 200 with text/html`),
    });
  });
});
