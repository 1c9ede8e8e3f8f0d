// The one interpreter of the program (plan/program.ts): it runs a list of steps through a table of
// handlers, step kind -> handler, for the study (workflows/study/handlers.ts) and for a target group
// (workflows/target-group/handlers.ts). `together` runs its lanes side by side; a handler that answers
// `stop` ends the list (a gate that holds, an approval not given: the rest waits for a new revision).

/** What a handler answers: nothing (go on) or `stop`. */
export type StepOutcome = void | 'stop';

/** A step that holds lanes run side by side. */
interface Together<S> {
  kind: 'together';
  lanes: S[][];
}

/** The handler of every step kind but `together`, each given its own step type. */
export type StepHandlers<S extends { kind: string }, C> = {
  [K in Exclude<S['kind'], 'together'>]: (ctx: C, step: Extract<S, { kind: K }>) => Promise<StepOutcome> | StepOutcome;
};

function isTogether<S extends { kind: string }>(step: S): step is S & Together<S> {
  return step.kind === 'together';
}

/**
 * Runs `steps` in order through `handlers`; `stopped` when a handler stopped the list (in any lane).
 * `record` is told each step as it starts (the target group's status lists the steps it ran).
 */
export async function runSteps<S extends { kind: string }, C>(handlers: StepHandlers<S, C>, ctx: C, steps: readonly S[], record?: (step: S) => void): Promise<'done' | 'stopped'> {
  for (const step of steps) {
    if (isTogether(step)) {
      const lanes = await Promise.all(step.lanes.map((lane) => runSteps(handlers, ctx, lane, record)));
      if (lanes.includes('stopped')) return 'stopped';
      continue;
    }
    record?.(step);
    const handler = (handlers as unknown as Record<string, (ctx: C, step: S) => Promise<StepOutcome> | StepOutcome>)[step.kind];
    if ((await handler(ctx, step)) === 'stop') return 'stopped';
  }
  return 'done';
}
