"""A DB host's pristine data: a data directory as initdb and `pgbench -i` (and the scenario's maintenance of fresh
data) left it, kept once per build, scale, fillfactor, initdb options and maintenance, and copied into a new cluster
instead of loading its data again: by the other scenarios and variants of a study with the same data, and by later
studies on the host. At scale 1000 a copy takes a minute where initdb and `pgbench -i` take ten.

<work_dir>/pristine/<build>-s<scale>-f<fillfactor>[-<initdb options>][-vacuum-full]-<digest of the key>/
  data/           the data directory, copied with the server stopped
  password        the cluster superuser's password, which initdb set inside data/
  pristine.json   what the data was made from (pristine_key); written last, so an entry without it was cut short,
                  and touched whenever a cluster copies the entry: its time is the entry's last use

Which entries go is the store's choice (benchdash/queue/work_dir.py); here they are made, found, copied and listed.
Every command is an argument list through the Transport; the scripts are fixed text, paths travel as arguments.
"""

import hashlib
import json
import posixpath
import secrets
from dataclasses import dataclass

from workers.builds import InstalledBuild
from workers.cluster import Cluster, ClusterError
from workers.paths import path_safe_name
from workers.spec import TrialSpec
from workers.transport import Transport

PRISTINE_DIR = "pristine"
KEY_FILE = "pristine.json"
# Settings that change what `pgbench -i` writes, not only how fast it writes: a study setting one has its own data.
DATA_SETTINGS = ("default_table_access_method", "default_tablespace", "default_toast_compression")
COPY_TIMEOUT_S = 7200
# $1 the part dir, $2 the cluster's data dir, $3 its password file, $4 the key's JSON, $5 the entry, $6 the key
# file's name. The entry appears whole, by one rename; one that another trial made meanwhile stays, and this copy goes.
_SAVE_SCRIPT = r"""
umask 077
part=$1 data=$2 password=$3 key=$4 entry=$5 key_file=$6
rm -rf -- "$part" && mkdir -p -- "$part" || exit 3
cp -a -- "$data" "$part/data" && cp -p -- "$password" "$part/password" || exit 3
printf '%s' "$key" > "$part/$key_file" || exit 3
[ -f "$entry/$key_file" ] || rm -rf -- "$entry"
mv -T -- "$part" "$entry" 2>/dev/null || rm -rf -- "$part"
"""
# $1 the entry, $2 the cluster dir, $3 its data dir, $4 its password file, $5 the key file's name.
_COPY_SCRIPT = r"""
umask 077
entry=$1 cluster=$2 data=$3 password=$4 key_file=$5
rm -rf -- "$data" && mkdir -p -- "$cluster" || exit 3
cp -a -- "$entry/data" "$data" && cp -p -- "$entry/password" "$password" || exit 3
touch -c -- "$entry/$key_file"
"""


def pristine_key(spec: TrialSpec, installed: InstalledBuild) -> dict:
    """What a trial's fresh data is made from: the same key, the same bytes from initdb and `pgbench -i`."""
    settings = {name: spec.pg_settings[name] for name in DATA_SETTINGS if name in spec.pg_settings}
    return {
        "build": spec.build.name,
        "bin_dir": installed.bin_dir,
        "version": installed.version,
        "scale": spec.scale,
        "fillfactor": spec.fillfactor or 100,
        "initdb": spec.initdb_options.tag,
        "maintenance": spec.scenario.reset_vacuum_full,
        "settings": settings,
    }


def _key_text(key: dict) -> str:
    """The key as pristine.json holds it, and as its entry's name digests it."""
    return json.dumps(key, sort_keys=True)


@dataclass(frozen=True)
class PristineData:
    """One entry under <work_dir>/pristine: present or not yet."""

    transport: Transport
    path: str
    key: dict

    @property
    def key_text(self) -> str:
        return _key_text(self.key)

    def present(self) -> bool:
        """Whole (its key written last) and made from this key."""
        result = self.transport.run(["cat", "--", posixpath.join(self.path, KEY_FILE)], check=False, timeout=60)
        return result.ok and result.text == self.key_text

    def copy_into(self, cluster: Cluster) -> None:
        """The cluster's data directory and password replaced by the entry's; the cluster's server must be stopped."""
        argv = ["sh", "-c", _COPY_SCRIPT, "sh", self.path, cluster.cluster_dir, cluster.data_dir, cluster.password_path]
        argv.append(KEY_FILE)
        self._run_copy(argv, "pristine-copy", f"copying the pristine data {self.path}")

    def save_from(self, cluster: Cluster) -> None:
        """Keep the cluster's data as this entry; the cluster's server must be stopped (a whole, checkpointed copy)."""
        part = f"{self.path}.part-{secrets.token_hex(4)}"
        argv = ["sh", "-c", _SAVE_SCRIPT, "sh", part, cluster.data_dir, cluster.password_path, self.key_text, self.path]
        argv.append(KEY_FILE)
        self._run_copy(argv, "pristine-save", f"keeping the pristine data {self.path}")

    def _run_copy(self, argv: list[str], name: str, what: str) -> None:
        result = self.transport.run_long(argv, name=name, timeout=COPY_TIMEOUT_S, check=False)
        if not result.ok:
            raise ClusterError(f"{what} failed on {self.transport.host.name}: {result.text.strip()[-2000:]}")


def pristine_for(transport: Transport, spec: TrialSpec, installed: InstalledBuild) -> PristineData:
    key = pristine_key(spec, installed)
    digest = hashlib.sha256(_key_text(key).encode()).hexdigest()[:12]
    name = "-".join(
        [path_safe_name(spec.build.name) or "build", f"s{int(spec.scale)}", f"f{int(spec.fillfactor or 100)}"]
        + ([path_safe_name(spec.initdb_options.tag)] if spec.initdb_options.tag else [])
        + (["vacuum-full"] if spec.scenario.reset_vacuum_full else [])
        + [digest]
    )
    return PristineData(transport, posixpath.join(transport.host.work_dir, PRISTINE_DIR, name), key)
