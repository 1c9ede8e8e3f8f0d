// Collects every problem of one request, split into shape problems (wrong or missing JSON fields,
// answered 400 bad_request) and rule problems (well-formed but breaking a rule, answered 422 with the
// object code of the first rule broken). All problems are listed in invalid_params.

import { RuleViolation, type InvalidParam } from './rule-violation';

export class ValidationProblems {
  private readonly shapeProblems: InvalidParam[] = [];
  private readonly ruleProblems: (InvalidParam & { code: string })[] = [];

  shape(name: string, reason: string): void {
    this.shapeProblems.push({ name, reason });
  }

  rule(code: string, name: string, reason: string): void {
    this.ruleProblems.push({ code, name, reason });
  }

  get hasShapeProblems(): boolean {
    return this.shapeProblems.length > 0;
  }

  get isEmpty(): boolean {
    return this.shapeProblems.length === 0 && this.ruleProblems.length === 0;
  }

  /** Throws 400 for shape problems, else 422 for rule problems; returns when there are none. */
  throwIfAny(subject: string): void {
    if (this.shapeProblems.length > 0) {
      throw new RuleViolation(400, 'bad_request', `${subject}: the request body is malformed`, this.shapeProblems);
    }
    if (this.ruleProblems.length > 0) {
      const first = this.ruleProblems[0];
      const violation = new RuleViolation(
        422,
        first.code,
        `${subject}: ${first.reason}${this.ruleProblems.length > 1 ? ` (and ${this.ruleProblems.length - 1} more)` : ''}`,
        this.ruleProblems.map(({ name, reason }) => ({ name, reason })),
      );
      violation.paramCodes = this.ruleProblems.map(({ code }) => code);
      throw violation;
    }
  }
}
