"""No import cycle anywhere in ``app``.

The graph is grimp's (the one import-linter checks its contracts on): every import
counts, at module level, inside a function or under ``TYPE_CHECKING``, since each says
that one module builds on the other. A cycle means two modules each build on the other,
and the layers contracts in pyproject.toml can no longer say which one is below.
"""

from __future__ import annotations

import grimp


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, without recursion: the groups of modules that reach one another
    (each group of two or more, or one that imports itself, is a cycle)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work: list[tuple[str, list[str]]] = [(root, sorted(edges[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, pending = work[-1]
            if pending:
                nxt = pending.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(edges[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1 or node in edges[node]:
                    groups.append(sorted(group))
    return groups


def import_edges(package: str) -> dict[str, set[str]]:
    graph = grimp.build_graph(package, cache_dir=None)
    modules = set(graph.modules)
    return {m: graph.find_modules_directly_imported_by(m) & modules for m in modules}


def describe(group: list[str], edges: dict[str, set[str]]) -> str:
    inside = set(group)
    arrows = [f"    {a} -> {b}" for a in group for b in sorted(edges[a] & inside)]
    return "\n".join([", ".join(group), *arrows])


def test_the_cycle_finder_finds_cycles_and_nothing_else() -> None:
    edges = {
        "a": {"b"},
        "b": {"c"},
        "c": {"a", "d"},
        "d": set(),
        "e": {"e"},
        "f": {"d"},
    }
    assert sorted(strongly_connected(edges)) == [["a", "b", "c"], ["e"]]
    assert strongly_connected({"x": {"y"}, "y": set()}) == []


def test_no_module_of_app_imports_itself_back() -> None:
    edges = import_edges("app")
    assert "app.tables" in edges  # the graph is the real one
    cycles = strongly_connected(edges)
    assert not cycles, "import cycles in app:\n" + "\n".join(describe(g, edges) for g in cycles)
