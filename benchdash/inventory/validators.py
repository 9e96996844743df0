"""The one check of a path benchdash hands to a target (work directory, bin directory), for every way in:
the model's fields (so the admin and any ModelForm) and the commands. The rule is the worker's own
(workers/paths.py), which checks it again before it reaches a host."""

from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from workers.paths import MAX_PATH_LENGTH, PathProblem, path_problem

_MESSAGES = {
    PathProblem.EMPTY: _("Enter an absolute path."),
    PathProblem.RELATIVE: _("%(path)s is not an absolute path: it must start with /."),
    PathProblem.CHARACTERS: _(
        "%(path)s has characters a shell could read as code: only letters, digits and / . _ - are allowed."
    ),
    PathProblem.PARENT: _("%(path)s has a .. component: name the directory itself."),
    PathProblem.LENGTH: _("%(path)s is longer than %(limit)s characters."),
}


def validate_target_path(path: str) -> None:
    """Raise ValidationError unless `path` is absolute, of letters, digits and / . _ - only, without `..`."""
    problem = path_problem(path)
    if problem is not None:
        raise ValidationError(
            _MESSAGES[problem], code=f"path_{problem}", params={"path": path, "limit": MAX_PATH_LENGTH}
        )
