// The start screen: a game from the catalogue, its options (rendered from the catalogue's
// options and defaults), a person or an AI level for each seat, then a new session.

import { api, getJSON } from './api.js';
import { h } from './dom.js';
import { clearError, showError } from './errors.js';
import { onLanguageChange, t, tOr } from './i18n.js';
import './i18n/start.js';
import { addGameLabels, gameName, seatName } from './i18n/common.js';
import { levelName } from './i18n/levels.js';
import { openRules } from './rules.js';
import { offlineLevels } from './offline/engine.js';

/** An input for one catalogue option: a list of choices, a number, a switch or text. */
function optionInput(game, opt) {
  const id = `opt-${opt.name}`;
  const key = `opt.${game.id}.${opt.name}`;
  let input;
  if (opt.choices && opt.choices.length) {
    input = h('select', { id, name: opt.name },
      opt.choices.map((c) => h('option', { value: String(c), selected: c === opt.default },
        tOr(`${key}.${c}`, c))));
  } else if (opt.type === 'bool') {
    input = h('input', { id, name: opt.name, type: 'checkbox', checked: Boolean(opt.default) });
  } else if (opt.type === 'int' || opt.type === 'float') {
    input = h('input', {
      id, name: opt.name, type: 'number', value: opt.default,
      step: opt.type === 'int' ? '1' : 'any',
    });
  } else {
    input = h('input', { id, name: opt.name, type: 'text', value: opt.default ?? '' });
  }
  const help = tOr(`${key}.help`, opt.help || '');
  return h('label', { class: 'field', title: help },
    h('span', { class: 'field-name', title: opt.name }, tOr(key, opt.name)), input,
    help ? h('small', { class: 'help' }, help) : null);
}

/** The option's value typed as the catalogue says (the API refuses "9" for an int). */
function optionValue(opt, form) {
  const el = form.querySelector(`[name="${opt.name}"]`);
  if (opt.type === 'bool') return el.checked;
  const raw = el.value;
  if (opt.type === 'int') return Number.parseInt(raw, 10);
  if (opt.type === 'float') return Number.parseFloat(raw);
  const choice = (opt.choices || []).find((c) => String(c) === raw);
  return choice !== undefined ? choice : raw;
}

/** The options that differ from the catalogue's defaults, in words ("scoring trigolden"). */
function describeOptions(game, options) {
  return game.options
    .filter((opt) => opt.name in options && options[opt.name] !== opt.default)
    .map((opt) => {
      const key = `opt.${game.id}.${opt.name}`;
      const value = options[opt.name];
      const choice = tOr(`${key}.${value}`, '');
      return choice || `${tOr(key, opt.name)} ${value}`;
    })
    .join(', ');
}

/** Set the option fields to ``options``, the others to their defaults. */
function applyOptions(game, form, options) {
  for (const opt of game.options) {
    const el = form.querySelector(`[name="${opt.name}"]`);
    const value = opt.name in options ? options[opt.name] : opt.default;
    if (opt.type === 'bool') el.checked = Boolean(value);
    else el.value = String(value ?? '');
  }
}

/** One button per other configuration with trained levels: it chooses those options. */
function variantButtons(game, levels, onChoose) {
  if (!levels.variants || levels.variants.length === 0) return null;
  return h('div', { class: 'variants' },
    h('span', { class: 'field-name' }, t('start.variantsFor')),
    levels.variants.map((v) => h('button', {
      type: 'button', class: 'variant-choice', dataset: { variant: v.key },
      onclick: () => onChoose(v.options),
    }, describeOptions(game, v.options) || v.key)));
}

function seatInput(seat, levels) {
  const options = [h('option', { value: 'human' }, t('start.human'))];
  for (const lv of levels.levels) {
    const name = levelName(lv.label);
    const level = lv.elo !== null && lv.elo !== undefined
      ? t('level.elo', { level: name, elo: Math.round(lv.elo) }) : name;
    options.push(h('option', { value: `ai:${lv.id}` },
      t('level.option', { ai: levels.prefix || t('start.ai'), level })));
  }
  return h('label', { class: 'field' },
    h('span', { class: 'field-name' }, seatName(seat)),
    h('select', { name: `seat-${seat}`, dataset: { seat }, disabled: levels.levels.length === 0 },
      options),
    levels.levels.length === 0 ? h('small', { class: 'help' }, t('start.noLevels')) : null);
}

function sessionInputs(game) {
  const f = game.sessions;
  const out = [];
  if (f.timer) {
    out.push(h('label', { class: 'field' },
      h('span', { class: 'field-name' }, t('start.turnSeconds')),
      h('input', { name: 'turn_seconds', type: 'number', min: '1', step: '1',
        value: f.turn_seconds_default }),
      h('small', { class: 'help' }, t('start.noTimer'))));
  }
  if (f.clock_default) {
    // main time + byo-yomi (Stereo Go): the rules' clock, on by default
    const c = f.clock_default;
    const num = (name, label, value, step) => h('label', { class: 'field' },
      h('span', { class: 'field-name' }, label),
      h('input', { name, type: 'number', min: '0', step, value }));
    out.push(h('label', { class: 'field' },
      h('span', { class: 'field-name' }, t('start.clock')),
      h('input', { name: 'clock_on', type: 'checkbox', checked: true }),
      h('small', { class: 'help' }, t('start.clockHelp'))),
    num('main_time', t('start.mainTime'), c.main_time, '1'),
    num('periods', t('start.periods'), c.periods, '1'),
    num('period_seconds', t('start.period'), c.period_seconds, '1'));
  }
  if (f.match_lengths.length > 1) {
    const most = Math.max(...f.match_lengths);
    out.push(h('label', { class: 'field' },
      h('span', { class: 'field-name' }, t('start.matchGames')),
      h('select', { name: 'match_games' },
        f.match_lengths.map((n) => h('option', { value: String(n), selected: n === most }, n)))));
  }
  out.push(h('label', { class: 'field' },
    h('span', { class: 'field-name' }, t('start.confirmTurns')),
    h('input', { name: 'confirm_turns', type: 'checkbox', checked: f.confirm_turns }),
    h('small', { class: 'help' }, t('start.confirmHelp'))));
  return out;
}

/** The game options chosen in the form. */
function chosenConfig(game, form) {
  const config = {};
  for (const opt of game.options) config[opt.name] = optionValue(opt, form);
  return config;
}

/** The AI levels trained for exactly these options (the server falls back to its baseline). */
function levelsFor(game, config) {
  const query = Object.keys(config).length
    ? `?config=${encodeURIComponent(JSON.stringify(config))}` : '';
  return getJSON(`/v1/games/${game.id}/levels${query}`);
}

/** The seats chosen in the form: {seat: {type: 'human'} or {type: 'ai', level}}. */
function chosenSeats(game, form) {
  const seats = {};
  for (const seat of game.players) {
    const v = form.querySelector(`[name="seat-${seat}"]`).value;
    seats[seat] = v === 'human' ? { type: 'human' } : { type: 'ai', level: v.slice(3) };
  }
  return seats;
}

/** Where the game is played: on the server (a session), or in this browser alone (the
 * offline mode: rules, search and networks in the page). Shown for the games the page can
 * play by itself; ``inBrowser``: the choice shown; ``onChange(inBrowser)``. */
function whereInput(inBrowser, onChange) {
  const radio = (value, label, help) => h('label', { class: 'where-choice' },
    h('input', { type: 'radio', name: 'where', value,
      checked: value === (inBrowser ? 'browser' : 'server'),
      onchange: () => onChange(value === 'browser') }),
    h('span', {}, label), h('small', { class: 'help' }, help));
  return h('fieldset', { class: 'where' }, h('legend', {}, t('start.where')),
    radio('server', t('start.server'), t('start.serverHelp')),
    radio('browser', t('start.browser'), t('start.browserHelp')));
}

/** The body of POST /v1/sessions from the form. */
function sessionBody(game, form) {
  const config = chosenConfig(game, form);
  const seats = chosenSeats(game, form);
  const body = { game: game.id, config, seats };
  const timer = form.querySelector('[name="turn_seconds"]');
  if (timer) body.turn_seconds = timer.value === '' ? null : Number(timer.value);
  const clockOn = form.querySelector('[name="clock_on"]');
  if (clockOn) {
    const value = (name) => Number(form.querySelector(`[name="${name}"]`).value);
    body.clock = clockOn.checked ? {
      main_time: value('main_time'), periods: value('periods'),
      period_seconds: value('period_seconds'),
    } : null;
  }
  const match = form.querySelector('[name="match_games"]');
  if (match) body.match_games = Number(match.value);
  body.confirm_turns = form.querySelector('[name="confirm_turns"]').checked;
  return body;
}

/** Every named field's value: what a language switch puts back in the re-rendered form. */
function fieldValues(form) {
  return Object.fromEntries([...form.elements]
    .filter((el) => el.name && !(el.type === 'radio' && !el.checked))
    .map((el) => [el.name, el.type === 'checkbox' ? el.checked : el.value]));
}

/** Put ``values`` (fieldValues) back; a list keeps its choice where it still offers it. */
function restoreFields(form, values) {
  for (const el of form.elements) {
    if (!el.name || !(el.name in values)) continue;
    const value = values[el.name];
    if (el.type === 'checkbox') el.checked = value;
    else if (el.type === 'radio') el.checked = el.value === value;
    else if (el.tagName !== 'SELECT' || [...el.options].some((o) => o.value === value)) {
      el.value = value;
    }
  }
}

let stopRelabel = null; // the language listener of the start screen last rendered

/** Render the start screen into ``root``; ``onCreated(created)`` gets the API's answer,
 * ``onOffline({game, config, seats, manifest})`` an in-browser game to open. ``keep``: {id,
 * config, fields}, the game, options and every field to show chosen (a language switch
 * re-renders with what was chosen: where to play, seats, timers). */
export async function renderStart(root, onCreated, onOffline, keep = null) {
  const games = await getJSON('/v1/games');
  games.forEach(addGameLabels);
  if (stopRelabel) stopRelabel();
  stopRelabel = onLanguageChange(() => {
    if (root.hidden || !root.contains(form)) return;
    const chosen = current
      ? { id: current.id, config: chosenConfig(current, form), fields: fieldValues(form) } : null;
    renderStart(root, onCreated, onOffline, chosen).catch(showError);
  });
  const details = h('div', { class: 'game-details' });
  const form = h('form', { id: 'start-form', class: 'card' });
  const picker = h('div', { class: 'game-picker', role: 'radiogroup' });
  let current = null;
  let inBrowser = null; // the in-browser levels while the offline mode is chosen
  let refreshSeats = null; // the chosen game's: offer the levels of the options chosen

  async function choose(game) {
    current = game;
    inBrowser = null;
    for (const b of picker.children) b.classList.toggle('chosen', b.dataset.game === game.id);
    const defaults = Object.fromEntries(game.options.map((opt) => [opt.name, opt.default]));
    const [levels, offline] = await Promise.all([getJSON(`/v1/games/${game.id}/levels`),
      offlineLevels(game.id, defaults).catch(() => null)]);
    if (current !== game) return; // another game was chosen meanwhile
    const seatsBox = h('fieldset', { class: 'seats' });
    const showSeats = (lv) => seatsBox.replaceChildren(h('legend', {}, t('start.players')),
      ...game.players.map((seat) => seatInput(seat, lv)));
    showSeats(levels);
    const optionsBox = game.options.length
      ? h('fieldset', {}, h('legend', {}, t('start.options')),
        game.options.map((opt) => optionInput(game, opt)),
        variantButtons(game, levels, (options) => {
          applyOptions(game, form, options);
          optionsBox.dispatchEvent(new Event('change'));
        }))
      : null;
    const sessionBox = h('fieldset', {}, h('legend', {}, t('start.session')), sessionInputs(game));
    // The choice of where to play, offered while the page can play these options by itself
    // (``manifest``: its in-browser levels, kept chosen while the options keep it);
    // ``serverLevels`` those of the service. The seats offer the levels of the choice.
    const whereBox = h('div', { class: 'where-box' });
    const showWhere = (manifest, serverLevels) => {
      if (!(inBrowser && manifest && inBrowser.game === manifest.game)) inBrowser = null;
      sessionBox.hidden = Boolean(inBrowser);
      whereBox.dataset.offline = manifest ? manifest.game : '';
      whereBox.replaceChildren(...(manifest ? [whereInput(inBrowser, (browser) => {
        inBrowser = browser ? { ...manifest, prefix: t('start.aiBrowser') } : null;
        showSeats(inBrowser || serverLevels);
        sessionBox.hidden = browser; // no timer, no confirmation: the page plays alone
      })] : []));
      showSeats(inBrowser || serverLevels);
    };
    // Other options may have other trained levels (and other in-browser ones, or none): the
    // seats offer those of the chosen options, played on the server until asked otherwise.
    refreshSeats = async () => {
      const config = chosenConfig(game, form);
      let chosen;
      let manifest;
      try {
        [chosen, manifest] = await Promise.all([levelsFor(game, config),
          offlineLevels(game.id, config).catch(() => null)]);
      } catch (err) {
        showError(err);
        return;
      }
      if (current !== game) return;
      showWhere(manifest, chosen);
    };
    optionsBox?.addEventListener('change', refreshSeats);
    showWhere(offline, levels);
    details.replaceChildren(...[optionsBox, whereBox, seatsBox, sessionBox].filter(Boolean));
  }

  for (const game of games) {
    picker.append(h('button', {
      type: 'button', class: 'game-choice', dataset: { game: game.id },
      role: 'radio', onclick: () => choose(game).catch(showError),
    }, h('strong', {}, gameName(game.id)), h('small', {}, t(`game.${game.id}.other`))));
  }

  form.append(
    h('h1', {}, t('start.title')),
    picker,
    h('button', { type: 'button', id: 'start-rules', class: 'rules-button',
      onclick: () => current && openRules(current.id) }, t('start.rules')),
    details,
    h('div', { class: 'actions' },
      h('button', { type: 'submit', id: 'create', class: 'primary' }, t('start.start'))),
  );
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!current) return;
    clearError();
    if (inBrowser) {
      onOffline({
        game: current, config: chosenConfig(current, form), seats: chosenSeats(current, form),
        manifest: inBrowser,
      });
      return;
    }
    try {
      const created = await api('POST', '/v1/sessions', sessionBody(current, form));
      onCreated(created);
    } catch (err) {
      showError(err);
    }
  });
  root.replaceChildren(form);
  const first = (keep && games.find((g) => g.id === keep.id)) || games[0];
  await choose(first);
  if (!keep || first.id !== keep.id || current !== first) return;
  if (first.options.length) {
    applyOptions(first, form, keep.config);
    await refreshSeats();
  }
  const browser = form.querySelector('input[name="where"][value="browser"]');
  if (browser && keep.fields.where === 'browser') {
    browser.checked = true;
    browser.dispatchEvent(new Event('change'));
  }
  restoreFields(form, keep.fields);
}
