// The CLI's conventions, as in scw, kubectl and kops: help when bare, --version, -o json|text with one envelope on
// every command, --profile, a hint per kind of problem, "did you mean", and network failures that name the URL and
// the cause (a 404 route told apart from a missing LB). Through the real bin unless the case needs no credentials.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHandle } from '../../emulator';
import { startEmulator } from '../../emulator';
import { main } from '../../cli/main';
import { HINTS, TARGETS_VALIDATE_HINT, UNKNOWN_TARGET_HINT } from '../../cli/hints';
import { ERROR_CATALOG } from '../../shared/errors/lbsync-error';
import { demoSeed, FAKE_ACCESS_KEY, FAKE_SECRET_KEY } from '../support/world';
import { startAnsweringServer } from '../support/odd-servers';
import { ROOT, runBin, runInProcess, waitFor } from './support';

const DEMO = { kops: { cluster: 'demo.k8s.local', zone: 'fr-par-1' } };
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
let emulator: EmulatorHandle;
let env: Record<string, string>;
/** Accepts connections and never answers: a request to it can only time out. */
let silent: Server;
/** Answers every request 404 with an HTML page, as a web server that is not the API would. */
let html: HttpServer;
/** Answers every request 405 in XML, as a storage or web endpoint that is not the API would. */
let notAllowed: HttpServer;
const portOf = (server: Server | HttpServer) => (server.address() as AddressInfo).port;
/** A port nothing listens on: taken from the system, then let go. */
let closedPort: number;

beforeAll(async () => {
  emulator = await startEmulator({ seed: demoSeed(), instancePendingMs: 50 });
  env = {
    SCW_ACCESS_KEY: FAKE_ACCESS_KEY,
    SCW_SECRET_KEY: FAKE_SECRET_KEY,
    SCW_API_URL: emulator.url,
    LBSYNC_TARGETS: JSON.stringify([DEMO]),
  };
  silent = createServer(() => undefined);
  html = createHttpServer((_req, res) => res.writeHead(404, { 'Content-Type': 'text/html' }).end('<!DOCTYPE html><h1>404 Not Found</h1>'));
  notAllowed = createHttpServer((_req, res) =>
    res.writeHead(405, { 'Content-Type': 'application/xml' }).end('<Error><Code>MethodNotAllowed</Code></Error>'),
  );
  await Promise.all([silent, html, notAllowed].map((server) => new Promise<void>((r) => (server as Server).listen(0, '127.0.0.1', r))));
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  closedPort = portOf(probe);
  await new Promise<void>((r) => probe.close(() => r()));
});
afterAll(async () => {
  await emulator?.stop();
  silent?.close();
  html?.close();
  notAllowed?.close();
});

interface Envelope {
  ok: boolean;
  command: string;
  error?: { code: string; message: string; hint?: string; fieldErrors?: { path: string }[] };
  [key: string]: unknown;
}
const parse = (stdout: string) => JSON.parse(stdout) as Envelope;

describe('lbsync conventions', () => {
  it('bare `lbsync` and a bare group print their help on stdout and exit 0', async () => {
    for (const [args, usage] of [
      [[], 'Usage: lbsync [options] [command]'],
      [['dlq'], 'Usage: lbsync dlq'],
      [['targets'], 'Usage: lbsync targets'],
    ] as const) {
      const run = await runInProcess([...args], {});
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(usage);
      expect(run.stdout).toContain('Commands:');
      expect(run.stderr).toBe('');
    }
    const help = await runInProcess(['plan', '--help'], {});
    expect(help.stdout).toContain('Global Options:');
    expect(help.stdout).toContain('-o, --output <format>');
    expect(help.stdout).toContain('-p, --profile <name>');
    expect(help.stdout).toContain('With -o json (or --json): {ok, command: "plan", inSync, exitCode, targets');
  });

  it('--version (and -V) print the version from package.json, baked into the bundle', async () => {
    const [long, short] = await Promise.all([runBin(['--version'], {}), runBin(['-V'], {})]);
    expect(long).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
    expect(short).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
    expect(readFileSync(join(ROOT, 'dist-cli/bundle.js'), 'utf8')).not.toContain('package.json');
  });

  it('every command answers -o json with one envelope {ok, command, ..., error?}, on stdout only', async () => {
    const cases: [string[], string, number][] = [
      [['plan'], 'plan', 1],
      [['status'], 'status', 1],
      [['reconcile'], 'reconcile', 1],
      [['sweep'], 'sweep', 1],
      [['watch', '--once'], 'watch', 1],
      [['inject', '-t', 'x', '--queue'], 'inject', 1],
      [['dlq', 'list'], 'dlq list', 1],
      [['dlq', 'show', '--id', 'evt-1'], 'dlq show', 1],
      [['dlq', 'redrive', '--all'], 'dlq redrive', 1],
      [['dlq', 'redrive'], 'dlq redrive', 64],
      [['provision'], 'provision', 1],
      [['cockpit', 'install'], 'cockpit install', 1],
      [['targets', 'validate'], 'targets validate', 1],
      [['emulator', '--port', '-1'], 'emulator', 64],
    ];
    const runs = await Promise.all(cases.map(([args]) => runBin([...args, '-o', 'json'], {})));
    cases.forEach(([args, command, code], i) => {
      const run = runs[i];
      expect(run?.code, args.join(' ')).toBe(code);
      const answer = parse(run?.stdout ?? '');
      expect(answer, args.join(' ')).toMatchObject({
        ok: false,
        command,
        error: { code: expect.any(String), message: expect.any(String), hint: expect.any(String) },
      });
      expect(run?.stderr, args.join(' ')).not.toContain('"ok"'); // stderr carries notes for people only
    });
    // doctor's contract (docs/architecture.md, "The CLI's output") is an instance of the envelope: {ok, command, checks}.
    const doctor = await runBin(['doctor', '--no-queue', '-o', 'json'], {});
    expect(doctor.code).toBe(1);
    expect(parse(doctor.stdout)).toMatchObject({
      ok: false,
      command: 'doctor',
      checks: expect.arrayContaining([expect.objectContaining({ name: 'config', status: 'fail' })]),
    });
    // Success has the same shape: ok true, the command's own fields beside it.
    const stop = new AbortController();
    let stdout = '';
    const running = main(
      ['emulator', '--port', '0', '-o', 'json'],
      { stdout: { write: (t: string) => (stdout += t) }, stderr: { write: () => true }, env: {} },
      { stopSignal: stop.signal },
    );
    try {
      const started = await waitFor('the emulator envelope', () => (stdout.trim().endsWith('}') ? parse(stdout) : undefined));
      expect(started).toMatchObject({ ok: true, command: 'emulator', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    } finally {
      stop.abort();
    }
    expect(await running).toBe(0);
  });

  it('--json is -o json, before or after the command; --json with -o text, or -o yaml, is a usage error', async () => {
    const [alias, after, before] = await Promise.all([
      runBin(['plan', '--json'], env),
      runBin(['plan', '-o', 'json'], env),
      runBin(['-o', 'json', 'plan'], env),
    ]);
    expect([alias.code, after.code, before.code]).toEqual([2, 2, 2]);
    const plan = parse(after.stdout);
    expect(plan).toMatchObject({ ok: true, command: 'plan', inSync: false, exitCode: 2 }); // drift is not an error
    expect(parse(alias.stdout)).toEqual(plan);
    expect(parse(before.stdout)).toEqual(plan);
    const text = await runBin(['plan', '-o', 'text'], env);
    expect(text.stdout).toContain('backend lb-backend-https  missing: would be created');
    const both = await runInProcess(['plan', '--json', '-o', 'text'], {});
    expect(both.code).toBe(64);
    expect(parse(both.stdout).error).toMatchObject({
      code: 'usage',
      message: '--json and -o text disagree: give one of them',
      hint: HINTS.usage,
    });
    const yaml = await runInProcess(['plan', '-o', 'yaml'], {});
    expect(yaml.code).toBe(64);
    expect(yaml.stderr).toContain("argument 'yaml' is invalid. Allowed choices are text, json.");
    expect(emulator.calls().filter((c) => c.write)).toEqual([]);
  });

  it('a hint for each kind of problem: credentials, targets, queue, environment, usage, network', async () => {
    const hintOf = (stdout: string) => parse(stdout).error?.hint;
    const [credentials, targets, queue, environment, usage, network] = await Promise.all([
      runBin(['plan', '-o', 'json'], { LBSYNC_TARGETS: env.LBSYNC_TARGETS as string }),
      runBin(['plan', '-o', 'json'], { SCW_ACCESS_KEY: FAKE_ACCESS_KEY, SCW_SECRET_KEY: FAKE_SECRET_KEY }),
      runBin(['dlq', 'list', '-o', 'json'], { SQS_ACCESS_KEY_ID: 'local-access-key' }),
      runBin(['reconcile', '-o', 'json'], { ...env, LBSYNC_WAIT_BUDGET_MS: 'soon' }),
      runBin(['inject', '-t', 'demo.k8s.local', '-o', 'json'], env),
      runBin(['plan', '-o', 'json'], { ...env, SCW_API_URL: 'http://127.0.0.1:1' }),
    ]);
    expect(parse(credentials.stdout).error?.fieldErrors?.[0]?.path).toBe('SCW_ACCESS_KEY');
    expect(hintOf(credentials.stdout)).toBe(HINTS.credentials);
    expect(hintOf(targets.stdout)).toBe(HINTS.targets);
    expect(parse(queue.stdout).error?.fieldErrors?.map((f) => f.path)).toEqual([
      'SQS_SECRET_ACCESS_KEY',
      'RECONCILE_QUEUE_URL',
      'DEAD_LETTER_QUEUE_URL',
    ]);
    expect(hintOf(queue.stdout)).toBe(HINTS.queue);
    expect(parse(environment.stdout).error?.fieldErrors?.[0]?.path).toBe('LBSYNC_WAIT_BUDGET_MS');
    expect(hintOf(environment.stdout)).toBe(HINTS.environment);
    expect(usage.code).toBe(64);
    expect(hintOf(usage.stdout)).toBe('see `lbsync inject --help`');
    const networkError = (parse(network.stdout).targets as { error: { code: string; hint: string } }[])[0]?.error;
    expect(networkError).toMatchObject({ code: 'network_error', hint: HINTS.network });
    const hints = [credentials, targets, queue, environment, network].map(
      (r) => JSON.stringify(parse(r.stdout)).match(/"hint": ?"([^"]*)"/)?.[1],
    );
    expect(new Set([...hints, HINTS.usage]).size).toBe(6);
    expect(hints).not.toContain(ERROR_CATALOG.invalid_config.hint);
    // In text, the hint follows the error.
    const text = await runBin(['dlq', 'list'], {});
    expect(text.stderr).toContain(`hint: ${HINTS.queue}`);
  });

  it('did you mean: commands, options, target names, keys and zones of a targets file', async () => {
    const command = await runInProcess(['plna'], {});
    expect(command.code).toBe(64);
    expect(command.stderr).toContain("error: unknown command 'plna'\n(Did you mean plan?)");
    expect(parse((await runInProcess(['plna', '-o', 'json'], {})).stdout)).toMatchObject({
      ok: false,
      command: 'lbsync',
      error: { code: 'usage', message: "unknown command 'plna' (did you mean plan?)", hint: HINTS.usage },
    });
    expect((await runInProcess(['dlq', 'lst'], {})).stderr).toContain('(Did you mean list?)');
    const option = await runInProcess(['plan', '--tagret', 'x', '--json'], {});
    expect(option.code).toBe(64);
    expect(option.stderr).toContain("error: unknown option '--tagret'\n(Did you mean --target?)");
    expect(parse(option.stdout)).toMatchObject({
      command: 'plan',
      error: { code: 'usage', message: "unknown option '--tagret' (did you mean --target?)" },
    });

    const target = await runBin(['plan', '--target', 'demo.k8s.locl'], env);
    expect(target.code).toBe(64); // a flag value the configuration lacks: bad usage, as every bad flag value
    expect(target.stderr).toContain(`hint: ${UNKNOWN_TARGET_HINT}`);
    expect(target.stderr).toContain('no target named "demo.k8s.locl" in the configuration (did you mean "demo.k8s.local"?)');

    const dir = mkdtempSync(join(tmpdir(), 'lbsync-typos-'));
    const file = join(dir, 'targets.json');
    writeFileSync(
      file,
      JSON.stringify([{ kop: { cluster: 'a.k8s.local', zone: 'fr-par-1' } }, { kops: { clustr: 'b.k8s.local', zone: 'fr-pra-1' } }]),
    );
    const typos = await runBin(['targets', 'validate', '--file', file], {});
    expect(typos.code).toBe(1);
    expect(typos.stdout).toContain(`${file}[0]: Unrecognized key: "kop" (did you mean "kops"?)`);
    expect(typos.stdout).toContain('fix: rename "kop" to "kops"');
    expect(typos.stdout).toContain(`${file}[1].kops: Unrecognized key: "clustr" (did you mean "cluster"?)`);
    expect(typos.stdout).toContain(`${file}[1].kops.zone: must be a zone where Scaleway offers Load Balancers (got "fr-pra-1")`);
    expect(typos.stdout).toContain('fix: did you mean "fr-par-1"?');
    // The targets hint, without sending the user to the command they are running.
    expect(typos.stdout).toContain(`hint: ${TARGETS_VALIDATE_HINT}\n`);
    expect(typos.stdout).not.toContain('`lbsync targets validate`');
    // Any other command with --file names the file too, and points at `lbsync targets validate`.
    const plan = await runBin(['plan', '--file', file, '-o', 'json'], env);
    expect(plan.code).toBe(1);
    expect(JSON.parse(plan.stdout)).toMatchObject({
      error: {
        code: 'invalid_config',
        hint: HINTS.targets,
        fieldErrors: expect.arrayContaining([expect.objectContaining({ path: `${file}[0]` })]),
      },
    });
  });

  it('--profile (-p) picks a profile of the scw config file, as `scw -p`, over SCW_PROFILE', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lbsync-profile-'));
    const config = join(dir, 'config.yaml');
    writeFileSync(
      config,
      `access_key: ${FAKE_ACCESS_KEY}\nsecret_key: ${FAKE_SECRET_KEY}\napi_url: http://127.0.0.1:1\nprofiles:\n  emulated:\n    access_key: ${FAKE_ACCESS_KEY}\n    secret_key: ${FAKE_SECRET_KEY}\n    api_url: ${emulator.url}\n`,
    );
    const base = { SCW_CONFIG_PATH: config, LBSYNC_TARGETS: env.LBSYNC_TARGETS as string };
    const [byDefault, long, short, overVariable, unknown] = await Promise.all([
      runBin(['plan', '-o', 'json'], base),
      runBin(['plan', '--profile', 'emulated', '-o', 'json'], base),
      runBin(['-p', 'emulated', 'plan', '-o', 'json'], base),
      runBin(['plan', '-p', 'emulated', '-o', 'json'], { ...base, SCW_PROFILE: 'nope' }),
      runBin(['plan', '--profile', 'nope'], base),
    ]);
    expect(byDefault.code).toBe(1); // the default profile's api_url refuses connections
    expect(JSON.stringify(parse(byDefault.stdout))).toContain(
      'connection refused (ECONNREFUSED) on GET http://127.0.0.1:1/lb/v1/zones/fr-par-1/lbs',
    );
    for (const run of [long, short, overVariable]) {
      expect(run.code).toBe(2); // read the emulator: drift
      expect(parse(run.stdout)).toMatchObject({ ok: true, command: 'plan', targets: [{ target: 'demo.k8s.local', status: 'planned' }] });
    }
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/SCW_PROFILE: .*'nope'/);
    expect(unknown.stderr).toContain(`hint: ${HINTS.credentials}`);
  });

  it('a request with no answer names the URL (no credentials) and the cause: refused, timed out, TLS; for the queue and inject too', async () => {
    const unreachableQueues = {
      SQS_ENDPOINT: 'http://127.0.0.1:1',
      SQS_ACCESS_KEY_ID: 'k',
      SQS_SECRET_ACCESS_KEY: 'local-secret',
      RECONCILE_QUEUE_URL: 'http://127.0.0.1:1/q/r',
      DEAD_LETTER_QUEUE_URL: 'http://127.0.0.1:1/q/d',
    };
    const [refused, timedOut, tls, queue, inject, enqueue] = await Promise.all([
      runBin(['plan', '-o', 'json'], { ...env, SCW_API_URL: 'http://operator:pw-secret-4242@127.0.0.1:1' }),
      runBin(['plan', '-o', 'json'], { ...env, SCW_API_URL: `http://127.0.0.1:${portOf(silent)}`, LBSYNC_REQUEST_TIMEOUT_MS: '300' }),
      runBin(['plan', '-o', 'json'], { ...env, SCW_API_URL: emulator.url.replace('http://', 'https://') }),
      runBin(['dlq', 'list'], unreachableQueues),
      // Not port 1, which fetch() refuses to call at all ("bad port").
      runBin(['inject', '-t', 'demo.k8s.local', '--url', `http://127.0.0.1:${closedPort}/`], { INJECT_TOKEN: 'inject-token-value' }),
      runBin(['inject', '-t', 'demo.k8s.local', '--queue'], unreachableQueues),
    ]);
    const errorOf = (run: { stdout: string }) => (parse(run.stdout).targets as { error: { code: string; message: string } }[])[0]?.error;
    expect(errorOf(refused)).toEqual(
      expect.objectContaining({
        code: 'network_error',
        message:
          'finding load-balancer api.demo.k8s.local: connection refused (ECONNREFUSED) on GET http://127.0.0.1:1/lb/v1/zones/fr-par-1/lbs',
      }),
    );
    expect(refused.stdout + refused.stderr).not.toContain('pw-secret-4242');
    expect(errorOf(timedOut)?.message).toBe(
      `finding load-balancer api.demo.k8s.local: request timed out after 300 ms on GET http://127.0.0.1:${portOf(silent)}/lb/v1/zones/fr-par-1/lbs`,
    );
    expect(errorOf(tls)?.message).toMatch(
      new RegExp(`: TLS failure: .+ on GET https://127\\.0\\.0\\.1:${emulator.port}/lb/v1/zones/fr-par-1/lbs$`),
    );
    expect(queue.code).toBe(1);
    expect(queue.stderr).toContain(
      'error [queue_unavailable] queue ReceiveMessage on d failed: connection refused (ECONNREFUSED) on http://127.0.0.1:1/',
    );
    expect(inject.code).toBe(1);
    expect(inject.stderr).toContain(
      `could not reach the inject function: connection refused (ECONNREFUSED) on POST http://127.0.0.1:${closedPort}/`,
    );
    // inject --queue hands over through enqueueEvents, as the functions do.
    expect(enqueue.code).toBe(1);
    expect(enqueue.stderr).toContain(
      'error [queue_unavailable] queue SendMessageBatch on r failed: connection refused (ECONNREFUSED) on http://127.0.0.1:1/',
    );
  });

  it('a 404 or 405 that is not the API (wrong SCW_API_URL, another web server) is api_route_not_found; a missing LB stays lb_not_found', async () => {
    const ghost = JSON.stringify([{ kops: { cluster: 'ghost.k8s.local', zone: 'fr-par-1' } }]);
    const [prefix, page, missing, method] = await Promise.all([
      runBin(['plan', '-o', 'json'], { ...env, SCW_API_URL: `${emulator.url}/wrong-prefix` }),
      runBin(['plan'], { ...env, SCW_API_URL: `http://127.0.0.1:${portOf(html)}` }),
      runBin(['plan', '-o', 'json'], { ...env, LBSYNC_TARGETS: ghost }),
      runBin(['plan', '-o', 'json'], { ...env, SCW_API_URL: `http://127.0.0.1:${portOf(notAllowed)}` }),
    ]);
    const errorOf = (run: { stdout: string }) =>
      (parse(run.stdout).targets as { error: { code: string; message: string; hint: string } }[])[0]?.error;
    expect(errorOf(prefix)).toEqual({
      code: 'api_route_not_found',
      message: `finding load-balancer api.demo.k8s.local: http error 404 on GET ${emulator.url}/wrong-prefix/lb/v1/zones/fr-par-1/lbs with JSON {"message":"no route for GET /wrong-prefix/lb/v1/zones/fr-par-1/lbs","type":"not_found"}, not the Scaleway API's not-found answer: this URL does not lead to the API`,
      hint: ERROR_CATALOG.api_route_not_found.hint,
      lb: { name: 'api.demo.k8s.local' },
    });
    expect(page.code).toBe(1);
    expect(page.stdout).toContain(
      `[api_route_not_found] finding load-balancer api.demo.k8s.local: http error 404 on GET http://127.0.0.1:${portOf(html)}/lb/v1/zones/fr-par-1/lbs with a text/html body`,
    );
    expect(errorOf(method)).toEqual({
      code: 'api_route_not_found',
      message: `finding load-balancer api.demo.k8s.local: http error 405 on GET http://127.0.0.1:${portOf(notAllowed)}/lb/v1/zones/fr-par-1/lbs with an application/xml body, method not allowed, which the Scaleway API never answers to a call of its SDK: this URL does not lead to the API`,
      hint: ERROR_CATALOG.api_route_not_found.hint,
      lb: { name: 'api.demo.k8s.local' },
    });
    expect(errorOf(missing)).toMatchObject({
      code: 'lb_not_found',
      message: 'finding load-balancer api.ghost.k8s.local: no load-balancer named "api.ghost.k8s.local" in fr-par-1',
    });
  });

  it("inject: a 202 that is not the inject function's JSON (a portal's page) is unexpected_answer: the event is not said sent", async () => {
    const portal = await startAnsweringServer((response) => {
      response.writeHead(202, { 'Content-Type': 'text/html' });
      response.end('<html><body>Accepted by the portal</body></html>');
    });
    try {
      const run = await runBin(['inject', '-t', 'demo.k8s.local', '--url', `${portal.url}/`, '-o', 'json'], {
        INJECT_TOKEN: 'inject-token-value',
      });
      expect(run.code).toBe(1);
      expect(JSON.parse(run.stdout)).toMatchObject({
        ok: false,
        error: {
          code: 'unexpected_answer',
          message: `sending the event: POST ${portal.url}/ answered 202 with text/html (<html><body>Accepted by the portal</body></html>); expected JSON {"eventId", "target"} (the inject function)`,
        },
      });
      expect(portal.requests).toEqual([{ method: 'POST', path: '/' }]);
    } finally {
      await portal.stop();
    }
  });
});
