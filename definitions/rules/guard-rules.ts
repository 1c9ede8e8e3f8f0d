// Rules on a target group's guards (after the study's, defaults' and its own are merged by name), on the
// study's budget, and on the forecast launch rule: one kind per guard, entrants only where a rate is judged,
// durations a watch can tell apart from an ordinary gap, and every amount in the study's one currency.
import type { DocPath } from '../doc-path';
import { guardDurationMs } from '../periods';
import type { FileReporter } from '../reporter';
import { GUARD_KINDS, PERCENT_TEXT_PATTERN, type Guard, type GuardKind, type MergedTargetGroup, type Money } from '../study-schema';

/** Where guard diagnostics go: a file's reporter, or one that reports each code at a path once. */
export interface GuardReporter {
  report: (...args: Parameters<FileReporter['report']>) => unknown;
}

/** The shortest `no_completes_for`: the watch reads every few minutes, and shorter silences are ordinary. */
export const MIN_NO_COMPLETES_MS = 3_600_000;
/** Guard kinds that judge a rate and so wait for `min_entrants`. */
export const RATE_GUARD_KINDS: readonly GuardKind[] = ['incidence_below', 'drop_off_above'];
const MONEY_KINDS = ['cost_per_complete_above', 'spend_above'] as const;

/** The number of a percentage written as text (`5%` -> 5), or undefined if it is not one. */
export function percentValue(text: string): number | undefined {
  return PERCENT_TEXT_PATTERN.test(text) ? Number(text.slice(0, -1)) : undefined;
}

/** Reports a percentage above 100 (SF4511). Returns whether it is within 100. */
export function checkPercent(text: string, at: DocPath, what: string, r: GuardReporter): boolean {
  const percent = percentValue(text);
  if (percent === undefined) return false; // the structure check's (SF2005)
  if (percent <= 100) return true;
  r.report('SF4511', at, `${what} is ${text}, more than 100%`, { hint: 'give a percentage from 0% to 100%' });
  return false;
}

/** The guards in force of a merged target group: those switched off (`false`) left out. */
export function guardsInForce(guards: MergedTargetGroup['guards']): [string, Guard][] {
  return Object.entries(guards ?? {}).filter((entry): entry is [string, Guard] => entry[1] !== false);
}

/** The kinds a guard gives (a valid guard gives exactly one). */
export function kindsOf(guard: Guard): GuardKind[] {
  return GUARD_KINDS.filter((kind) => guard[kind] !== undefined);
}

/** What the guard and money rules read of a merged target group: they run on these alone when another field is broken. */
export type GuardRuleFields = Pick<MergedTargetGroup, 'launch' | 'guards' | 'start_fielding_at' | 'end_fielding_at'>;

export interface GuardContext {
  key: string;
  tg: GuardRuleFields;
  origin: (...fieldPath: string[]) => DocPath;
  /** The study's budget, whose currency every amount of the study uses. */
  budget?: Money;
  r: GuardReporter;
}

/** Checks the guards in force of one target group and its forecast launch rule. Returns the names of its notify-only guards. */
export function checkGuards({ key, tg, origin, budget, r }: GuardContext): string[] {
  const notifyOnly: string[] = [];
  // The study's money: the budget's currency, else the target group's max_cpi (the business unit's currency).
  const currency = budget?.currency_code ?? tg.launch.max_cpi?.currency_code;
  const currencySource = budget ? 'the study\'s budget' : 'its launch.max_cpi';
  if (budget && tg.launch.max_cpi && tg.launch.max_cpi.currency_code !== budget.currency_code) {
    r.report('SF4505', [...origin('launch', 'max_cpi'), 'currency_code'], `launch.max_cpi of \`${key}\` is in ${tg.launch.max_cpi.currency_code}, the study's budget in ${budget.currency_code}`, {
      hint: 'give every amount of a study in the business unit\'s currency: studyflow has no exchange rate and converts nothing',
    });
  }
  for (const [name, guard] of guardsInForce(tg.guards)) {
    const at = origin('guards', name);
    // A guard of defaults or of the study is reported once, for every target group that has it.
    const of = at[0] === 'target_groups' ? `of \`${key}\`` : at[0] === 'defaults' ? 'of defaults' : 'of the study';
    const kinds = kindsOf(guard);
    if (kinds.length !== 1) {
      r.report('SF4501', at, kinds.length === 0 ? `guard \`${name}\` ${of} names no kind` : `guard \`${name}\` ${of} names ${kinds.join(' and ')}; a guard has exactly one kind`, {
        target: 'key',
        hint: `give one of ${GUARD_KINDS.join(', ')} (with its threshold); write two guards for two rules`,
      });
      continue;
    }
    const kind = kinds[0];
    if (guard.action === 'notify') notifyOnly.push(name);
    if (guard.min_entrants !== undefined && !RATE_GUARD_KINDS.includes(kind)) {
      r.report('SF4502', [...at, 'min_entrants'], `guard \`${name}\` (${kind}) does not count entrants; min_entrants is for incidence_below and drop_off_above`, {
        target: 'key',
        hint: 'remove min_entrants',
      });
    }
    if (kind === 'quota_behind') checkPercent(guard.quota_behind!.shortfall_above, [...at, 'quota_behind', 'shortfall_above'], `shortfall_above of guard \`${name}\``, r);
    if (kind === 'no_completes_for') checkSilence(name, guard.no_completes_for as string, [...at, 'no_completes_for'], tg, r);
    for (const moneyKind of MONEY_KINDS) {
      const amount = guard[moneyKind];
      if (!amount || currency === undefined || amount.currency_code === currency) continue;
      r.report('SF4505', [...at, moneyKind, 'currency_code'], `guard \`${name}\` ${of} is in ${amount.currency_code}, ${currencySource} in ${currency}`, {
        hint: 'the exchange reports spend in the business unit\'s currency and studyflow converts nothing: give the threshold in that currency',
      });
    }
  }
  if (tg.launch.require_forecast_before_end && tg.end_fielding_at === undefined) {
    r.report('SF4507', origin('launch', 'require_forecast_before_end'), `\`${key}\` requires the forecast to end before end_fielding_at, and has no end_fielding_at`, {
      hint: 'set end_fielding_at on the target group or in defaults, or drop the rule',
    });
  }
  return notifyOnly;
}

function checkSilence(name: string, duration: string, at: DocPath, tg: GuardRuleFields, r: GuardReporter): void {
  const ms = guardDurationMs(duration);
  if (ms === undefined) return; // a malformed duration is the structure check's (SF2005)
  if (ms < MIN_NO_COMPLETES_MS) {
    r.report('SF4503', at, `guard \`${name}\`: no_completes_for ${duration} is shorter than one hour`, {
      hint: 'the watch reads every few minutes, and gaps of minutes between completes are ordinary: give PT1H or more, such as P2D',
    });
    return;
  }
  const start = Date.parse(tg.launch.at ?? tg.start_fielding_at ?? '');
  const end = Date.parse(tg.end_fielding_at ?? '');
  if (Number.isFinite(start) && Number.isFinite(end) && end > start && ms >= end - start) {
    r.report('SF4504', at, `guard \`${name}\`: no_completes_for ${duration} is as long as the fielding window or longer, so it can never trip`, {
      hint: 'shorten it, or remove the guard',
    });
  }
}

/**
 * Warns about a quota_behind guard on a target group with no quota to judge (no profile with quotas enabled and a
 * quota, no profile template in the API that may bring some): it can never trip.
 */
export function checkQuotaGuards(key: string, guards: MergedTargetGroup['guards'], hasQuotas: boolean, origin: (...fieldPath: string[]) => DocPath, r: GuardReporter): void {
  if (hasQuotas) return;
  for (const [name, guard] of guardsInForce(guards)) {
    if (guard.quota_behind === undefined || kindsOf(guard).length !== 1) continue;
    r.report('SF4508', [...origin('guards', name), 'quota_behind'], `guard \`${name}\` judges quotas, and \`${key}\` has none`, {
      target: 'key',
      hint: 'give the target group a profile with quotas_enabled: true and quotas, or switch the guard off for it (`' + name + ': false`)',
    });
  }
}

/** Warns about notify-only guards when no notification target takes `guard_tripped`: they would tell no one. */
export function checkNotifyOnlyGuards(entries: readonly { name: string; at: DocPath }[], listens: boolean, r: GuardReporter): void {
  if (listens) return;
  for (const { name, at } of entries) {
    r.report('SF4506', [...at, 'action'], `guard \`${name}\` only notifies, and no notify target takes guard_tripped`, {
      hint: 'add a notify target (here or in shared.yaml) whose events include guard_tripped, or let the guard pause',
    });
  }
}
