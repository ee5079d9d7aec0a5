"""The per-process table cache (app/tables/storage/cache.py): it only ever holds what Redis held
at the entry's version, advancing on records that follow it exactly."""

from __future__ import annotations

import time

from app.rules.ruleset import ruleset_from_dict
from app.tables.storage.cache import TableCache
from app.tables.storage.meta import Seat, TableMeta


def meta(name: str = "t") -> TableMeta:
    return TableMeta(
        id="T",
        name=name,
        host=1,
        preset="cerrado",
        rules={},
        players=2,
        bet=6000,
        seats=[Seat(user_id=1, name="a"), None],
        created_at=time.time(),
    )


def published(first: int, last: int) -> dict[str, object]:
    return {"t": "T", "records": [{"v": v} for v in range(first, last + 1)]}


def test_advances_on_the_next_records_and_parses_the_new_meta_lazily() -> None:
    cache = TableCache()
    cache.put("T", 5, meta("old"), None)
    cache.advance(published(6, 7), meta("new").model_dump_json(), "")
    entry = cache.get("T")
    assert entry is not None and entry.v == 7 and entry.meta().name == "new"
    cache.advance(published(8, 8), "", "")  # meta left as it was
    assert entry.v == 8 and entry.meta().name == "new"


def test_own_commit_already_cached_is_ignored_and_a_gap_forgets_the_table() -> None:
    cache = TableCache()
    cache.put("T", 7, meta(), None)
    cache.advance(published(6, 7), meta("stale").model_dump_json(), "")
    assert cache.get("T").v == 7 and cache.get("T").meta().name == "t"  # type: ignore[union-attr]
    cache.advance(published(9, 9), meta().model_dump_json(), "")  # 8 never arrived
    assert cache.get("T") is None
    cache.put("T", 9, meta(), None)
    cache.put("T", 8, meta("older"), None)  # a slower load never moves it back
    assert cache.get("T").v == 9  # type: ignore[union-attr]


def test_bounded() -> None:
    cache = TableCache(limit=3)
    for i in range(5):
        cache.put(f"T{i}", 1, meta(), None)
    assert list(cache.entries) == ["T2", "T3", "T4"]


def test_a_newer_put_updates_the_entry_in_place_and_makes_it_the_most_recent() -> None:
    cache = TableCache(limit=3)
    cache.put("T", 5, meta("five"), None)
    cache.put("U", 1, meta(), None)
    entry = cache.get("T")
    cache.advance(published(6, 6), meta("six").model_dump_json(), "")  # a raw meta waits
    cache.put("T", 7, meta("seven"), None)
    assert cache.get("T") is entry and entry is not None  # no new object per commit
    assert entry.v == 7 and entry.meta().name == "seven" and entry.state() is None
    assert list(cache.entries) == ["U", "T"]
    cache.put("T", 6, meta("six"), None)  # older: ignored
    assert entry.v == 7 and entry.meta().name == "seven"


def test_one_encoding_per_viewer_kind() -> None:
    """The frames of one commit are encoded once per seat and once for spectators, and
    every socket of that kind gets the same text; a viewer out of step gets none."""
    from app.rules.events import Drew
    from app.rules.serialize import event_to_dict
    from app.tables.live.fanout import TableWatch, shared_frames

    drew = Drew(0, 5)
    payload: dict[str, object] = {
        "t": "T",
        "records": [
            {"k": "g", "e": event_to_dict(drew), "_ev": drew, "v": 8},
            {"k": "c", "seat": 1, "deadline": 1.0, "v": 9},
        ],
    }
    watches = []
    for user, seat in ((1, 0), (2, 0), (3, None), (4, None), (5, 1)):
        w = TableWatch("T", user)
        w.seat, w.rules, w.last_v = seat, ruleset_from_dict({"players": 2}), 7
        watches.append(w)
    texts = [shared_frames(payload, w) for w in watches]  # type: ignore[arg-type]
    assert texts[0] is texts[1] and texts[2] is texts[3]
    assert '"card":"6S"' in texts[0] and '"card":null' in texts[2] + texts[4]  # type: ignore[operator]
    assert all(w.last_v == 9 for w in watches)
    behind = TableWatch("T", 6)
    behind.last_v = 3
    assert shared_frames(payload, behind) is None  # type: ignore[arg-type]


def test_cached_metas_share_their_rule_set_and_card_names() -> None:
    """What every cached meta repeats is held once: tables with the same rules (or the
    same overrides of them) share one dict, and a deal's card names are the interned
    strings (app/tables/storage/meta.py)."""
    from app.rules.deal import deal_to_dict, random_deal
    from app.rules.ruleset import make_ruleset
    from app.tables.storage.meta import HandFairness

    rules = make_ruleset("cerrado").to_dict()
    deal = deal_to_dict(random_deal(make_ruleset("cerrado"), 1))
    first, second = meta("a"), meta("b")
    first.rules, second.rules = dict(rules), dict(rules)
    hand = HandFairness(hand_no=1, commitment="c", deal=deal, salt="s")
    first.hands = second.hands = [hand]
    one = TableMeta.model_validate_json(first.model_dump_json())
    two = TableMeta.model_validate_json(second.model_dump_json())
    assert one.rules == rules and one.rules is two.rules
    other = dict(rules, hand_size=rules["hand_size"] + 1)
    three = TableMeta.model_validate_json(
        meta("c").model_copy(update={"rules": other}).model_dump_json()
    )
    assert three.rules == other and three.rules is not one.rules
    first.overrides = {"hand_size": 11, "target_score": 1500}
    second.overrides = {"target_score": 1500, "hand_size": 11}
    four = TableMeta.model_validate_json(first.model_dump_json())
    five = TableMeta.model_validate_json(second.model_dump_json())
    assert four.overrides == first.overrides and four.overrides is five.overrides
    assert four.rules is one.rules and one.overrides is two.overrides  # both empty
    a, b = one.hands[0].deal, two.hands[0].deal
    assert a == deal and a["stock"] is not b["stock"]  # equal, separate lists
    assert all(x is y for x, y in zip(a["stock"], b["stock"], strict=True))  # same names


def test_cached_metas_share_one_set_of_field_names_and_stay_independent() -> None:
    """Pydantic's per-instance set of the fields given (2.2 KiB for a meta's 27, 0.7 KiB
    a seat or hand) is one set per model class; assignments and copies still change only
    their own instance, and a meta survives its round trip through JSON unchanged."""
    import tracemalloc

    from app.rules.deal import deal_to_dict, random_deal
    from app.rules.ruleset import make_ruleset
    from app.tables.storage.meta import HandFairness

    rules = make_ruleset("cerrado", 4)
    full = meta("a")
    full.rules, full.players, full.status = rules.to_dict(), 4, "playing"
    full.seats = [Seat(user_id=i + 1, name=f"p{i}") for i in range(4)]
    deal = deal_to_dict(random_deal(rules, 0))
    full.hands = [HandFairness(hand_no=1, commitment="c" * 64, deal=deal, salt="s" * 32)]
    raw = full.model_dump_json()
    one, two = TableMeta.model_validate_json(raw), TableMeta.model_validate_json(raw)
    assert one.__pydantic_fields_set__ is two.__pydantic_fields_set__
    assert one.__pydantic_fields_set__ == set(TableMeta.model_fields)
    assert one.seats[0].__pydantic_fields_set__ is two.seats[1].__pydantic_fields_set__  # type: ignore[union-attr]
    assert one.model_dump_json() == raw

    edited = one.edit()
    edited.seats[0].timeouts = 2  # type: ignore[union-attr]
    edited.status = "finished"
    deep = one.model_copy(deep=True)
    deep.seats[1].name = "other"  # type: ignore[union-attr]
    revealed = one.hands[0].model_copy(update={"revealed": True})
    assert one.seats[0].timeouts == 0 and one.status == "playing"  # type: ignore[union-attr]
    assert one.seats[1].name == "p1" and two.seats[1].name == "p1"  # type: ignore[union-attr]
    assert revealed.revealed and not one.hands[0].revealed
    assert edited.__pydantic_fields_set__ is one.__pydantic_fields_set__
    assert deep.seats[1].__pydantic_fields_set__ is one.seats[1].__pydantic_fields_set__  # type: ignore[union-attr]
    assert TableMeta.model_validate_json(edited.model_dump_json()) == edited

    # what a process pays to cache one such meta (10.7 KiB with a set per instance)
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    kept = [TableMeta.model_validate_json(raw) for _ in range(100)]
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    per_meta = sum(s.size_diff for s in after.compare_to(before, "filename")) / len(kept)
    assert per_meta < 6 * 1024, f"{per_meta / 1024:.1f} KiB a meta"
