"""The one exception type the CLI prints as a single line (no traceback)."""


class UserError(Exception):
    """Bad input or an unusable environment; the message says what to fix.

    exit_code 2 follows the convention of command-line tools for usage errors.
    """

    exit_code = 2
