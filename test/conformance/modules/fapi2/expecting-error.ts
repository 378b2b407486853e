import type { ProviderPage } from '../../support/browser.js';
import { Fapi2ServerTest } from '../../support/fapi2-server-test.js';
import type { HttpAnswer } from '../../support/state.js';
import { errorPage } from '../error-flows.js';

/**
 * AbstractFAPI2SPFinalExpectingAuthorizationEndpointPlaceholderOrCallback: the provider may
 * refuse by showing the user an error page (the suite's placeholder, a screenshot a reviewer
 * checks; here a 4xx page of the provider) or by sending an error to the redirect URI.
 */
export abstract class Fapi2PlaceholderOrCallback extends Fapi2ServerTest {
  protected abstract readonly placeholder: string;

  protected override async handleProviderPage(page: ProviderPage): Promise<void> {
    this.run.check('FAILURE', errorPage(this.placeholder), page);
  }
}

/**
 * AbstractFAPI2SPFinalPARExpectingAuthorizationEndpointPlaceholderOrCallback: the PAR endpoint
 * may refuse the request already, and the module ends with its checks of that answer.
 */
export abstract class Fapi2ParPlaceholderOrCallback extends Fapi2PlaceholderOrCallback {
  protected override async processParResponse(answer: HttpAnswer): Promise<void> {
    if (answer.status >= 200 && answer.status < 300) return super.processParResponse(answer);
    this.processParErrorResponse(answer);
    this.run.finish();
  }

  protected abstract processParErrorResponse(answer: HttpAnswer): void;
}
