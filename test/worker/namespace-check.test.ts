// The namespace check's message for missing search attributes names each one's type from
// SEARCH_ATTRIBUTE_TYPES, and the exact command for a single one (integration: test/integration/worker-namespace.test.ts).
import { describe, expect, it } from 'vitest';
import { requireStudyflowNamespace, SearchAttributesMissingError, type NamespaceService } from '../../worker/namespace-check';
import { SEARCH_ATTRIBUTE_TYPES } from '../../workflows/search-attributes';

/** A namespace that knows every attribute but `lacking` (a visibility query naming one it lacks is refused as the server refuses it). */
function namespaceLacking(lacking: string[]): NamespaceService {
  return {
    describeNamespace: async () => ({}),
    countWorkflowExecutions: async ({ query }) => {
      const name = lacking.find((n) => query.startsWith(`${n} `));
      if (name) throw Object.assign(new Error(`3 INVALID_ARGUMENT: invalid query: filter expression: unable to convert filter expression: invalid search attribute: ${name}`), { code: 3 });
      return { count: 0 };
    },
  };
}

describe('the search attributes a namespace lacks', () => {
  it('names the type of each, and the command with the name and type of a single one', async () => {
    const one = await requireStudyflowNamespace(namespaceLacking(['StudyflowFillPercent']), 'studies', 'temporal.internal:7233').catch((e: unknown) => e);
    expect(one).toBeInstanceOf(SearchAttributesMissingError);
    expect((one as Error).message).toBe(
      "namespace studies lacks studyflow's search attribute: StudyflowFillPercent (Double); " +
        'register it with temporal operator search-attribute create --namespace studies --name StudyflowFillPercent --type Double (docs/operations.md, "Setting up a cluster")',
    );
    const two = await requireStudyflowNamespace(namespaceLacking(['StudyflowForecastEnd', 'StudyflowReason']), 'studies', 'temporal.internal:7233').catch((e: unknown) => e);
    // In the table's order, each with its type.
    expect((two as Error).message).toBe(
      "namespace studies lacks 2 of studyflow's search attributes: StudyflowReason (Keyword), StudyflowForecastEnd (Datetime); " +
        'register each with temporal operator search-attribute create --namespace studies --name NAME --type TYPE (docs/operations.md, "Setting up a cluster")',
    );
    await expect(requireStudyflowNamespace(namespaceLacking([]), 'studies', 'temporal.internal:7233')).resolves.toBeUndefined();
  });

  it('registers numbers and dates as numbers and dates', () => {
    expect(Object.entries(SEARCH_ATTRIBUTE_TYPES).filter(([, type]) => type !== 'Keyword')).toEqual([
      ['StudyflowFillPercent', 'Double'],
      ['StudyflowSpend', 'Double'],
      ['StudyflowForecastEnd', 'Datetime'],
      ['StudyflowEndFieldingAt', 'Datetime'],
    ]);
  });
});
