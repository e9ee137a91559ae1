// JSON from outside (a queue message, an inject request, a cron trigger's args), decoded at the edge. A value nested
// thousands of levels deep parses, but whatever walks it next overflows the stack (the schema's issue for it, or the
// description of what was received). So such a value is refused as bad input before it is decoded, with a message.

/** Far deeper than anything the functions take (an event or cron args is at most 2 levels deep). */
export const MAX_JSON_DEPTH = 32;

/** What is wrong with the text: a phrase to follow its subject ("event", "the body", "args"), and the parser's words. */
export interface JsonInputProblem {
  problem: string;
  detail?: string;
}

/** Whether arrays or objects open more than `limit` levels deep (brackets inside strings do not count). */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth += 1;
      if (depth > limit) return true;
    } else if (c === ']' || c === '}') depth -= 1;
  }
  return false;
}

/** The decoded value, or why the text is not one we take. */
export function decodeJsonInput(text: string): { value: unknown } | JsonInputProblem {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return { problem: `is nested more than ${MAX_JSON_DEPTH} levels deep` };
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { problem: 'is not valid JSON', detail: (error as Error).message };
  }
}

/** "is not valid JSON: Unexpected token..." or "is nested more than 32 levels deep". */
export function problemText({ problem, detail }: JsonInputProblem): string {
  return detail === undefined ? problem : `${problem}: ${detail}`;
}
