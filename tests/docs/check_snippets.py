#!/usr/bin/env python3
"""Every client snippet in the docs works as written.

Parses each ```json and ```toml block of the given Markdown files (a block
that does not parse fails), finds each server entry whose command is retrace
(an object with "command" ending in "retrace" and "args"), and each
`claude mcp add ... -- retrace ...` line of a ```sh or plain block, and runs that
retrace command line as the client would: in a project directory, with a
fresh home (no ~/.retrace/), stdin at end of input. The server must start,
see the end of its input and exit 0, which it does only when every argument
was accepted and the database could be opened.

The placeholders the docs use stand for that home and project: ${HOME},
${userHome}, ~ and /home/you are the home, ${workspaceFolder} and
/home/you/src/project the project.

usage: check_snippets.py RETRACE MIN_COMMANDS FILE.md...
"""
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import tomllib

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
# A block's language: how to parse it, and what a parse failure raises.
PARSERS = {"json": (json.loads, json.JSONDecodeError), "toml": (tomllib.loads, tomllib.TOMLDecodeError)}


def commands_in(value):
    """The argv lists of every retrace server entry in a parsed snippet."""
    if isinstance(value, dict):
        command = value.get("command")
        if isinstance(command, str) and os.path.basename(command) == "retrace":
            args = value.get("args", [])
            assert isinstance(args, list) and all(isinstance(a, str) for a in args), f"bad args: {args!r}"
            yield args
        for v in value.values():
            yield from commands_in(v)
    elif isinstance(value, list):
        for v in value:
            yield from commands_in(v)


def snippets(path):
    """(where, argv) for each retrace command in the file's snippets."""
    text = open(path, encoding="utf-8").read()
    for match in FENCE.finditer(text):
        lang, body = match.group(1), match.group(2)
        where = f"{path}:{text.count(chr(10), 0, match.start()) + 1}"
        if lang in PARSERS:
            loads, error = PARSERS[lang]
            try:
                parsed = loads(body)
            except error as e:
                sys.exit(f"{where}: the {lang} snippet does not parse: {e}")
            for argv in commands_in(parsed):
                yield where, argv
        elif lang in ("sh", ""):
            for line in body.splitlines():
                if line.startswith("claude mcp add") and " -- retrace " in line:
                    words = shlex.split(line.split(" -- retrace ", 1)[1], comments=True)
                    yield where, words


def substitute(arg, home, project):
    for placeholder, value in (("${workspaceFolder}", project), ("/home/you/src/project", project),
                               ("${userHome}", home), ("${HOME}", home), ("/home/you", home)):
        arg = arg.replace(placeholder, value)
    if arg == "~" or arg.startswith("~/"):
        arg = home + arg[1:]
    return arg


def main():
    retrace, minimum, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    found = 0
    for path in files:
        for where, argv in snippets(path):
            found += 1
            with tempfile.TemporaryDirectory() as scratch:
                home = os.path.join(scratch, "home")
                project = os.path.join(home, "src", "project")
                os.makedirs(project)
                args = [substitute(a, home, project) for a in argv]
                env = dict(os.environ, HOME=home)
                env.pop("RETRACE_DB", None)
                run = subprocess.run([retrace, *args], cwd=project, env=env, stdin=subprocess.DEVNULL,
                                     capture_output=True, text=True, timeout=60)
                if run.returncode != 0:
                    sys.exit(f"{where}: `retrace {' '.join(argv)}` exited {run.returncode}:\n{run.stderr}")
                print(f"{where}: retrace {' '.join(argv)}: ok")
    if found < minimum:
        sys.exit(f"found {found} retrace commands in the snippets, expected at least {minimum}")
    print(f"{found} snippets checked")


if __name__ == "__main__":
    main()
