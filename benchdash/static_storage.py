"""The static files' storage: hashed names, so that whitenoise serves them compressed and cached for good.

A name is hashed once collectstatic wrote it (set-up and `make run` do); with STATIC_FROM_SOURCE (runserver while
editing static/), or where collectstatic never ran (tests through Django's client), a page names the plain file,
which whitenoise or Django's static view serves from static/.
"""

from django.conf import settings
from django.core.files.storage import FileSystemStorage
from whitenoise.storage import CompressedManifestStaticFilesStorage


class HashedStaticStorage(CompressedManifestStaticFilesStorage):
    def url(self, name: str | None, force: bool = False) -> str:
        if name and not settings.STATIC_FROM_SOURCE and self.hash_key(self.clean_name(name)) in self.hashed_files:
            return super().url(name, force=True)  # hashed in DEBUG too: `make run` serves what set-up collected
        return FileSystemStorage.url(self, name)
