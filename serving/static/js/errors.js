// The error bar: every failed API call ends here as a readable sentence.

const bar = () => document.getElementById('error');

export function showError(err) {
  const text = err && err.message ? err.message : String(err);
  document.getElementById('error-text').textContent = text;
  bar().hidden = false;
}

export function clearError() {
  bar().hidden = true;
}

/** Run ``action`` (a user's click) with the error bar: its answer, or null once shown. */
export async function attempt(action) {
  clearError();
  try {
    return await action();
  } catch (err) {
    showError(err);
    return null;
  }
}

export function installErrorBar() {
  document.getElementById('error-close').addEventListener('click', clearError);
}
