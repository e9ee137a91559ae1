// Every listing the Scaleway gateway makes, read page after page. The SDK's own `all()` reads the first page, then
// asks at once for every page its total (`X-Total-Count`, `total_count`) announces. A total of 3000 for 3 servers
// would be a thousand requests in one burst. Here a page is asked for only after a full one, and the first short or
// empty page ends the listing. The total is not read at all, so a wrong total cannot cut a listing short either. A
// listing that goes on past the cap fails, rather than being used half read.

/** Items asked for per page: the most the LB, Instance and IPAM APIs take (API reference). */
export const PAGE_SIZE = 100;

/** Pages one listing may read: 5,000 items, far more than a target's servers or an LB's backends. */
export const MAX_PAGES = 50;

/** The name a listing that went on past the cap is thrown under (api-failure.ts reports it as `listing_too_long`). */
export const LISTING_TOO_LONG_ERROR = 'ListingTooLongError';

export interface PageLimits {
  pageSize: number;
  maxPages: number;
}

const DEFAULT_LIMITS: PageLimits = { pageSize: PAGE_SIZE, maxPages: MAX_PAGES };

/**
 * Reads `readPage(1)`, `readPage(2)`, ... one after another while each answers a full page; `operation` names the
 * listing in the error of one that never ends.
 */
export async function readPages<T>(
  operation: string,
  readPage: (page: number, pageSize: number) => Promise<readonly T[]>,
  limits: PageLimits = DEFAULT_LIMITS,
): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; page <= limits.maxPages; page += 1) {
    const answered = await readPage(page, limits.pageSize);
    items.push(...answered);
    if (answered.length < limits.pageSize) return items;
  }
  const error = new Error(
    `${operation} answered ${limits.maxPages} full pages of ${limits.pageSize} and had more: a listing that long is not used (nothing was written)`,
  );
  error.name = LISTING_TOO_LONG_ERROR;
  throw error;
}
