import { Injectable } from '@nestjs/common';
import { BuildVerdictsService } from '../../builds/provenance/build-verdicts.service';
import { Clock } from '../../common/clock';
import { ErrorMessages } from '../../common/errors/error-messages';
import { notFound } from '../../common/errors/http-error';
import { ForgeDirectory } from '../forge-directory';
import type { BuildChanges } from '../forges.mapper';
import { judgeFailure } from '../../outbox/retry-policy';

/** "What changed" (docs/integrations.md): for GET /builds/:id/changes, the build page and the pull-request comment. */
@Injectable()
export class BuildChangesReader {
  constructor(
    private readonly directory: ForgeDirectory,
    private readonly verdicts: BuildVerdictsService,
    private readonly clock: Clock,
  ) {}

  /**
   * What changed since the app's last Done build (same platform, same repository): the commits
   * between the two from the forge's compare API; without a forge or a base, the changelog alone.
   */
  async of(buildId: number): Promise<BuildChanges> {
    const found = await this.verdicts.baseOf(buildId);
    if (!found) throw notFound(ErrorMessages.buildNotFound);
    const changelog = found.provenance?.changelog ?? null;
    const fallback: BuildChanges = { source: changelog ? 'changelog' : 'none', base_build_id: found.base?.buildId ?? null, base_commit: found.base?.commit ?? null, commits: [], changelog, problem: null };
    const { provenance, base } = found;
    if (!provenance?.repository || !provenance.commit || !base) return fallback;
    const entry = this.directory.forRepository(provenance.repository);
    if (!entry?.client) return { ...fallback, problem: entry ? `forge not used: ${entry.problem}` : 'no configured forge lists this repository' };
    try {
      const commits = await entry.client.compare(provenance.repository, base.commit, provenance.commit);
      return { ...fallback, source: 'forge', commits: commits.slice(0, 100) };
    } catch (err) {
      return { ...fallback, problem: judgeFailure(err, 1, this.clock.nowMs()).error };
    }
  }
}
