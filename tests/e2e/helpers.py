"""Steps shared by the browser tests: they act through the UI, as a player would."""

from __future__ import annotations

import secrets
from typing import Any

Page = Any  # playwright.sync_api.Page (kept loose: the package is a dev-only dependency)

# Everything the tests read from the table, as the page shows it.
READ_TABLE = """() => ({
  hand: [...document.querySelectorAll('#hand .card')].map(c => c.dataset.card),
  stock: document.querySelector('#stock .pile-count')?.dataset.n,
  pile: document.querySelector('#pile')?.getAttribute('aria-label'),
  melds: [...document.querySelectorAll('.meld')].map(m => m.getAttribute('aria-label')),
  status: document.querySelector('#turn-status')?.textContent,
  opponents: [...document.querySelectorAll('.opponents .seat')]
    .map(s => s.getAttribute('aria-label')),
})"""


def as_guest(page: Page) -> None:
    page.goto("/")
    page.click("#play-guest")
    page.wait_for_selector("#play-now")


def register(page: Page, prefix: str) -> str:
    name = f"{prefix}_{secrets.token_hex(3)}"
    page.goto("/")
    page.click("#tab-register")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", "secret-pass-123")
    page.click("form button[type=submit]")
    page.wait_for_selector("#play-now")
    return name


# Create a table from the page's session: [status, error code or None].
CREATE_TABLE_JS = """async (body) => {
  const r = await fetch('/api/tables', { method: 'POST',
    headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const j = await r.json();
  return [r.status, j.error ? j.error.code : null];
}"""


# Every element matching a selector whose text is cut (wider or taller than its box),
# as "text: content size in box size"; [] when all are read whole.
TEXT_CUT = """(sel) => [...document.querySelectorAll(sel)]
  .filter((el) => el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)
  .map((el) => `${el.textContent}: ${el.scrollWidth}x${el.scrollHeight}`
    + ` in ${el.clientWidth}x${el.clientHeight}`)"""
# The options that the shown <select>s matching ``sel`` would cut when chosen: a select's
# own text does not show in scrollWidth, so each option's text is measured in the
# select's font against the box's room (its width less its padding and 20 px for the
# drop-down arrow).
SELECT_CUT = """(sel) => [...document.querySelectorAll(sel)].filter((s) => s.clientWidth > 0)
  .flatMap((s) => {
    const cs = getComputedStyle(s);
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20;
    return [...s.options].map((o) => [o.text, Math.ceil(ctx.measureText(o.text).width)])
      .filter(([, w]) => w > room).map(([text, w]) => `${text}: ${w}px in ${Math.floor(room)}px`);
  })"""
# clientWidth, not innerWidth: on a phone the layout viewport (innerWidth) grows to what
# sticks out, the initial containing block (clientWidth) stays the screen's width.
NO_SIDEWAYS_SCROLL = (
    "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1"
)


def ask_friend(page: Page, name: str, sent: str) -> None:
    """Find ``name`` on the friends page and send a friend request; ``sent`` is the
    toast that confirms it, in the page's language (the request is made before the
    other player looks)."""
    page.goto("/#/friends")
    page.fill("#friend-q", name)
    # The search's answer, waited for as long as a busy test machine may take (its
    # database pool waits up to 20 s), then its button.
    with page.expect_response(lambda r: "/api/players/search" in r.url, timeout=30000) as found:
        page.press("#friend-q", "Enter")
    answer = found.value
    assert answer.status == 200, (answer.status, answer.text())
    assert name in [p["nickname"] for p in answer.json()], answer.json()
    # The request's own answer, not only a toast: an earlier request's toast, with the
    # same words, may still be on screen (4.5 s), and the other player would then look
    # before this request is stored.
    with page.expect_response(
        lambda r: r.url.endswith("/api/friends/requests") and r.request.method == "POST"
    ) as made:
        page.click(f"[data-add='{name}']")
    assert made.value.status == 201, (made.value.status, made.value.text())
    page.wait_for_selector(f".toast.ok:has-text('{sent}')")


def short_hand_table(page: Page, *, private: bool = False, players: int = 2) -> None:
    """Create a table whose hand is short, through the house-rules editor: 20 cards each,
    no muertos, and the hand ends when 20 cards are left in the stock."""
    page.click("#create-table")
    if private:
        page.check("#ct-private")
    if players != 2:
        page.select_option("#ct-players", str(players))
    page.click("#house-toggle")
    page.fill("#rule-hand_size", "20")
    page.dispatch_event("#rule-hand_size", "change")
    page.select_option("#rule-muertos", "0")
    page.fill("#rule-stock_end", "20")
    page.dispatch_event("#rule-stock_end", "change")
    page.click("#ct-submit")
    page.wait_for_selector("#wait-title")


def wait_my_turn_or_end(page: Page, timeout: float = 20000) -> str:
    """'draw' when it is my turn to draw, 'end' when the score sheet is up."""
    page.wait_for_function(
        "() => document.querySelector('#score-sheet') ||"
        " (document.querySelector('#act-draw') && !document.querySelector('#act-draw').disabled)",
        timeout=timeout,
    )
    return "end" if page.query_selector("#score-sheet") else "draw"


def draw_and_discard(page: Page, keyboard: bool = False) -> None:
    """One whole turn: draw from the stock, then discard the first card of the hand."""
    size = page.locator("#hand .card").count()
    if keyboard:
        page.locator("body").press("1")
    else:
        page.click("#act-draw")
    page.wait_for_function(f"() => document.querySelectorAll('#hand .card').length === {size + 1}")
    first = page.locator("#hand .card").first
    ready = "() => !document.querySelector('#act-discard').disabled"
    for attempt in range(4):
        # A choice made while the drawn card is still gliding into place is sometimes
        # lost (seen about once in ten hands on CI): choose again until the discard
        # button takes it.
        if page.locator("#hand .card[aria-pressed='true']").count() != 1:
            if keyboard:
                first.focus()
                first.press("Enter")
            else:
                first.click()
        try:
            page.wait_for_function(ready, timeout=2000)
            break
        except Exception:  # noqa: BLE001 - playwright's TimeoutError: choose again
            if attempt == 3:
                raise
            for _ in range(page.locator("#hand .card[aria-pressed='true']").count()):
                page.locator("#hand .card[aria-pressed='true']").first.click()
    if keyboard:
        page.keyboard.press("4")
    else:
        page.click("#act-discard")
    page.wait_for_function(f"() => document.querySelectorAll('#hand .card').length === {size}")


def non_meld_triple(hand: list[str]) -> list[int]:
    """Indexes of three natural cards of distinct suits and distinct ranks: never a meld."""
    chosen: list[int] = []
    suits: set[str] = set()
    ranks: set[str] = set()
    for i, card in enumerate(hand):
        if card == "JK" or card[:-1] == "2":
            continue
        rank, suit = card[:-1], card[-1]
        if suit in suits or rank in ranks:
            continue
        chosen.append(i)
        suits.add(suit)
        ranks.add(rank)
        if len(chosen) == 3:
            return chosen
    raise AssertionError(f"no three unrelated cards in {hand}")


def open_table(
    page: Page,
    players: int = 2,
    preset: str = "cerrado",
    rules: dict[str, Any] | None = None,
    name: str = "Mesa e2e",
    target_score: int | None = None,
) -> str:
    """Open a table through the REST API (as the page's player, who sits at seat 0) and
    go to it; returns its id."""
    tid = page.evaluate(
        """async ([name, players, preset, rules, target_score]) => {
          const r = await fetch('/api/tables', { method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ name, players, preset, rules, target_score }) });
          const body = await r.json();
          if (!r.ok) throw new Error(JSON.stringify(body));
          return body.id;
        }""",
        [name, players, preset, rules or {}, target_score],
    )
    page.goto(f"/#/table/{tid}")
    return str(tid)


def steady_turn(page: Page) -> None:
    """One whole turn, like draw_and_discard, but it makes sure the chosen card took: a
    click on a card that is still gliding into place (the drawn card's motion) can miss,
    and the discard button then stays disabled. Many turns in a row need this."""
    size = page.locator("#hand .card").count()
    page.click("#act-draw")
    page.wait_for_function(f"() => document.querySelectorAll('#hand .card').length === {size + 1}")
    ready = "() => !document.querySelector('#act-discard').disabled"
    for attempt in range(6):
        chosen = page.locator("#hand .card[aria-pressed='true']")
        if chosen.count() != 1:
            for _ in range(chosen.count()):  # a stray choice: clear it first
                chosen.first.click()
            page.locator("#hand .card").nth(attempt % 2).click()
        try:
            page.wait_for_function(ready, timeout=1500)
            break
        except Exception:  # noqa: BLE001 - playwright's TimeoutError: try again
            continue
    page.click("#act-discard")
    page.wait_for_function(f"() => document.querySelectorAll('#hand .card').length === {size}")
