// The simulated panel: respondent number i of a locale has a fixed identity and fixed answers to
// every catalogue question, all derived by hashing (locale, i), so the same respondent looks the
// same in every target group and every run.
//   rsid                    a UUID (the reference's RSID format): <locale hash, 8 hex>-5b00-4000-8000-<i, 12 digits>
//   access_respondent_guid  a UUID-shaped hex string derived from the rsid
// Answers: single-choice by the option shares; multi-choice each option independently; age by the
// band shares; zip code and free-text answers fall in one of 1/share "slots", and a listed code or
// value matches when it hashes to the respondent's slot.

import { canonicalLocale, normalizeZipCode, type LocaleMarket } from './locale-markets';
import { combinedProfileIds, type Condition, type Profile, type Target } from './profile-types';
import { findQuestion, type Question } from './question-catalogue';
import { hashString, unitHash } from './seeded-random';

export interface RespondentIdentity {
  rsid: string;
  access_respondent_guid: string;
}

export function respondentRsid(locale: string, index: number): string {
  return `${rsidPrefix(locale)}-${String(index).padStart(12, '0')}`;
}

/** The part of a locale's panel RSIDs before the respondent's number. */
export function rsidPrefix(locale: string): string {
  return `${hashString(`rsid:${canonicalLocale(locale) ?? locale}`).toString(16).padStart(8, '0')}-5b00-4000-8000`;
}

/** The panel member number of a locale's RSID, or undefined for an RSID outside that panel. */
export function panelIndexOfRsid(locale: string, rsid: string): number | undefined {
  const prefix = `${rsidPrefix(locale)}-`;
  const rest = rsid.toLowerCase().startsWith(prefix) ? rsid.slice(prefix.length) : '';
  return /^\d{12}$/.test(rest) ? Number(rest) : undefined;
}

export function respondentIdentity(locale: string, index: number): RespondentIdentity {
  const rsid = respondentRsid(locale, index);
  return { rsid, access_respondent_guid: accessRespondentGuidOf(rsid) };
}

/** The access respondent GUID the sandbox derives from an rsid. */
export function accessRespondentGuidOf(rsid: string): string {
  const hex = [0, 1, 2, 3].map((part) => hashString(`${rsid}#${part}`).toString(16).padStart(8, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function singleAnswer(question: Question, locale: string, index: number): string | undefined {
  const u = unitHash('answer', locale, index, question.id);
  let cumulative = 0;
  for (const option of question.options) {
    cumulative += option.share;
    if (u < cumulative) return option.option;
  }
  return question.options[question.options.length - 1]?.option;
}

function rangeAnswer(question: Question, locale: string, index: number): number {
  const bands = question.range!.bands;
  const u = unitHash('answer', locale, index, question.id);
  const total = bands.reduce((sum, band) => sum + band.share, 0);
  let cumulative = 0;
  for (const band of bands) {
    cumulative += band.share / total;
    if (u < cumulative) return band.min + Math.floor(unitHash('answer-in-band', locale, index, question.id) * (band.max - band.min + 1));
  }
  return bands[bands.length - 1].max;
}

const slotOf = (value: string, slots: number): number => hashString(value) % slots;

function conditionMatches(condition: Condition, locale: string, index: number, market: LocaleMarket): boolean {
  const question = findQuestion(condition.question_id);
  if (!question) return false;
  switch (condition.object) {
    case 'selection': {
      if (question.kind === 'multi') {
        const option = question.options.find((candidate) => candidate.option === condition.option);
        return option !== undefined && unitHash('answer', locale, index, question.id, option.option) < option.share;
      }
      return singleAnswer(question, locale, index) === condition.option;
    }
    case 'range': {
      const value = rangeAnswer(question, locale, index);
      return value >= condition.min && value <= condition.max;
    }
    case 'zip_code': {
      if (condition.allow_all_values) return true;
      const slot = Math.floor(unitHash('zip', locale, index) * market.zipCodeCount);
      return condition.zip_codes.some((code) => slotOf(normalizeZipCode(code), market.zipCodeCount) === slot);
    }
    default: {
      if (condition.allow_all_values) return true;
      const slots = Math.max(1, Math.round(1 / (question.sharePerValue ?? 1)));
      const slot = Math.floor(unitHash('free-text', locale, index, question.id) * slots);
      return condition.values.some((value) => slotOf(value.toLowerCase(), slots) === slot);
    }
  }
}

/** A target matches when, for every question it names, at least one of its conditions on that question matches. */
export function targetMatches(target: Target, locale: string, index: number, market: LocaleMarket): boolean {
  const byQuestion = new Map<number, Condition[]>();
  for (const condition of target.conditions) byQuestion.set(condition.question_id, [...(byQuestion.get(condition.question_id) ?? []), condition]);
  return [...byQuestion.values()].every((conditions) => conditions.some((condition) => conditionMatches(condition, locale, index, market)));
}

export interface Qualification {
  qualifies: boolean;
  /** `profile_id/target_id` of the first matching target of each quota-enabled profile. */
  quotaTargetKeys: string[];
}

/** Whether the respondent passes every restricting profile, and which quota targets they count towards. */
export function qualifyRespondent(profiles: readonly Profile[], locale: string, index: number, market: LocaleMarket): Qualification {
  const blendedSources = new Set(profiles.flatMap(combinedProfileIds));
  const quotaTargetKeys: string[] = [];
  for (const profile of profiles) {
    const match = profile.targets.find((target) => targetMatches(target, locale, index, market));
    if (!match && !blendedSources.has(profile.id)) return { qualifies: false, quotaTargetKeys: [] };
    if (match && profile.quotas_enabled) quotaTargetKeys.push(`${profile.id}/${match.id}`);
  }
  return { qualifies: true, quotaTargetKeys };
}
