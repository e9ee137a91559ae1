// The schedule syntax both Scaleway and serverless-scaleway-functions accept.

/**
 * A 5-field cron that both the platform (standard cron, UTC) and the plugin's validator accept:
 * fields separated by one space, each `*`, a number, a list of numbers or a range `a-b`.
 * The plugin rejects steps on `*` (e.g. `*\/5`) and names (MON, JAN).
 * @param {unknown} rate
 * @returns {string[]} what is wrong with it; empty when it is accepted
 */
export function cronProblems(rate) {
  if (typeof rate !== 'string') return ['the schedule rate must be a string'];
  const fields = rate.split(' ');
  if (fields.length !== 5) return [`"${rate}" must have exactly 5 fields separated by single spaces (minute hour day-of-month month day-of-week, UTC)`];
  const bounds = [['minute', 0, 59], ['hour', 0, 23], ['day of month', 1, 31], ['month', 1, 12], ['day of week', 0, 7]];
  const problems = [];
  fields.forEach((field, i) => {
    const [label, min, max] = bounds[i];
    const inRange = (n) => Number.isInteger(n) && n >= min && n <= max;
    if (field === '*') return;
    if (/^\d+(,\d+)*$/.test(field)) {
      const bad = field.split(',').map(Number).filter((n) => !inRange(n));
      if (bad.length > 0) problems.push(`${label} ${bad.join(',')} is outside ${min}-${max}`);
      return;
    }
    const range = /^(\d+)-(\d+)$/.exec(field);
    if (range) {
      const [a, b] = [Number(range[1]), Number(range[2])];
      if (!inRange(a) || !inRange(b) || a > b) problems.push(`${label} range ${field} must be a-b with ${min} <= a <= b <= ${max}`);
      return;
    }
    if (field.includes('/')) {
      problems.push(`${label} "${field}": serverless-scaleway-functions rejects step syntax; list the values instead (e.g. 0,15,30,45)`);
      return;
    }
    problems.push(`${label} "${field}" must be *, a number, a comma-separated list of numbers or a range a-b`);
  });
  return problems;
}
