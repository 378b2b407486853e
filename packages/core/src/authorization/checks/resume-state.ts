import type { RealmContext } from '../../context.js';
import type { InteractionRecord, InteractionResult } from '../../interactions/interaction.js';

/** What the resume step's checks see: the interaction the browser came back from, finished. */
export interface ResumeState {
  readonly context: RealmContext;
  readonly interaction: InteractionRecord & { result: InteractionResult };
}
