"""Which Redis client a URL selects (app/core/redis.py); nothing connects here."""

from __future__ import annotations

from redis.asyncio import Redis

from app.core.redis import BlockingRedisCluster, create_redis


def test_a_cluster_url_selects_the_cluster_client_with_every_start_node() -> None:
    client = create_redis("redis+cluster://10.0.0.1:7001,10.0.0.2:7002", max_connections=7)
    assert isinstance(client, BlockingRedisCluster)
    nodes = {(n.host, n.port) for n in client.nodes_manager.startup_nodes.values()}
    assert nodes == {("10.0.0.1", 7001), ("10.0.0.2", 7002)}
    assert client._gate._value == 7  # commands in flight wait beyond the pool's size


def test_rediss_cluster_uses_tls_and_the_credentials() -> None:
    client = create_redis("rediss+cluster://user:p%40ss@10.0.0.1:7001")
    assert isinstance(client, BlockingRedisCluster)
    kwargs = client.connection_kwargs
    assert kwargs.get("password") == "p@ss" and kwargs.get("username") == "user"
    assert "SSL" in kwargs["connection_class"].__name__


def test_a_plain_url_keeps_the_blocking_pool() -> None:
    client = create_redis("redis://127.0.0.1:6379/3", max_connections=5)
    assert type(client) is Redis
    assert type(client.connection_pool).__name__ == "BlockingConnectionPool"
