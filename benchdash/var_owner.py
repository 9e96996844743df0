"""`manage.py` run as root acts as the owner of var/, as set-up does and as `make run`'s processes run.

Set-up hands var/ to the run user when that account can reach it; everything under it (secrets, builds, media, ssh,
certs) is then that account's to replace, with a link to any file or directory of root's as well. A command that
stayed root would write, create or chmod through such a link; as var/'s owner it reaches only what that account
may change anyway. A var/ that is root's (a checkout the run user cannot enter) holds nothing another account made.
"""

import os
import pwd
import sys
from pathlib import Path

from workers.local_transport import DEFAULT_LOCAL_USER

DEFAULT_VAR_DIR = Path(__file__).resolve().parent.parent / "var"

# Developers' commands that write into the checkout, never into var/: as var/'s owner they could not write a root
# checkout's locale/ or migrations/, and staying root opens no link of var/ (the secret key is read with O_NOFOLLOW).
CHECKOUT_COMMANDS = frozenset({"compilemessages", "makemessages", "makemigrations"})


def var_dir() -> Path:
    """var/: BENCHDASH_VAR_DIR, else var/ in the checkout."""
    return Path(os.environ.get("BENCHDASH_VAR_DIR", str(DEFAULT_VAR_DIR)))


def become_var_owner(command: str = "") -> None:
    """As root, become var/'s owner when that is another account; nothing otherwise (not root, no var/ yet, or a
    command that writes only into the checkout)."""
    if os.geteuid() != 0 or command in CHECKOUT_COMMANDS:
        return
    try:
        owner = var_dir().stat().st_uid
    except FileNotFoundError:
        return
    if owner == 0:
        return
    try:
        account = pwd.getpwuid(owner)
    except KeyError:
        sys.exit(f"benchdash: {var_dir()} belongs to uid {owner}, which no account has: chown it to the run user")
    _switch_to(account)


def _switch_to(account: pwd.struct_passwd) -> None:
    # As deploy/as-run-user.sh: the clusters of `local` keep their own account, which this one reaches with sudo.
    os.environ.setdefault("BENCHDASH_LOCAL_USER", DEFAULT_LOCAL_USER)
    os.initgroups(account.pw_name, account.pw_gid)
    os.setgid(account.pw_gid)
    os.setuid(account.pw_uid)
    os.environ.update(HOME=account.pw_dir, USER=account.pw_name, LOGNAME=account.pw_name)
