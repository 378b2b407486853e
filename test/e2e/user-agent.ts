import type { InteractionDetails, InteractionResult } from '@gatehouse-oidc/core';
import { CookieJar } from '../support/cookie-jar.js';
import { PUBLIC_ORIGIN, type RunningGatehouse } from './gatehouse-server.js';

/**
 * A browser without a screen, and the host application's login and consent page, for driving
 * sign-ins over real HTTP. The browser keeps cookies in test/support/cookie-jar.ts, the way
 * RFC 6265 says, so a cookie scoped to the wrong path under the mount prefix would be missing
 * from the next request exactly as in a real browser.
 */

/** The host app's own sign-in page: its route, outside the prefix Gatehouse is mounted under. */
const HOST_PAGE = `${PUBLIC_ORIGIN}/account/sign-in`;

/** The host app's device verification page (RFC 8628 `verification_uri`). */
export const HOST_DEVICE_PAGE = `${PUBLIC_ORIGIN}/account/device`;

/** The `deviceVerificationUrl` of the provider: users type device codes on the host's page. */
export const hostDeviceVerificationUrl = () => HOST_DEVICE_PAGE;

/** The `interactionUrl` of the provider: interactions go to the host's page. */
export const hostInteractionUrl = (interaction: InteractionDetails) =>
  `${HOST_PAGE}?${new URLSearchParams({ realm: interaction.realm, interaction: interaction.id })}`;

/** What the user does on the host's page: signs in, consents, or refuses. */
export type HostDecision = (interaction: InteractionDetails) => InteractionResult;

/** `sub` signs in when asked and consents to every scope asked. */
export const signInAs =
  (sub: string): HostDecision =>
  (interaction) =>
    interaction.prompt === 'login'
      ? { login: { sub } }
      : { consent: { scopes: interaction.scopes } };

export interface UserAgent {
  /**
   * Follows redirects from `url` — through the provider and the host's page — until the browser
   * is sent to a client, and returns that URL (never fetched: it belongs to the relying party).
   * Fails on anything but a 302 or 303 from the provider.
   */
  navigate(url: URL | string): Promise<URL>;
  /**
   * The user types a device's user code on the host's verification page, which starts its
   * sign-in; follows it until the browser is back at that page, and returns that URL.
   */
  enterUserCode(realm: string, userCode: string): Promise<URL>;
  /** Every interaction the host's page was shown, in order. */
  readonly interactions: readonly InteractionDetails[];
}

export function userAgent(gatehouse: RunningGatehouse, decide: HostDecision): UserAgent {
  const jar = new CookieJar();
  const interactions: InteractionDetails[] = [];

  /** The host's page: reads the interaction, lets the user act, answers with the provider's URL. */
  async function hostPage(url: URL): Promise<URL> {
    const realm = url.searchParams.get('realm') ?? '';
    const id = url.searchParams.get('interaction') ?? '';
    const cookies = jar.header(url).cookie;
    const details = await gatehouse.interactions.details(realm, id, cookies);
    if (!details) throw new Error(`the host's page was shown an unknown interaction: ${url}`);
    interactions.push(details);
    return new URL(await gatehouse.interactions.finish(realm, id, decide(details), cookies));
  }

  async function navigate(start: URL | string): Promise<URL> {
    let url = new URL(start);
    for (let hop = 0; hop < 10; hop++) {
      if (url.href.startsWith(`${HOST_DEVICE_PAGE}?`)) return url;
      if (url.href.startsWith(`${HOST_PAGE}?`)) {
        url = await hostPage(url);
        continue;
      }
      if (url.origin !== PUBLIC_ORIGIN) return url;
      const response = await gatehouse.fetch(url.href, {
        redirect: 'manual',
        headers: jar.header(url),
      });
      jar.store(url, response.headers.getSetCookie());
      const location = response.headers.get('location');
      if ((response.status !== 302 && response.status !== 303) || location === null) {
        throw new Error(`${url.pathname} answered ${response.status}: ${await response.text()}`);
      }
      url = new URL(location, url);
    }
    throw new Error(`too many redirects, last at ${url}`);
  }

  /** The host's verification page: hands the code to Gatehouse, sets its cookies, redirects. */
  async function enterUserCode(realm: string, userCode: string): Promise<URL> {
    const page = new URL(HOST_DEVICE_PAGE);
    const started = await gatehouse.device.start(realm, userCode, {
      cookieHeader: jar.header(page).cookie,
    });
    if (!started) throw new Error(`the host's page refused the user code ${userCode}`);
    jar.store(page, started.cookies);
    return navigate(started.location);
  }

  return { navigate, enterUserCode, interactions };
}
