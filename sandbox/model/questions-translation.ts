// The question catalogue as the reference's account_questions_translation answers it (GET P/questions-translation):
// each question a QuestionResponseProfileFormat, a regular profile in the reference's vocabulary whose targets are
// the question's answers. The route (sandbox/routes/reporting.ts) reads the locale; this reads the rest of the query.

import { badRequest } from '../core/api-error';
import { paginate, parsePageRequest } from '../core/pagination';
import { languageOfIso6392, type LocaleMarket } from './locale-markets';
import { isAskedIn, listQuestions, textIn, type Question } from './question-catalogue';

/** The reference's profile_condition_type of a question kind. */
const CONDITION_TYPES: Record<Question['kind'], string> = {
  single: 'Single Punch',
  multi: 'Multi Punch',
  range: 'Numeric - Open-end',
  zip_code: 'Text - Open-end',
  open_ended: 'Text - Open-end',
};

/**
 * One question as account_questions_translation answers it (QuestionResponseProfileFormat): a regular profile named
 * by the question's key, `description` in the locale's language and `description_translated` in the translation
 * language; each option a target `{text, text_translated, conditions: [selection]}`; a range question one target with
 * its whole range, an open-ended one (zip codes among them) one target with every answer. All standard questions.
 */
function renderQuestionProfile(question: Question, market: LocaleMarket, translation: string): Record<string, unknown> {
  const target = (conditions: unknown[], text = '', translated = '') => ({ text, text_translated: translated, conditions });
  let targets: unknown[];
  if (question.kind === 'single' || question.kind === 'multi') {
    targets = question.options.map((option) => target([{ object: 'selection', question_id: question.id, option: option.option }], textIn(option.text, market.language), textIn(option.text, translation)));
  } else if (question.kind === 'range') {
    targets = [target([{ object: 'range', question_id: question.id, min: question.range!.min, max: question.range!.max }])];
  } else {
    targets = [target([{ object: 'open_ended', question_id: question.id, allow_all_values: true, open_ended_values: null }])];
  }
  return {
    object: 'regular',
    name: question.key,
    description: textIn(question.text, market.language),
    description_translated: textIn(question.text, translation),
    quotas_enabled: false,
    targets,
    standard: true,
    profile_condition_type: CONDITION_TYPES[question.kind],
  };
}

/** `id`: a comma-separated list of question ids (none: every question). */
function readQuestionIds(query: URLSearchParams): Set<number> | null {
  if (query.has('question_ids')) throw badRequest('question_ids is not a parameter of this list.', [{ name: 'question_ids', reason: 'the question ids filter is id (comma-separated)' }]);
  const raw = query.get('id');
  if (raw === null) return null;
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.some((part) => !/^\d{1,9}$/.test(part))) throw badRequest('id is invalid.', [{ name: 'id', reason: 'must be a comma-separated list of question ids' }]);
  return new Set(parts.map(Number));
}

function readFlag(query: URLSearchParams, name: string): boolean {
  const raw = query.get(name);
  if (raw === null) return false;
  if (raw !== 'true' && raw !== 'false') throw badRequest(`${name} is invalid.`, [{ name, reason: 'must be true or false' }]);
  return raw === 'true';
}

/**
 * A page of account_questions_translation in the locale's market: `{total, profiles, has_more, next_cursor}`, profiles
 * null when nothing matches. `id` filters by question ids; `translation_language` (ISO 639-2, default English) names the language of the `_translated`
 * texts; `query` filters on the question's and its answers' texts (locale or English, any case). The sandbox has
 * standard questions only: `only_custom_quals=true` matches none. `end_before` (paging backwards) is not supported: 400.
 */
export function questionsTranslationPage(query: URLSearchParams, market: LocaleMarket): Record<string, unknown> {
  const ids = readQuestionIds(query);
  const rawLanguage = query.get('translation_language');
  const translation = rawLanguage === null ? 'en' : languageOfIso6392(rawLanguage);
  if (!translation) throw badRequest('translation_language is invalid.', [{ name: 'translation_language', reason: 'must be an ISO 639-2 code of a supported language, such as eng or spa' }]);
  if (query.has('end_before')) throw badRequest('end_before is not supported by the sandbox.', [{ name: 'end_before', reason: 'page forward with start_after' }]);
  readFlag(query, 'allow_custom_quals');
  const onlyCustom = readFlag(query, 'only_custom_quals');
  const search = query.get('query')?.trim().toLowerCase() ?? '';
  const page = parsePageRequest(query, { max: 100, default: 10 });
  const texts = (question: Question) => [question.key, question.text.en, textIn(question.text, market.language), ...question.options.flatMap((o) => [o.text.en, textIn(o.text, market.language)])];
  const items = listQuestions()
    .map((question, index) => ({ seq: index + 1, question }))
    .filter(({ question }) => !onlyCustom && isAskedIn(question, market.locale) && (ids === null || ids.has(question.id)))
    .filter(({ question }) => search === '' || texts(question).some((t) => t.toLowerCase().includes(search)));
  const body = paginate(items, page, ({ question }) => renderQuestionProfile(question, market, translation));
  return { total: items.length, profiles: body.data.length ? body.data : null, has_more: body.has_more, next_cursor: body.next_cursor };
}
