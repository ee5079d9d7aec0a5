"""The rating leaderboard in the ranking page and the ratings on a profile, at phone and
desktop sizes: settled accounts listed by family and format, a provisional one not."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import asyncpg
from playwright.sync_api import Route

from tests.e2e.conftest import _e2e_urls
from tests.e2e.helpers import open_table, register
from tests.support import asyncpg_dsn, in_thread

I18N = Path(__file__).resolve().parents[2] / "frontend/src/i18n"


async def _seed(db_url: str, me: str) -> int:
    """My settled cerrado head-to-head rating, a stronger rival's, and a provisional one."""
    conn = await asyncpg.connect(asyncpg_dsn(db_url))
    try:
        me_id = await conn.fetchval("SELECT id FROM users WHERE username_lower = $1", me.lower())
        ids = [me_id]
        for tag, guest in (("rival", False), ("novato", False)):
            ids.append(
                await conn.fetchval(
                    "INSERT INTO users (username, username_lower, nickname, is_guest, created_at,"
                    " updated_at) VALUES ($1, $1, $1, $2, now(), now()) RETURNING id",
                    f"{tag}{me_id}",
                    guest,
                )
            )
        for uid, mu, games in zip(ids, (27.0, 33.0, 40.0), (14, 60, 3), strict=True):
            await conn.execute(
                "INSERT INTO ratings (user_id, family, format, mu, sigma, ordinal, games,"
                " updated_at) VALUES ($1, 'cerrado', '2p', $2::float8, 2.0, $2::float8 - 6.0,"
                " $3, now())",
                uid,
                mu,
                games,
            )
        return int(me_id)
    finally:
        await conn.close()


def _late(route: Route) -> None:
    time.sleep(1.5)
    route.continue_()


def test_rating_leaderboard_and_profile(new_context, artifacts, pg_url, redis_url) -> None:
    words = json.loads((I18N / "es.json").read_text())
    db_url, _ = _e2e_urls(pg_url, redis_url)
    for width, height in ((390, 844), (1366, 768)):
        page = new_context(width, height, locale="es-ES").new_page()
        me = register(page, "rt")
        me_id = in_thread(asyncio.run, _seed(db_url, me))
        # The first board asked for (abierto) answers after the one chosen next (cerrado):
        # the later choice is what stays on screen.
        page.route("**/api/ratings/leaderboard?family=abierto*", _late)
        page.goto("/#/ranking")
        page.locator("#rk-about").wait_for()
        page.select_option("#rk-by", "rating")
        page.select_option("#rk-family", "cerrado")
        about = words["rating.about"].split("{n}")[0]
        page.wait_for_function(
            "(t) => document.querySelector('#rk-about').textContent.startsWith(t)", arg=about
        )
        rows = page.locator(".ranking table.rank tbody tr")
        # the rating board, not the XP table it replaces (on a busy machine it comes later)
        rows.filter(has_text=f"rival{me_id}").first.wait_for()
        names = rows.locator("td:nth-child(2)").all_inner_texts()
        # The stronger rival above me; the provisional newcomer (3 games) not listed.
        assert names.index(f"rival{me_id}") < names.index(me)
        assert f"novato{me_id}" not in names
        mine = rows.filter(has_text=me).locator("td:nth-child(4)").inner_text()
        assert mine == str(1000 + 40 * 21)
        page.screenshot(path=str(artifacts / f"ranking-rating-{width}.png"), full_page=True)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width

        page.goto(f"/#/profile/{me_id}")
        cell = page.locator("#profile-ratings tbody td").nth(2)
        cell.wait_for()
        assert cell.inner_text() == "1840"
        page.screenshot(path=str(artifacts / f"profile-rating-{width}.png"), full_page=True)
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width


def test_ratings_next_to_names_in_the_lobby_and_at_the_table(
    new_context, artifacts, pg_url, redis_url
) -> None:
    db_url, _ = _e2e_urls(pg_url, redis_url)
    for width, height in ((390, 844), (1366, 768)):
        host = new_context(width, height, locale="es-ES").new_page()
        host_name = register(host, "rh")
        in_thread(asyncio.run, _seed(db_url, host_name))  # a settled 1840 in cerrado 2p
        tid = open_table(host, players=2, preset="cerrado", name=f"Rating {width}")
        guest = new_context(width, height, locale="es-ES").new_page()
        register(guest, "rg")
        guest.goto("/#/lobby")
        row = guest.locator(".table-row", has_text=f"Rating {width}")
        row.wait_for()
        assert row.locator(".tag.rating").inner_text() == "1840"
        assert row.locator(".tag.rating").get_attribute("title") == words_es("rating.title")
        # the lobby repaints its list as tables change: scroll to the row as it is now, in
        # one step in the page (a located row can be replaced between finding and scrolling)
        guest.evaluate(
            "(name) => [...document.querySelectorAll('.table-row')]"
            ".find((r) => r.textContent.includes(name)).scrollIntoView({block: 'center'})",
            f"Rating {width}",
        )
        guest.screenshot(path=str(artifacts / f"lobby-rating-{width}.png"))
        assert guest.evaluate("() => document.documentElement.scrollWidth") <= width
        row.locator("button", has_text=words_es("lobby.sit")).click()
        guest.wait_for_url(f"**/#/table/{tid}")
        seat = guest.locator(".opponents .seat .tag.rating")
        seat.wait_for()
        assert seat.inner_text() == "1840"
        # The newcomer's own rating, provisional: "1000?".
        mine = guest.locator(".seat.pos-bottom .tag.rating")
        assert mine.inner_text() == "1000?"
        guest.screenshot(path=str(artifacts / f"table-rating-{width}.png"))
        # The game in progress in a third player's lobby: each rating says what it is, the
        # provisional one what its "?" means.
        watcher = new_context(width, height, locale="es-ES").new_page()
        register(watcher, "rw")
        watcher.goto("/#/lobby")
        playing = watcher.locator(
            "section[aria-labelledby=playing-title] .table-row", has_text=f"Rating {width}"
        )
        playing.wait_for()
        ratings = playing.locator(".prating").evaluate_all(
            "(els) => els.map((el) => [el.textContent.trim(), el.title])"
        )
        assert sorted(ratings) == [
            ["(1000?)", words_es("rating.provisional")],
            ["(1840)", words_es("rating.title")],
        ], ratings


def words_es(key: str) -> str:
    return str(json.loads((I18N / "es.json").read_text())[key])
