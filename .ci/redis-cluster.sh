#!/usr/bin/env bash
# A throwaway local Redis Cluster of three masters (no replicas), for the tests that run
# once on a cluster: `.ci/redis-cluster.sh start DIR PORT1 PORT2 PORT3` prints its
# redis+cluster:// URL; `.ci/redis-cluster.sh stop DIR` shuts it down.
set -euo pipefail
cmd="$1"; dir="$2"; shift 2
if [ "$cmd" = stop ]; then
    for pidfile in "$dir"/*/redis.pid; do
        [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
    done
    exit 0
fi
nodes=()
for port in "$@"; do
    mkdir -p "$dir/$port"
    redis-server --port "$port" --bind 127.0.0.1 --cluster-enabled yes \
        --cluster-config-file "$dir/$port/nodes.conf" --dir "$dir/$port" \
        --save "" --appendonly no --daemonize yes --pidfile "$dir/$port/redis.pid" \
        --logfile "$dir/$port/redis.log" >/dev/null
    nodes+=("127.0.0.1:$port")
done
for port in "$@"; do
    for _ in $(seq 1 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
done
redis-cli --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes >"$dir/create.log"
for _ in $(seq 1 100); do
    redis-cli -p "$1" cluster info | grep -q 'cluster_state:ok' && break
    sleep 0.1
done
redis-cli -p "$1" cluster info | grep -q 'cluster_state:ok'
echo "redis+cluster://$(IFS=,; echo "${nodes[*]}")"
