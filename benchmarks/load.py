"""Server load benchmark:
``python benchmarks/load.py --tables K --processes P --seconds S``.

Starts its own Redis (``redis-server`` on a free port, never a shared one; or, with
``--redis-cluster 3``, a fresh local cluster of three masters; or ``--redis-url``, e.g. a
``redis+cluster://`` URL, which it never flushes), P uvicorn
processes (uvloop, a Postgres database it creates and migrates), seats 4 scripted
players at each of K tables (4K WebSockets, spread over the processes) and has each
table play one move a second for S seconds. Hands are real: 11 cards and 11-card
muertos (``--hand-size`` shrinks both), matches of several hands; the bot on turn draws,
adds a card to its side's melds or lays a new sequence when it can (keeping three cards)
and discards. Clocks are long so nothing times out on the server.

The bare baseline, a WebSocket server doing one EVALSHA per move and sending the
version to the table's four sockets, runs as many processes as the app (each table's
sockets all on one of them), on the same loop (uvloop) and pool (a blocking pool of the
same size) in the same invocation, ALTERNATED with the main run: both are
set up first, then ``--rounds`` windows of each, one after the other, so the machine's
other load hits both alike. It measures, per system:

- moves offered (one per table per second, including the ticks a slow move made the
  table miss), moves served in time (``--move-timeout``), served_ratio;
- latency from sending a command to the moment the LAST of the table's four sockets has
  the update (p50, p99); a move that times out or is refused counts at the time-out in
  the percentiles (never dropped) and as a failure;
- server CPU per move, Redis CPU per move (INFO used_cpu_* over the window), resident
  memory per server process;
- Redis commands per move, lost or duplicated updates (contiguous versions per socket);
- the p99 of each window apart, and how many cores the whole machine kept busy during
  each system's windows (``/proc/stat``: this benchmark, the kernel's loopback network
  and anything else running) with the share stolen by the hypervisor, so a run's tail
  can be told apart from the machine it ran on.

The client runs on the same 2 cores, on a lean WebSocket client (benchmarks/wsclient.py;
``--client websockets`` for the library's): the servers' players in this process, the
baseline's in a process of their own (``BaselinePlayers``: one process could not hold
both systems' sockets past 2,500 tables); it prints the two processes' CPU share, their
CPU per move in each system's windows (the main run's players fold real hands from
larger frames, so they cost more than the baseline's), and the load average. The LAST
line is one JSON object (see ``summary``).
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

# The parts live in benchmarks/loadbench/ (beside this file, on the path when it runs):
# servers (processes, Redis, Postgres, counters), players (the servers' simulated
# players), baseline (the bare server and its players), stats (figures and summary),
# run (the alternated windows) and cli (the flags).
from loadbench.cli import main  # noqa: E402

if __name__ == "__main__":
    main((__doc__ or "").split("\n\n")[0])
