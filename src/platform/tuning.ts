/**
 * How the relay uses Node, where it chose otherwise than the default through public APIs only: no
 * patched method and no private field, so not a piece and not fenced (index.ts holds those). One
 * line each, beside the engine room's list, so that both are read in one place; the file named in
 * `where` says why at length, with its measurement. A new policy of this kind adds its line here
 * (tuning.spec.ts checks that each `where` exists).
 */
export interface TuningPolicy {
  name: string;
  /** The file that holds the policy and its reasons. */
  where: string;
  /** What the relay does differently from Node's default, and the measured reason, in one line. */
  changes: string;
}

export const TUNING: readonly TuningPolicy[] = [
  {
    name: 'quick file calls',
    where: 'src/common/files/quick-file-calls.ts',
    changes:
      "an upload's short-path file calls (open, close, a small read, rename) run synchronously on the event loop, " +
      'and through the thread pool for a minute after two slow ones: a pooled call cost a whole event-loop turn under bench:soak',
  },
  {
    name: 'spool writes',
    where: 'src/common/multipart/file-spool.ts',
    changes:
      'an upload is written chunk by chunk with writeSync from the event loop until one write is slow: ' +
      'from a pool thread on the other core the copy into the page cache cost twice the CPU (bench:upload)',
  },
  {
    name: 'password workers',
    where: 'src/users/password-workers.ts',
    changes:
      "bcrypt runs on worker threads of its own (password-worker.js), not libuv's four-thread pool, " +
      "where a burst of sign-ins queued every upload's file calls (bench:password-pool)",
  },
  {
    name: 'plist worker',
    where: 'src/inspection/info-plist.ts',
    changes: 'an uploaded Info.plist is parsed in a short-lived worker thread with a 64 MB heap cap and a 2 s deadline: the parsers trust hostile counts',
  },
  {
    name: 'log lines per turn',
    where: 'src/logging/json-logger.ts',
    changes: 'stdout log lines are gathered and written once per event-loop turn: a write per request line cost more than its queries',
  },
];
