// Who wrote a pool, from the User-Agent Audit Trail records for the call. Each tool appends its own name to its SDK's:
// - kOps: `kubernetes-kops/<version>` (upup/pkg/fi/cloudup/scaleway/cloud.go);
// - Terraform: `terraform-provider/<v> terraform/<v>` (terraform-provider-scaleway);
// - the cloud-controller-manager: `scaleway/ccm <v> (<commit>)` (scaleway-cloud-controller-manager scaleway/cloud.go);
// - the CLI: `scaleway-cli/<v>`; the console: a browser's;
// - scw-lb-sync: `scw-lb-sync/<v> owner/<id>`.
// Pure.

import type { WRITER_KINDS } from '../schemas/primitives';

export type WriterKind = (typeof WRITER_KINDS)[number];

export interface Writer {
  kind: WriterKind;
  /** As an operator reads it: `kOps 1.37.0`, `another scw-lb-sync deployment (owner prod-par)`. */
  name: string;
  /** For another scw-lb-sync: its owner id (LBSYNC_OWNER_ID), when its User-Agent names one. */
  owner?: string;
}

const OWNER = /\bscw-lb-sync\/\S+(?: owner\/(\S+))?/;

/** The owner id a scw-lb-sync User-Agent names (`owner/<id>`), if any. */
export function ownerOf(userAgent: string | undefined): string | undefined {
  return OWNER.exec(userAgent ?? '')?.[1];
}

const KNOWN: { kind: WriterKind; pattern: RegExp; name: (m: RegExpExecArray) => string }[] = [
  { kind: 'kops', pattern: /\bkubernetes-kops\/(\S+)/, name: (m) => `kOps ${m[1]}` },
  { kind: 'terraform', pattern: /\bterraform-provider\/(\S+)/, name: (m) => `Terraform (scaleway provider ${m[1]})` },
  { kind: 'ccm', pattern: /\bscaleway\/ccm (\S+)/, name: (m) => `the Scaleway cloud-controller-manager ${m[1]}` },
  { kind: 'cli', pattern: /\bscaleway-cli\/(\S+)/, name: (m) => `the Scaleway CLI ${m[1]}` },
  { kind: 'console', pattern: /\bMozilla\//, name: () => 'the Scaleway console (a browser)' },
  { kind: 'sdk', pattern: /\bscaleway-sdk-(\w+)\//, name: (m) => `a client of the Scaleway ${m[1]} SDK` },
];

/** Names the writer of a call from its User-Agent; another scw-lb-sync by its owner id. */
export function writerOf(userAgent: string | undefined): Writer {
  const ua = userAgent ?? '';
  if (OWNER.test(ua)) {
    const owner = ownerOf(ua);
    return owner
      ? { kind: 'lbsync', name: `another scw-lb-sync deployment (owner ${owner})`, owner }
      : { kind: 'lbsync', name: 'another scw-lb-sync (its User-Agent names no owner: an older version)' };
  }
  for (const known of KNOWN) {
    const match = known.pattern.exec(ua);
    if (match) return { kind: known.kind, name: known.name(match) };
  }
  return { kind: 'unknown', name: ua === '' ? 'an unknown client (no User-Agent)' : `an unknown client (${ua.slice(0, 80)})` };
}
