"""Ladder player names: one normal form, one key for uniqueness, and names no person may take.

Why these rules: a name is shown to other people on the leaderboard and in their games, so it
must be what it looks like.

* **Normal form** (what is stored and shown): NFKC (fullwidth ``Ｌｉｎ`` is ``Lin``, a
  no-break space a space), trimmed, runs of white space (line separators too) one space.
* **Allowed characters**: no control, format (zero-width and bidi controls), surrogate,
  private-use or unassigned character (Unicode category ``C*``), and at least one letter,
  digit, symbol or punctuation mark (so a name of combining marks alone is refused like a
  blank one).
* **Uniqueness** is case-insensitive: :func:`name_key` (NFKC, casefold, NFKC again:
  Unicode's NFKC_Casefold) is stored beside the name under a unique index, so the database
  refuses ``lin`` when ``Lin`` exists, on SQLite and PostgreSQL alike.
* **Reserved**: no name may read as an AI level's (they are named ``AI <label>``:
  :mod:`serving.ladder.ai_players`) or the administrator's. :func:`skeleton` maps look-alikes
  (Greek and Cyrillic letters, ``1``/``l``/``|`` for ``I``, ``0`` for ``O``) to Latin and drops
  punctuation, and a name whose first word's skeleton is reserved is refused: ``AI master``,
  ``ΑΙ master`` (Greek), ``A.I. master``, ``Al master`` (a lower-case L) and ``Adm1n`` alike.
"""

from __future__ import annotations

import unicodedata

MAX_NAME_CHARS = 32
MAX_KEY_CHARS = 128  # the name_key column; casefolding can lengthen a name

# First words (as skeletons) that belong to the service: the AI levels ("AI <label>") and
# the administrator.
RESERVED_WORDS = frozenset({"ai", "admin", "administrator", "root", "system", "moderator"})

# Look-alikes of Latin letters, after NFKC and casefold (UTS #39's confusables, the common
# part): Greek, Cyrillic, and the digits and marks that pass for letters.
_CONFUSABLES = str.maketrans({
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "μ": "u", "ν": "v", "ο": "o",
    "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "γ": "y", "ω": "w", "ς": "c", "σ": "o", "ζ": "z",
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "з": "3", "и": "u", "і": "i", "ї": "i", "ј": "j",
    "к": "k", "м": "m", "н": "h", "о": "o", "п": "n", "р": "p", "с": "c", "т": "t", "у": "y",
    "х": "x", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "i",
    # digits, marks and Latin letters that pass for others
    "0": "o", "1": "i", "l": "i", "|": "i", "!": "i", "ı": "i", "ɑ": "a", "ɡ": "g",
    "5": "s", "$": "s", "@": "a",
})


class BadName(ValueError):
    """A name that cannot be taken; the message says why (422)."""


def normalize(name: str) -> str:
    """The stored, shown form of ``name`` (raises :class:`BadName` for a bad one)."""
    text = " ".join(unicodedata.normalize("NFKC", name).split())
    for ch in text:
        category = unicodedata.category(ch)
        if category[0] == "C":
            raise BadName(f"a name cannot hold U+{ord(ch):04X} ({_kind(category)})")
    if not any(unicodedata.category(ch)[0] in "LNSP" for ch in text):
        raise BadName("a name needs at least one visible letter, digit or symbol")
    if len(text) > MAX_NAME_CHARS:
        raise BadName(f"a name has at most {MAX_NAME_CHARS} characters")
    if reserved(text):
        raise BadName("names that read as an AI level's ('AI ...') or the administrator's "
                      "are the service's")
    if len(name_key(text)) > MAX_KEY_CHARS:
        raise BadName("the name is too long once case-folded")
    return text


def name_key(name: str) -> str:
    """What two names must not share (NFKC_Casefold of the normal form): ``Lin`` = ``LIN``."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(folded.split())


def skeleton(name: str) -> str:
    """``name`` as it reads: case-folded, look-alikes mapped to Latin, accents dropped,
    punctuation dropped, spaces collapsed (only for telling reserved names apart)."""
    folded = unicodedata.normalize("NFKD", name_key(name).translate(_CONFUSABLES))
    kept = []
    for ch in folded.translate(_CONFUSABLES):
        category = unicodedata.category(ch)
        if category == "Mn":
            continue  # accents: "Àdmin" reads as "Admin"
        if category[0] == "P":
            kept.append("" if ch in ".'`" else " ")  # "A.I." is "AI"; "AI-master" two words
        else:
            kept.append(" " if ch.isspace() else ch)
    return " ".join("".join(kept).split())


def reserved(name: str) -> bool:
    """Whether ``name`` reads as the service's own (first word an AI or administrator's)."""
    words = skeleton(name).split()
    return bool(words) and words[0] in RESERVED_WORDS


def _kind(category: str) -> str:
    return {"Cc": "a control character", "Cf": "a format character (zero-width or bidi)",
            "Cs": "a surrogate", "Co": "a private-use character",
            "Cn": "an unassigned code point"}[category]
