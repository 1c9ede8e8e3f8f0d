// Times as the exchange and the workflows give them (ISO-8601 strings). Pure; imports nothing.

/** The latest of some times (ISO 8601; unreadable or absent ones left out), or undefined. */
export const latestTime = (...times: (string | undefined)[]): string | undefined =>
  times.filter((t): t is string => t !== undefined && Number.isFinite(Date.parse(t))).reduce<string | undefined>((a, b) => (a === undefined || Date.parse(b) > Date.parse(a) ? b : a), undefined);
