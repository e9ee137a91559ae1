// Each ipSource described once: where a server's addresses come from, which families it takes, whether discovery
// reads IPAM, and what a server without an address is told. Discovery (core/desired.ts, reconcile/discover.ts),
// `lbsync doctor`, the target schema and the configuration reference read this table. It is pure data, so core may
// load it (test/unit/core/purity.test.ts checks it by core's rule).
import type { AddressFamily } from './backend-address';

export const IP_SOURCES = ['public', 'public-ipv6', 'public-dual', 'ipam-private', 'kops'] as const;
export type IpSource = (typeof IP_SOURCES)[number];

/**
 * Where a server's candidate addresses are: its public IPs of the family (Instance API); its routed IPv4 (a public
 * IP that has an IPAM id, as kOps' rule takes it); IPAM's addresses of its private NICs.
 */
export type CandidateSource = 'public' | 'routed-ipv4' | 'private-nics';

export interface IpSourceSpec {
  /** The families it takes: one address of each per server, the lowest. */
  families: readonly AddressFamily[];
  candidates: CandidateSource;
  /**
   * Discovery reads IPAM (one ListIPs for the servers' private NICs), and the LB must be attached to that private
   * network to reach the addresses.
   */
  readsIpam: boolean;
  /** kOps' own rule: doctor compares the pool with kOps' GetServerIP, and a server with several IPv4 is named. */
  kopsRule: boolean;
  /** Why a running server gives no address; a private network, when the target has one, is named after it. */
  noAddress: string;
  /** What it takes, in the target schema's description and so in the configuration reference. */
  meaning: string;
}

export const IP_SOURCE: Readonly<Record<IpSource, IpSourceSpec>> = {
  public: {
    families: [4],
    candidates: 'public',
    readsIpam: false,
    kopsRule: false,
    noAddress: 'has no public IPv4 address',
    meaning: 'the public IPv4',
  },
  'public-ipv6': {
    families: [6],
    candidates: 'public',
    readsIpam: false,
    kopsRule: false,
    noAddress: 'has no routed public IPv6 address',
    meaning: "the routed public IPv6 (the server's SLAAC address in its /64)",
  },
  'public-dual': {
    families: [4, 6],
    candidates: 'public',
    readsIpam: false,
    kopsRule: false,
    noAddress: 'has neither a public IPv4 nor a routed public IPv6 address',
    meaning: 'both, one of each family per server (a server with one family gives that one)',
  },
  'ipam-private': {
    families: [4],
    candidates: 'private-nics',
    readsIpam: true,
    kopsRule: false,
    noAddress: 'has no ipam-private IPv4 address',
    meaning: 'the private-NIC IPv4 from IPAM',
  },
  kops: {
    families: [4],
    candidates: 'routed-ipv4',
    readsIpam: false,
    kopsRule: true,
    noAddress: "has no routed public IPv4 in IPAM (kOps' GetServerIP would find none)",
    meaning: "kOps' own rule, the server's zonal IPAM IPv4 (its routed public IPv4)",
  },
};

/** Every ipSource and what it takes, as the target schema describes the field. */
export function ipSourcesDescription(): string {
  const each = IP_SOURCES.map((source) => `${source}: ${IP_SOURCE[source].meaning}`);
  return [...each, 'the lowest of a family when a server has several'].join('; ');
}
