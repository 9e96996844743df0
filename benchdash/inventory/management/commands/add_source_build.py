"""`python manage.py add_source_build NAME (--tarball PATH_OR_URL | --git URL --ref REF) [--patch FILE]...
[--configure OPTIONS] [--pg-version X.Y] [--build-on HOST]`: register a PostgreSQL build compiled from source."""

import posixpath
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from benchdash.inventory.host_commands import host_held
from benchdash.inventory.models import Build, Host
from benchdash.inventory.source_builds import SourceBuildRefused, build_record_compile, build_register_source
from workers import source_build
from workers.builds import BuildInstallError, install_build
from workers.transport import TransportError


class Command(BaseCommand):
    help = (
        "Register a PostgreSQL build compiled from source on each target that runs it (cached there by the digest "
        "of source, patches and options); --build-on compiles it now and records its configure line and compiler."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the build's name, as studies and the form name it")
        parser.add_argument("--tarball", default="", help="a source tarball on this worker, or an http(s) URL")
        parser.add_argument("--git", default="", help="a git repository URL (with --ref)")
        parser.add_argument("--ref", default="", help="the branch, tag or commit to build (with --git)")
        parser.add_argument("--patch", action="append", default=[], help="a patch file (patch -p1), repeatable")
        parser.add_argument("--configure", default="", help="configure options, e.g. '--without-icu CFLAGS=-O2'")
        parser.add_argument("--pg-version", default="", help="when the source's name does not say")
        parser.add_argument("--build-on", default="", help="a host to compile it on now (e.g. local)")

    def handle(self, *args: object, **options: Any) -> None:
        if bool(options["git"]) != bool(options["ref"]):
            raise CommandError("--git and --ref go together")
        try:
            build = build_register_source(
                name=options["name"],
                tarball=options["tarball"],
                git_url=options["git"],
                git_ref=options["ref"],
                patches=options["patch"],
                configure_flags=options["configure"],
                version=options["pg_version"],
            )
        except SourceBuildRefused as error:
            raise CommandError(str(error)) from error
        self.stdout.write(f"{build.name}: source build of PostgreSQL {build.version}, digest {build.source_digest}")
        if options["build_on"]:
            self.compile_on(build, options["build_on"])

    def compile_on(self, build: Build, host_name: str) -> None:
        host = Host.objects.filter(name=host_name).first()
        if host is None:
            raise CommandError(f"no host named {host_name!r} (see register_local, or the admin)")
        try:
            with host_held(host.installation_spec()) as transport:
                installed = install_build(transport, build.spec())
                info = source_build.read_build_info(transport, posixpath.dirname(installed.bin_dir))
        except (BuildInstallError, TransportError) as error:
            raise CommandError(str(error)) from error
        build_record_compile(build=build, installed=installed, info=info)
        self.stdout.write(f"compiled on {host.name}: PostgreSQL {installed.version}, {installed.bin_dir}")
        self.stdout.write(f"configure line: {info.configure_line}\ncompiler: {info.compiler}")
