/**
 * The part of the WHATWG fetch classes (Headers, Request, Response) the Scaleway SDK uses, in plain JS.
 * Node's own classes come with undici: touching `Request` or `fetch` loads it (~45 ms and ~8 MB on a cold
 * start), and its HTTP client compiles a WebAssembly parser (a ~25 MB transient peak). The function bundles
 * bind the SDK's references to these classes instead (scripts/build.mjs), and http-transport.ts sends them
 * with node:http. Accepts Node's own classes as input too, so the same transport serves unbundled code.
 */
import { Blob } from 'node:buffer';

type HeaderSource =
  | Iterable<readonly [string, string]>
  | Record<string, string>
  | { forEach(cb: (value: string, key: string) => void): void };

export class HttpHeaders {
  readonly #map = new Map<string, string>();

  constructor(init?: HeaderSource | null) {
    if (!init) return;
    if (typeof (init as { forEach?: unknown }).forEach === 'function' && !Array.isArray(init)) {
      (init as { forEach(cb: (value: string, key: string) => void): void }).forEach((value, key) => {
        this.append(key, value);
      });
    } else if (Symbol.iterator in (init as object)) {
      for (const [key, value] of init as Iterable<readonly [string, string]>) this.append(key, value);
    } else {
      for (const [key, value] of Object.entries(init as Record<string, string>)) this.append(key, value);
    }
  }

  get(name: string): string | null {
    return this.#map.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.#map.has(name.toLowerCase());
  }

  set(name: string, value: string): void {
    this.#map.set(name.toLowerCase(), String(value));
  }

  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const previous = this.#map.get(key);
    this.#map.set(key, previous === undefined ? String(value) : `${previous}, ${value}`);
  }

  delete(name: string): void {
    this.#map.delete(name.toLowerCase());
  }

  forEach(callback: (value: string, key: string, headers: HttpHeaders) => void): void {
    for (const [key, value] of this.entries()) callback(value, key, this);
  }

  *entries(): IterableIterator<[string, string]> {
    yield* [...this.#map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  *keys(): IterableIterator<string> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

type BodyInit = string | Uint8Array | null | undefined;

function asBuffer(body: BodyInit): Buffer | null {
  if (body === null || body === undefined) return null;
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** The body methods Request and Response share; the body is held in memory (API answers are small). */
abstract class BufferedBody {
  readonly #bytes: Buffer | null;
  #used = false;

  protected constructor(bytes: Buffer | null) {
    this.#bytes = bytes;
  }

  /** The raw bytes, or null; `fetch` callers test `body !== undefined`, so it is never undefined. */
  get body(): Buffer | null {
    return this.#bytes;
  }

  get bodyUsed(): boolean {
    return this.#used;
  }

  protected consume(): Buffer {
    if (this.#used) throw new TypeError('Body has already been read');
    this.#used = true;
    return this.#bytes ?? Buffer.alloc(0);
  }

  async text(): Promise<string> {
    return this.consume().toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = this.consume();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async blob(): Promise<Blob> {
    const type = (this as unknown as { headers: HttpHeaders }).headers.get('content-type') ?? '';
    return new Blob([this.consume()], { type });
  }
}

export interface HttpRequestInit {
  method?: string;
  headers?: HeaderSource;
  body?: BodyInit;
}

export class HttpRequest extends BufferedBody {
  readonly url: string;
  readonly method: string;
  readonly #headers: HttpHeaders;

  constructor(input: string | URL | HttpRequest, init: HttpRequestInit = {}) {
    const from = input instanceof HttpRequest ? input : undefined;
    super(init.body !== undefined ? asBuffer(init.body) : (from?.body ?? null));
    this.url = from ? from.url : String(input);
    this.method = (init.method ?? from?.method ?? 'GET').toUpperCase();
    this.#headers = new HttpHeaders(init.headers ?? from?.headers);
  }

  get headers(): HttpHeaders {
    return this.#headers;
  }

  clone(): HttpRequest {
    return new HttpRequest(this);
  }
}

export interface HttpResponseInit {
  status?: number;
  statusText?: string;
  headers?: HeaderSource;
}

export class HttpResponse extends BufferedBody {
  readonly status: number;
  readonly statusText: string;
  readonly headers: HttpHeaders;

  constructor(body?: BodyInit, init: HttpResponseInit = {}) {
    super(asBuffer(body));
    this.status = init.status ?? 200;
    this.statusText = init.statusText ?? '';
    this.headers = new HttpHeaders(init.headers);
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  clone(): HttpResponse {
    if (this.bodyUsed) throw new TypeError('Response body has already been read');
    return new HttpResponse(this.body, { status: this.status, statusText: this.statusText, headers: this.headers });
  }
}

/** A Content-Type's media type, lower-cased, without its parameters: `application/json`. */
export function mediaType(contentType: string | undefined): string | undefined {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return type === '' ? undefined : type;
}

/** application/json, or a +json type (application/problem+json). */
export const isJsonType = (type: string | undefined) => type === 'application/json' || (type?.endsWith('+json') ?? false);
