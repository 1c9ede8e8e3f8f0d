export * from './types';
export { planStudy, isWrite, observedFor, resolveActivityItems } from './plan-study';
export { holdsDesired, fieldChanges, canonicalJson } from './compare';
