// The REST API (docs/service.md). Every error of the service is JSON
// {"error", "message", "detail"}; ApiError keeps it and says it in words people can read.

import { t } from './i18n.js';
import './i18n/common.js';

export class ApiError extends Error {
  constructor(status, body) {
    super(describe(status, body));
    this.status = status;
    this.body = body || {};
  }

  /** The sentence in the current language (the error bar says it again after a switch). */
  describe() {
    return describe(this.status, this.body);
  }

  /** The session version the server reported with a 409, if any. */
  get currentVersion() {
    const detail = this.body.detail || {};
    return typeof detail.version === 'number' ? detail.version : null;
  }
}

const TITLED = new Set([0, 401, 403, 404, 409, 413, 422, 503]); // statuses with a title

function describe(status, body) {
  const title = TITLED.has(status) ? t(`api.${status}`) : t('api.other', { status });
  const message = body && typeof body.message === 'string' ? body.message : t('api.noDetails');
  return `${title}: ${message}`;
}

/** One API call; resolves to the JSON answer, rejects with ApiError. */
export async function api(method, path, body, token) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
  } catch (err) {
    throw new ApiError(0, { message: t('api.unreachable', { why: err.message }) });
  }
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { message: text.slice(0, 200) };
  }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

export const getJSON = (path) => api('GET', path);
