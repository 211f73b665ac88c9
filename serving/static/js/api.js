// The REST API (docs/service.md). Every error of the service is JSON
// {"error", "message", "detail"}; ApiError keeps it and says it in words people can read.

export class ApiError extends Error {
  constructor(status, body) {
    super(describe(status, body));
    this.status = status;
    this.body = body || {};
  }

  /** The session version the server reported with a 409, if any. */
  get currentVersion() {
    const detail = this.body.detail || {};
    return typeof detail.version === 'number' ? detail.version : null;
  }
}

const TITLES = {
  0: 'Connection problem',
  401: 'Not signed in to this session',
  403: 'Not your seat',
  404: 'Not found',
  409: 'Not possible now',
  413: 'Request too large',
  422: 'Not accepted',
  503: 'Service unavailable',
};

function describe(status, body) {
  const title = TITLES[status] || `Error ${status}`;
  const message = body && typeof body.message === 'string' ? body.message : 'no details';
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
    throw new ApiError(0, { message: `cannot reach the server (${err.message})` });
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
