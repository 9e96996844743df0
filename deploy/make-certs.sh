#!/usr/bin/env bash
# A local CA and a server certificate, for the links between the machines of a multi-machine install
# (deploy/SCALE-OUT.md, "Encrypted links"): the store (PostgreSQL, ssl=on) and Redis (--tls-port) present the server
# certificate; workers and the dashboard check it against ca.crt (sslmode=verify-full, rediss://...?ssl_ca_certs=).
#
#   deploy/make-certs.sh DIR NAME [NAME...]      e.g. deploy/make-certs.sh var/certs dashboard.lab 10.0.0.5
#
# The CA (DIR/ca.crt, DIR/ca.key) is made once and kept; each run makes DIR/server.crt and DIR/server.key for the
# names given (host names and IP addresses: the names the workers connect to), signed by it. Keys are 0600.
#
# Run as root, it acts as the owner of the directory that holds DIR (var/'s: the run user's, once set-up has handed
# it over), so that a link that account planted in DIR leads root nowhere; DIR itself must be that account's.
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 DIR NAME [NAME...]" >&2; exit 2; }
dir=$1
shift
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=deploy/lib.sh
source "$ROOT/deploy/lib.sh"
if [ "$(id -u)" -eq 0 ] && owner="$(stat -c %U -- "$(dirname -- "$dir")" 2>/dev/null)" && [ "$owner" != root ]; then
  exec runuser -u "$owner" -- bash "$ROOT/deploy/make-certs.sh" "$dir" "$@"
fi
for path in "$dir" "$dir"/{ca.key,ca.crt,ca.srl,server.key,server.csr,server.crt}; do
  refuse_foreign "$path" "$(id -un)" "make certs"
done
ip_re='^[0-9.]+$|:'
alt_names=()
for name in "$@"; do
  if [[ $name =~ $ip_re ]]; then alt_names+=("IP:$name")
  elif [[ $name =~ ^[A-Za-z0-9.-]+$ ]]; then alt_names+=("DNS:$name")
  else echo "$0: $name is neither a host name nor an IP address" >&2; exit 2
  fi
done
san=$(IFS=,; echo "${alt_names[*]}")

mkdir -p "$dir"
chmod 0755 "$dir"
umask 077
if [ ! -s "$dir/ca.key" ] || [ ! -s "$dir/ca.crt" ]; then
  openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -sha256 -days 3650 \
    -subj "/CN=benchdash local CA" -keyout "$dir/ca.key" -out "$dir/ca.crt" 2>/dev/null
fi
openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 -subj "/CN=$1" \
  -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null
openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial -sha256 -days 825 \
  -extfile <(printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' "$san") \
  -out "$dir/server.crt" 2>/dev/null
rm -f "$dir/server.csr"
chmod 0644 "$dir/ca.crt" "$dir/server.crt"
echo "CA: $dir/ca.crt  server certificate for $san: $dir/server.crt, key $dir/server.key"
