/** Bundle sizes: what `npm run build` ships, and what each size option in scripts/build.mjs is worth (esbuild metafile). */
import { build, type BuildOptions, type Metafile } from 'esbuild';
// @ts-expect-error: plain .mjs build script without types
import { bundleOptions } from '../scripts/build.mjs';
import { REPO, type FunctionName } from './support/bundles';

export interface BundleVariant {
  name: string;
  bytes: number;
}

export interface BundleSizeResult {
  variants: BundleVariant[];
  /** Biggest packages in the shipped reconcile bundle, KiB in output. */
  topPackages: { pkg: string; kib: number }[];
}

const options = bundleOptions as (name: string, outfile?: string) => BuildOptions;

async function sizeOf(fn: FunctionName, change: (o: BuildOptions) => BuildOptions): Promise<{ bytes: number; metafile: Metafile }> {
  const result = await build({
    ...change(options(fn, `${REPO}/bench/.out/size/${fn}.js`)),
    absWorkingDir: REPO,
    write: false,
    logLevel: 'error',
  });
  const metafile = result.metafile as Metafile;
  return { bytes: Object.values(metafile.outputs).reduce((s, o) => s + o.bytes, 0), metafile };
}

export async function measureBundleSize(): Promise<BundleSizeResult> {
  const variants: [string, (o: BuildOptions) => BuildOptions][] = [
    ['before (CommonJS builds)', (o) => ({ ...o, mainFields: undefined, plugins: [], alias: {} })],
    ['+ prefer ESM builds (mainFields), zod namespace import', (o) => ({ ...o, plugins: [], alias: {} })],
    ['+ no AWS default credential chain, no pino transports', (o) => ({ ...o, plugins: [] })],
    ['+ Scaleway SDK on node:http, no undici (shipped)', (o) => o],
    ['  (not minified, for reference)', (o) => ({ ...o, minify: false })],
  ];
  const sized: BundleVariant[] = [];
  let shipped: Metafile | undefined;
  for (const [name, change] of variants) {
    const { bytes, metafile } = await sizeOf('reconcile', change);
    sized.push({ name, bytes });
    if (name.includes('shipped')) shipped = metafile;
  }
  const byPkg = new Map<string, number>();
  for (const output of Object.values(shipped?.outputs ?? {})) {
    for (const [path, input] of Object.entries(output.inputs)) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
      const pkg = match ? (match[1] as string) : '(our code)';
      byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + input.bytesInOutput);
    }
  }
  const topPackages = [...byPkg]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([pkg, bytes]) => ({ pkg, kib: Math.round(bytes / 102.4) / 10 }));
  return { variants: sized, topPackages };
}
