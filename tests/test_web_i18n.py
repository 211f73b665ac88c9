"""Chinese and English throughout the page (serving/static/js/i18n.js, docs/web_client.md).

In Chromium at a wide (1366×800) and a phone (390×844) size: the start screen with each game's
options, a game screen of each of the four games, the rules dialog and an offline game are
read in 中文 and in English after switching each way. A screen passes when no visible text
(text nodes, the options of visible lists, titles, ARIA labels and placeholders) is still in
the other language:

* in Chinese, no text equals an English label of the tables (placeholders such as {seat}
  match anything) unless the Chinese tables use it too, and no English word (three letters or
  more) appears that no Chinese label uses ("Stereo Go", "JavaScript", "Elo" do);
* in English, the same the other way round, and no Chinese appears that no English label
  carries (the games' own names do).

Text in an element marked with another ``lang`` (the switch's 中文 / English buttons) and data
(the session id, the move list, the API's option names shown as tooltips, and whatever is
marked `translate="no"`: board coordinates and axis letters, the notation's names) are not
labels.
The choice is remembered across a reload, the default follows the browser's language, the
Chinese webfont is loaded when Chinese is shown, and no console error appears.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from serving_helpers import serve_in_thread, settings_for, write_levels
from test_web_client import _start_from_form, browser  # noqa: F401  (fixtures)

from serving.app import STATIC_DIR, create_app

GAMES = ["jiugong", "fangqi", "trigolden", "stereo_go"]
SIZES = {"wide": (1366, 800), "phone": (390, 844)}
FONT = "qizero Noto Sans SC"
TABLES = sorted(p.name for p in (STATIC_DIR / "js" / "i18n").glob("*.js"))

# Every visible label of the page and of its open dialogs, skipping data and other languages.
VISIBLE_TEXT = r"""() => {
  const DATA = '.session-id, .move-list, code, [translate="no"]';  // notation, not labels
  const shown = (el) => el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })
    && el.getClientRects().length > 0;
  const ownLanguage = (el) => {
    const marked = el.closest('[lang]');
    return !marked || marked === document.documentElement;
  };
  const keep = (el) => el && ownLanguage(el) && !el.closest(DATA);
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    const text = node.textContent.trim();
    if (!text || !keep(el) || el.closest('noscript, script, style')) continue;
    if (el.closest('option')) continue;  // below, with their list
    if (shown(el)) out.push(text);
  }
  for (const select of document.querySelectorAll('select')) {
    if (keep(select) && shown(select)) for (const o of select.options) out.push(o.text.trim());
  }
  for (const el of document.querySelectorAll('[title], [aria-label], [placeholder]')) {
    if (!keep(el) || !shown(el)) continue;
    for (const name of ['title', 'aria-label', 'placeholder']) {
      const value = (el.getAttribute(name) || '').trim();
      if (value) out.push(value);
    }
  }
  return [...new Set(out)];
}"""

# The tables of both languages, every screen's module loaded. A label the same in both (an
# English word copied into the Chinese table) counts as neither language's own.
LABELS = """async (tables) => {
  for (const name of tables) await import(`/js/i18n/${name}`);
  const { labels } = await import('/js/i18n.js');
  const en = labels('en');
  const zh = labels('zh');
  const own = (table, other) => Object.entries(table)
    .filter(([key, text]) => other[key] !== text).map(([, text]) => text);
  return { en: own(en, zh), zh: own(zh, en) };
}"""

FONT_LOADED = """async (family) => {
  await document.fonts.ready;
  const faces = [...document.fonts].filter((f) => f.family.replace(/"/g, '') === family);
  return {
    loaded: faces.filter((f) => f.status === 'loaded').map((f) => f.weight),
    check: document.fonts.check(`16px "${family}"`, '中文棋'),
    stack: getComputedStyle(document.body).fontFamily,
  };
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    """The real service with TriGolden levels named as the shipped ones are ("club"), so the
    level lists show names the tables translate."""
    tmp = tmp_path_factory.mktemp("web-i18n")
    write_levels(tmp / "checkpoints", "trigolden", [
        {"id": "random", "label": "beginner", "player": "random"},
        {"id": "mcts2", "label": "club", "player": "mcts:2"},
    ], default="random")
    app = create_app(settings_for(tmp, checkpoints_root=tmp / "checkpoints"))
    with serve_in_thread(app, "web-i18n-server") as url:
        # the first catalogue request builds every game: a minute on a loaded machine
        httpx.get(f"{url}/v1/games", timeout=300).raise_for_status()
        yield url


@pytest.fixture(scope="module")
def data_words(server) -> set[str]:
    """The API's option names (shown as tooltips beside their translated labels), the page's
    name and the API link's, the same in both languages."""
    catalogue = httpx.get(f"{server}/v1/games").json()
    return {"qizero", "API"} | {opt["name"] for game in catalogue for opt in game["options"]}


class Page:
    """A page at one size and browser language, recording console errors and foreign requests,
    with the checks of this module."""

    def __init__(self, chromium, server: str, size: str, locale: str, data: set[str]) -> None:
        width, height = SIZES[size]
        self.context = chromium.new_context(viewport={"width": width, "height": height},
                                           locale=locale)
        self.context.set_default_timeout(30_000)
        self.pg = self.context.new_page()
        self.server = server
        self.data = data
        self.errors: list[str] = []
        self.foreign: list[str] = []
        self.pg.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.pg.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.pg.on("request", lambda r: None if r.url.startswith(server)
                   else self.foreign.append(r.url))
        self.labels: dict[str, list[str]] = {}

    def open(self) -> None:
        self.pg.goto(self.server + "/")
        self.pg.wait_for_selector("[data-game]")
        self.labels = self.pg.evaluate(LABELS, TABLES)

    def language(self) -> str:
        return self.pg.evaluate("document.documentElement.lang")

    def switch(self, lang: str) -> None:
        if self.language().startswith(lang):
            return
        self.pg.click(f'#lang-switch [data-lang="{lang}"]')
        self.pg.wait_for_function(f"document.documentElement.lang.startsWith('{lang}')")

    def left_in_other_language(self, lang: str, wait_ms: int = 5_000) -> list[str]:
        """The visible texts that belong to the other language (empty when all is ``lang``),
        once the screens have re-rendered (some fetch first): what is left after ``wait_ms``."""
        for _ in range(wait_ms // 250):
            texts = self.pg.evaluate(VISIBLE_TEXT)
            left = [text for text in texts if foreign(text, lang, self.labels, self.data)]
            if not left:
                return []
            self.pg.wait_for_timeout(250)
        return left

    def check_both_ways(self, where: str) -> None:
        """The screen in Chinese, in English after switching, and in Chinese again."""
        assert self.language() == "zh-CN", where
        for lang in ("zh", "en", "zh"):
            self.switch(lang)
            left = self.left_in_other_language(lang)
            assert not left, (where, lang, left)

    def font(self) -> dict[str, Any]:
        return self.pg.evaluate(FONT_LOADED, FONT)

    def close(self) -> None:
        self.context.close()
        assert not self.errors, self.errors
        assert not self.foreign, self.foreign


def _pattern_match(label: str, text: str) -> bool:
    """Whether ``text`` is ``label`` with its {placeholders} filled in."""
    parts = re.split(r"\{\w+\}", label)
    return re.fullmatch(".+".join(re.escape(p) for p in parts), text, re.S) is not None


def foreign(text: str, lang: str, labels: dict[str, list[str]], data: set[str]) -> bool:
    """Whether ``text``, shown while the page is in ``lang``, belongs to the other language."""
    if text in data:
        return False
    own, other = labels[lang], labels["en" if lang == "zh" else "zh"]
    if not any(_pattern_match(label, text) for label in own) and any(
            _pattern_match(label, text) for label in other if re.search(r"\w", label)):
        return True
    own_text = "\n".join(own)
    if lang == "zh":  # an English word no Chinese label uses
        return any(word not in own_text for word in re.findall(r"[A-Za-z]{3,}", text))
    return any(run not in own_text for run in re.findall(r"[\u3000-\u9fff\uff00-\uffef]+", text))


def test_the_checks_see_a_label_left_in_the_other_language():
    labels = {"en": ["Confirm", "{seat} to play", "Stereo Go", "立体围棋"],
              "zh": ["确认", "轮到{seat}", "立体围棋", "Stereo Go"]}
    assert foreign("Confirm", "zh", labels, set())
    assert foreign("south to play", "zh", labels, set())
    assert foreign("AI：beginner", "zh", labels, set())  # a word no Chinese label has
    assert foreign("确认", "en", labels, set()) and foreign("轮到南方", "en", labels, set())
    for ok in ("确认", "轮到南方", "立体围棋 Stereo Go", "b1-b2", "AI"):
        assert not foreign(ok, "zh", labels, set()), ok
    assert not foreign("Stereo Go 立体围棋", "en", labels, set())
    assert not foreign("max_moves", "zh", labels, {"max_moves"})


def _start_game(page: Page, game: str) -> None:
    """From any screen, a new game of ``game`` with the start screen's defaults."""
    page.pg.click("#home-link")
    page.pg.wait_for_selector(f'[data-game="{game}"]')
    _start_from_form(page.pg, page.server, game)


@pytest.mark.parametrize("size", SIZES)
def test_every_screen_in_both_languages(browser, server, data_words, size):  # noqa: F811
    page = Page(browser, server, size, "zh-CN", data_words)
    try:
        page.open()
        assert page.language() == "zh-CN"  # the browser's language chose Chinese
        assert len(page.labels["zh"]) > 200
        for game in GAMES:  # the start screen with each game's options
            page.pg.click(f'[data-game="{game}"]')
            page.pg.wait_for_selector(f'[data-game="{game}"].chosen')
            page.check_both_ways(f"start {game}")
        font = page.font()
        assert font["loaded"] and font["check"], font
        assert font["stack"].startswith(f'"{FONT}"'), font

        for game in GAMES:
            _start_game(page, game)
            page.check_both_ways(f"game {game}")

        for lang in ("zh", "en", "zh"):  # the rules dialog (modal: the switch is behind it)
            page.switch(lang)
            page.pg.click("#game-rules")
            page.pg.wait_for_selector("#rules-dialog[open]")
            left = page.left_in_other_language(lang)
            assert not left, ("rules", lang, left)
            page.pg.click("#rules-close")

        page.pg.click("#home-link")  # an offline game against a level in this browser
        page.pg.click('[data-game="jiugong"]')
        page.pg.check('input[name="where"][value="browser"]')
        page.pg.wait_for_selector('select[name="seat-north"] option[value="ai:5"]',
                                  state="attached", timeout=60_000)
        page.check_both_ways("start offline")
        # the switch re-rendered the form with what was chosen: where to play, the seats
        assert page.pg.is_checked('input[name="where"][value="browser"]')
        page.pg.select_option('select[name="seat-north"]', "ai:5")
        page.pg.click("#create")
        page.pg.wait_for_selector("#game-screen:not([hidden])", timeout=60_000)
        page.check_both_ways("offline game")
        page.pg.click('[data-point="b1"]')
        page.pg.click('[data-point="b2"]')
        page.pg.wait_for_function("document.querySelectorAll('#moves li').length >= 1")
        page.check_both_ways("offline game, moves played")
    finally:
        page.close()


def test_the_default_follows_the_browser_and_the_choice_is_remembered(browser, server,  # noqa: F811
                                                                       data_words):
    english = Page(browser, server, "wide", "en-US", data_words)
    chinese = Page(browser, server, "phone", "zh-CN", data_words)
    try:
        english.open()
        assert english.language() == "en"
        assert not english.left_in_other_language("en")
        english.switch("zh")
        english.pg.reload()
        english.pg.wait_for_selector("[data-game]")
        assert english.language() == "zh-CN"  # remembered, over the browser's English
        assert english.pg.evaluate("localStorage.getItem('qizero.lang')") == "zh"
        assert not english.left_in_other_language("zh")
        font = english.font()
        assert font["loaded"] and font["check"], font

        chinese.open()
        assert chinese.language() == "zh-CN"
        chinese.switch("en")
        chinese.pg.reload()
        chinese.pg.wait_for_selector("[data-game]")
        assert chinese.language() == "en"  # remembered, over the browser's Chinese
        assert not chinese.left_in_other_language("en")
    finally:
        english.close()
        chinese.close()


def test_the_error_bar_follows_the_language(browser, server, data_words):  # noqa: F811
    """A refusal of the page (an offline game over, a move on the AI's turn) and an API error
    are said in the chosen language, and again in the other after a switch."""
    page = Page(browser, server, "wide", "zh-CN", data_words)
    try:
        page.open()
        page.pg.goto(f"{server}/#session=nope&token=nope")
        page.pg.reload()
        page.pg.wait_for_selector("#error:not([hidden])")
        # the browser logs the API's 404 for the unknown session: expected here, nothing else
        page.errors = [e for e in page.errors if "404 (Not Found)" not in e]
        zh = page.pg.inner_text("#error-text")
        assert "服务器上已没有这局棋" in zh, zh
        page.switch("en")
        assert "no longer on the server" in page.pg.inner_text("#error-text")
        assert not page.left_in_other_language("en")
        page.pg.evaluate("""async () => {
          const { showError, PageError } = await import('/js/errors.js');
          const { seatName } = await import('/js/i18n/common.js');
          showError(new PageError('offline.aiSeat', { seat: () => seatName('north') }));
        }""")
        assert page.pg.inner_text("#error-text").startswith("north is played by the AI")
        page.switch("zh")
        assert page.pg.inner_text("#error-text").startswith("北方由 AI 执棋")
        assert not page.left_in_other_language("zh")
    finally:
        page.close()
