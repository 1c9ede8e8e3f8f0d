// Reporting (spec: Endpoints › Target groups; Removed or deprecated endpoints; Resources › completes_cost).
//   GET TG/performance                              completes, completes_by_status, completes_cost, quotas
//   GET P/questions-translation?locale&id&translation_language&query&allow_custom_quals&only_custom_quals
//                                                   the question catalogue in the reference's profile vocabulary
//                                                   (account_questions_translation), paginated
//   GET /v1/demand/questions[?locale], GET /v1/demand/questions/{question_id}[?locale]
//                                                   deprecated in every version, still answering (Deprecation header)
// The module also runs the fielding simulation (reporting-fielding-simulation.ts) behind performance.

import { badRequest, notFound } from '../core/api-error';
import { paginate, parsePageRequest } from '../core/pagination';
import { ok, type RequestContext, type RouteModule } from '../core/route-module';
import { usesNewNames } from '../core/versioning';
import { requireTargetGroup } from '../resources/lookups';
import { canonicalLocale, findLocaleMarket, languageOfIso6392, type LocaleMarket } from '../model/locale-markets';
import type { Profile } from '../model/profile-types';
import { findQuestion, isAskedIn, listQuestions, textIn, type Question } from '../model/question-catalogue';
import { summarizePerformance } from '../model/target-group-performance';
import { advanceSimulation, fieldingSimulationAdminRoutes, sessionsOf, startFieldingSimulation } from './reporting-fielding-simulation';
import { P, TG } from './paths';

const QUESTIONS = '/v1/demand/questions';
const DEPRECATION_HEADERS = { deprecation: 'true', link: '</v1/demand/accounts/{account_id}/questions-translation>; rel="successor-version"' };

function performance(ctx: RequestContext) {
  const tg = requireTargetGroup(ctx);
  advanceSimulation(ctx);
  const summary = summarizePerformance(sessionsOf(ctx, tg.id), tg.profiles as Profile[], ctx.version);
  return ok({
    target_group_id: tg.id,
    project_id: tg.project_id,
    status: tg.status,
    filling_goal: tg.filling_goal,
    remaining_completes: Math.max(0, tg.filling_goal - summary.completes),
    ...summary,
    quotas: summary.quotas.map(({ completes_goal, ...rest }) => ({ ...rest, [usesNewNames(ctx.version) ? 'completes_goal' : 'filling_goal']: completes_goal })),
  });
}

function renderQuestion(question: Question, market: LocaleMarket): Record<string, unknown> {
  const out: Record<string, unknown> = {
    question_id: question.id,
    name: question.key,
    kind: question.kind,
    locale: market.locale,
    text: textIn(question.text, market.language),
    text_translated: question.text.en,
    options: question.options.map((option) => ({ option: option.option, text: textIn(option.text, market.language), text_translated: option.text.en })),
  };
  if (question.range) out.range = { min: question.range.min, max: question.range.max };
  return out;
}

function readLocale(ctx: RequestContext, required: boolean): LocaleMarket {
  const locale = ctx.query.get('locale');
  if (locale === null || locale === '') {
    if (required) throw badRequest('locale is required.', [{ name: 'locale', reason: 'is required' }]);
    return findLocaleMarket('en_US')!;
  }
  const market = canonicalLocale(locale) ? findLocaleMarket(locale) : undefined;
  if (!market) throw badRequest('The locale is not supported.', [{ name: 'locale', reason: 'must be a supported locale such as en_US, en_us or eng_us' }]);
  return market;
}

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
function readQuestionIds(ctx: RequestContext): Set<number> | null {
  if (ctx.query.has('question_ids')) throw badRequest('question_ids is not a parameter of this list.', [{ name: 'question_ids', reason: 'the question ids filter is id (comma-separated)' }]);
  const raw = ctx.query.get('id');
  if (raw === null) return null;
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.some((part) => !/^\d{1,9}$/.test(part))) throw badRequest('id is invalid.', [{ name: 'id', reason: 'must be a comma-separated list of question ids' }]);
  return new Set(parts.map(Number));
}

function readFlag(ctx: RequestContext, name: string): boolean {
  const raw = ctx.query.get(name);
  if (raw === null) return false;
  if (raw !== 'true' && raw !== 'false') throw badRequest(`${name} is invalid.`, [{ name, reason: 'must be true or false' }]);
  return raw === 'true';
}

/**
 * account_questions_translation: `{total, profiles, has_more, next_cursor}`, profiles null when nothing matches.
 * `locale` is required; `translation_language` (ISO 639-2, default English) names the language of the `_translated`
 * texts; `query` filters on the question's and its answers' texts (locale or English, any case). The sandbox has
 * standard questions only: `only_custom_quals=true` matches none. `end_before` (paging backwards) is not supported: 400.
 */
function questionsTranslation(ctx: RequestContext) {
  const market = readLocale(ctx, true);
  const ids = readQuestionIds(ctx);
  const rawLanguage = ctx.query.get('translation_language');
  const translation = rawLanguage === null ? 'en' : languageOfIso6392(rawLanguage);
  if (!translation) throw badRequest('translation_language is invalid.', [{ name: 'translation_language', reason: 'must be an ISO 639-2 code of a supported language, such as eng or spa' }]);
  if (ctx.query.has('end_before')) throw badRequest('end_before is not supported by the sandbox.', [{ name: 'end_before', reason: 'page forward with start_after' }]);
  readFlag(ctx, 'allow_custom_quals');
  const onlyCustom = readFlag(ctx, 'only_custom_quals');
  const search = ctx.query.get('query')?.trim().toLowerCase() ?? '';
  const page = parsePageRequest(ctx.query, { max: 100, default: 10 });
  const texts = (question: Question) => [question.key, question.text.en, textIn(question.text, market.language), ...question.options.flatMap((o) => [o.text.en, textIn(o.text, market.language)])];
  const items = listQuestions()
    .map((question, index) => ({ seq: index + 1, question }))
    .filter(({ question }) => !onlyCustom && isAskedIn(question, market.locale) && (ids === null || ids.has(question.id)))
    .filter(({ question }) => search === '' || texts(question).some((t) => t.toLowerCase().includes(search)));
  const body = paginate(items, page, ({ question }) => renderQuestionProfile(question, market, translation));
  return ok({ total: items.length, profiles: body.data.length ? body.data : null, has_more: body.has_more, next_cursor: body.next_cursor });
}

export const reportingRoutes: RouteModule = {
  name: 'reporting',
  routes: [
    { method: 'GET', path: `${TG}/performance`, handler: performance },
    { method: 'GET', path: `${P}/questions-translation`, handler: questionsTranslation },
    {
      method: 'GET',
      path: QUESTIONS,
      handler: (ctx) => {
        const market = readLocale(ctx, false);
        return ok({ data: listQuestions().map((question) => renderQuestion(question, market)) }, DEPRECATION_HEADERS);
      },
    },
    {
      method: 'GET',
      path: `${QUESTIONS}/{question_id}`,
      handler: (ctx) => {
        const market = readLocale(ctx, false);
        const question = /^\d{1,9}$/.test(ctx.params.question_id) ? findQuestion(Number(ctx.params.question_id)) : undefined;
        if (!question) throw notFound(`Question ${ctx.params.question_id} not found.`);
        return ok(renderQuestion(question, market), DEPRECATION_HEADERS);
      },
    },
    ...fieldingSimulationAdminRoutes,
  ],
  init: (services) => startFieldingSimulation(services),
};
