// The checks every operation on the reference's wire gets, for contract tests that drive their own run: the
// run exercised it with the headers it needs; the request and answer fit studyflow's zod wire schemas; and
// both fit the reference's own JSON schemas (ajv from the yml), apart from listed gaps that must still show.
import { describe, expect, it } from 'vitest';
import { wireOperationOf, wireOperationsFor, type WireOperation } from '../../api/wire/operations';
import { testProfile } from '../helpers/test-profile';
import { answerProblems, referenceAvailable, referenceOperation, requestProblems, requiredAnswerHeaders } from './reference-openapi';
import type { RecordedExchange } from './recording-client';

/**
 * Known differences from the reference, by operation: `spec` ones are the spec's dialect (listed in
 * docs/api-conventions.md) and apply only while the run speaks it (STUDYFLOW_TEST_PROFILE unset or sandbox); the
 * others are the reference's own flaws and apply under every profile.
 */
export type ReferenceGaps = Record<string, Array<{ problem: RegExp; why: string; spec?: true }>>;

/**
 * The checks of a group of operations, each as the run's profile speaks it (wireOperationsFor): under `cint` the
 * reference's form exactly, under `sandbox` the spec's deviations, which must show as listed `spec` gaps.
 */
export function describeOperationChecks(operations: Readonly<Record<string, WireOperation>>, exchanges: () => RecordedExchange[], gaps: ReferenceGaps = {}): void {
  const profile = testProfile();
  const spoken = wireOperationsFor(profile);
  const referenceForm = wireOperationsFor('cint');
  const byOperation = (id: string) => exchanges().filter((e) => wireOperationOf(e.method, e.path.split('?')[0], profile) === id);

  describe.each(Object.keys(operations))('%s', (id) => {
    const op = spoken[id] ?? operations[id]!;

    it('is exercised by the run, each request carrying the headers the operation needs', () => {
      const seen = byOperation(id);
      expect(seen.length).toBeGreaterThan(0);
      for (const e of seen) {
        if (op.headers?.includes('idempotency-key')) expect(e.idempotencyKey, `${id} Idempotency-Key`).toMatch(/\S/);
        // If-Match carries an entity tag as RFC 9110 writes it, strong or weak.
        if (op.headers?.includes('if-match')) expect(e.ifMatch, `${id} If-Match`).toMatch(/^(W\/)?".+"$/);
        if (op.headers?.includes('entity_type')) expect(e.query.entity_type, `${id} entity_type`).toMatch(/^(RSID|ACCESS_RESPONDENT_GUID)$/);
      }
    });

    it('the client sends the body studyflow\'s wire schema gives, and the sandbox answers a status and body it reads', () => {
      for (const e of byOperation(id)) {
        if (op.request) expect(op.request.safeParse(e.json).error?.issues ?? [], `${id} request`).toEqual([]);
        else expect(e.json, `${id} sends no body`).toBeUndefined();
        expect(Object.keys(op.answers).map(Number), `${id} status`).toContain(e.status);
        const schema = op.answers[e.status];
        if (schema) expect(schema.safeParse(e.body).error?.issues ?? [], `${id} answer`).toEqual([]);
        else expect(e.body === undefined || e.body === null || e.body === '', `${id} answers ${e.status} without a body`).toBe(true);
      }
    });

    it.skipIf(!referenceAvailable)('request, answer and required answer headers fit the reference (ajv from the yml), apart from the listed gaps', () => {
      // The reference's form of the operation is the reference's (a spec method, like the price prediction's GET, is a listed gap).
      expect(referenceOperation(id)).toEqual({ method: (referenceForm[id] ?? op).method, path: op.path });
      const listed = (gaps[id] ?? []).filter((g) => !g.spec || profile === 'sandbox');
      const used = new Set<number>();
      const unexplained = (problems: string[]) =>
        problems.filter((problem) => {
          const i = listed.findIndex((g) => g.problem.test(problem));
          if (i >= 0) used.add(i);
          return i < 0;
        });
      for (const e of byOperation(id)) {
        expect(unexplained(requestProblems(id, e.json)), `${id} request vs reference`).toEqual([]);
        expect(unexplained(answerProblems(id, e.status, e.body)), `${id} answer vs reference`).toEqual([]);
        for (const header of requiredAnswerHeaders(id, e.status)) expect(e.headers[header], `${id} ${e.status} header ${header}`).toBeTruthy();
      }
      // A gap that no longer shows is closed: remove it from the list (and from docs/api-conventions.md).
      expect(listed.filter((_, i) => !used.has(i)).map((g) => g.why), `${id} stale gaps`).toEqual([]);
    });
  });
}
