"""Tournaments in the browser: the Tournaments tab (upcoming, running, finished) with
registration by taps and the coins moving, a detail page kept up to date over the
WebSocket, a knockout Sit & Go filled with bots whose first table opens by itself with
"Tu próxima ronda empieza", its bracket, and a Swiss standings page; at 390x844 (no page
scroll) and at 1366x768. Real server, Postgres, Redis and the tournament runner."""

from __future__ import annotations

import re
import secrets
from pathlib import Path
from typing import Any

from tests.e2e.helpers import SELECT_CUT, TEXT_CUT, as_guest

PHONE = (390, 844)
LAPTOP = (1366, 768)

# The page does not scroll (the list or the open tab scrolls inside it), nor sideways.
PAGE_SCROLL = """() => {
  const de = document.documentElement, out = [];
  if (de.scrollHeight > innerHeight + 1 || document.body.scrollHeight > innerHeight + 1)
    out.push(`page scrolls: ${de.scrollHeight} > ${innerHeight}`);
  if (de.scrollWidth > de.clientWidth + 1) out.push(`page scrolls sideways: ${de.scrollWidth}`);
  for (const el of document.querySelectorAll('.tn-card, .tn-head, .tn-tabs, .tn-scroll')) {
    const r = el.getBoundingClientRect();
    if (r.right > de.clientWidth + 1)
      out.push(`${el.className} sticks out: ${Math.round(r.right)}`);
  }
  return out;
}"""

# The list's tabs that are not wholly in sight in their strip (a strip that scrolls hides
# them with no mark that there is more).
TABS_HIDDEN = """() => {
  const strip = document.querySelector('#tn-list .tn-tabs').getBoundingClientRect();
  return [...document.querySelectorAll('#tn-list .tn-tabs .tab')]
    .filter((b) => { const r = b.getBoundingClientRect();
      return r.left < strip.left - 0.5 || r.right > strip.right + 0.5; })
    .map((b) => `${b.textContent}: ${Math.round(b.getBoundingClientRect().right)}`
      + ` > ${strip.right}`);
}"""

# What the detail page says of its entrants ("2/4").
HOST_SEES = "(v) => document.querySelector('.tn-head .f-entrants dd').textContent === v"

CREATE = """async (body) => {
  const r = await fetch('/api/tournaments', { method: 'POST',
    headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const j = await r.json();
  if (!r.ok) throw new Error(JSON.stringify(j));
  return j;
}"""


def _coins(page: Any) -> int:
    text = page.text_content(".wallet .coins [data-raw]") or ""
    return int(re.sub(r"\D", "", text))


def _wait_coins(page: Any, value: int) -> None:
    page.wait_for_function(
        "(v) => Number((document.querySelector('.wallet .coins [data-raw]')?.textContent || '')"
        ".replace(/\\D/g, '')) === v",
        arg=value,
    )


def _shot(page: Any, artifacts: Path, name: str) -> None:
    page.wait_for_timeout(150)  # fonts and the last paint
    page.screenshot(path=str(artifacts / f"tournaments-{name}.png"))


def _fits(page: Any) -> None:
    assert page.evaluate(PAGE_SCROLL) == []


def test_the_tab_lists_an_upcoming_tournament_and_registers_by_taps(
    new_context: Any, artifacts: Path
) -> None:
    host = new_context(*LAPTOP).new_page()
    as_guest(host)
    name = f"Copa {secrets.token_hex(3)}"
    made = host.evaluate(
        CREATE, {"name": name, "entrants": 4, "buy_in": 1000, "format": "swiss", "hands": 1}
    )
    tid = made["id"]
    # The host watches the detail page: it follows the registration with no reload.
    host.goto(f"/#/tournament/{tid}")
    host.wait_for_selector("#tn-detail")
    assert host.text_content(".tn-head .f-entrants dd") == "1/4"
    host.evaluate("() => { window.__stay = 1; }")

    page = new_context(*PHONE).new_page()
    as_guest(page)
    page.click("[data-nav='tournaments']")
    page.wait_for_selector("#tn-tab-upcoming[aria-selected='true']")
    card = page.locator(f".tn-card[data-tid='{tid}']")
    card.wait_for()
    assert name in card.text_content()
    assert "Suizo" in card.text_content() and "1 contra 1" in card.text_content()
    before = _coins(page)

    card.locator(".tn-register").click()
    card.locator(".tn-unregister").wait_for()
    _wait_coins(page, before - 1000)
    assert card.locator(".f-entrants dd").text_content() == "2/4"
    # Live: the host's page shows the second entrant without being reloaded.
    host.wait_for_function(HOST_SEES, arg="2/4")
    assert host.evaluate("() => window.__stay") == 1
    host.click("#tn-pane-entrants")
    assert host.locator("#tn-entrants li").count() == 2

    _fits(page)
    _shot(page, artifacts, "tab-phone")
    # The three tabs in sight on the narrowest phone, in every language, and the Sit & Go
    # sheet's choices whole.
    page.set_viewport_size({"width": 360, "height": 740})
    for lang in ("es", "en", "pt", "it", "pl"):
        page.select_option("#lang", lang)
        page.wait_for_function(f"() => document.documentElement.lang.startsWith('{lang}')")
        assert page.evaluate(TABS_HIDDEN) == [], lang
        # The Sit & Go sheet: every choice of every select read whole in its box.
        page.click("#tn-create")
        page.wait_for_selector(".tn-sheet #tn-name")
        assert page.locator(".tn-sheet #tn-format").count() == 1
        assert page.evaluate(SELECT_CUT, ".tn-sheet select") == [], lang
        page.keyboard.press("Escape")
        page.wait_for_selector(".tn-sheet", state="detached")
    _shot(page, artifacts, "tab-phone-360-pl")
    page.select_option("#lang", "es")
    page.wait_for_function("() => document.documentElement.lang.startsWith('es')")
    page.set_viewport_size({"width": LAPTOP[0], "height": LAPTOP[1]})
    _fits(page)
    _shot(page, artifacts, "tab-laptop")
    page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})

    card.locator(".tn-unregister").click()
    card.locator(".tn-register").wait_for()
    _wait_coins(page, before)
    host.wait_for_function(HOST_SEES, arg="1/4")

    # A refusal is said on the card, in the page: with too few coins left (spent on a
    # Sit & Go of its own), the tap changes nothing.
    page.evaluate(CREATE, {"name": "Copa cara", "entrants": 4, "buy_in": before - 500})
    _wait_coins(page, 500)
    page.locator(".tn-card:has-text('Copa cara')").wait_for()
    card.locator(".tn-register").click()
    err = card.locator(".tn-error")
    err.wait_for()
    assert err.text_content() == "No tienes monedas suficientes."
    assert _coins(page) == 500
    assert card.locator(".f-entrants dd").text_content() == "1/4"
    # The other tabs answer too (this tournament is not in them).
    page.click("#tn-tab-finished")
    page.wait_for_selector("#tn-tab-finished[aria-selected='true']")
    page.wait_for_function(
        "(id) => !document.querySelector(`.tn-card[data-tid='${id}']`)"
        " && !document.querySelector('.spinner')",
        arg=tid,
    )
    # Every word on the tab goes through the five dictionaries.
    from tests.e2e.test_languages import _check_screen

    page.click("#tn-tab-upcoming")
    page.locator(".tn-card:has-text('Copa cara')").wait_for()
    _check_screen(page, "tn.upcoming")


def _sitgo_by_the_sheet(page: Any, artifacts: Path, fmt: str) -> int:
    """Create a 4-player Sit & Go filled with bots after 10 s, through the sheet."""
    page.goto("/#/tournaments")
    page.click("#tn-create")
    page.wait_for_selector(".tn-sheet #tn-name")
    page.fill("#tn-name", f"Relámpago {fmt}")
    page.select_option("#tn-format", fmt)
    page.select_option("#tn-entrants", "4")
    page.select_option("#tn-hands", "1")
    assert page.is_checked("#tn-bots")
    page.select_option("#tn-botwait", "10")
    page.check("#tn-turbo")
    if fmt == "knockout":
        _shot(page, artifacts, f"sheet-{page.viewport_size['width']}")
    page.click("#tn-submit")
    page.wait_for_selector("#tn-detail")
    return int(page.url.rsplit("/", 1)[1])


def test_a_knockout_opens_my_table_by_itself_and_shows_its_bracket(
    new_context: Any, artifacts: Path
) -> None:
    page = new_context(*PHONE).new_page()
    as_guest(page)
    tid = _sitgo_by_the_sheet(page, artifacts, "knockout")
    assert page.text_content(".tn-head .f-entrants dd") == "1/4"
    # Bots fill the places after 10 s; the runner starts it and opens the tables: mine
    # opens by itself, with the notice.
    page.wait_for_selector(".toast:has-text('Tu próxima ronda empieza')", timeout=30000)
    page.wait_for_url(re.compile(r"#/table/"), timeout=10000)
    table_id = page.url.rsplit("/", 1)[1]

    page.goto(f"/#/tournament/{tid}")
    page.wait_for_selector("#tn-bracket")
    assert page.get_attribute("#tn-detail", "data-state") == "running"
    cols = page.locator("#tn-bracket .tn-col")
    assert cols.count() == 2
    assert cols.nth(0).locator("h3").text_content() == "Semifinales"
    assert cols.nth(1).locator("h3").text_content() == "Final"
    assert cols.nth(0).locator(".tn-match").count() == 2
    mine = page.locator("#tn-bracket .tn-match.mine")
    assert mine.count() == 1
    assert mine.locator(".tn-play").get_attribute("href") == f"#/table/{table_id}"
    assert "Bot" in cols.nth(0).text_content()
    _fits(page)
    _shot(page, artifacts, "bracket-phone")
    page.set_viewport_size({"width": LAPTOP[0], "height": LAPTOP[1]})
    # On a laptop the rounds stand side by side.
    boxes = [cols.nth(i).bounding_box() for i in range(2)]
    assert boxes[1]["x"] > boxes[0]["x"] + boxes[0]["width"] - 1
    _fits(page)
    _shot(page, artifacts, "bracket-laptop")

    # The round's tables: mine says "Jugar", the bots' one "Ver mesa" while it plays.
    page.click("#tn-pane-matches")
    rows = page.locator("#tn-matches li")
    assert rows.count() == 2
    assert page.locator("#tn-matches li.mine .tn-play").text_content() == "Jugar"
    page.click("#tn-pane-prizes")
    # A free tournament: no coins to share, and it says so.
    assert page.text_content("#tn-prizes .empty") == "Este torneo no reparte monedas."
    # In the list it is under "En juego", with the round said.
    page.goto("/#/tournaments/running")
    card = page.locator(f".tn-card[data-tid='{tid}']")
    card.wait_for()
    assert "Ronda 1 de 2" in card.text_content()
    assert "Estás jugando" in card.text_content()


def test_swiss_standings_and_the_live_result(new_context: Any, artifacts: Path) -> None:
    page = new_context(*LAPTOP).new_page()
    as_guest(page)
    made = page.evaluate(
        CREATE,
        {
            "name": "Suizo del viernes",
            "format": "swiss",
            "entrants": 4,
            "hands": 1,
            "rounds": 2,
            "allow_bots": True,
            "bot_fill_seconds": 5,
            "turbo": True,
        },
    )
    tid = made["id"]
    page.goto(f"/#/tournament/{tid}")
    page.wait_for_selector("#tn-detail[data-state='registering']")
    page.wait_for_url(re.compile(r"#/table/"), timeout=30000)
    page.goto(f"/#/tournament/{tid}")
    page.wait_for_selector("#tn-standings")
    page.evaluate("() => { window.__stay = 1; }")
    heads = page.locator("#tn-standings thead th").all_text_contents()
    assert heads == ["#", "Jugador", "PV", "PV riv.", "Dif.", "PJ"]
    assert page.locator("#tn-standings tbody tr").count() == 4
    assert page.locator("#tn-standings tbody tr.me").count() == 1
    _fits(page)
    _shot(page, artifacts, "standings-laptop")
    # The bots' match ends while the page is open: its result arrives over the
    # WebSocket (a `tournament` message with a newer version), with no reload.
    page.wait_for_function(
        "() => [...document.querySelectorAll('#tn-standings tbody tr td:last-child')]"
        ".some(td => td.textContent === '1')",
        timeout=90000,
    )
    assert page.evaluate("() => window.__stay") == 1
    page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    _fits(page)
    # Every name is read whole on a phone (on two lines when it must).
    cut = page.evaluate(TEXT_CUT, "#tn-standings .tn-name")
    assert cut == [], cut
    _shot(page, artifacts, "standings-phone")
    page.click("#tn-pane-matches")
    assert page.locator("#tn-matches .tn-state.s-done").count() >= 1
    _shot(page, artifacts, "matches-phone")


async def _finished_duplicate_knockout(db_url: str, user_id: int, name: str) -> int:
    """A free duplicate knockout of four, finished and won by ``user_id``: written into
    the server's database in the shapes the runner leaves (no coins involved)."""
    from datetime import timedelta

    from sqlalchemy.ext.asyncio import async_sessionmaker, create_async_engine

    from app.core.db import utcnow
    from app.tournaments.models import Entrant, Match, Tournament

    engine = create_async_engine(db_url)
    try:
        async with async_sessionmaker(engine)() as db:
            now = utcnow()
            t = Tournament(
                kind="sitgo",
                format="knockout",
                players=2,
                preset="burraco",
                name=name,
                state="finished",
                max_entrants=4,
                min_entrants=4,
                buy_in=0,
                fee_bps=0,
                guaranteed=0,
                prize_table=[10_000],
                rounds=2,
                hands=2,
                round_seconds=600,
                duplicate=True,
                allow_bots=True,
                bot_fill_seconds=10,
                turbo=False,
                created_at=now - timedelta(hours=1),
                started_at=now - timedelta(minutes=50),
                finished_at=now - timedelta(minutes=5),
                late_registration_seconds=0,
                current_round=2,
                pool=0,
                seed="1" * 32,
                version=9,
            )
            db.add(t)
            await db.flush()
            await db.refresh(t)
            people = [
                # A guest's name as stored; the pages word it ("Invitado 4321").
                Entrant(tournament_id=t.id, user_id=user_id, name="Invitado4321", seed=1),
                Entrant(tournament_id=t.id, name="Bot Ana", bot=True, seed=2),
                Entrant(tournament_id=t.id, name="Bot Luis", bot=True, seed=3),
                Entrant(tournament_id=t.id, name="Bot Marta", bot=True, seed=4),
            ]
            db.add_all(people)
            await db.flush()
            for e in people:
                await db.refresh(e)
            a, b, c, d = (e.id for e in people)

            def match(r: int, n: int, x: int, y: int, deals: list[list[int]]) -> Match:
                mp_x, mp_y = sum(p[0] for p in deals), sum(p[1] for p in deals)
                return Match(
                    tournament_id=t.id,
                    round_no=r,
                    table_no=n,
                    side_a=x,
                    side_b=y,
                    state="done",
                    mp_a=mp_x,
                    mp_b=mp_y,
                    vp_a=12,
                    vp_b=8,
                    hands_played=2,
                    winner=x if mp_x >= mp_y else y,
                    abandoned=[],
                    deals=deals,
                    deadline=now - timedelta(minutes=30),
                    finished_at=now - timedelta(minutes=20),
                )

            db.add_all(
                [
                    match(1, 1, a, d, [[820, 310], [455, 390]]),
                    match(1, 2, b, c, [[610, 500], [270, 705]]),
                    match(2, 1, a, c, [[930, 415], [380, 520]]),
                ]
            )
            tid = t.id
            await db.commit()
            return tid
    finally:
        await engine.dispose()


def test_a_finished_tournament_its_deals_and_the_profile(
    new_context: Any, artifacts: Path, pg_url: str, redis_url: str
) -> None:
    import asyncio

    from tests.e2e.conftest import _e2e_urls
    from tests.e2e.test_languages import _check_screen
    from tests.support import in_thread

    page = new_context(*LAPTOP).new_page()
    as_guest(page)
    me = page.evaluate("() => fetch('/api/me').then(r => r.json())")
    name = f"Duplicado {secrets.token_hex(2)}"
    db_url, _ = _e2e_urls(pg_url, redis_url)
    tid = in_thread(asyncio.run, _finished_duplicate_knockout(db_url, me["id"], name))

    page.goto("/#/tournaments/finished")
    page.locator(f".tn-card[data-tid='{tid}']").wait_for()
    page.goto(f"/#/tournament/{tid}")
    page.wait_for_selector("#tn-bracket .champion")
    assert page.text_content("#tn-bracket .champion").strip() == "Invitado 4321"
    final = page.locator("#tn-bracket .tn-col").nth(1)
    assert "Invitado 4321" in final.text_content() and "Bot Luis" in final.text_content()
    # The same deals at every table: deal by deal, side by side.
    page.click("#tn-pane-deals")
    page.wait_for_selector("#tn-deals")
    page.click(".tn-rounds .chip:has-text('Ronda 1')")
    rows = page.locator("#tn-deals tbody tr")
    assert rows.count() == 2
    assert rows.nth(0).locator("td").all_text_contents() == ["820 : 310", "610 : 500"]
    # Under each table, its two sides, each name worded before they are joined.
    sides = page.locator("#tn-deals tfoot td").all_text_contents()
    assert sides == ["Invitado 4321 – Bot Marta", "Bot Ana – Bot Luis"], sides
    _fits(page)
    _shot(page, artifacts, "deals-laptop")
    # Every word on these screens goes through the five dictionaries.
    _check_screen(page, "tn.deals")
    page.click("#tn-pane-bracket")
    _check_screen(page, "tn.bracket")

    # The profile lists it, with the place.
    page.goto(f"/#/profile/{me['id']}")
    item = page.locator(f"#profile-tournaments li[data-tid='{tid}']")
    item.wait_for()
    assert name in item.text_content()
    assert item.locator(".tn-res-place").text_content() == "1.º de 4"
    page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
    item.scroll_into_view_if_needed()
    _shot(page, artifacts, "profile-phone")
    page.goto(f"/#/tournament/{tid}")
    page.wait_for_selector("#tn-bracket .champion")
    _fits(page)
    _shot(page, artifacts, "finished-bracket-phone")
