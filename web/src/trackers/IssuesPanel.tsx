import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { useRecordings } from '../builds/queries';
import { recordingFile } from '../recordings/queries';
import { FormEnd, SelectField, TextArea, TextField, cardClass, formClass } from '../ui/Field';
import { Empty, Loading } from '../ui/States';
import { issueStatusText } from './issue-status';
import { useBuildIssues, useReportIssue } from './queries';

/**
 * "Report issue" on the build page: files the bug in a configured tracker (Jira, Linear, GitHub)
 * with the build's facts and, given a recording, its last 30 seconds, a screenshot and the UI tree;
 * lists the build's issues with their link and tracker status.
 */
export function IssuesPanel({ buildId, writer }: { buildId: number; writer: boolean }) {
  const issues = useBuildIssues(buildId);
  // The recording the page plays (?recording=<file>, else the newest): its last 30 seconds go with the report.
  const recordings = useRecordings(buildId);
  const [params] = useSearchParams();
  const recording = recordings.data?.find((r) => recordingFile(r.url) === params.get('recording')) ?? recordings.data?.[0];
  const recordingId = recording?.id;
  const report = useReportIssue(buildId);
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [tracker, setTracker] = useState('');
  const trackers = issues.data?.trackers ?? [];
  const chosen = tracker || trackers[0] || '';

  const submit = (event: FormEvent) => {
    event.preventDefault();
    report.mutate(
      { tracker: chosen, title, description: description || undefined, recordingId },
      {
        onSuccess: () => {
          setTitle('');
          setDescription('');
        },
      },
    );
  };

  return (
    <section className={cardClass} aria-labelledby="issues-title">
      <h2 id="issues-title">Issues</h2>
      {issues.isPending ? (
        <Loading />
      ) : issues.data?.items.length ? (
        <ul>
          {issues.data.items.map((issue) => (
            <li key={issue.id}>
              {issue.url ? <a href={issue.url} target="_blank" rel="noreferrer">{issue.key ?? issue.title}</a> : issue.title} ({issue.tracker}): {issueStatusText(issue)}
            </li>
          ))}
        </ul>
      ) : (
        <Empty>No issue reported from this build.</Empty>
      )}
      {writer && trackers.length > 0 && (
        <form className={formClass} onSubmit={submit} aria-label="Report issue">
          {trackers.length > 1 && (
            <SelectField label="Tracker" value={chosen} onChange={(e) => setTracker(e.target.value)}>
              {trackers.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </SelectField>
          )}
          <TextField label="Title" value={title} onChange={(e) => setTitle(e.target.value)} required maxLength={250} />
          <TextArea
            label="What happened"
            hint={recording ? 'The last 30 seconds of the recording shown above, a screenshot and the UI tree are attached.' : undefined}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            maxLength={20000}
          />
          <FormEnd error={report.error} pending={report.isPending} label="Report issue" pendingLabel="Reporting…" />
        </form>
      )}
    </section>
  );
}
