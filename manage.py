#!/usr/bin/env python
"""Django's command-line utility for benchdash."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchdash.settings")
    from benchdash.var_owner import become_var_owner

    become_var_owner(
        sys.argv[1] if len(sys.argv) > 1 else ""
    )  # before settings.py, which may write the secret key into var/
    import django
    from django.core.management import execute_from_command_line

    django.setup()
    from benchdash.terminal_language import activate_terminal_language

    activate_terminal_language()  # commands speak the terminal's language, not always LANGUAGE_CODE's
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
