"""The layer order of the source tree and a checker that finds imports pointing up it (parsed with ``ast``).

A module may import its own layer and any layer listed before it, never one listed after it. A module belongs to
the layer with the longest matching prefix. Lazy imports inside functions and ``TYPE_CHECKING`` imports count too:
they couple the code just the same; so does registering a package by name with pyserial
(``serial.protocol_handler_packages.append("hanoibot.link.urlhandler")``), which makes pyserial import it.
"""

from __future__ import annotations

import ast
from pathlib import Path

#: Bottom first. The data flows puzzle -> planner -> motion -> run -> link -> firmware codec; imports point down.
#: The arm room sits just above the base: motion (and anything above it) may import it, it imports none of them.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("firmware", ("hanoifw",)),  # the I/O-free firmware core and the one frame codec; imports no hanoibot code
    ("firmware files", ("hanoibot.data",)),  # a wheel's links to the firmware's main.py and board_config.py
    (
        "base",
        (
            "hanoibot",
            "hanoibot.errors",
            "hanoibot.clock",
            "hanoibot.frozen",
            "hanoibot.firmware_source",
            "hanoibot.board_wiring",
            "hanoibot.words",
            "hanoibot.sim_url",
        ),
    ),  # "hanoibot" = the package root (its version)
    ("arm", ("hanoibot.arm",)),  # the arm as data: chain, IK families, URDF, presets; imports only the base
    ("puzzle", ("hanoibot.puzzle",)),
    ("planner model", ("hanoibot.planner.base", "hanoibot.planner.request")),
    ("planner classic", ("hanoibot.planner.classic",)),
    ("planner general", ("hanoibot.planner.general",)),
    ("planner", ("hanoibot.planner",)),  # the package entry: plan_for, count_for, make_plan
    ("motion", ("hanoibot.motion",)),
    ("config", ("hanoibot.config",)),
    (
        "link rooms",
        tuple(
            f"hanoibot.link.{room}"
            for room in (
                "board_port",  # the port's typed face: clock, simulator view, byte time
                "board_reads",  # how far the board has read its input
                "codes",  # frame kinds and error codes, typed
                "control",  # the control socket `hanoibot estop` talks to
                "dispatch",  # each frame from the board acted on
                "estop_relay",  # the port holder's side of it
                "flight",  # bytes written and not yet known read
                "handshake",  # SYNC until a HELLO
                "heard",  # what the board said: HELLO, STATUS, how far the commands got
                "port",  # opening and reading a pyserial URL
                "port_lock",  # one process per port
                "port_schemes",  # the URL schemes the program offers (sim:// and vpico:// filled in by the sim)
                "probe",  # PINGs, STATUS requests, heartbeats
                "rtt",  # the resend timeout
                "sender",  # the go-back-N window and its (re)sending
                "status",  # HELLO and STATUS parsed
                "timer_loop",  # what each timer does when it fires
                "timers",  # when each timer fires
                "trace",  # the last frames on the wire
                "watch",  # reboot and takeover
                "window",  # the reliable frames unacked
            )
        ),
    ),  # the link's parts, each with one job: none knows the engine that composes them
    ("link", ("hanoibot.link",)),  # the engine (core) and the session
    ("transports", ("hanoibot.link.urlhandler",)),  # the link's own pyserial URL handler: feetech://
    ("render", ("hanoibot.render",)),
    ("sim", ("hanoibot.sim",)),  # with its own URL handlers (sim://, vpico://), offered to the link when imported
    ("run", ("hanoibot.run",)),
    (
        "ops",
        ("hanoibot.ops",),
    ),  # the operations every front end calls: start, resume, home, clear, e-stop, waiting for a person
    ("deploy", ("hanoibot.deploy",)),  # `hanoibot deploy`: mpy-cross and mpremote, then a HELLO over the link
    ("console", ("hanoibot.console",)),  # `hanoibot serve`
    (
        "commands",
        ("hanoibot.commands", "hanoibot.cli", "hanoibot.cli_support", "hanoibot.__main__", "hanoibot.testing"),
    ),  # the sub-commands, the dispatcher and what the sub-commands share
)


def layer_of(module: str) -> int | None:
    """Index in :data:`LAYERS` of the layer ``module`` belongs to (longest prefix), or None for outside code."""
    best: tuple[int, int] | None = None  # (prefix length, layer index)
    for index, (_name, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            exact_root = prefix == "hanoibot" and module == "hanoibot"
            if (exact_root or (prefix != "hanoibot" and (module == prefix or module.startswith(prefix + ".")))) and (
                best is None or len(prefix) > best[0]
            ):
                best = (len(prefix), index)
    return None if best is None else best[1]


def module_name(path: Path, root: Path) -> str:
    """The dotted name of the module in ``path`` below the import root ``root`` (a package's ``__init__`` is the
    package)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path, module: str) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``path``; relative imports resolved against ``module``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.append((node.lineno, target))
        elif _is_handler_registration(node):
            assert isinstance(node, ast.Call)
            found.extend((node.lineno, arg.value) for arg in node.args if isinstance(arg, ast.Constant))
    return found


def _is_handler_registration(node: ast.AST) -> bool:
    """True for ``<...>.protocol_handler_packages.append(...)`` (or ``insert``/``extend``): pyserial will import the
    package named there."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    owner = node.func.value
    named = isinstance(owner, ast.Attribute) and owner.attr == "protocol_handler_packages"
    return named and node.func.attr in ("append", "insert", "extend")


def upward_imports(roots: list[Path]) -> list[str]:
    """Every import under ``roots`` (import roots such as ``host/``) of a layer above the importing module's."""
    problems = []
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            module = module_name(path, root)
            own = layer_of(module)
            if own is None:
                continue
            for line, target in imported_modules(path, module):
                theirs = layer_of(target)
                if theirs is not None and theirs > own:
                    problems.append(
                        f"{path.relative_to(root)}:{line}: {module} ({LAYERS[own][0]}) imports {target} "
                        f"({LAYERS[theirs][0]}, a higher layer)"
                    )
    return problems


#: The front ends: they parse input and render what an operation returns (DESIGN decision 16).
FRONT_ENDS = ("hanoibot.commands", "hanoibot.console", "hanoibot.cli_support", "hanoibot.cli")
#: What a front end reaches only through the operations layer (``hanoibot.ops``).
BEHIND_OPS = ("hanoibot.run", "hanoibot.link")


def _is_in(module: str, packages: tuple[str, ...]) -> bool:
    """True when ``module`` is one of ``packages`` or inside one."""
    return any(module == package or module.startswith(package + ".") for package in packages)


def front_end_reaches(roots: list[Path]) -> list[str]:
    """Every import by a front end module (:data:`FRONT_ENDS`) of the run or the link (:data:`BEHIND_OPS`), lazy
    and ``TYPE_CHECKING`` ones included, as ``path: imported module`` (no line numbers: a list of them survives
    edits), sorted and without repeats."""
    found = set()
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            module = module_name(path, root)
            if not _is_in(module, FRONT_ENDS):
                continue
            for _line, target in imported_modules(path, module):
                if _is_in(target, BEHIND_OPS):
                    found.add(f"{path.relative_to(root).as_posix()}: {target}")
    return sorted(found)


#: Private names any code may use: the namedtuple API and argparse's one public-by-use class.
PUBLIC_PRIVATE_NAMES = frozenset({"_replace", "_asdict", "_fields", "_make", "_SubParsersAction"})


def private_reaches(root: Path, allowed: set[str]) -> list[str]:
    """Every ``x._name`` under ``root`` where ``x`` is not ``self``/``cls`` (one object reaching into another's
    private state), as ``path:line: expression``, except the namedtuple API and the expressions in ``allowed``
    (written ``path: expression``, e.g. a classmethod using its own instance)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        where = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Attribute) or not node.attr.startswith("_") or node.attr.startswith("__"):
                continue
            if node.attr in PUBLIC_PRIVATE_NAMES:
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            text = ast.unparse(node)
            if f"{where}: {text}" not in allowed:
                found.append(f"{where}:{node.lineno}: {text}")
    return found


#: Calls that import the module a constant string names.
_DYNAMIC_IMPORTS = frozenset({"import_module", "__import__"})


def named_modules(path: Path, module: str) -> list[tuple[int, str]]:
    """(line, absolute module name) of every module ``path`` names for import: each of :func:`imported_modules`,
    each ``package.name`` of ``from package import name`` (``from .. import sim`` names ``hanoibot.sim``), and each
    constant string given to ``importlib.import_module`` or ``__import__``."""
    found = imported_modules(path, module)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)] if node.level else []
            target = ".".join([*base, node.module] if node.module else base)
            found.extend((node.lineno, f"{target}.{alias.name}") for alias in node.names)
        elif isinstance(node, ast.Call) and _called_name(node.func) in _DYNAMIC_IMPORTS:
            found.extend((node.lineno, arg.value) for arg in node.args[:1] if isinstance(arg, ast.Constant))
    return [(line, target) for line, target in found if isinstance(target, str)]


def _called_name(func: ast.expr) -> str:
    """The name a call calls: ``f`` for ``f(...)`` and ``m.f(...)``."""
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _module_graph(roots: list[Path]) -> dict[str, tuple[Path, list[tuple[int, str]]]]:
    """Module -> (its file, the modules it names for import) for every module under ``roots``."""
    graph = {}
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            module = module_name(path, root)
            graph[module] = (path.relative_to(root), named_modules(path, module))
    return graph


def package_reaches(roots: list[Path], importer: str, imported: str) -> list[str]:
    """Every way a module of package ``importer`` (``hanoibot.link``) reaches a module of package ``imported``
    (``hanoibot.sim``): by naming it itself (as ``path:line: module imports target``; lazy, ``TYPE_CHECKING``,
    dynamic and pyserial-registration imports count), or through other modules under ``roots`` (as
    ``module -> ... -> target``). None means no import circle between the two can exist."""
    graph = _module_graph(roots)
    problems = []
    for module, (path, targets) in graph.items():
        if not _is_in(module, (importer,)):
            continue
        named: dict[int, str] = {}  # line -> the shortest name of the package on it
        for line, target in targets:
            if _is_in(target, (imported,)) and len(target) < len(named.get(line, target + ".")):
                named[line] = target
        problems.extend(f"{path.as_posix()}:{line}: {module} imports {named[line]}" for line in sorted(named))
    seen: dict[str, list[str]] = {m: [m] for m in graph if _is_in(m, (importer,))}
    todo = list(seen)
    while todo:
        module = todo.pop(0)
        for _line, target in graph[module][1]:
            if target not in graph or target in seen:
                continue
            seen[target] = [*seen[module], target]
            if _is_in(target, (imported,)):
                if len(seen[target]) > 2:  # a chain through another package (a direct one is listed above)
                    problems.append(" -> ".join(seen[target]))
            else:
                todo.append(target)
    return problems
