import { Injectable } from '@nestjs/common';
import type { SessionPlace } from '../../agents/agent-locator.service';
import { AgentRouter } from '../../agents/agent-router.service';
import { BuildDownloadService } from '../../builds/build-download.service';
import { BuildQueryService } from '../../builds/build-query.service';
import { HttpError } from '../../common/errors/http-error';
import { RelayConfig } from '../../config/relay-config';
import type { BuildChoice } from './capabilities';
import { sessionNotCreated, W3CError } from './w3c-error';

/** The build a hub session runs against. */
export interface BuildUnderTest {
  id: number;
  name: string;
  bundleId: string;
  platform: 'ios' | 'android';
  version: string;
}

/**
 * `svc:build` for a hub session: which build it names, and putting it on the device first through
 * the existing install path (`install_build`: the agent downloads it from the relay with its own
 * token), with the agent's SHA-256 of what it installed checked against the stored file's.
 */
@Injectable()
export class HubBuilds {
  constructor(
    private readonly query: BuildQueryService,
    private readonly downloads: BuildDownloadService,
    private readonly router: AgentRouter,
    private readonly config: RelayConfig,
  ) {}

  async resolve(choice: BuildChoice, platform: 'ios' | 'android' | null): Promise<BuildUnderTest> {
    const build = 'id' in choice ? await this.byId(choice.id) : await this.newest(choice, platform);
    if (platform && build.platform !== platform) {
      throw new W3CError('invalid argument', `Build ${build.id} is an ${build.platform === 'ios' ? 'iOS' : 'Android'} build; platformName asks for ${platform === 'ios' ? 'iOS' : 'Android'}`);
    }
    return build;
  }

  async install(place: SessionPlace, build: BuildUnderTest): Promise<void> {
    const expected = await this.downloads.sha256(build.id).catch(() => {
      throw sessionNotCreated(`Build ${build.id}'s file is gone from the relay`);
    });
    const params = { sessionId: place.device.sessionId, buildId: build.id, url: `/api/v1/builds/${build.id}/download` };
    const outcome = await this.router.call(place, 'install_build', params, this.config.agents.installTimeoutMs);
    if (outcome.kind !== 'ok') {
      const why = outcome.kind === 'error' ? outcome.message : outcome.kind === 'timeout' ? 'it did not finish in time' : 'the agent went offline';
      throw sessionNotCreated(`Installing build ${build.id} on ${place.device.name} failed: ${why}`);
    }
    const sha256 = (outcome.result as { sha256?: unknown } | null)?.sha256;
    if (sha256 !== expected) {
      throw sessionNotCreated(`Build ${build.id} reached ${place.device.name} altered (its SHA-256 is not the stored file's); nothing was run`);
    }
  }

  private async byId(id: number): Promise<BuildUnderTest> {
    try {
      return shape(await this.query.get(id));
    } catch (err) {
      if (err instanceof HttpError && err.getStatus() === 404) throw new W3CError('invalid argument', `svc:build: no build ${id}`);
      throw err;
    }
  }

  /** The newest build of an app (its id, or its bundle id) on a branch (any branch when none is named). */
  private async newest(choice: Extract<BuildChoice, { app: unknown }>, platform: 'ios' | 'android' | null): Promise<BuildUnderTest> {
    const byId = typeof choice.app === 'number';
    const { items } = await this.query.list({
      ...(byId ? { app_id: choice.app as number } : { q: choice.app as string }),
      ...(choice.branch ? { branch: choice.branch } : {}),
      ...(platform ? { platform } : {}),
      sort: 'uploaded_at',
      dir: 'desc',
      limit: 100,
    });
    const found = items.map((i) => i.build).find((b) => byId || b.bundleId === choice.app);
    if (!found) {
      throw new W3CError('invalid argument', `svc:build: app ${String(choice.app).slice(0, 80)} has no build${choice.branch ? ` on branch ${choice.branch.slice(0, 80)}` : ''}`);
    }
    return shape(found);
  }
}

function shape(build: { id: number; name: string; bundleId: string; platform: string; versionName: string | null; buildNumber: string | null }): BuildUnderTest {
  const version = [build.versionName, build.buildNumber && `(${build.buildNumber})`].filter(Boolean).join(' ');
  return { id: build.id, name: build.name, bundleId: build.bundleId, platform: build.platform as 'ios' | 'android', version };
}
