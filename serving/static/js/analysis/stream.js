// Streams POST /v1/games/{game}/analysis (NDJSON, one AnalysisPublic a line) and stops it when
// asked: the fetch is aborted (closing the stream stops the search) and, once the id is known,
// DELETE /v1/analyses/{id} frees the worker at once rather than when the server notices.

import { ApiError } from '../api.js';

/**
 * Start an analysis of ``body`` ({config, moves, ...}) for ``game``; ``onResult(result)`` is
 * called for every partial and the final result, ``onError(err)`` on a failure. Returns a
 * function that cancels it (safe to call after it ended).
 */
export function streamAnalysis(game, body, onResult, onError) {
  const controller = new AbortController();
  let id = null;
  let done = false;

  async function run() {
    const res = await fetch(`/v1/games/${encodeURIComponent(game)}/analysis`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/x-ndjson' },
      body: JSON.stringify({ ...body, stream: true }),
      signal: controller.signal,
      cache: 'no-store',
    });
    if (!res.ok) {
      const text = await res.text();
      let data = null;
      try { data = JSON.parse(text); } catch { data = { message: text.slice(0, 200) }; }
      throw new ApiError(res.status, data);
    }
    id = res.headers.get('X-Analysis-Id');
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      buffer += decoder.decode(value, { stream: true });
      let newline = buffer.indexOf('\n');
      while (newline >= 0) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (line) {
          const result = JSON.parse(line);
          id = result.id || id;
          if (result.final) done = true;
          onResult(result);
        }
        newline = buffer.indexOf('\n');
      }
    }
    done = true;
  }

  run().catch((err) => {
    done = true;
    if (!controller.signal.aborted) onError(err);
  });

  return function cancel() {
    if (controller.signal.aborted) return;
    controller.abort();
    if (id && !done) {
      // 404 means it had just finished: nothing left to stop.
      fetch(`/v1/analyses/${encodeURIComponent(id)}`, { method: 'DELETE' }).catch(() => {});
    }
    done = true;
  };
}
