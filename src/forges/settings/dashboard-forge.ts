import { DEFAULT_CHECK_NAME, DEFAULT_STATUS_CONTEXT, type ConfigFileForge } from '../../config/forge-config';
import { SecretBox, SecretUnreadable } from '../../common/crypto/secret-box';
import type { DashboardForgeRow } from './dashboard-forges.repository';

/** The authenticated-data labels of the two sealed columns (a sealed token cannot be read as a key). */
export const TOKEN_PURPOSE = 'forges.token';
export const PRIVATE_KEY_PURPOSE = 'forges.private_key';

export function defaultContext(app: boolean): string {
  return app ? DEFAULT_CHECK_NAME : DEFAULT_STATUS_CONTEXT;
}

/**
 * A dashboard forge as the clients take it (the shape of a svc.config.json entry), its secret
 * opened with the relay's key; `problem` says why it cannot be used when the secret does not open
 * (no SVC_SECRETS_KEY, another key, a damaged value): the relay keeps serving, the forge is not used.
 */
export function openDashboardForge(row: DashboardForgeRow, box: SecretBox): { forge: ConfigFileForge; problem: string | null } {
  const { forge } = row;
  const settings: ConfigFileForge = {
    type: forge.type,
    url: forge.url,
    tokenEnv: null,
    token: null,
    repositories: row.repositories,
    context: forge.context,
    app: forge.appId && forge.installationId ? { appId: forge.appId, installationId: forge.installationId, privateKeyEnv: null, privateKey: null } : null,
  };
  const sealed = settings.app ? forge.privateKeySealed : forge.tokenSealed;
  const what = settings.app ? "the App's private key" : 'its token';
  if (!sealed) return { forge: settings, problem: `${what} is not set` };
  try {
    if (settings.app) settings.app.privateKey = box.open(sealed, PRIVATE_KEY_PURPOSE);
    else settings.token = box.open(sealed, TOKEN_PURPOSE);
    return { forge: settings, problem: null };
  } catch (err) {
    if (err instanceof SecretUnreadable) return { forge: settings, problem: `${what} cannot be read: ${err.message}` };
    throw err;
  }
}
