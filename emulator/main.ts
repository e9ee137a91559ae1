/**
 * CLI: `tsx emulator/main.ts [--port 8090] [--seed file.json] [--instance-pending-ms N] [--latency-ms N] [--audit-delay-ms N]
 * [--no-auth] [--behaviours '{"writesWhileTransient":"accept"}']` (switches: docs/emulator.md).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readBehaviours } from './behaviours';
import { startEmulator, type EmulatorSeed } from './index';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8090' },
    host: { type: 'string', default: '127.0.0.1' },
    seed: { type: 'string' },
    'instance-pending-ms': { type: 'string' },
    'latency-ms': { type: 'string' },
    'audit-delay-ms': { type: 'string' },
    'no-auth': { type: 'boolean', default: false },
    behaviours: { type: 'string' },
  },
});

function numberOption(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) {
    console.error(`--${name} must be a non-negative integer, got ${raw}`);
    process.exit(2);
  }
  return value;
}

function behavioursOption(raw: string | undefined) {
  if (raw === undefined) return undefined;
  try {
    return readBehaviours(JSON.parse(raw));
  } catch (error) {
    console.error(`--behaviours: ${(error as Error).message}`);
    process.exit(2);
  }
}

const seed = values.seed ? (JSON.parse(readFileSync(values.seed, 'utf8')) as EmulatorSeed) : undefined;
const emulator = await startEmulator({
  host: values.host,
  port: numberOption('port', values.port),
  seed,
  instancePendingMs: numberOption('instance-pending-ms', values['instance-pending-ms']),
  latencyMs: numberOption('latency-ms', values['latency-ms']),
  auditTrailDelayMs: numberOption('audit-delay-ms', values['audit-delay-ms']),
  requireAuth: !values['no-auth'],
  behaviours: behavioursOption(values.behaviours),
});
console.log(emulator.url);

const shutdown = (): void => {
  void emulator.stop().then(() => process.exit(0));
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
