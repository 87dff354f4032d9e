# The child side of a retrace Code Mode run in Python. retrace starts
# `python3 -I -S -c <this file>` in an empty environment, with a private
# socket on fd 3 carrying newline-delimited JSON, the same messages as
# bootstrap.mjs describes. The program is the body of an async function:
# top-level `await` and `return` both work. `tools` and `ToolCallError` are
# its bindings; print() and writes to sys.stdout/sys.stderr become its logs.
import ast
import asyncio
import builtins
import json
import linecache
import math
import socket
import sys
import traceback

PROGRAM = "<program>"
_sock = socket.socket(fileno=3)
_writer = None
_pending = {}
_next_id = [1]


def _send(message):
    line = json.dumps(message, ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n"
    _writer.write(line.encode("utf-8", "surrogatepass"))


def _lossless(root):
    """Whether root is JSON a JavaScript peer reads back exactly (tuples count as lists)."""
    stack, seen = [root], set()
    while stack:
        v = stack.pop()
        if v is None or isinstance(v, (str, bool)):
            continue
        if isinstance(v, int):
            if float(v) != v or abs(v) > 1.7976931348623157e308:
                return False
            continue
        if isinstance(v, float):
            if not math.isfinite(v) or (v == 0 and math.copysign(1, v) < 0):
                return False
            continue
        if id(v) in seen:
            return False
        if isinstance(v, (list, tuple)):
            seen.add(id(v))
            stack.extend(v)
            continue
        if isinstance(v, dict):
            seen.add(id(v))
            for k, item in v.items():
                if not isinstance(k, str):
                    return False
                stack.append(item)
            continue
        return False
    return True


def _log(text):
    _send({"type": "log", "text": text})


def _print(*args, sep=" ", end="\n", file=None, flush=False):
    if file is not None and file is not sys.stdout and file is not sys.stderr:
        return builtins.print(*args, sep=sep, end=end, file=file, flush=flush)
    text = (" " if sep is None else sep).join(str(a) for a in args)
    if end is not None and end != "\n":
        text += end
    _log(text)


class _LogStream:
    def write(self, text):
        _log(str(text))
        return len(text)

    def flush(self):
        pass


def _make_error_class(descriptor):
    member = descriptor["memberNameProperty"]

    def __init__(self, name, message):
        Exception.__init__(self, message)
        setattr(self, member, name)

    return type(descriptor["name"], (Exception,), {"__init__": __init__, "__module__": "builtins"})


class _Namespace:
    """tools.name(args) and tools["name"](args): a call is one message to the host."""

    def __init__(self, ns, error_class):
        object.__setattr__(self, "_global", ns["global"])
        object.__setattr__(self, "_names", frozenset(ns["names"]))
        object.__setattr__(self, "_error", error_class)

    def _binding(self, name):
        async def call(args):
            if not _lossless(args):  # as dsh's worker does: such arguments never leave the program
                text = "binding arguments must be lossless JSON"
                raise self._error(name, text) if self._error else Exception(text)
            loop = asyncio.get_running_loop()
            future = loop.create_future()
            call_id = _next_id[0]
            _next_id[0] += 1
            _pending[call_id] = (future, name, self._error)
            _send({"type": "call", "id": call_id, "global": self._global, "name": name, "args": args})
            return await future

        return call

    def __getattr__(self, name):
        if name.startswith("__") or name not in self._names:
            raise AttributeError(f"{self._global} has no binding {name!r}")
        return self._binding(name)

    def __getitem__(self, name):
        if name not in self._names:
            raise KeyError(name)
        return self._binding(name)

    def __setattr__(self, name, value):
        raise AttributeError(f"{self._global} is read-only")

    def __dir__(self):
        return sorted(self._names)


def _describe(error):
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == PROGRAM]
    text = "".join(traceback.format_exception_only(type(error), error))
    if frames:
        text = "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames)) + text
    return text.rstrip("\n")


def _compile(code):
    tree = ast.parse(code, PROGRAM, "exec")
    fields = {"name": "__retrace_program__", "body": tree.body or [ast.Pass()], "decorator_list": [], "returns": None,
              "args": ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                                    defaults=[])}
    if "type_params" in ast.AsyncFunctionDef._fields:
        fields["type_params"] = []
    module = ast.Module(body=[ast.AsyncFunctionDef(**fields)], type_ignores=[])
    ast.fix_missing_locations(module)
    linecache.cache[PROGRAM] = (len(code), None, code.splitlines(True), PROGRAM)
    return compile(module, PROGRAM, "exec")


async def _run(start):
    try:
        compiled = _compile(start["code"])
    except SyntaxError as error:
        return {"type": "done", "error": {"kind": "exception", "message": _describe(error)}}
    namespace = {"__name__": "__retrace__", "__builtins__": builtins, "print": _print}
    for ns in start["namespaces"]:
        error_class = _make_error_class(ns["errorClass"]) if ns.get("errorClass") else None
        namespace[ns["global"]] = _Namespace(ns, error_class)
        if error_class is not None:
            namespace[ns["errorClass"]["name"]] = error_class
    try:
        exec(compiled, namespace)
        value = await namespace["__retrace_program__"]()
    except MemoryError:
        return {"type": "done", "error": {"kind": "worker-exit", "message": "the program ran out of memory"}}
    except BaseException as error:  # noqa: BLE001 - everything the program throws is its outcome
        return {"type": "done", "error": {"kind": "exception", "message": _describe(error)}}
    if value is None:
        return {"type": "done"}
    if not _lossless(value):
        return {"type": "done", "error": {"kind": "invalid-output", "message": "program completion must be lossless JSON"}}
    return {"type": "done", "value": value}


async def _main():
    global _writer
    # A reply can be large (binding values have no byte cap): no 64 KiB line limit.
    reader, _writer = await asyncio.open_unix_connection(sock=_sock, limit=1 << 31)
    sys.stdout = sys.stderr = _LogStream()
    program = None
    while True:
        line = await reader.readline()
        if not line:
            return
        message = json.loads(line)
        if program is None and message.get("type") == "start":
            async def finish(start):
                _send(await _run(start))
                await _writer.drain()
            program = asyncio.ensure_future(finish(message))
        elif message.get("type") == "reply" and message.get("id") in _pending:
            future, name, error_class = _pending.pop(message["id"])
            if future.done():
                continue
            if message.get("ok"):
                future.set_result(message.get("value"))
            else:
                text = message.get("message", "")
                future.set_exception(error_class(name, text) if error_class else Exception(text))


asyncio.run(_main())
