/** This tool's version, as in package.json (test/unit/version.test.ts keeps the two equal). */
export const TOOL_VERSION = '0.1.0';
