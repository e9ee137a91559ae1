import type { z } from 'zod';

/** One problem in an input, named by its path, with what was wrong and how to fix it. */
export interface FieldError {
  path: string;
  message: string;
  received?: string;
  allowed?: string[];
  fix: string;
}

export function formatPath(path: readonly PropertyKey[], root = ''): string {
  let out = root;
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out || '(root)';
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function fixFor(issue: z.core.$ZodIssue, allowed: string[] | undefined): string {
  switch (issue.code) {
    case 'invalid_value':
      return `use one of: ${allowed?.join(', ')}`;
    case 'unrecognized_keys':
      return `remove ${issue.keys.map((k) => JSON.stringify(k)).join(', ')} (check the spelling against the configuration reference)`;
    case 'invalid_type':
      return issue.input === undefined ? `add the required field (${issue.expected})` : `give a ${issue.expected}`;
    case 'too_small':
      return issue.origin === 'array' ? `give at least ${issue.minimum} item(s)` : `give a value of at least ${issue.minimum}`;
    case 'too_big':
      return issue.origin === 'array' ? `give at most ${issue.maximum} item(s)` : `give a value of at most ${issue.maximum}`;
    case 'invalid_format':
      return 'give a value in the stated format';
    default:
      return 'change the value as the message says';
  }
}

export function toFieldErrors(error: z.ZodError, root = ''): FieldError[] {
  return error.issues.map((issue) => {
    const allowed =
      issue.code === 'invalid_value' ? issue.values.map((v) => String(v)) : undefined;
    const received =
      'input' in issue && issue.input !== undefined && issue.code !== 'unrecognized_keys' ? describeValue(issue.input) : undefined;
    const message =
      issue.code === 'invalid_type' && issue.input === undefined ? `required ${issue.expected} is missing` : issue.message;
    return {
      path: formatPath(issue.path, root),
      message,
      ...(received !== undefined && { received }),
      ...(allowed && { allowed }),
      fix: fixFor(issue, allowed),
    };
  });
}

export function renderFieldError(e: FieldError): string {
  const got = e.received !== undefined ? ` (got ${e.received})` : '';
  return `${e.path}: ${e.message}${got}; fix: ${e.fix}`;
}
