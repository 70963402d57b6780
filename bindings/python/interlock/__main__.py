"""The `interlock` command, for `pip install interlock` users: `interlock ...` (the console script)
and `python -m interlock ...` run the one command the project builds (Tools/interlock, Swift), which
the wheel carries as interlock/bin/interlock. Nothing here parses arguments or prints answers: the
process becomes that program, so its subcommands, output and exit status are the program's own."""

from __future__ import annotations

import os
import sys
from pathlib import Path

_COMMAND = "interlock"


def _candidates() -> list[Path]:
    here = Path(__file__).resolve().parent
    return [here / "bin" / _COMMAND,                                        # installed with the package
            here.parent.parent.parent / "build" / "bin" / _COMMAND]       # a source checkout's build


def command() -> Path | None:
    """The `interlock` program this package runs, or None if there is none."""
    return next((path for path in _candidates() if os.access(path, os.X_OK)), None)


def main() -> None:
    """Replaces the process with the `interlock` program, passing the arguments on; exit status 2
    with one message if the package has no such program."""
    program = command()
    if program is None:
        looked = "; ".join(str(path) for path in _candidates())
        sys.stderr.write(f"interlock: this installation has no interlock command (looked for {looked}); "
                         "build it with make build, or install the wheel\n")
        sys.exit(2)
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(program, [_COMMAND, *sys.argv[1:]])
    except OSError as error:
        sys.stderr.write(f"interlock: cannot run {program}: {error.strerror}\n")
        sys.exit(2)


if __name__ == "__main__":
    main()
