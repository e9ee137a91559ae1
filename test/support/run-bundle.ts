// A function bundle run as the platform runs it: a fresh node (test/support/bundle-child.cjs) with the given node
// options and only the given environment, answering platform events one at a time.
import { fork } from 'node:child_process';
import { join } from 'node:path';

const CHILD = join(import.meta.dirname, 'bundle-child.cjs');

export interface BundleRun {
  codeCache: string;
  answers: { status: number; body: Record<string, unknown> }[];
  touched: string[];
}

/**
 * Runs a handler in a fresh node; `between(i)` runs after event i is answered, before the next is sent. `cwd`: the
 * process's working directory (the platform's is not documented: a bundle must not depend on it).
 */
export function runBundle(
  handler: string,
  events: unknown[],
  env: Record<string, string>,
  execArgv: string[],
  options: { between?: (index: number) => void | Promise<void>; cwd?: string } = {},
): Promise<BundleRun> {
  return new Promise((resolve, reject) => {
    const child = fork(CHILD, [handler], {
      env: {
        PATH: process.env.PATH ?? '',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        LOG_LEVEL: 'silent',
        ...env,
        BUNDLE_EVENTS: JSON.stringify(events),
      },
      execArgv,
      ...(options.cwd && { cwd: options.cwd }),
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    let result: BundleRun | undefined;
    child.stderr?.on('data', (chunk) => (stderr += String(chunk)));
    child.on('message', async (message: { kind: string; index?: number } & Partial<BundleRun>) => {
      if (message.kind === 'answered') {
        await options.between?.(message.index ?? 0);
        child.send('next');
      } else result = message as BundleRun;
    });
    child.on('exit', (code) =>
      code === 0 && result ? resolve(result) : reject(new Error(`bundle child exited ${code}: ${stderr.slice(-2000)}`)),
    );
  });
}
