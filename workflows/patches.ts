// Every patch of the workflows, in one place (docs/deploy.md, "Upgrading studyflow": releases reach running
// studies through worker versioning; a patch is for a hotfix only, with its removal date). A patch wraps a
// whole step (`if (patched(id)) await newStep(…) else await oldStep(…)`), is listed here with its date, becomes
// `deprecatePatch(id)` once no open execution can take the old branch (`deprecateOn`), and is removed with the
// old step after that (`removeOn`). A test holds the code's patch calls equal to this list.

export interface WorkflowPatch {
  /** The id given to `patched()` / `deprecatePatch()`: `<step>-<yyyy-mm-dd>`. */
  id: string;
  /** The step file it wraps, e.g. `workflows/study/drafts.ts`. */
  step: string;
  /** Why the step changed. */
  reason: string;
  /** When it was made (ISO date). */
  since: string;
  /** When `patched(id)` becomes `deprecatePatch(id)` (the old branch goes). */
  deprecateOn: string;
  /** When `deprecatePatch(id)` goes too. */
  removeOn: string;
}

/** Empty: studyflow has not been released, so no execution needs an old branch. */
export const WORKFLOW_PATCHES: readonly WorkflowPatch[] = [];
