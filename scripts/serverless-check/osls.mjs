// Runs the Serverless Framework v3 CLI (osls, a devDependency) in a service directory, with only the
// environment given: nothing of the caller's own (deployment values, proxies, SCW_* keys) reaches it.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve as resolvePath } from 'node:path';

const TIMEOUT_MS = 180_000;

/**
 * @param {string} root  the directory holding serverless.yml and node_modules (osls finds the plugin there)
 * @param {string[]} args  e.g. ['package']
 * @param {Record<string, string>} env
 * @returns {Promise<{ code: number, output: string, ms: number }>}  output: stdout and stderr, interleaved as written
 */
export async function runServerless(root, args, env) {
  let cli;
  try {
    cli = createRequire(join(resolvePath(root), 'package.json')).resolve('osls/bin/serverless.js');
  } catch {
    throw new Error(`osls is not installed under ${root}/node_modules: run npm ci`);
  }
  // A fresh HOME: osls caches under ~/.serverless; the deployer's ~/.config/scw is never read.
  const home = mkdtempSync(join(tmpdir(), 'lbsync-osls-home-'));
  const started = Date.now();
  try {
    return await new Promise((resolve) => {
      let output = '';
      const child = execFile(
        process.execPath,
        [cli, ...args],
        {
          cwd: root,
          env: {
            PATH: process.env.PATH ?? '',
            HOME: home,
            NO_COLOR: '1',
            AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
            ...env,
          },
          maxBuffer: 16 * 1024 * 1024,
          // Offline, a package or a dry-run deploy takes seconds; a hang would be a plugin waiting on an answer.
          timeout: TIMEOUT_MS,
        },
        (error) => {
          if (error?.killed) output += `\nError:\nstopped after ${TIMEOUT_MS / 1000} s without finishing`;
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : 2) : 0, output, ms: Date.now() - started });
        },
      );
      child.stdout?.on('data', (chunk) => {
        output += chunk;
      });
      child.stderr?.on('data', (chunk) => {
        output += chunk;
      });
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
