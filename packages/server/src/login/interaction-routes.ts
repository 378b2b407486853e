import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import {
  type InteractionPagesOptions,
  type InteractionParams,
  InteractionSteps,
} from './interaction-steps.js';
import { errorPages } from './page-replies.js';

/** Form bodies hold a username, a password and a token: anything much larger is not ours. */
const MAX_FORM_BYTES = 8 * 1024;

const PATH = '/oauth/:realm/interaction/:id';

/**
 * The built-in login and consent pages at `/oauth/{realm}/interaction/{id}`, where the provider
 * sends the browser when it needs the user. Plain HTML forms, no script. Registered beside the
 * Gatehouse plugin: the router prefers this parametric route over the plugin's catch-all.
 */
export const interactionRoutes: FastifyPluginAsync<InteractionPagesOptions> = async (
  app,
  options,
) => {
  acceptOnlyForms(app);
  app.setErrorHandler(errorPages(options.report));
  const steps = new InteractionSteps(options);
  app.get<{ Params: InteractionParams }>(PATH, (request, reply) => steps.show(request, reply));
  app.post<{ Params: InteractionParams }>(PATH, (request, reply) => steps.submit(request, reply));
};

/** Form bodies become URLSearchParams; any other body is read and dropped (the form-error page). */
export function acceptOnlyForms(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: MAX_FORM_BYTES },
    (_request, body, done) => done(null, new URLSearchParams(body as string)),
  );
  app.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: MAX_FORM_BYTES },
    (_request, _body, done) => done(null),
  );
}
