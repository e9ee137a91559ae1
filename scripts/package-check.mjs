// `npm run package`: serverless.yml through the real deployment tools, offline, plus the project's own checks.
//
//   npm run build && npm run package [-- --root DIR] [--json]
//
// 1. The project's own checks (validate-serverless.mjs): the wiring the plugin knows nothing of.
// 2. `serverless package` (osls) with a placeholder for every ${env:...} of serverless.yml that has no default,
//    then the archive it wrote: exactly the build's outputs for the functions (with dist/targets.json when the
//    build shipped the targets), and none of the placeholders.
// 3. `serverless deploy --package .serverless` against a loopback stand-in of the Scaleway Functions API:
//    the plugin's own validation runs (it runs only on deploy), and what it would create is checked.
// Nothing is sent to Scaleway, and no value of the caller's environment is used. Exit status: 0 all good,
// 1 problems found, 2 could not run.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { FUNCTION_OUTPUTS, SHARED_OUTPUTS, SHIPPED_TARGETS } from './build.mjs';
import { auditArchive } from './serverless-check/archive.mjs';
import { auditDeployment } from './serverless-check/deployment.mjs';
import { startFunctionsApiStandIn } from './serverless-check/functions-api-stand-in.mjs';
import { runServerless } from './serverless-check/osls.mjs';
import { placeholderEnv } from './serverless-check/placeholders.mjs';
import { parseServerlessYaml } from './serverless-check/resolve.mjs';
import { readZip } from './serverless-check/zip.mjs';
import { validateServerlessConfig } from './validate-serverless.mjs';

/** osls prints its error last, after "Error:"; the plugin's credential notices before it are noise. */
function errorOf(output) {
  const lines = output
    .trim()
    .split('\n')
    .filter((line) => !line.startsWith('Using credentials from'));
  const start = lines.findLastIndex((line) => line.startsWith('Error:'));
  return lines
    .slice(start === -1 ? -15 : start)
    .map((line) => `    ${line}`)
    .join('\n');
}

/**
 * @param {string} root  the directory holding serverless.yml, dist/ and node_modules
 */
export async function checkPackage(root) {
  const config = await parseServerlessYaml(join(root, 'serverless.yml'));
  const placeholders = placeholderEnv(config);
  const errors = [];

  const project = await validateServerlessConfig({ configPath: join(root, 'serverless.yml'), root, env: {} });
  errors.push(...project.errors.map((e) => `serverless.yml: ${e}`));

  const packaged = await runServerless(root, ['package'], placeholders.env);
  const archivePath = join('.serverless', `${config.service}.zip`);
  if (packaged.code !== 0 || !existsSync(join(root, archivePath))) {
    errors.push(
      packaged.code !== 0
        ? `serverless package failed (exit ${packaged.code}):\n${errorOf(packaged.output)}`
        : `serverless package wrote no ${archivePath}: the plugin uploads that one archive (no package.individually or package.artifact)`,
    );
    return { ok: false, errors, archive: undefined, functions: [], timings: { packageMs: packaged.ms } };
  }
  const raw = readFileSync(join(root, archivePath));
  const files = await readZip(raw);
  const archive = auditArchive({
    files,
    raw,
    functions: config.functions ?? {},
    functionOutputs: FUNCTION_OUTPUTS,
    // The targets file, when the build shipped one (--targets), belongs in the archive as much as the bundles.
    sharedOutputs: [...SHARED_OUTPUTS, ...(existsSync(join(root, SHIPPED_TARGETS)) ? [SHIPPED_TARGETS] : [])],
    placeholders: placeholders.env,
  });
  errors.push(...archive.errors.map((e) => `archive: ${e}`));

  const region = config.provider?.scwRegion ?? 'fr-par';
  const standIn = await startFunctionsApiStandIn({ region, token: placeholders.env[placeholders.deployerKey ?? ''] ?? '' });
  let deployed;
  try {
    deployed = await runServerless(root, ['deploy', '--package', '.serverless'], { ...placeholders.env, SCW_FUNCTION_URL: standIn.apiUrl });
  } finally {
    await standIn.close();
  }
  let functions = [];
  if (deployed.code !== 0) {
    errors.push(
      `serverless deploy (dry run against the Functions API stand-in) failed (exit ${deployed.code}):\n${errorOf(deployed.output)}`,
    );
  } else {
    const deployment = auditDeployment({ standIn, config, archive: raw, placeholders });
    errors.push(...deployment.errors.map((e) => `deploy: ${e}`));
    functions = deployment.functions;
  }
  return {
    ok: errors.length === 0,
    errors,
    archive: { path: archivePath, bytes: raw.length, entries: archive.entries },
    functions,
    timings: { packageMs: packaged.ms, deployMs: deployed.ms },
  };
}

function printText(result) {
  const { archive, functions, timings } = result;
  if (archive) {
    process.stdout.write(
      `serverless package (${(timings.packageMs / 1000).toFixed(1)} s): ${archive.path}, ${(archive.bytes / 1024).toFixed(0)} KiB\n`,
    );
    for (const entry of archive.entries) process.stdout.write(`  ${entry}\n`);
  }
  if (functions.length > 0) {
    process.stdout.write(
      `serverless deploy against the Functions API stand-in (${(timings.deployMs / 1000).toFixed(1)} s): what the plugin would create\n`,
    );
    for (const fn of functions) {
      process.stdout.write(
        `  ${fn.name}: ${fn.runtime}, ${fn.memoryMb} MB, timeout ${fn.timeout}, scale ${fn.scale.join('-')}, ${fn.privacy}, http ${fn.httpOption}, sandbox ${fn.sandbox}\n`,
      );
      process.stdout.write(`    triggers: ${fn.triggers.join('; ') || 'none (HTTP)'}\n`);
      process.stdout.write(`    env: ${fn.env.join(' ')}\n    secrets: ${fn.secrets.join(' ')}\n`);
      if (fn.sentEmpty.length > 0) process.stdout.write(`    sent empty: ${fn.sentEmpty.join(' ')}\n`);
    }
  }
  for (const error of result.errors) process.stdout.write(`error  ${error}\n`);
  process.stdout.write(result.ok ? 'package check: ok\n' : `package check: ${result.errors.length} problem(s)\n`);
}

async function main() {
  const { values } = parseArgs({ options: { root: { type: 'string', default: '.' }, json: { type: 'boolean', default: false } } });
  let result;
  try {
    result = await checkPackage(resolve(values.root));
  } catch (error) {
    process.stderr.write(`package-check: ${error.message}\n`);
    process.exit(2);
  }
  if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  else printText(result);
  process.exit(result.ok ? 0 : 1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
