// Exact money arithmetic for guards, the budget and the forecast: the one Money type and its codec live in
// shared/money.ts (amounts as whole millionths in bigint, never a float, no default currency); plan/ uses them
// from here. Pure.
export { differenceMicros, isMoney, microsNumber, microsText, moneyOf, moneyText, sameCurrency, scaleMicros, toMicros, type Money } from '../shared/money';
