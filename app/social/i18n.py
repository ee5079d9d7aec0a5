"""Server-made player-facing strings in the reader's language (es, en, pt-BR, it, pl).

The server writes few words of its own: the names it gives tables ("¡Juega ya!", a
challenge's name) and the text of notifications. Each is a message key rendered per
reader: plural forms follow CLDR's categories per language and numbers are grouped the
way each language writes them, always grouped from four digits (6.000 beside 20.000, never
6000 beside 20.000, although CLDR leaves four digits ungrouped in Spanish and Polish; the
client does the same, docs/decisions/0025-words-and-learning.md); Polish groups with a
no-break space. Pure: no I/O, so tables, social and economy use it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

LANGUAGES = ("es", "en", "pt-BR", "it", "pl")
DEFAULT = "es"
_GROUP = {"es": ".", "en": ",", "pt-BR": ".", "it": ".", "pl": "\u00a0"}

Forms = Mapping[str, str]  # plural category -> template
Message = Mapping[str, str | Forms]

MESSAGES: dict[str, Message] = {
    "table.quick": {
        "es": "¡Juega ya!",
        "en": "Play now!",
        "pt-BR": "Jogue já!",
        "it": "Gioca ora!",
        "pl": "Zagraj teraz!",
    },
    "table.challenge": {
        "es": "Desafío de {name}",
        "en": "{name}'s challenge",
        "pt-BR": "Desafio de {name}",
        "it": "Sfida di {name}",
        "pl": "Wyzwanie gracza {name}",
    },
    "note.gift": {
        "es": "{from_nickname} te envió un regalo",
        "en": "{from_nickname} sent you a gift",
        "pt-BR": "{from_nickname} te enviou um presente",
        "it": "{from_nickname} ti ha mandato un regalo",
        "pl": "Gracz {from_nickname} wysłał Ci prezent",
    },
    "note.gift.coins": {
        "es": {
            "one": "{from_nickname} te regaló {amount} moneda",
            "other": "{from_nickname} te regaló {amount} monedas",
        },
        "en": {
            "one": "{from_nickname} gave you {amount} coin",
            "other": "{from_nickname} gave you {amount} coins",
        },
        "pt-BR": {
            "one": "{from_nickname} te deu {amount} moeda",
            "other": "{from_nickname} te deu {amount} moedas",
        },
        "it": {
            "one": "{from_nickname} ti ha regalato {amount} moneta",
            "other": "{from_nickname} ti ha regalato {amount} monete",
        },
        "pl": {
            "one": "Gracz {from_nickname} podarował Ci {amount} monetę",
            "few": "Gracz {from_nickname} podarował Ci {amount} monety",
            "many": "Gracz {from_nickname} podarował Ci {amount} monet",
        },
    },
    "note.gift.credits": {
        "es": {
            "one": "{from_nickname} te regaló {amount} crédito",
            "other": "{from_nickname} te regaló {amount} créditos",
        },
        "en": {
            "one": "{from_nickname} gave you {amount} credit",
            "other": "{from_nickname} gave you {amount} credits",
        },
        "pt-BR": {
            "one": "{from_nickname} te deu {amount} crédito",
            "other": "{from_nickname} te deu {amount} créditos",
        },
        "it": {
            "one": "{from_nickname} ti ha regalato {amount} credito",
            "other": "{from_nickname} ti ha regalato {amount} crediti",
        },
        "pl": {
            "one": "Gracz {from_nickname} podarował Ci {amount} kredyt",
            "few": "Gracz {from_nickname} podarował Ci {amount} kredyty",
            "many": "Gracz {from_nickname} podarował Ci {amount} kredytów",
        },
    },
    "note.gift_accepted": {
        "es": "{by_nickname} aceptó tu regalo",
        "en": "{by_nickname} accepted your gift",
        "pt-BR": "{by_nickname} aceitou seu presente",
        "it": "{by_nickname} ha accettato il tuo regalo",
        "pl": "Gracz {by_nickname} przyjął Twój prezent",
    },
    "note.gift_declined": {
        "es": "{by_nickname} rechazó tu regalo: te devolvimos lo que pagaste",
        "en": "{by_nickname} declined your gift: you got your money back",
        "pt-BR": "{by_nickname} recusou seu presente: devolvemos o que você pagou",
        "it": "{by_nickname} ha rifiutato il tuo regalo: ti abbiamo restituito quanto pagato",
        "pl": "Gracz {by_nickname} odrzucił Twój prezent – zwróciliśmy Ci zapłaconą kwotę",
    },
    "note.friend_request": {
        "es": "{from_nickname} te envió una solicitud de amistad",
        "en": "{from_nickname} sent you a friend request",
        "pt-BR": "{from_nickname} te enviou uma solicitação de amizade",
        "it": "{from_nickname} ti ha inviato una richiesta di amicizia",
        "pl": "Gracz {from_nickname} zaprasza Cię do znajomych",
    },
    "note.friend_accepted": {
        "es": "{nickname} aceptó tu solicitud de amistad",
        "en": "{nickname} accepted your friend request",
        "pt-BR": "{nickname} aceitou sua solicitação de amizade",
        "it": "{nickname} ha accettato la tua richiesta di amicizia",
        "pl": "Gracz {nickname} przyjął Twoje zaproszenie do znajomych",
    },
    "note.challenge": {
        "es": "{from_nickname} te desafió a una partida",
        "en": "{from_nickname} challenged you to a game",
        "pt-BR": "{from_nickname} te desafiou para uma partida",
        "it": "{from_nickname} ti ha sfidato a una partita",
        "pl": "Gracz {from_nickname} wyzywa Cię na pojedynek",
    },
    "note.game_voided": {
        "es": {
            "one": "Una partida se interrumpió y quedó anulada: te devolvimos {amount} moneda",
            "other": "Una partida se interrumpió y quedó anulada: te devolvimos {amount} monedas",
        },
        "en": {
            "one": "A game was cut short and voided: you got your {amount} coin back",
            "other": "A game was cut short and voided: you got your {amount} coins back",
        },
        "pt-BR": {
            "one": "Uma partida foi interrompida e anulada: devolvemos {amount} moeda",
            "other": "Uma partida foi interrompida e anulada: devolvemos {amount} moedas",
        },
        "it": {
            "one": "Una partita è andata persa ed è stata annullata: ti abbiamo "
            "restituito {amount} moneta",
            "other": "Una partita è andata persa ed è stata annullata: ti abbiamo "
            "restituito {amount} monete",
        },
        "pl": {
            "one": "Partia przepadła i została anulowana: zwróciliśmy Ci {amount} monetę",
            "few": "Partia przepadła i została anulowana: zwróciliśmy Ci {amount} monety",
            "many": "Partia przepadła i została anulowana: zwróciliśmy Ci {amount} monet",
        },
    },
    "note.level_up": {
        "es": "¡Subiste al nivel {level}!",
        "en": "You reached level {level}!",
        "pt-BR": "Você subiu para o nível {level}!",
        "it": "Hai raggiunto il livello {level}!",
        "pl": "Gratulacje! Masz teraz poziom {level}.",
    },
}


def plural(n: int, lang: str) -> str:
    """The CLDR plural category of a whole number in ``lang``."""
    n = abs(n)
    if lang == "pl":
        if n == 1:
            return "one"
        if n % 10 in (2, 3, 4) and n % 100 not in (12, 13, 14):
            return "few"
        return "many"
    if lang == "pt-BR":
        return "one" if n in (0, 1) else "other"
    return "one" if n == 1 else "other"


def number(n: int, lang: str) -> str:
    """A whole number as ``lang`` writes it: 50.000, 50,000, 50 000 (no-break space)."""
    digits = str(abs(n))
    if len(digits) < 4:
        grouped = digits
    else:
        head = len(digits) % 3 or 3
        parts = [digits[:head]] + [digits[i : i + 3] for i in range(head, len(digits), 3)]
        grouped = _GROUP.get(lang, ".").join(parts)
    return f"-{grouped}" if n < 0 else grouped


def language(value: str | None) -> str:
    """One of ours for a stored choice or a language tag (``pt``, ``pt-PT`` and ``pt-BR``
    all give pt-BR, Brazil being Buraco's largest audience); else Spanish."""
    if value:
        base = value.strip().split("-")[0].split("_")[0].lower()
        for lang in LANGUAGES:
            if lang.split("-")[0].lower() == base:
                return lang
    return DEFAULT


def from_accept_language(header: str | None) -> str | None:
    """The first of our languages in an Accept-Language header, by quality."""
    if not header:
        return None
    ranked = []
    for i, part in enumerate(header.split(",")):
        tag, _, q = part.strip().partition(";q=")
        try:
            weight = float(q) if q else 1.0
        except ValueError:
            continue
        ranked.append((-weight, i, tag.strip()))
    ours = {lang.split("-")[0].lower() for lang in LANGUAGES}
    for _, _, tag in sorted(ranked):
        if tag.split("-")[0].lower() in ours:
            return language(tag)
    return None


def render(
    key: str, lang: str, args: Mapping[str, object] | None = None, count: int | None = None
) -> str:
    """The message ``key`` in ``lang`` (Spanish when the language or key is unknown, the
    key itself when there is no such message). Whole-number arguments are formatted."""
    message = MESSAGES.get(key)
    if message is None:
        return key
    text = message.get(lang) or message[DEFAULT]
    if not isinstance(text, str):
        text = text.get(plural(count or 0, lang)) or text.get("other") or next(iter(text.values()))
    values = {
        k: number(v, lang) if isinstance(v, int) and not isinstance(v, bool) else v
        for k, v in (args or {}).items()
    }
    return _PLACEHOLDER.sub(lambda m: str(values.get(m.group(1), m.group(0))), text)


_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def notification_text(kind: str, payload: Mapping[str, object], lang: str) -> str:
    """The line the notifications centre shows for one notification."""
    key, count = f"note.{kind}", None
    if (
        kind == "gift"
        and payload.get("currency")
        and (payload.get("sku") is None or str(payload.get("sku", "")).startswith("pack_"))
    ):
        key = f"note.gift.{payload['currency']}"
    if key.startswith("note.gift.") or kind == "game_voided":
        amount = payload.get("amount")
        count = amount if isinstance(amount, int) else None
    return render(key, lang, payload, count)


def all_languages(key: str, args: Mapping[str, str] | None = None) -> dict[str, str]:
    """The message in every language: for bytes shared by readers of all of them (every
    lobby line of a quick-play table carries these; cached, as they repeat)."""
    return dict(_all_cached(key, tuple(sorted((args or {}).items()))))


@functools.lru_cache(maxsize=4096)
def _all_cached(key: str, items: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    args = dict(items)
    return tuple((lang, render(key, lang, args)) for lang in LANGUAGES)
