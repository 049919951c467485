import { describe, expect, it } from 'vitest';
import { apiQuery, DEFAULT_FILTERS, filtersFromSearch, searchFromFilters, withChange } from './filters';

describe('inbox filters in the URL', () => {
  it('reads every filter, sort and page of spec §4', () => {
    const filters = filtersFromSearch(
      new URLSearchParams('page=2&limit=50&q=1.4&search=feature%2Flogin&platform=android&status=In+Progress&app_id=7&flagged=true&branch=main&pull_request=17&commit=4F2A9C0&gate=failed&sort=version_name&dir=asc'),
    );
    expect(filters).toEqual({
      page: 2,
      limit: 50,
      q: '1.4',
      search: 'feature/login',
      platform: 'android',
      status: 'In Progress',
      app_id: 7,
      flagged: true,
      branch: 'main',
      pull_request: 17,
      commit: '4F2A9C0',
      gate: 'failed',
      sort: 'version_name',
      dir: 'asc',
    });
  });

  it('falls back to the defaults for unknown or out-of-range values', () => {
    expect(
      filtersFromSearch(new URLSearchParams('page=-1&limit=500&platform=web&status=done&app_id=x&flagged=yes&pull_request=0&commit=xyz&gate=red&sort=size&dir=up')),
    ).toEqual(DEFAULT_FILTERS);
  });

  it('writes only what differs from the defaults and reads it back the same', () => {
    expect(searchFromFilters(DEFAULT_FILTERS).toString()).toBe('');
    const filters = { ...DEFAULT_FILTERS, status: 'Done' as const, sort: 'status_label' as const, page: 3 };
    const search = searchFromFilters(filters);
    expect(search.toString()).toBe('page=3&status=Done&sort=status_label');
    expect(filtersFromSearch(search)).toEqual(filters);
  });

  it('sends the API only the filters that are set', () => {
    expect(apiQuery({ ...DEFAULT_FILTERS, q: '  2.0 ', app_id: 4 })).toEqual({
      page: 0,
      limit: 20,
      sort: 'uploaded_at',
      dir: 'desc',
      q: '2.0',
      app_id: 4,
    });
    expect(apiQuery({ ...DEFAULT_FILTERS, search: ' payments 42 ', status: 'untriaged' })).toMatchObject({ search: 'payments 42', status: 'untriaged' });
    expect(apiQuery({ ...DEFAULT_FILTERS, branch: ' feature/login ', pull_request: 17, commit: 'abc1234' })).toMatchObject({ branch: 'feature/login', pull_request: 17, commit: 'abc1234' });
  });

  it('reads the untriaged status filter (beyond the spec) from the URL', () => {
    expect(filtersFromSearch(new URLSearchParams('status=untriaged')).status).toBe('untriaged');
  });

  it('goes back to the first page when a filter changes, not when the page does', () => {
    const on3 = { ...DEFAULT_FILTERS, page: 3 };
    expect(withChange(on3, { status: 'Rejected' }).page).toBe(0);
    expect(withChange(on3, { page: 4 }).page).toBe(4);
  });
});
