"""Global sets split into hash-tagged buckets, so that on Redis Cluster no shard holds
a whole set (and takes every write to it): ``base:{base:3}`` is bucket 3 of ``base``,
chosen by a CRC of the member's owner. With one bucket the key is ``base`` itself, as on
a single server by default (``redis_buckets``: 0 means 1 on one server and
``CLUSTER_BUCKETS`` on a cluster)."""

from __future__ import annotations

import zlib
from typing import Any

from redis.asyncio.cluster import RedisCluster

CLUSTER_BUCKETS = 16  # buckets of each global set on a cluster, unless set otherwise


def bucket_count(redis: Any, setting: int = 0) -> int:
    return setting or (CLUSTER_BUCKETS if isinstance(redis, RedisCluster) else 1)


def bucket_key(base: str, owner: str, buckets: int) -> str:
    if buckets == 1:
        return base
    return f"{base}:{{{base}:{zlib.crc32(owner.encode()) % buckets}}}"


def bucket_keys(base: str, buckets: int) -> list[str]:
    if buckets == 1:
        return [base]
    return [f"{base}:{{{base}:{i}}}" for i in range(buckets)]
