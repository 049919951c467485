import { Command } from 'commander';
import { statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { usageError } from '../../relay-client/client-errors';
import { RelayClient } from '../../relay-client/relay-client';
import { ClientOptions, connectionFrom, parsePositiveInt, withClientOptions } from '../client/client-options';
import { requiresScope } from '../client/required-scope';
import { printJson } from '../output';

interface UploadResultsOptions extends ClientOptions {
  build: number;
  name?: string;
}

interface UploadedRun {
  id: number;
  name: string;
  state: string;
  counts: { tests: number; passed: number; failed: number; skipped: number };
}

/** `svc results upload`: a JUnit report of a build's test run (POST /builds/:id/test-runs; docs/device-tests.md). */
export function resultsCommand(): Command {
  const results = new Command('results')
    .description('Test results of builds')
    .addHelpText('after', '\nExamples:\n  $ svc results upload --build 42 reports/junit.xml');
  results.addCommand(
    withClientOptions(
      new Command('upload')
        .description('Upload a JUnit XML report as a test run of a build (POST /builds/:id/test-runs)')
        .argument('<report>', 'the JUnit XML file (at most 5 MiB)')
        .requiredOption('--build <id>', 'the build the tests ran on', parsePositiveInt)
        .option('--name <name>', "the run's name, e.g. the CI job (default: the report's <testsuites name>, else `default`)"),
    )
      .addHelpText('after', '\nExamples:\n  $ svc results upload --build 42 reports/junit.xml\n  $ svc results upload --build "$SVC_BUILD" --name "$CI_JOB_NAME" junit.xml --json')
      .action(
        requiresScope(['builds:write', 'devices'], async (report: string, options: UploadResultsOptions) => {
          const path = resolve(report);
          let size: number;
          try {
            const stat = statSync(path);
            if (!stat.isFile()) throw usageError(`${report} is not a file`);
            size = stat.size;
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw usageError(`${report}: no such file`);
            throw err;
          }
          const run = await new RelayClient(connectionFrom(options)).postMultipart<UploadedRun>(
            `/builds/${options.build}/test-runs`,
            { name: options.name },
            { field: 'file', path, name: basename(path), size },
          );
          if (options.json) return printJson(run);
          const { tests, passed, failed, skipped } = run.counts;
          process.stdout.write(`Run ${run.id} "${run.name}" of build ${options.build}: ${run.state} (${tests} ${tests === 1 ? 'test' : 'tests'}: ${passed} passed, ${failed} failed, ${skipped} skipped)\n`);
        }),
      ),
  );
  return results;
}
