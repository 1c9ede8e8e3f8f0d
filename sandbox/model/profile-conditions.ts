// Reading one condition of a target (selection, range, zip_code, open_ended) against the question
// catalogue and the locale, and the de-duplication rules: repeated zip codes (and free-text values) are
// removed silently, exact repeats only (the reference: "removes duplicate open-ended values"; the narrower
// reading, so a value is stored as it was sent and a draft read back equals the request that wrote it);
// duplicate selection or range conditions are left for the profile rules to reject.

import { isInteger, isRecord } from './json-shape';
import { normalizeZipCode, type LocaleMarket } from './locale-markets';
import type { Condition, ZipCodeCondition, OpenEndedCondition } from './profile-types';
import { CONDITION_OBJECTS } from './profile-types';
import { findOption, findQuestion, isAskedIn, type Question } from './question-catalogue';
import type { ValidationProblems } from './validation-problems';

export const MAX_ZIP_CODES_PER_CONDITION = 10_000;
export const MAX_OPEN_ENDED_VALUES = 10_000;
export const MAX_OPEN_ENDED_VALUE_LENGTH = 100;

export function readCondition(raw: unknown, path: string, market: LocaleMarket, problems: ValidationProblems): Condition | undefined {
  if (!isRecord(raw)) {
    problems.shape(path, 'must be a condition object');
    return undefined;
  }
  const kind = raw.object;
  if (typeof kind !== 'string' || !(CONDITION_OBJECTS as readonly string[]).includes(kind)) {
    problems.shape(`${path}.object`, `must be one of ${CONDITION_OBJECTS.join(', ')}`);
    return undefined;
  }
  if (!isInteger(raw.question_id)) {
    problems.shape(`${path}.question_id`, 'must be an integer');
    return undefined;
  }
  const questionId = raw.question_id;
  const question = findQuestion(questionId);
  if (question && !isAskedIn(question, market.locale)) {
    problems.rule('unknown_question', `${path}.question_id`, `question ${questionId} is not asked in ${market.locale} (only in ${question.locales!.join(', ')})`);
    return undefined;
  }
  switch (kind) {
    case 'selection':
      return readSelection(raw.option, questionId, question, path, problems);
    case 'range':
      return readRange(raw.min, raw.max, questionId, question, path, problems);
    case 'zip_code':
      if (raw.allow_all_values === true) return requireQuestion(question, questionId, ['zip_code'], 'zip_code', path, problems) ? { object: 'zip_code', question_id: questionId, allow_all_values: true, zip_codes: [] } : undefined;
      return readZipCodes(raw.zip_codes, questionId, question, path, market, problems);
    default:
      if (raw.allow_all_values === true) return requireQuestion(question, questionId, ['open_ended'], 'open_ended', path, problems) ? { object: 'open_ended', question_id: questionId, allow_all_values: true, values: [] } : undefined;
      return readOpenEnded(raw.values, questionId, question, path, problems);
  }
}

function requireQuestion(question: Question | undefined, questionId: number, kinds: Question['kind'][], conditionKind: string, path: string, problems: ValidationProblems): question is Question {
  if (!question) {
    problems.rule('unknown_question', `${path}.question_id`, `question ${questionId} does not exist`);
    return false;
  }
  if (!kinds.includes(question.kind)) {
    problems.rule('invalid_condition', `${path}.object`, `question ${questionId} is a ${question.kind} question; a ${conditionKind} condition does not apply to it`);
    return false;
  }
  return true;
}

function readSelection(option: unknown, questionId: number, question: Question | undefined, path: string, problems: ValidationProblems): Condition | undefined {
  if (typeof option !== 'string' || option.length === 0) {
    problems.shape(`${path}.option`, 'must be a non-empty string');
    return undefined;
  }
  if (!requireQuestion(question, questionId, ['single', 'multi'], 'selection', path, problems)) return undefined;
  if (!findOption(question, option)) {
    problems.rule('unknown_option', `${path}.option`, `question ${questionId} has no option "${option}"`);
    return undefined;
  }
  return { object: 'selection', question_id: questionId, option };
}

function readRange(min: unknown, max: unknown, questionId: number, question: Question | undefined, path: string, problems: ValidationProblems): Condition | undefined {
  let wellFormed = true;
  if (!isInteger(min)) {
    problems.shape(`${path}.min`, 'must be an integer');
    wellFormed = false;
  }
  if (!isInteger(max)) {
    problems.shape(`${path}.max`, 'must be an integer');
    wellFormed = false;
  }
  if (!wellFormed || !isInteger(min) || !isInteger(max)) return undefined;
  if (!requireQuestion(question, questionId, ['range'], 'range', path, problems)) return undefined;
  const bounds = question.range!;
  if (min > max) {
    problems.rule('invalid_condition', `${path}.min`, `min ${min} is greater than max ${max}`);
    return undefined;
  }
  if (min < bounds.min || max > bounds.max) {
    problems.rule('invalid_condition', path, `range must lie within ${bounds.min}-${bounds.max} for question ${questionId}`);
    return undefined;
  }
  return { object: 'range', question_id: questionId, min, max };
}

function readZipCodes(codes: unknown, questionId: number, question: Question | undefined, path: string, market: LocaleMarket, problems: ValidationProblems): ZipCodeCondition | undefined {
  if (!Array.isArray(codes) || codes.length === 0 || !codes.every((code) => typeof code === 'string')) {
    problems.shape(`${path}.zip_codes`, 'must be a non-empty array of strings');
    return undefined;
  }
  if (!requireQuestion(question, questionId, ['zip_code'], 'zip_code', path, problems)) return undefined;
  // Exact repeats go first, silently; the remaining codes are validated (written in any case and spacing the
  // market's pattern allows once normalized) and stored as sent.
  const unique = [...new Set(codes as string[])];
  if (unique.length > MAX_ZIP_CODES_PER_CONDITION) {
    problems.rule('invalid_condition', `${path}.zip_codes`, `at most ${MAX_ZIP_CODES_PER_CONDITION} distinct zip codes per condition`);
    return undefined;
  }
  const invalid = unique.filter((code) => !market.zipCodePattern.test(normalizeZipCode(code)));
  if (invalid.length > 0) {
    problems.rule('invalid_zip_code', `${path}.zip_codes`, `not valid zip codes for ${market.locale}: ${invalid.slice(0, 5).join(', ')}${invalid.length > 5 ? ', …' : ''}`);
    return undefined;
  }
  return { object: 'zip_code', question_id: questionId, allow_all_values: false, zip_codes: unique };
}

function readOpenEnded(values: unknown, questionId: number, question: Question | undefined, path: string, problems: ValidationProblems): OpenEndedCondition | undefined {
  if (!Array.isArray(values) || values.length === 0 || !values.every((value) => typeof value === 'string' && value.trim().length > 0)) {
    problems.shape(`${path}.values`, 'must be a non-empty array of non-empty strings');
    return undefined;
  }
  if (!requireQuestion(question, questionId, ['open_ended'], 'open_ended', path, problems)) return undefined;
  // Exact repeats only: `Acme` and `acme` are two values, each stored as sent.
  const unique = [...new Set(values as string[])];
  if (unique.length > MAX_OPEN_ENDED_VALUES || unique.some((value) => value.length > MAX_OPEN_ENDED_VALUE_LENGTH)) {
    problems.rule('invalid_condition', `${path}.values`, `at most ${MAX_OPEN_ENDED_VALUES} values of up to ${MAX_OPEN_ENDED_VALUE_LENGTH} characters`);
    return undefined;
  }
  return { object: 'open_ended', question_id: questionId, allow_all_values: false, values: unique };
}

/**
 * Removes zip codes already listed by an earlier zip condition on the same question in the same
 * target (silently), dropping zip conditions left empty.
 */
export function removeDuplicateZipCodesAcrossConditions(conditions: Condition[]): Condition[] {
  const seenByQuestion = new Map<number, Set<string>>();
  const result: Condition[] = [];
  for (const condition of conditions) {
    if (condition.object !== 'zip_code' || condition.allow_all_values) {
      result.push(condition);
      continue;
    }
    const seen = seenByQuestion.get(condition.question_id) ?? new Set<string>();
    seenByQuestion.set(condition.question_id, seen);
    const fresh = condition.zip_codes.filter((code) => !seen.has(code));
    fresh.forEach((code) => seen.add(code));
    if (fresh.length > 0) result.push({ ...condition, zip_codes: fresh });
  }
  return result;
}

/** Identity of a selection or range condition for duplicate detection; undefined for the other kinds. */
export function duplicateKey(condition: Condition): string | undefined {
  if (condition.object === 'selection') return `selection:${condition.question_id}:${condition.option}`;
  if (condition.object === 'range') return `range:${condition.question_id}:${condition.min}-${condition.max}`;
  return undefined;
}

export function describeCondition(condition: Condition, language: string): string {
  const question = findQuestion(condition.question_id);
  switch (condition.object) {
    case 'selection': {
      const option = question ? findOption(question, condition.option) : undefined;
      return option ? ((option.text as Record<string, string>)[language] ?? option.text.en) : condition.option;
    }
    case 'range':
      return `${condition.min}-${condition.max}`;
    case 'zip_code':
      if (condition.allow_all_values) return '*';
      return condition.zip_codes.length <= 3 ? condition.zip_codes.join(', ') : `${condition.zip_codes.slice(0, 3).join(', ')} (+${condition.zip_codes.length - 3})`;
    default:
      return condition.allow_all_values ? '*' : condition.values.join(' / ');
  }
}
