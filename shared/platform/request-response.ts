/** The Scaleway Functions Node runtime's request, context and answer (the parts we use). */
export interface PlatformEvent {
  httpMethod?: string;
  path?: string;
  headers?: Record<string, unknown> | null;
  body?: string | null;
  isBase64Encoded?: boolean;
}

export interface PlatformContext {
  functionName?: string;
  memoryLimitInMb?: number;
  functionVersion?: string;
}

export interface PlatformResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export function jsonResponse(statusCode: number, body: unknown, headers: Record<string, string> = {}): PlatformResponse {
  return { statusCode, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

export function requestBody(event: PlatformEvent): string {
  const body = event.body ?? '';
  return event.isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
}

export function header(event: PlatformEvent, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(event.headers ?? {})) {
    if (key.toLowerCase() !== wanted) continue;
    if (Array.isArray(value)) return value.map(String).join(', ');
    return value === undefined || value === null ? undefined : String(value);
  }
  return undefined;
}

export function requestId(event: PlatformEvent): string | undefined {
  return header(event, 'x-request-id') ?? header(event, 'x-envoy-external-address') ?? undefined;
}
