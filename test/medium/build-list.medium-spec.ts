import { AppEntity } from '../../src/app-catalogue/app.entity';
import type { BuildPageQuery } from '../../src/builds/build-page';
import { BuildEntity } from '../../src/builds/build.entity';
import { BuildsRepository } from '../../src/builds/builds.repository';
import { useMediumDatabase } from './medium-database';
import { seedApp, seedBuild } from './seed-builds';

/**
 * The builds list and its search (build-list.repository.ts, build-search.repository.ts) through
 * BuildsRepository.findPage on a real database: the statements the SQL snapshots pin, run against
 * the counts and search text the triggers keep (FTS5 on SQLite, search_text + pg_trgm on PostgreSQL).
 */
describe('the builds list and search on the database (medium)', () => {
  const db = useMediumDatabase({ providers: [BuildsRepository], entities: [BuildEntity, AppEntity] });
  const page = (query: Partial<BuildPageQuery>) => db().get(BuildsRepository).findPage({ page: 0, limit: 20, sort: 'uploaded_at', dir: 'desc', ...query });
  const versions = async (query: Partial<BuildPageQuery>) => {
    const { items, total } = await page(query);
    return { versions: items.map((i) => i.build.versionName), total };
  };
  const ids: Record<string, number> = {};
  const T = 1_800_000_000_000;

  beforeAll(async () => {
    const maps = await seedApp(db(), 'Maps', 'com.example.maps');
    const radio = await seedApp(db(), 'Radio', 'com.example.radio', 'android');
    const rows: [string, number, string | null, string, number][] = [
      ['1.0.0', maps, null, 'ios', 1],
      ['1.1.0', maps, 'Done', 'ios', 2],
      ['2.0.0-beta', maps, 'Rejected', 'ios', 3],
      ['0.9.1', radio, 'Done', 'android', 4],
      ['Zulu', radio, null, 'android', 5],
    ];
    for (const [version, app, status, platform, minute] of rows) {
      ids[version] = await seedBuild(db(), app, {
        name: app === maps ? 'Maps' : 'Radio',
        bundle_id: app === maps ? 'com.example.maps' : 'com.example.radio',
        platform,
        version_name: version,
        build_number: String(minute * 10),
        status_label: status,
        uploaded_at: T + minute * 60_000,
      });
    }
  });

  it('pages by upload time both ways with the total from the kept counts, and past the end', async () => {
    expect(await versions({})).toEqual({ versions: ['Zulu', '0.9.1', '2.0.0-beta', '1.1.0', '1.0.0'], total: 5 });
    expect(await versions({ dir: 'asc', limit: 2, page: 1 })).toEqual({ versions: ['2.0.0-beta', '0.9.1'], total: 5 });
    expect(await versions({ page: 3, limit: 2 })).toEqual({ versions: [], total: 5 });
    const [first] = (await page({ limit: 1 })).items;
    expect(first.build).toMatchObject({ id: ids.Zulu, versionName: 'Zulu', platform: 'android', statusLabel: null });
    expect(first.build.uploadedAt).toEqual(new Date(T + 5 * 60_000));
    expect(first).toMatchObject({ uploader: null, hasIcon: false, flags: null, provenance: null });
  });

  it('filters by platform, status, untriaged and app, and sorts by version and status with NULLS LAST', async () => {
    expect(await versions({ platform: 'android' })).toEqual({ versions: ['Zulu', '0.9.1'], total: 2 });
    expect(await versions({ status: 'Done' })).toEqual({ versions: ['0.9.1', '1.1.0'], total: 2 });
    expect(await versions({ status: 'untriaged' })).toEqual({ versions: ['Zulu', '1.0.0'], total: 2 });
    expect(await versions({ appId: (await page({ limit: 1 })).items[0].build.appId })).toEqual({ versions: ['Zulu', '0.9.1'], total: 2 });
    // Bytewise on both databases (digits before letters); ties by id.
    expect((await versions({ sort: 'version_name', dir: 'asc' })).versions).toEqual(['0.9.1', '1.0.0', '1.1.0', '2.0.0-beta', 'Zulu']);
    expect((await versions({ sort: 'status_label', dir: 'asc' })).versions).toEqual(['1.1.0', '0.9.1', '2.0.0-beta', '1.0.0', 'Zulu']);
  });

  it('q matches a substring of the version name, ASCII case folded; search terms match every field, all of them', async () => {
    expect(await versions({ q: '1.' })).toEqual({ versions: ['1.1.0', '1.0.0'], total: 2 });
    expect(await versions({ q: 'BETA' })).toEqual({ versions: ['2.0.0-beta'], total: 1 });
    expect(await versions({ q: 'nothing' })).toEqual({ versions: [], total: 0 });
    expect(await versions({ searchTerms: ['radio'] })).toEqual({ versions: ['Zulu', '0.9.1'], total: 2 });
    expect(await versions({ searchTerms: ['maps', 'beta'] })).toEqual({ versions: ['2.0.0-beta'], total: 1 });
    expect(await versions({ searchTerms: ['com.example'], platform: 'ios', limit: 1 })).toEqual({ versions: ['2.0.0-beta'], total: 3 });
  });

  it('sees a new build in its counts and its search at once', async () => {
    expect((await versions({ searchTerms: ['radio'] })).total).toBe(2);
    const app = (await page({ limit: 1 })).items[0].build.appId;
    await seedBuild(db(), app, { name: 'Radio', bundle_id: 'com.example.radio', platform: 'android', version_name: '3.0.0', uploaded_at: T + 10 * 60_000 });
    expect(await versions({ searchTerms: ['radio'] })).toEqual({ versions: ['3.0.0', 'Zulu', '0.9.1'], total: 3 });
    expect((await versions({ platform: 'android' })).total).toBe(3);
  });
});
