// Bounded concurrency for work that makes many calls: api/operations/concurrency.ts (observing a study runs there).
export { inParallel } from '../api/operations/concurrency';
