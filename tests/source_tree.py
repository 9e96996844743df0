"""A tiny PostgreSQL-like source tree, so that a source build's whole pipeline runs on real processes in a second.

`./configure --prefix=P [options]` writes config.mk and a pg_config that reports the options as PostgreSQL's does;
`make` compiles postgres.c with the real C compiler; `make install DESTDIR=D` puts bin/postgres (which answers
`-V` like the real one) and bin/pg_config under D/P. `--enable-broken` makes the C file fail to compile.
"""

import io
import posixpath
import tarfile
from pathlib import Path

from workers.transport import Transport

VERSION = "99.1"

CONFIGURE = r"""#!/bin/sh
prefix=/usr/local
cflags=""
cc=cc
for arg in "$@"; do
  case "$arg" in
    --prefix=*) prefix=${arg#--prefix=} ;;
    --enable-broken) cflags="$cflags -DBROKEN" ;;
    CC=*) cc=${arg#CC=} ;;
    --*|*=*) ;;
    *) echo "configure: unknown argument $arg" >&2; exit 1 ;;
  esac
done
echo "checking for C compiler... $cc"
{ echo "prefix=$prefix"; echo "CC=$cc"; echo "EXTRA_CFLAGS=$cflags"; } > config.mk
quoted=""
for arg in "$@"; do quoted="$quoted '$arg'"; done
printf '#!/bin/sh\n[ "$1" = --configure ] && echo "%s"\n' "${quoted# }" > pg_config
"""

MAKEFILE = """include config.mk
all: postgres
postgres: postgres.c
\t$(CC) $(EXTRA_CFLAGS) -o postgres postgres.c
install: all
\tmkdir -p $(DESTDIR)$(prefix)/bin $(DESTDIR)$(prefix)/lib
\tcp postgres pg_config $(DESTDIR)$(prefix)/bin/
\tchmod 755 $(DESTDIR)$(prefix)/bin/postgres $(DESTDIR)$(prefix)/bin/pg_config
"""

POSTGRES_C = f"""#include <stdio.h>
#ifdef BROKEN
#error "fake tree: broken on purpose"
#endif
#define PG_VERSION "{VERSION}"
#define EXTRA ""
int main(void) {{ printf("postgres (PostgreSQL) " PG_VERSION EXTRA "\\n"); return 0; }}
"""

# A patch of the kind seed 004 needed (a counter compiled in), here only visible in `postgres -V`.
LOCK_COUNTERS_PATCH = """--- a/postgres.c
+++ b/postgres.c
@@ -3,5 +3,5 @@
 #error "fake tree: broken on purpose"
 #endif
 #define PG_VERSION "99.1"
-#define EXTRA ""
+#define EXTRA " (lock counters)"
 int main(void) { printf("postgres (PostgreSQL) " PG_VERSION EXTRA "\\n"); return 0; }
"""

# A patch that does not apply to this tree.
STRAY_PATCH = """--- a/postgres.c
+++ b/postgres.c
@@ -1,3 +1,3 @@
-#include <nothing_like_this.h>
+#include <stdlib.h>
 #ifdef BROKEN
 #error "fake tree: broken on purpose"
"""

FILES = {"configure": CONFIGURE, "Makefile": MAKEFILE, "postgres.c": POSTGRES_C}


def source_tarball(directory: Path, name: str = f"fakepg-{VERSION}.tar.gz") -> Path:
    """The tree as a release tarball: one top directory, as PostgreSQL's own."""
    path = directory / name
    with tarfile.open(path, "w:gz") as archive:
        for member_name, text in FILES.items():
            data = text.encode()
            member = tarfile.TarInfo(f"fakepg-{VERSION}/{member_name}")
            member.size, member.mode = len(data), 0o755 if member_name == "configure" else 0o644
            archive.addfile(member, io.BytesIO(data))
    return path


def git_repository(transport: Transport, directory: str) -> str:
    """The tree committed in a git repository on the target, by the target's own account, tagged v99.1."""
    for name, text in FILES.items():
        transport.put_bytes(
            text.encode(), posixpath.join(directory, name), mode=0o755 if name == "configure" else 0o644
        )
    for argv in (
        ["git", "init", "--quiet"],
        ["git", "add", "."],
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "--quiet", "-m", "tree"],
        ["git", "tag", f"v{VERSION}"],
    ):
        transport.run(["git", "-C", directory, *argv[1:]])
    return directory


def patch_file(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text)
    return path
