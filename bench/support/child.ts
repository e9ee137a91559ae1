/** Runs a bench child process (plain node, fresh) and returns the one message it sends over IPC. */
import { fork } from 'node:child_process';
import { DEPLOYED_NODE_FLAGS, FUNCTION_NODE } from './bundles';

export interface ChildRun<T> {
  result: T;
  wallMs: number;
}

export function runChild<T>(
  script: string,
  args: string[],
  env: Record<string, string>,
  options: { execArgv?: string[]; timeoutMs?: number } = {},
): Promise<ChildRun<T>> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = fork(script, args, {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      // As deployed (the code cache is accepted only under the flags it was made with).
      execArgv: options.execArgv ?? DEPLOYED_NODE_FLAGS,
      execPath: FUNCTION_NODE,
      // The functions log to stdout: discard it; keep stderr for failures.
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    let result: T | undefined;
    child.stderr?.on('data', (chunk) => (stderr += String(chunk)));
    child.on('message', (message) => (result = message as T));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (result !== undefined && code === 0) resolve({ result, wallMs: performance.now() - started });
      else reject(new Error(`${script} exited ${code}${stderr ? `: ${stderr.trim().slice(-2000)}` : ''}`));
    });
  });
}
