// This project's own checks of serverless.yml: the wiring serverless-scaleway-functions knows nothing of.
//
//   npm run build && node scripts/validate-serverless.mjs [--config serverless.yml ...] [--root .]
//       [--require-env] [--json]
//
// It resolves the variables as the framework does (osls's resolver; ${env:...} from this process's environment),
// then checks: each function's handler is its own bundle and exports handle, exactly the functions there are
// bundles for, every function private, no reserved SCW_* variable, the environment catalogue (every variable a
// bundle reads is provided to the functions that read it, credentials only as secrets, nothing a bundle does not
// read, sizes within Scaleway's limits), the timing rules (reconcile's timeout and LBSYNC_FUNCTION_TIMEOUT_MS, the
// waits within it, the sweep's spread within its timeout, the watcher's period covering its cron), and the
// triggers' wiring (which function gets which trigger, the queue RECONCILE_QUEUE_URL names, the args each schedule
// sends), and where the targets come from (LBSYNC_TARGETS or the file the build ships, dist/targets.json: not both).
// With --require-env every ${env:...} without a fallback must be set (a pre-deploy check of your values).
// What the plugin validates itself (handler files, runtimes, trigger syntax, region, credentials' shape) and
// what it would send run in `npm run package` (scripts/package-check.mjs), with the real tools.
// Exit status: 0 valid, 1 invalid, 2 could not run.
//
// The checks live in serverless-check/: resolve (osls reads and resolves), env-catalog (the environment catalogue
// and what the bundles read), rules/ (one file per area of serverless.yml).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { FUNCTIONS, namesReadByBundles } from './serverless-check/env-catalog.mjs';
import { redactSecrets } from './serverless-check/redact.mjs';
import { createReport } from './serverless-check/report.mjs';
import { loadServerlessConfig } from './serverless-check/resolve.mjs';
import { checkCodeCache } from './serverless-check/rules/code-cache.mjs';
import { checkEnvironment } from './serverless-check/rules/environment.mjs';
import { checkFunctionSettings } from './serverless-check/rules/function-settings.mjs';
import { checkFunctionList } from './serverless-check/rules/service.mjs';
import { readShippedTargets, checkTargetsSource } from './serverless-check/rules/targets-source.mjs';
import { checkSweepTiming, checkTiming, checkWatchTiming } from './serverless-check/rules/timing.mjs';
import { checkTriggers } from './serverless-check/rules/triggers.mjs';

/**
 * @typedef {object} Validation
 * @property {boolean} ok
 * @property {string[]} errors
 * @property {string[]} warnings      what does not stop a deploy (a code cache the runtime will not use)
 * @property {string[]} deployerEnv   the ${env:...} names this environment leaves unset
 * @property {string[]} bundleEnv     the names the built bundles read
 * @property {Record<string, any>} resolved  serverless.yml resolved, secrets redacted
 */

/**
 * Runs every check over one serverless.yml.
 * @param {{ configPath: string, root: string, env?: Record<string, string | undefined>, requireEnv?: boolean }} options
 * @returns {Promise<Validation>}
 */
export async function validateServerlessConfig({ configPath, root, env = process.env, requireEnv = false }) {
  const { report, errors, unset } = createReport();
  const config = await loadServerlessConfig(configPath, env, report);
  const provider = config.provider ?? {};
  const functions = config.functions ?? {};

  checkFunctionList(functions, report);

  const bundleNames = namesReadByBundles(root);
  const shipped = readShippedTargets(root);
  const effective = checkEnvironment(provider, functions, bundleNames, report, shipped);
  checkTargetsSource(provider, functions, shipped, requireEnv, report);
  const timeouts = {};
  for (const name of FUNCTIONS.filter((n) => functions[n])) {
    timeouts[name] = await checkFunctionSettings(name, functions[name], root, report);
    checkTriggers(name, functions[name], effective[name], report);
  }
  if (functions.reconcile) checkTiming(timeouts.reconcile, effective.reconcile, report);
  if (functions.sweep) checkSweepTiming(timeouts.sweep, effective.sweep, report);
  if (functions.watch) checkWatchTiming(functions.watch, effective.watch, report);

  if (requireEnv) {
    for (const [name, paths] of unset) report.error(`${name} is not set in this environment (used at ${paths.join(', ')})`);
  }
  return {
    ok: errors.length === 0,
    errors,
    warnings: checkCodeCache(
      FUNCTIONS.filter((n) => functions[n]),
      provider.runtime,
      root,
    ),
    deployerEnv: [...unset.keys()],
    bundleEnv: [...bundleNames].sort(),
    resolved: redactSecrets(config),
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      // Several --config files are checked in one run (the test's broken variants); --json then prints an array.
      config: { type: 'string', multiple: true, default: ['serverless.yml'] },
      root: { type: 'string', default: '.' },
      'require-env': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const root = resolve(values.root);
  const results = [];
  try {
    for (const config of values.config) {
      results.push(
        await validateServerlessConfig({
          configPath: resolve(config),
          root,
          requireEnv: values['require-env'],
        }),
      );
    }
  } catch (error) {
    process.stderr.write(`validate-serverless: ${error.message}\n`);
    process.exit(2);
  }
  if (values.json) {
    const output = results.length === 1 ? results[0] : results;
    process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
  } else {
    results.forEach((result, i) => {
      for (const error of result.errors) process.stdout.write(`error  ${error}\n`);
      for (const warning of result.warnings) process.stdout.write(`warn   ${warning}\n`);
      if (result.deployerEnv.length > 0) process.stdout.write(`set at deploy time: ${result.deployerEnv.join(' ')}\n`);
      const name = values.config[i];
      process.stdout.write(result.ok ? `${name}: valid\n` : `${name}: ${result.errors.length} problem(s)\n`);
    });
  }
  // exitCode, not exit(): a large --json answer written to a pipe must be flushed before the process ends.
  process.exitCode = results.every((r) => r.ok) ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
