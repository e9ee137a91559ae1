/** One problem in an input, named by its path, with what was wrong and how to fix it. */
export interface FieldError {
  path: string;
  message: string;
  received?: string;
  allowed?: string[];
  fix: string;
}

export function renderFieldError(e: FieldError): string {
  const got = e.received !== undefined ? ` (got ${e.received})` : '';
  return `${e.path}: ${e.message}${got}; fix: ${e.fix}`;
}
