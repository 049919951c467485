import type { Response } from 'express';

/**
 * Answers with a body already in memory as a list of chunks (an agent's screenshot as its socket's
 * reads brought it), corked so that Node hands the headers and every chunk to the kernel in one
 * writev. StreamableFile over a Readable piped the chunks through two streams, writing one, waiting
 * for 'drain', writing the next: a write call and a trip through the stream machinery per 64 kB.
 * The status and the decorators' headers are set by then; a client gone meanwhile just drops it.
 */
export function sendChunks(res: Response, chunks: readonly Buffer[], type: string, length: number): void {
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', length);
  res.cork();
  for (const chunk of chunks) res.write(chunk);
  res.end();
  res.uncork();
}
