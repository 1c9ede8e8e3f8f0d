// When a study's target groups went live, read from the status the study workflow keeps. Each
// target group's `liveAt` is the workflow time of the task that saw its launch job done (the study's
// or its own); statuses from before that field have `updatedAt`, the time the phase was recorded.
// Pure, unit-tested in test/bench/.
import type { StudyStatus } from '../workflows/messages';

/** The instant (ms since the epoch) the last target group went live; throws when one is not live. */
export function lastLiveAtMs(status: StudyStatus): number {
  const tgs = Object.values(status.targetGroups);
  if (tgs.length === 0) throw new Error(`study ${status.studyId} has no target groups`);
  const notLive = tgs.filter((t) => t.phase !== 'live');
  if (notLive.length > 0) {
    throw new Error(`study ${status.studyId}: ${notLive.length} target group(s) not live (${notLive.slice(0, 3).map((t) => `${t.key}: ${t.phase}${t.message ? `, ${t.message}` : ''}`).join('; ')})`);
  }
  return Math.max(...tgs.map((t) => liveAtMs(t)));
}

/** When one target group went live (see above). */
export function liveAtMs(tg: StudyStatus['targetGroups'][string]): number {
  return Date.parse(tg.liveAt ?? tg.updatedAt);
}
