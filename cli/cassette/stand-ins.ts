// What a real value becomes in a shared recording (`lbsync doctor --record`): pure, no I/O. One StandIns
// is used for a whole recording, so the same real value always becomes the same stand-in, wherever it is;
// a stand-in is valid for its kind, so the recording replays against the emulator as it is:
// - a UUID becomes a version-4 UUID (00000001-0000-4000-8000-000000000001, ...);
// - an IPv4 address a host of the documentation ranges (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, then the
//   benchmarking 198.18.0.0/15), an IPv6 address one of 2001:db8::/32; a CIDR keeps its prefix length; an
//   address written with dashes in a host name (51-15-1-2.example) stays dashed, one with underscores (a name the
//   host name is derived from) keeps them;
// - a MAC address a locally administered one (02:00:00:..), an e-mail address user-N@mail.test;
// - in a label (a name, tag, host name, description), every word (a run of letters and digits) becomes a
//   four-letter word: "x" and three letters other than x (xaab, xaac, ...), keeping the word's case pattern;
//   separators ("-", ".", "=", "/", ",", " ") and numbers of up to three digits stay. So names and tags keep their
//   shape, and a label holds another exactly where the real ones did: a name filter (ListLbs?name=) answers the
//   same LBs, kOps' cluster name stays one word across tags and server names. Stand-in words never overlap
//   ("x" starts each), so no new containment appears; the words of a name filter that matched inside a longer
//   word are split out first (`filters`), so that match survives too (not when two filters' matches overlap
//   part-way inside one word: a doctor run sends one LB name per target). Words that differ only in case share a
//   stand-in (the hostname the Instance API derives from a name, lower-cased, stays derivable from the stand-in).
// A label the recording holds (six characters or more) is replaced where other text echoes it as a whole word.
// Addresses that name no one are kept: unspecified, loopback, link-local (but one made from a MAC, which becomes
// fe80::N), multicast, reserved (netmasks), and the
// few public values every Scaleway account sees (KEPT_PUBLIC_VALUES).

/** Public values that identify no account, kept as they are (each is in every account's answers). */
export const KEPT_PUBLIC_VALUES: Record<string, string> = {
  '62.210.0.1': "the gateway the Instance API gives every routed public IPv4 (recorded in the Terraform provider's cassettes)",
  '51b656e3-4865-41e8-adbc-0c45bdd780db': "the organization of Scaleway's own marketplace images",
};

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const MAC = /(?<![0-9a-f:])[0-9a-f]{2}(?::[0-9a-f]{2}){5}(?![0-9a-f:])/gi;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
// An address is a whole token: `0.0.0.0a` is a name's words, not the address 0.0.0.0 and a word `a`. A dot before
// it ends a token as the start of the text does, so a name reads the same alone and after `api.` (kOps' LB name).
const IPV4 = /(?<![0-9a-z])(?:\d{1,3}\.){3}\d{1,3}(?:\/\d{1,2})?(?![0-9a-z]|\.\d)/gi;
// Dashes in a host name; underscores in a name whose host name the Instance API derives ('_' as '-').
const DASHED_IPV4 = /(?<![0-9a-z_-])(?:\d{1,3}(?:-\d{1,3}){3}|\d{1,3}(?:_\d{1,3}){3})(?![0-9a-z]|[-_]\d)/gi;
const IPV6 = /(?<![0-9a-z:.])(?:[0-9a-f]{0,4}:){2,7}[0-9a-f]{0,4}(?:\/\d{1,3})?(?![0-9a-z:.])/gi;
/** Every special value, in the order they are looked for: a UUID before the hex words it is made of. */
const SPECIAL = new RegExp([UUID, MAC, EMAIL, IPV4, IPV6, DASHED_IPV4].map((pattern) => `(${pattern.source})`).join('|'), 'gi');
const WORD = /[\p{L}\p{N}]+/gu;
/** Numbers this short name no one (an index, a port), and stand-ins never contain digits next to "x" words. */
const KEPT_NUMBER = /^\d{1,3}$/;
/** Host names Scaleway makes from an address or an id (LB reverse DNS, server DNS): their words are Scaleway's. */
const SCALEWAY_MADE_HOST = /\.scw\.cloud\.?$/i;

/** Shorter labels are too likely to be ordinary words ("ready", "http") to be replaced where they are echoed. */
const MIN_ECHOED_LABEL = 6;

const WORD_LETTERS = 'abcdefghijklmnopqrstuvwyz'; // no x: "x" marks where a stand-in word starts
const WORD_COUNT = WORD_LETTERS.length ** 3;

function parseIpv4(text: string): number[] | undefined {
  const octets = text.split('.').map(Number);
  if (octets.length !== 4 || octets.some((o, i) => !/^(0|[1-9]\d{0,2})$/.test(text.split('.')[i] ?? '') || o > 255)) return undefined;
  return octets;
}

/** Addresses that name no one: 0/8, loopback, link-local, multicast and reserved (netmasks, broadcast). */
function isAnonymousIpv4([a, b]: number[]): boolean {
  return a === 0 || a === 127 || (a === 169 && b === 254) || (a ?? 0) >= 224;
}

/** The 8 groups of an IPv6 address, or undefined when the text is not one (a time, a MAC...). */
function parseIpv6(text: string): number[] | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const head = groups(halves[0] ?? '');
  const tail = halves.length === 2 ? groups(halves[1] ?? '') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? head.length !== 8 : missing < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (all.some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return undefined;
  return all.map((g) => Number.parseInt(g, 16));
}

/** A link-local address whose interface id is a MAC's EUI-64 (..ff:fe..): it names the machine the MAC does. */
function isEui64LinkLocal(groups: number[]): boolean {
  const [first = 0] = groups;
  return (first & 0xffc0) === 0xfe80 && ((groups[5] ?? 0) & 0xff) === 0xff && (groups[6] ?? 0) >> 8 === 0xfe;
}

function isAnonymousIpv6(groups: number[]): boolean {
  const [first = 0] = groups;
  const allZeroBut = (last: number) => groups.slice(0, 7).every((g) => g === 0) && groups[7] === last;
  const linkLocal = (first & 0xffc0) === 0xfe80 && !isEui64LinkLocal(groups);
  return allZeroBut(0) || allZeroBut(1) || linkLocal || (first & 0xff00) === 0xff00;
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/** The n-th (from 1) documentation host: TEST-NET-1, -2, -3 (.1 to .254), then the benchmarking 198.18.0.0/15. */
function documentationIpv4(n: number): string {
  const nets = ['192.0.2', '198.51.100', '203.0.113'];
  const index = n - 1;
  if (index < nets.length * 254) return `${nets[Math.floor(index / 254)]}.${(index % 254) + 1}`;
  const rest = index - nets.length * 254 + 1;
  if (rest >= 2 ** 17 - 1) throw new Error('more distinct IPv4 addresses than stand-ins: record fewer targets (-t)');
  return `198.${18 + (rest >> 16)}.${(rest >> 8) & 0xff}.${rest & 0xff}`;
}

/** The word's case pattern on the stand-in: lower, UPPER, or Capitalised for anything mixed. */
function withCaseOf(word: string, standIn: string): string {
  if (word === word.toLowerCase()) return standIn;
  if (word === word.toUpperCase()) return standIn.toUpperCase();
  return standIn.charAt(0).toUpperCase() + standIn.slice(1);
}

export class StandIns {
  private readonly maps = {
    uuid: new Map<string, string>(),
    ipv4: new Map<string, string>(),
    ipv6: new Map<string, string>(),
    mac: new Map<string, string>(),
    email: new Map<string, string>(),
    word: new Map<string, string>(),
  };
  /** Name filters sent in the recording (ListLbs?name=...): split out of longer words so their matches survive. */
  private filters: string[] = [];

  /** Labels the recording holds, found again inside other text (an error message naming an LB) as whole words. */
  private echoes: RegExp | undefined;

  /** The values of name filters the recording sent; call before mapping anything. */
  useFilters(filters: Iterable<string>): void {
    this.filters = [...new Set([...filters].filter((f) => f.length > 0))].sort((a, b) => b.length - a.length);
  }

  /** Every label the recording holds (names, tags...): text() replaces them where they are echoed. */
  useKnownLabels(labels: Iterable<string>): void {
    const echoed = [...new Set([...labels].filter((l) => l.length >= MIN_ECHOED_LABEL && !SCALEWAY_MADE_HOST.test(l)))];
    if (echoed.length === 0) return;
    const alternatives = echoed.sort((a, b) => b.length - a.length).map((l) => l.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    this.echoes = new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}])`, 'gu');
  }

  private next(kind: keyof StandIns['maps'], key: string, make: (n: number) => string): string {
    const map = this.maps[kind];
    let standIn = map.get(key);
    if (standIn === undefined) {
      standIn = make(map.size + 1);
      map.set(key, standIn);
    }
    return standIn;
  }

  uuid(real: string): string {
    if (real.toLowerCase() in KEPT_PUBLIC_VALUES) return real;
    return this.next('uuid', real.toLowerCase(), (n) => `${hex(n, 8)}-0000-4000-8000-${hex(n, 12)}`);
  }

  mac(real: string): string {
    return this.next('mac', real.toLowerCase(), (n) => `02:00:00:${hex(n >> 16, 2)}:${hex((n >> 8) & 0xff, 2)}:${hex(n & 0xff, 2)}`);
  }

  email(real: string): string {
    return this.next('email', real.toLowerCase(), (n) => `user-${n}@mail.test`);
  }

  /** An IPv4 address, with or without a /prefix; undefined when the text is not one (a version number...). */
  ipv4(real: string): string | undefined {
    const [address = '', prefix] = real.split('/');
    const octets = parseIpv4(address);
    if (!octets || (prefix !== undefined && Number(prefix) > 32)) return undefined;
    const standIn =
      isAnonymousIpv4(octets) || address in KEPT_PUBLIC_VALUES ? address : this.next('ipv4', octets.join('.'), documentationIpv4);
    return prefix === undefined ? standIn : `${standIn}/${prefix}`;
  }

  ipv6(real: string): string | undefined {
    const [address = '', prefix] = real.split('/');
    const groups = parseIpv6(address);
    if (!groups || (prefix !== undefined && Number(prefix) > 128)) return undefined;
    const standInFor = (n: number) => (isEui64LinkLocal(groups) ? `fe80::${hex(n, 1)}` : `2001:db8::${hex(n, 1)}`);
    const standIn = isAnonymousIpv6(groups) ? address : this.next('ipv6', groups.join(':'), standInFor);
    return prefix === undefined ? standIn : `${standIn}/${prefix}`;
  }

  /** A word of a label: numbers of up to three digits stay, any other word becomes a stand-in word. */
  word(real: string): string {
    if (KEPT_NUMBER.test(real)) return real;
    const standIn = this.next('word', real.toLowerCase(), (n) => {
      if (n > WORD_COUNT) throw new Error('more distinct words than stand-ins: record fewer targets (-t)');
      const i = n - 1;
      const letter = (k: number) => WORD_LETTERS.charAt(Math.floor(i / WORD_LETTERS.length ** k) % WORD_LETTERS.length);
      return `x${letter(2)}${letter(1)}${letter(0)}`;
    });
    return withCaseOf(real, standIn);
  }

  /** Any text: the ids, addresses and e-mail addresses in it replaced, and the labels it echoes; the rest kept. */
  text(real: string): string {
    const echoes = this.echoes;
    return this.specials(real, echoes ? (rest) => rest.replace(echoes, (label) => this.label(label)) : (rest) => rest);
  }

  /** A name, tag, host name or description: ids and addresses as in text(), every other word replaced too. */
  label(real: string): string {
    if (SCALEWAY_MADE_HOST.test(real)) return this.text(real);
    return this.specials(real, (rest) => this.filtered(rest));
  }

  private specials(real: string, rest: (text: string) => string): string {
    let out = '';
    let last = 0;
    for (const match of real.matchAll(SPECIAL)) {
      const [found] = match;
      const replaced = this.special(match);
      if (replaced === undefined) continue;
      out += rest(real.slice(last, match.index)) + replaced;
      last = match.index + found.length;
    }
    return out + rest(real.slice(last));
  }

  private special(match: RegExpMatchArray): string | undefined {
    const [found, uuid, mac, email, ipv4, ipv6, dashed] = match;
    if (uuid) return this.uuid(found);
    if (mac) return this.mac(found);
    if (email) return this.email(found);
    if (ipv4) return this.ipv4(found);
    if (ipv6) return this.ipv6(found);
    if (dashed) {
      const separator = found.includes('_') ? '_' : '-';
      return this.ipv4(found.replaceAll(separator, '.'))?.replaceAll('.', separator);
    }
    return undefined;
  }

  /** The text's words replaced, a name filter found inside it replaced as a whole first. */
  private filtered(text: string): string {
    for (const filter of this.filters) {
      const at = text.indexOf(filter);
      if (at !== -1 && filter !== text) {
        return this.filtered(text.slice(0, at)) + this.filtered(filter) + this.filtered(text.slice(at + filter.length));
      }
    }
    return this.words(text);
  }

  private words(text: string): string {
    return text.replace(WORD, (word) => this.word(word));
  }
}
