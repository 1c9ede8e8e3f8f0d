// Reporting (spec: Endpoints › Target groups; Removed or deprecated endpoints; Resources › completes_cost).
//   GET TG/performance                              TargetGroupPerformance of a launched target group (404 for a draft)
//   GET P/questions-translation?locale&id&translation_language&query&allow_custom_quals&only_custom_quals
//                                                   the question catalogue in the reference's profile vocabulary
//                                                   (account_questions_translation), paginated
//   GET /v1/demand/questions[?locale], GET /v1/demand/questions/{question_id}[?locale]
//                                                   deprecated in every version, still answering (Deprecation header)
// The module also runs the fielding simulation (reporting-fielding-simulation.ts) behind performance.

import { badRequest, notFound } from '../core/api-error';
import { ok, type RequestContext, type RouteModule } from '../core/route-module';
import { requireTargetGroup } from '../resources/lookups';
import { canonicalLocale, findLocaleMarket, type LocaleMarket } from '../model/locale-markets';
import { findQuestion, listQuestions, textIn, type Question } from '../model/question-catalogue';
import { questionsTranslationPage } from '../model/questions-translation';
import { summarizePerformance } from '../model/target-group-performance';
import { advanceSimulation, READ_STALENESS_MS, fieldingSimulationAdminRoutes, sessionsOf, startFieldingSimulation } from './reporting-fielding-simulation';
import { P, TG } from './paths';

const QUESTIONS = '/v1/demand/questions';
const DEPRECATION_HEADERS = { deprecation: 'true', link: '</v1/demand/accounts/{account_id}/questions-translation>; rel="successor-version"' };

/**
 * get_target_group_performance: the reference's TargetGroupPerformance, from the simulated sessions (the
 * simulation first runs up to now). The reference describes it for a launched target group; a draft has
 * no fielding and answers 404, as its details and overview do.
 */
function performance(ctx: RequestContext) {
  const tg = requireTargetGroup(ctx);
  if (tg.status === 'draft') throw notFound(`Target group ${tg.id} is a draft; its performance exists once it is launched.`);
  advanceSimulation(ctx, { withinMs: READ_STALENESS_MS });
  return ok(summarizePerformance(sessionsOf(ctx, tg.id), ctx.version));
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

export const reportingRoutes: RouteModule = {
  name: 'reporting',
  routes: [
    { method: 'GET', path: `${TG}/performance`, handler: performance },
    { method: 'GET', path: `${P}/questions-translation`, handler: (ctx) => ok(questionsTranslationPage(ctx.query, readLocale(ctx, true))) },
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
