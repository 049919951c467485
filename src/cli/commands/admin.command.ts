import { Command } from 'commander';
import { CliError, usageError } from '../../relay-client/client-errors';
import { promptNewPassword } from '../admin/password-prompt';
import { operatorConfig, OperatorOptions, withOperatorOptions } from '../operator-config';

const MIN_PASSWORD_LENGTH = 8;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function adminCommand(): Command {
  const admin = new Command('admin')
    .description('Administer the relay on this machine (its data dir): first Admin, password resets')
    .addHelpText(
      'after',
      `
Examples:
  $ svc admin init --email you@example.com
  $ SVC_ADMIN_PASSWORD=… svc admin init --email ci-admin@example.com --data-dir /srv/svc
  $ svc admin reset-password you@example.com`,
    );
  admin.addCommand(initCommand());
  admin.addCommand(resetPasswordCommand());
  return admin;
}

function initCommand(): Command {
  return withOperatorOptions(
    new Command('init')
      .description('Create the first Admin on this machine\'s data dir (refused once any account exists)')
      .requiredOption('--email <email>', 'e-mail of the first Admin'),
  )
    .addHelpText(
      'after',
      `
The password is read from SVC_ADMIN_PASSWORD, or asked for (twice) on the terminal, and asked
again when the two differ. At least 8 characters. Works whether or not the relay is running, but
refuses (exit 1) when a relay answers on the configured port while running on another data folder.

Examples:
  $ svc admin init --email you@example.com
  $ SVC_ADMIN_PASSWORD='a long passphrase' svc admin init --email you@example.com --data-dir ./data`,
    )
    .action(async (options: OperatorOptions & { email: string }) => {
      const email = options.email.trim();
      if (!EMAIL.test(email)) throw usageError(`--email: "${options.email}" is not an e-mail address`);
      const config = operatorConfig(options);
      const { refuseOtherRelaysDataFolder } = await import('../admin/data-folder-check');
      await refuseOtherRelaysDataFolder(config);
      const password = await adminPassword();
      const { withRelayContext } = await import('../admin/relay-context');
      const { AuthService } = await import('../../auth/auth.service');
      const { HttpError } = await import('../../common/errors/http-error');
      await withRelayContext(config, async (app) => {
        try {
          await app.get(AuthService, { strict: false }).initialize(email, password);
        } catch (err) {
          if (err instanceof HttpError) {
            throw new CliError(`${err.message}: this relay already has an account, so no first Admin was created. ` +
              'Ask an Admin for an invitation, or use `svc admin reset-password <email>` if you are locked out.');
          }
          throw err;
        }
      });
      process.stdout.write(`Created the first Admin ${email.toLowerCase()} in ${config.dataDir}. Sign in on the dashboard.\n`);
    });
}

function resetPasswordCommand(): Command {
  return withOperatorOptions(
    new Command('reset-password')
      .description('Print a password reset link for a member (for an Admin who is locked out)')
      .argument('<email>', 'the member\'s e-mail'),
  )
    .addHelpText(
      'after',
      `
Run on the relay host. The link works once, for 2 hours; open it and choose a new password.
The member is signed out everywhere and their personal access tokens are revoked.

Examples:
  $ svc admin reset-password you@example.com
  $ svc admin reset-password you@example.com --data-dir /srv/svc`,
    )
    .action(async (email: string, options: OperatorOptions) => {
      const config = operatorConfig(options);
      const { withRelayContext } = await import('../admin/relay-context');
      const { resetLink } = await import('../admin/password-reset-issuer');
      const { UsersService } = await import('../../users/users.service');
      const { PublicUrlService } = await import('../../relay/public-url.service');
      const link = await withRelayContext(config, async (app) => {
        const user = await app.get(UsersService, { strict: false }).findByEmail(email);
        if (!user) throw new CliError(`No member with the e-mail ${email.trim().toLowerCase()} on this relay (${config.dataDir})`);
        const scheme = config.tlsCert ? 'https' : 'http';
        const relayUrl = app.get(PublicUrlService, { strict: false }).publicBaseUrl() ?? `${scheme}://localhost:${config.port}`;
        return resetLink(app, user, relayUrl);
      });
      process.stdout.write(`Password reset link for ${email.trim().toLowerCase()} (works once, for 2 hours):\n${link}\n`);
    });
}

async function adminPassword(): Promise<string> {
  const fromEnv = process.env.SVC_ADMIN_PASSWORD;
  if (fromEnv === undefined) return promptNewPassword('Password for the first Admin: ', MIN_PASSWORD_LENGTH);
  if (fromEnv.length < MIN_PASSWORD_LENGTH) throw usageError(`The password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  return fromEnv;
}
