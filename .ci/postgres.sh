#!/usr/bin/env bash
# Finds or starts a local PostgreSQL for the tests and benchmarks, and prints
# its URL on stdout (nothing on failure, with the reason on stderr). Installs
# Debian's postgresql when asked (--install). Idempotent: a server already
# running, a role already made are left as they are.
# Sourced use: FUNCTAI_TEST_PG=$(.ci/postgres.sh --install)
set -uo pipefail
URL="postgres://functai:functai@127.0.0.1:5432/postgres"
say() { echo "postgres: $*" >&2; }

if [ -n "${FUNCTAI_TEST_PG:-}" ]; then echo "$FUNCTAI_TEST_PG"; exit 0; fi
if ! command -v pg_lsclusters >/dev/null 2>&1; then
  if [ "${1:-}" = "--install" ] && [ "$(id -u)" = 0 ]; then
    say "installing Debian's postgresql"
    (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql) >&2 || { say "could not install postgresql"; exit 1; }
  else
    say "no PostgreSQL here (Debian: apt-get install -y postgresql, as root)"; exit 1
  fi
fi
cluster=$(pg_lsclusters --no-header 2>/dev/null | head -1)
[ -n "$cluster" ] || { say "no PostgreSQL cluster (pg_createcluster 15 main)"; exit 1; }
read -r version name _port status _rest <<<"$cluster"
if [ "$status" != "online" ]; then
  [ "$(id -u)" = 0 ] || { say "cluster $version $name is down and only root can start it (pg_ctlcluster $version $name start)"; exit 1; }
  pg_ctlcluster "$version" "$name" start >&2 || { say "could not start cluster $version $name"; exit 1; }
fi
if [ "$(id -u)" = 0 ]; then
  su postgres -c "psql -tAc \"SELECT 1 FROM pg_roles WHERE rolname = 'functai'\"" 2>/dev/null | grep -q 1 ||
    su postgres -c "psql -c \"CREATE ROLE functai SUPERUSER LOGIN PASSWORD 'functai'\"" >&2 || { say "could not create the role functai"; exit 1; }
fi
for _ in 1 2 3 4 5 6 7 8 9 10; do
  node -e 'const pg=require("pg");const c=new pg.Client({connectionString:process.argv[1],connectionTimeoutMillis:3000});c.connect().then(()=>c.end()).then(()=>process.exit(0),()=>process.exit(1))' "$URL" 2>/dev/null && { echo "$URL"; exit 0; }
  sleep 1
done
say "the server does not accept $URL"; exit 1
