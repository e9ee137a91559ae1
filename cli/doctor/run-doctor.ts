// `lbsync doctor`: a read-only pre-flight against the real account (or the emulator). Every check is one line,
// ok | fail | warn, proven by the read calls the functions themselves make; nothing is ever written (the Scaleway
// reads go through the product's own steps and a gateway that refuses writes; the queues are only asked for their
// attributes). The command (commands/doctor.ts) prints what this returns.
import type { ExchangeRecorder } from '../adapters/http-recorder';
import type { Check } from './check';
import { configCheck } from './config-check';
import { scalewayChecks } from './key-checks';
import { queueChecks } from './queue-checks';

export interface DoctorOptions {
  env: NodeJS.ProcessEnv;
  targets?: string[];
  file?: string;
  /** false with --no-queue. */
  queue: boolean;
  /** The reconcile function's timeout; the reconcile queue's visibility timeout must exceed it. */
  functionTimeoutSeconds: number;
  /** Receives every exchange with the Scaleway API (--record); the queues' are not recorded. */
  recorder?: ExchangeRecorder;
  /** Learns each target key read (the CLI's output scrubber). */
  protect?: (secret: string) => void;
}

/** Every check, in order: config, credentials and IAM permissions (per key pair), targets, writers, queues. Never writes. */
export async function runDoctor(options: DoctorOptions): Promise<Check[]> {
  const { env, protect } = options;
  const config = configCheck(env, options.file, options.targets);
  const checks = [config.check, ...(await scalewayChecks(env, config.targets, options.recorder, protect))];
  if (options.queue) checks.push(...(await queueChecks(env, options.functionTimeoutSeconds)));
  return checks;
}
